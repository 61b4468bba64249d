"""Synthetic peers for issue 10's aim (a negative result, kept so it can be rerun): the default model
continues each author's own training chunks, and the continuations serve as the surrogate's rivals.

    .venv/bin/python research/probes/anonymization_synthetic_peers.py brontes,problemC:5 2 2 OUT.json
    # then: research/probes/anonymization_aim.py with rival_texts patched to return {"peers": OUT[corpus/author]}

Arguments: corpora (as `fantasma eval`), prompts per training chunk (40 words from an evenly spaced
sentence), sampled continuations per prompt (120 tokens, temperature 1.0, top-p 0.95, top-k 50; cut
where a 3-word sequence repeats, then at the last full sentence; pieces of >= 15 words joined into
~250-word chunks). Needs `fantasma setup`. research/log/anonymization.md "Who must the surrogate know?".
"""

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root
from native_host.engine import Engine, GenerationOptions
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.eval.run import parse_corpus_spec, training_texts
from native_host.paths import default_model_dir

MODEL = default_model_dir()


def clean(text: str) -> str:
    """Cut the continuation where it starts to loop (a 3-word sequence seen before) or at its last full sentence."""
    words = text.split()
    seen = set()
    cut = len(words)
    for i in range(len(words) - 2):
        tri = tuple(w.lower().strip(".,;:!?\"'“”—-") for w in words[i : i + 3])
        if tri in seen:
            cut = i
            break
        seen.add(tri)
    kept = " ".join(words[:cut])
    m = re.search(r"^(.*[.!?][\"'”’)]?)\s", kept + " ", re.S)
    return m.group(1) if m else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("corpora", help="comma-separated, as `fantasma eval --corpora` (NAME or NAME:N)")
    parser.add_argument("positions", type=int, help="prompts per training chunk")
    parser.add_argument("samples", type=int, help="sampled continuations per prompt")
    parser.add_argument("out", type=Path, help="JSON file {corpus/author: [chunks]}; resumed when it exists")
    args = parser.parse_args()
    specs = args.corpora.split(",")
    positions, samples, out = args.positions, args.samples, args.out
    engine = Engine.load(MODEL)
    result = json.loads(out.read_text()) if out.exists() else {}
    for spec in specs:
        name, n = parse_corpus_spec(spec)
        split = split_corpus(find_corpus(name, load_manifest()), n or 3, 10, 30)
        for author in split.authors:
            key = f"{split.corpus}/{author}"
            if key in result:
                continue
            t0, ntok, pieces = time.time(), 0, []
            for c, text in enumerate(training_texts(split, author)):
                sentences = re.split(r"(?<=[.!?])\s+", text)
                for p in range(positions):
                    start = p * len(sentences) // positions
                    prompt = " ".join(" ".join(sentences[start:]).split()[:40])
                    opts = [
                        GenerationOptions(
                            max_new_tokens=120,
                            greedy=False,
                            temperature=1.0,
                            top_p=0.95,
                            top_k=50,
                            seed=10000 * c + 100 * p + j,
                            speculative=False,
                        )
                        for j in range(samples)
                    ]
                    for r in engine.generate_batch(engine.encode(prompt), opts):
                        ntok += len(r.token_ids)
                        piece = clean(r.text)
                        if len(piece.split()) >= 15:
                            pieces.append(piece)
            chunks, cur = [], []
            for piece in pieces:
                cur.append(piece)
                if sum(len(x.split()) for x in cur) >= 250:
                    chunks.append(" ".join(cur))
                    cur = []
            result[key] = chunks
            out.write_text(json.dumps(result, indent=0))
            dt = time.time() - t0
            print(
                key,
                len(pieces),
                "pieces",
                len(chunks),
                f"chunks, {ntok} tokens {dt:.0f}s {ntok / dt:.0f} tok/s",
                flush=True,
            )


if __name__ == "__main__":
    main()
