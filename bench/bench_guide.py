#!/usr/bin/env python3
"""Speed of the guide (native_host/guide/analysis.py) as the writer types, beside the full analysis.

A 300-word text of held-out Federalist prose, scored against Hamilton's training chunks (profile mode,
as a writer with samples) and by typicality; the writer "types" one word at a time at the end of a
sentence in the middle of the text, and each keystroke-level edit is guided with the one GuideCache.
Prints the median and 95th-percentile milliseconds of those calls (goal: <= 150 ms on 2 cores after the
first call), the first (cold) call, the same through a real host's `guide` requests, and the full analysis of the same text (`analyze`'s work: the
marker report plus the identifiability report with its per-sentence contributions) with the ratio
guide / full analysis.

Beside a long job (`--beside`): the same typing through the same host while a job runs in its job lane,
as the ratio of those `guide` requests' median (and p95) to the idle ones measured in the same host just
before (goal: the guide stays within GOAL_MS while another job runs; docs/host.md "Threads"): a
`neutralize` of a 60,000-word text (no model: pure Python, the most the job can take of the interpreter);
when a model is found (`--model-dir`, default the installed embedded model; the meaning check is
exported into a scratch dir when `--embedder-dir` is not given), a strong `rewrite` of the text, and a
`guide.alternatives` for its longest sentence (what the composer runs when the writer picks a sentence,
who may go on typing while it loads), beside which the guides are sent at the composer's cadence, one
per pause in typing, so that they spread over the job's steps (loading, rule search, the model writing).
A job that ends is started again; a guide during which the job ended is not counted. `--beside-jobs`
picks which of the three run.

Beside the alternatives, the keystroke → meter time is the composer's pause in typing (GUIDE_DEBOUNCE_MS,
read from extension/composer/composer.js) plus the `guide` request's time: its median (and p95) is
printed against the 1 s goal (KEYSTROKE_GOAL_MS), over all the guides beside the job and over those that
started while the model was writing (the job's last progress: "asking the model", before its end).

Usage: .venv/bin/python bench/bench_guide.py [--words 300] [--edits 40] [--beside] [--model-dir DIR]
                                             [--beside-jobs neutralize,rewrite,guide.alternatives]
"""

from __future__ import annotations

import argparse
import queue
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from native_host import style
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.guide.analysis import GuideCache, guide
from native_host.style.identify import Identifiability
from native_host.style.sentences import sentence_spans

GOAL_MS = 150.0
KEYSTROKE_GOAL_MS = 1000.0  # a keystroke in the composer to the meter for the new text, beside alternatives
BESIDE_JOBS = ("neutralize", "rewrite", "guide.alternatives")
MODEL_STAGE = (
    0.5  # the alternatives' progress from which their model writes (native_host/guide/alternatives.py)
)
TYPED = "and so the writer went on adding words to this sentence one at a time".split()


def typed(k: int) -> str:
    """What the writer has typed after k + 1 words: never the same text twice (no repeat hits the cache)."""
    return " " + " ".join(TYPED[i % len(TYPED)] for i in range(k + 1))


def text_of(words: int) -> tuple[str, list[str]]:
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 3, 6)
    train = [c.text for c in split.train if c.author == "Hamilton"]
    held = " ".join(c.text for c in split.test)
    return " ".join(held.split()[:words]), train


def full_analysis(ident: Identifiability, text: str) -> float:
    t = time.perf_counter()
    style.analyze(text)
    ident.score(text)
    return time.perf_counter() - t


