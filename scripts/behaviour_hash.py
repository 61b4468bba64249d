"""Fingerprints of what the product does with the eval chunks, so a refactor can show it changed nothing.

    python scripts/behaviour_hash.py --home DIR --out hashes.json          # record
    python scripts/behaviour_hash.py --home DIR --against hashes.json     # compare, exit 1 on a difference

For each test chunk of the eval's corpora (`fantasma eval`'s split: 3 authors each): the edits
`native_host.rewrite.edits.propose` offers, and the real host's `rewrite` reply over real pipes at light,
medium and strong (`--llm-windows` adds strong with the LLM windows on, the path a larger model takes).
The reply is hashed as the extension receives it, less its timings and model costs (seconds, which vary
from run to run). DIR is a FANTASMA_HOME where `fantasma setup` ran; each run works on a copy of it,
so the stored model costs of one run cannot reach the next.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VARYING = {"timings", "model_costs", "seconds", "elapsed_s"}


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def strip(value: Any) -> Any:
    """The reply without what varies between two runs of the same code (times)."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def chunks(corpora: tuple[str, ...], per_author: int) -> list[tuple[str, str]]:
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

    manifest = load_manifest()
    out = []
    for name in corpora:
        split = split_corpus(find_corpus(name, manifest), 3, per_author, 0)
        out.extend((f"{name}/{i}", chunk.text) for i, chunk in enumerate(split.test))
    return out


def fingerprints(home: Path, corpora: tuple[str, ...], per_author: int, llm_windows: bool) -> dict[str, str]:
    import os

    from native_host.host.client import HostProcess, host_env
    from native_host.rewrite.edits import propose

    texts = chunks(corpora, per_author)
    out: dict[str, str] = {}
    for key, text in texts:
        out[f"propose {key}"] = digest([(e.start, e.end, e.replacement, e.rule) for e in propose(text)])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "home"
        shutil.copytree(home, work, symlinks=True)
        extra = {"FANTASMA_HOME": str(work)}
        if llm_windows:
            extra["FANTASMA_DEBUG_LLM_WINDOWS"] = "1"
        env = host_env(**extra)
        os.environ["FANTASMA_HOME"] = str(work)
        with HostProcess(env=env) as host:
            strengths = ["light", "medium", "strong"]
            for key, text in texts:
                for strength in strengths:
                    reply = host.result("rewrite", {"text": text, "options": {"strength": strength}}, 600)
                    out[f"rewrite {strength} {key}"] = digest(strip(reply))
                    print(
                        f"{key} {strength}: {out[f'rewrite {strength} {key}']}", file=sys.stderr, flush=True
                    )
            host.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, required=True, help="a FANTASMA_HOME where `fantasma setup` ran")
    parser.add_argument("--corpora", default="federalist,brontes,sotu")
    parser.add_argument("--chunks-per-author", type=int, default=3)
    parser.add_argument("--llm-windows", action="store_true", help="rewrite with LLM windows on (any model)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--against", type=Path)
    args = parser.parse_args()
    found = fingerprints(args.home, tuple(args.corpora.split(",")), args.chunks_per_author, args.llm_windows)
    found["all"] = digest(sorted(found.items()))
    print(f"{len(found) - 1} fingerprints, all: {found['all']}")
    if args.out:
        args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    if args.against:
        expected = json.loads(args.against.read_text())
        differ = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
        for key in differ:
            print(f"differs: {key}: {expected.get(key)} -> {found.get(key)}")
        print("identical" if not differ else f"{len(differ)} differ")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
