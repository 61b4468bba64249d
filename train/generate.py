"""Step 2–3 of a round: K candidates per window from the current model through our own engine, judged by
the pipeline's guard chain, ranked, written to a jsonl file one window per line.

The prompt, the token budget, the stop string, the sampling temperature, the wrapper stripping, the
neutralizer pass and the guards (copy, chatter, length, protected tokens, facts, new markers, meaning)
are the pipeline's own (native_host/rewrite/llm_windows.py), so a candidate kept here is one the pipeline
would have accepted. Ranking: the pipeline's score (meaning + markers removed + surface change), plus
the identifiability drop where native_host/style/identify.py exists.

Resumable: a window's line is appended (and flushed to disk) as soon as it is judged; a rerun skips
the ids already in the file and drops a half-written last line.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import style
from native_host.rewrite import guards, llm_windows
from native_host.rewrite.options import MAX_NEW_TOKENS
from native_host.style.markers import count_markers
from train.data import TrainingWindow

W_IDENTIFIABILITY = 1.0  # score bonus per unit of identifiability removed (0..1 scale)


@dataclass(frozen=True)
class GenerateConfig:
    candidates: int = 4  # 1 greedy + (K-1) sampled, as the pipeline draws them
    temperature: float = llm_windows.SAMPLE_TEMPERATURE
    max_new_tokens: int = MAX_NEW_TOKENS
    min_similarity: float = guards.MIN_SIMILARITY  # the pipeline's threshold; never loosened here
    seed: int = 0


def _identifiability() -> Callable[[str], float] | None:
    """The attack surrogate's score function when it has landed (issue 10), else None."""
    try:
        from native_host.style.identify import Identifiability  # type: ignore[import-not-found]

        model = Identifiability.load()
    except Exception:
        return None
    return lambda text: float(model.score(text).score)


def _seed(seed: int, window_id: str, i: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}:{window_id}:{i}".encode()).digest()[:4], "little")


def completion_ids(engine: Any, messages: list[dict], prompt_ids: list[int], answer: str) -> list[int]:
    """Token ids of `answer` as the assistant turn, through the chat template, ending with the end-of-turn
    token: exactly what the model must emit after `prompt_ids` to produce `answer` and stop."""
    full = engine.encode(
        engine.render_chat([*messages, {"role": "assistant", "content": answer}], add_generation_prompt=False)
    )
    if full[: len(prompt_ids)] != prompt_ids:
        raise ValueError("the chat template does not render the prompt as a prefix of the full chat")
    tail = full[len(prompt_ids) :]
    for i, token in enumerate(tail):
        if token in engine.eos_token_ids:
            return tail[: i + 1]
    raise ValueError("the chat template ends the assistant turn with no end-of-turn token")


def window_messages(source: str, engine: Any = None) -> list[dict]:
    """The chat messages the pipeline sends `engine`'s model for `source` (its markers and protected
    tokens named; the restructuring prompt for a model above the size threshold)."""
    required = guards.protected_tokens(source, (), style.protected_spans(source))
    return llm_windows.window_messages(engine, source, list(count_markers(source)), required)