def typing(ident: Identifiability, text: str, edits: int) -> tuple[float, list[float]]:
    """(the first call's seconds, each later call's) while words are typed into a middle sentence."""
    spans = sentence_spans(text)
    _, end = spans[len(spans) // 2]
    cache = GuideCache()
    t = time.perf_counter()
    guide(ident, text, cache)
    first = time.perf_counter() - t
    times = []
    for k in range(edits):
        current = text[: end - 1] + typed(k) + text[end - 1 :]
        t = time.perf_counter()
        guide(ident, current, cache)
        times.append(time.perf_counter() - t)
    return first, times


def over_pipes(
    text: str,
    samples: list[str],
    edits: int,
    beside: bool = False,
    models: tuple[Path, Path] | None = None,
    alone: dict[str, float] | None = None,
    wanted: tuple[str, ...] = BESIDE_JOBS,
    writing: list[bool] | None = None,
) -> tuple[float, list[float], dict[str, list[float]]]:
    """The same typing through a real host (`guide` requests over its pipes, samples stored with
    `profile.add` in a scratch FANTASMA_HOME): what the composer waits for, request to reply. With
    `beside`, the same again while each long job of `wanted` runs (the model's only with `models`):
    {job: the guide's seconds}; then each job once alone, its seconds into `alone`; for each guide beside
    `guide.alternatives`, whether the model was writing when it was sent, into `writing`."""
    from native_host.host.client import HostProcess, host_env

    spans = sentence_spans(text)
    _, end = spans[len(spans) // 2]
    during: dict[str, list[float]] = {}
    alone = alone if alone is not None else {}
    with tempfile.TemporaryDirectory() as home:
        if models:
            link_models(Path(home), *models)
        with HostProcess(env=host_env(FANTASMA_HOME=home)) as host:
            for k in range(0, len(samples), 2):
                host.result("profile.add", {"text": "\n\n".join(samples[k : k + 2])}, timeout=120)
            t = time.perf_counter()
            report = host.result("guide", {"text": text}, timeout=120)
            first = time.perf_counter() - t
            times = typing_over(host, text, end, edits)
            if beside:
                long_text = "\n\n".join([text] * 200)  # ~60,000 words
                jobs: dict[str, tuple[str, dict[str, Any]]] = {
                    "neutralize": ("neutralize", {"text": long_text})
                }
                if models:
                    jobs["rewrite"] = ("rewrite", {"text": text, "options": {"strength": "strong"}})
                    # the longest sentence: the model's window on it takes longest to write
                    longest = max(report["sentences"], key=lambda s: s["end"] - s["start"])
                    span = {"start": longest["start"], "end": longest["end"], "max": 3}
                    jobs["guide.alternatives"] = ("guide.alternatives", {"text": text, **span})
                for name, job in jobs.items():
                    if name not in wanted:
                        continue
                    if name == "guide.alternatives":
                        # at the composer's cadence (a guide per pause in typing), so the guides spread
                        # over the job's steps: loading, the rule search, the model writing
                        pause = composer_pause_ms() / 1e3
                        during[name] = typing_over(host, text, end, edits, job, writing, pause)
                    else:
                        during[name] = typing_over(host, text, end, edits, job)
                    t = time.perf_counter()  # the job alone: what a guide queued behind it waits for
                    reply, _ = host.final(host.send(*job), timeout=600)
                    assert reply["type"] == "result", reply
                    alone[name] = time.perf_counter() - t
            host.close()
    return first, times, during


def typing_over(
    host: Any,
    text: str,
    end: int,
    edits: int,
    job: tuple[str, dict] | None = None,
    writing: list[bool] | None = None,
    pause: float = 0.0,
) -> list[float]:
    """Each `guide` request's seconds while words are typed into the sentence ending at `end`; with `job`,
    while that job runs (started again whenever it ends; a guide during which it ended is not counted).
    `writing` gets, per counted guide, whether the job's model was writing when the guide was sent;
    `pause`: seconds between one guide's reply and the next request (0: back to back)."""
    times: list[float] = []
    running = host.send(*job) if job else None
    if running:
        _wait_for_progress(host, running)
    k = 0
    while len(times) < edits:
        current = text[: end - 1] + typed(k) + text[end - 1 :]
        k += 1
        if pause:
            _read_for(host, pause)
        model = running is not None and _model_writing(host, running)
        t = time.perf_counter()
        host.result("guide", {"text": current}, timeout=120)
        elapsed = time.perf_counter() - t
        if running and _ended(host, running):
            running = host.send(*job)  # type: ignore[misc]
            _wait_for_progress(host, running)
            continue
        times.append(elapsed)
        if writing is not None:
            writing.append(model)
    if running:
        host.send("cancel", {"target": running})
        host.final(running, timeout=300)
    return times


def _ended(host: Any, request_id: str) -> bool:
    return any(m.get("id") == request_id and m["type"] in ("result", "error", "part") for m in host.other)


def _read_for(host: Any, seconds: float) -> None:
    """Waits `seconds`, keeping what the host sends meanwhile in `host.other` (the job's progress)."""
    deadline = time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        try:
            host.other.append(host.messages.get(timeout=left))
        except queue.Empty:
            return


def _model_writing(host: Any, request_id: str) -> bool:
    """Whether the job's last progress so far says its model is writing (the alternatives' model step)."""
    last = next(
        (m for m in reversed(host.other) if m.get("id") == request_id and m["type"] == "progress"), None
    )
    fraction = last.get("fraction") if last else None
    return last is not None and last["stage"] == "alternatives" and MODEL_STAGE <= (fraction or 0) < 1


def composer_pause_ms() -> float:
    """The composer's pause in typing before it asks `guide` (GUIDE_DEBOUNCE_MS in composer.js)."""
    source = (Path(__file__).resolve().parents[1] / "extension" / "composer" / "composer.js").read_text()
    match = re.search(r"GUIDE_DEBOUNCE_MS\s*=\s*([\d_]+)", source)
    assert match, "GUIDE_DEBOUNCE_MS not found in extension/composer/composer.js"
    return float(match.group(1).replace("_", ""))


def _wait_for_progress(host: Any, request_id: str) -> None:
    """Until the job sends its first progress of work (it has left the queue and started)."""
    while True:
        message = host.recv(300)
        host.other.append(message)
        if message.get("id") == request_id and message["type"] == "progress" and message["stage"] != "queued":
            return


def link_models(home: Path, model_dir: Path, embedder_dir: Path) -> None:
    """The model dirs linked into the scratch FANTASMA_HOME where a user's install has the embedded ones
    (the model answers as the embedded default)."""
    from native_host import paths

    models = home / "data" / "models"
    models.mkdir(parents=True, exist_ok=True)
    (models / paths.default_model_dir().name).symlink_to(model_dir.resolve(), target_is_directory=True)
    (models / paths.embedder_dir().name).symlink_to(embedder_dir.resolve(), target_is_directory=True)


def find_models(model_dir: Path | None, embedder_dir: Path | None, scratch: Path) -> tuple[Path, Path] | None:
    """(the model dir, the embedder dir) for the rewrite beside the guide, or None (said why)."""
    from native_host import paths

    model_dir = model_dir or paths.default_model_dir()
    if not (model_dir / "fantasma_model.json").is_file():
        print(
            f"no model in {model_dir} (run `fantasma setup`, or pass --model-dir): no rewrite beside the guide"
        )
        return None
    if embedder_dir is None:
        from export.bert import embedder_ready, export_default_embedder

        embedder_dir = paths.embedder_dir()
        if not embedder_ready(embedder_dir):
            embedder_dir = export_default_embedder(scratch / "all-minilm-l6-v2").parent
    return model_dir, embedder_dir


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--words", type=int, default=300)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--beside", action="store_true", help="also measure the guide beside long jobs")
    parser.add_argument("--model-dir", type=Path, help="the model the rewrite beside the guide runs with")
    parser.add_argument("--embedder-dir", type=Path, help="the meaning check's dir (exported when absent)")
    parser.add_argument(
        "--beside-jobs",
        default=",".join(BESIDE_JOBS),
        help=f"which jobs to run beside the guide, comma-separated (default: {','.join(BESIDE_JOBS)})",
    )
    args = parser.parse_args()
    wanted = tuple(job for job in args.beside_jobs.split(",") if job)
    if unknown := set(wanted) - set(BESIDE_JOBS):
        parser.error(f"--beside-jobs: unknown {', '.join(sorted(unknown))}")
    text, samples = text_of(args.words)
    print(f"text: {len(text.split())} words, {len(sentence_spans(text))} sentences")
    worst = 0.0
    for mode, ident in (
        ("profile", Identifiability.from_texts(samples)),
        ("typicality", Identifiability.load(None)),
    ):
        full_analysis(ident, text)  # warm: tables and models loaded once, as in a running host
        full = statistics.median(full_analysis(ident, text) for _ in range(5))
        first, times = typing(ident, text, args.edits)
        median = statistics.median(times)
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        worst = max(worst, p95)
        print(
            f"{mode:10s} guide after the first call: median {median * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms "
            f"(first {first * 1e3:.1f} ms); full analysis {full * 1e3:.1f} ms; "
            f"guide / full analysis = {median / full:.2f}"
        )
    with tempfile.TemporaryDirectory() as scratch:
        models = find_models(args.model_dir, args.embedder_dir, Path(scratch)) if args.beside else None
        alone: dict[str, float] = {}
        writing: list[bool] = []
        first, times, during = over_pipes(
            text, samples, args.edits, args.beside, models, alone, wanted, writing
        )
    median, p95 = statistics.median(times), _p95(times)
    worst = max(worst, p95)
    print(
        f"host       `guide` over real pipes, profile: median {median * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms "
        f"(first {first * 1e3:.1f} ms, which trains the profile)"
    )
    for job, beside in during.items():
        m, p = statistics.median(beside), _p95(beside)
        worst = max(worst, p)
        print(
            f"host       `guide` beside a running {job:10s}: median {m * 1e3:.1f} ms, p95 {p * 1e3:.1f} ms; "
            f"beside / idle = {m / median:.2f} (median), {p / p95:.2f} (p95); the {job} alone took "
            f"{alone[job]:.1f} s (what a guide queued behind it would wait)"
        )
    if "guide.alternatives" in during:
        keystroke_goal(during["guide.alternatives"], writing)
    print(
        f"goal <= {GOAL_MS:.0f} ms after the first call (p95): {'met' if worst * 1e3 <= GOAL_MS else 'NOT met'}"
    )
    return 0


def keystroke_goal(beside: list[float], writing: list[bool]) -> None:
    """The keystroke → meter time beside `guide.alternatives` (the composer's pause plus the guide's
    request), over all its guides and over those sent while the model was writing, against the 1 s goal."""
    pause = composer_pause_ms()
    groups = {"all": beside, "the model writing": [t for t, w in zip(beside, writing, strict=True) if w]}
    for name, times in groups.items():
        if not times:
            print(f"keystroke -> meter beside guide.alternatives ({name}): no guide was sent then")
            continue
        m, p = pause + statistics.median(times) * 1e3, pause + _p95(times) * 1e3
        print(
            f"keystroke -> meter beside guide.alternatives ({name}, {len(times)} guides): the composer's "
            f"{pause:.0f} ms pause + the guide = median {m:.0f} ms, p95 {p:.0f} ms; goal <= "
            f"{KEYSTROKE_GOAL_MS:.0f} ms (median): {'met' if m <= KEYSTROKE_GOAL_MS else 'NOT met'}"
        )


def _p95(times: list[float]) -> float:
    return sorted(times)[int(0.95 * (len(times) - 1))]


if __name__ == "__main__":
    raise SystemExit(main())