def judge_window(
    engine: Any,
    embedder: Any,
    window: TrainingWindow,
    config: GenerateConfig,
    identifiability: Callable[[str], float] | None = None,
) -> dict:
    """One window: prompt, K candidates, each candidate's guard verdict and score. Returns the jsonl record."""
    source = window.text
    required = guards.protected_tokens(source, (), style.protected_spans(source))
    source_markers = count_markers(source)
    messages = llm_windows.window_messages(engine, source, list(source_markers), required)
    prompt_ids = engine.encode(engine.render_chat(messages, add_generation_prompt=True))
    budget = llm_windows.token_budget(engine, source, config.max_new_tokens)
    seeds = [_seed(config.seed, window.id, i) for i in range(config.candidates)]
    options = llm_windows.candidate_options(budget, seeds, config.temperature)
    llm_windows.warm_prefix(engine)
    started = time.perf_counter()
    results = [engine.generate(prompt_ids, options[0])]
    if len(options) > 2:
        results.extend(engine.generate_batch(prompt_ids, options[1:]))
    elif len(options) == 2:
        results.append(engine.generate(prompt_ids, options[1]))
    generate_s = time.perf_counter() - started

    candidates: list[dict] = []
    survivors: list[int] = []
    for n, result in enumerate(results):
        text = style.neutralize(guards.strip_wrappers(result.text, source))[0].strip()
        entry: dict[str, Any] = {"n": n, "raw": result.text, "text": text, "tokens": len(result.token_ids)}
        candidates.append(entry)
        if any(text == candidates[k]["text"] for k in survivors):
            entry["guard"] = "duplicate"
        elif " ".join(text.split()) == " ".join(source.split()):
            entry["guard"], entry["detail"] = "copy", "copied the input unchanged"
        else:
            verdict = llm_windows.cheap_guards(text, source, required, source_markers)
            if verdict.ok:
                survivors.append(n)
            else:
                entry["guard"], entry["detail"] = verdict.guard, verdict.detail
    if survivors:
        similarities = embedder.similarities(source, [candidates[n]["text"] for n in survivors])
        before = sum(source_markers.values())
        ident_before = identifiability(source) if identifiability else None
        for n, similarity in zip(survivors, similarities, strict=True):
            entry = candidates[n]
            entry["similarity"] = round(similarity, 4)
            verdict = guards.check_similarity(similarity, config.min_similarity)
            if not verdict.ok:
                entry["guard"], entry["detail"] = verdict.guard, verdict.detail
                continue
            removed, change, score = llm_windows.score_candidate(source, entry["text"], similarity, before)
            if identifiability is not None and ident_before is not None:
                entry["identifiability_drop"] = round(ident_before - identifiability(entry["text"]), 4)
                score += W_IDENTIFIABILITY * entry["identifiability_drop"]
            entry.update(guard="", removed=round(removed, 4), change=round(change, 4), score=round(score, 4))
    accepted = [c for c in candidates if c.get("guard") == ""]
    best = max(accepted, key=lambda c: c["score"]) if accepted else None
    record = {
        **window.to_json(),
        "prompt_ids": prompt_ids,
        "candidates": candidates,
        "best": None if best is None else best["n"],
        "generate_s": round(generate_s, 3),
        "generated_tokens": sum(c["tokens"] for c in candidates),
    }
    if best is not None:
        record["target_ids"] = completion_ids(engine, messages, prompt_ids, best["text"])
    return record


def read_records(path: Path) -> list[dict]:
    """Complete lines of a generation file; a half-written last line (a killed run) is cut off."""
    path = Path(path)
    if not path.exists():
        return []
    raw = path.read_bytes()
    keep = raw[: raw.rfind(b"\n") + 1]
    if len(keep) != len(raw):
        with path.open("r+b") as f:
            f.truncate(len(keep))
    return [json.loads(line) for line in keep.decode("utf-8").splitlines() if line.strip()]


def summarize(records: Iterable[dict]) -> dict:
    records = list(records)
    rejected: Counter[str] = Counter()
    for r in records:
        for c in r["candidates"]:
            if c.get("guard"):
                rejected[c["guard"]] += 1
    seconds = sum(r["generate_s"] for r in records)
    candidates = sum(len(r["candidates"]) for r in records)
    tokens = sum(r["generated_tokens"] for r in records)
    kept = [r for r in records if r["best"] is not None]
    changes = [c["change"] for r in kept for c in r["candidates"] if c["n"] == r["best"]]
    return {
        "windows": len(records),
        "windows_accepted": len(kept),
        "accepted_share": round(len(kept) / len(records), 4) if records else 0.0,
        "candidates": candidates,
        "candidates_accepted": sum(1 for r in records for c in r["candidates"] if c.get("guard") == ""),
        "rejected_by_guard": dict(rejected.most_common()),
        "generate_s": round(seconds, 1),
        "candidates_per_s": round(candidates / seconds, 3) if seconds else None,
        "tokens_per_s": round(tokens / seconds, 1) if seconds else None,
        "mean_surface_change_of_best": round(sum(changes) / len(changes), 4) if changes else None,
    }


def generate(
    windows: list[TrainingWindow],
    model_dir: Path,
    out_path: Path,
    config: GenerateConfig,
    embedder_dir: Path | None = None,
    stop_after: int | None = None,
    show_progress: bool = True,
) -> dict:
    """Judge every window not yet in `out_path` (appending), then return the summary of the whole file.

    `stop_after` judges at most that many new windows (for tests of resuming)."""
    from tqdm import tqdm

    from native_host import paths
    from native_host.engine import Engine
    from native_host.engine.embedder import Embedder

    done = {r["id"] for r in read_records(out_path)}
    todo = [w for w in windows if w.id not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    if todo:
        engine = Engine.load(Path(model_dir))
        embedder = Embedder(Path(embedder_dir) if embedder_dir else paths.embedder_dir())
        identifiability = _identifiability()
        out_path.parent.mkdir(parents=True, exist_ok=True)
        bar = tqdm(
            total=len(windows), initial=len(done), desc="candidates", unit="window", disable=not show_progress
        )
        with out_path.open("a", encoding="utf-8") as f:
            for window in todo:
                record = judge_window(engine, embedder, window, config, identifiability)
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
                bar.update(1)
        bar.close()
    return summarize(read_records(out_path))
