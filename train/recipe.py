"""The whole self-training recipe (ReST / expert iteration), round after round, resumable:

    windows (train/data.py) ─► split into one fresh slice per round
    round r:  model_{r-1} (int4 ONNX; round 1: the base export)
                ─► K candidates per window through the engine, guards, ranking   round_r/candidates.jsonl
                ─► best accepted candidate of every window of rounds 1..r          round_r/train.jsonl
                ─► LoRA from the base weights on that data (torch)                 round_r/lora/
                ─► merge (numpy) + int4 export                                     round_r/model/
    last round's adapter + manifest (sha256, command, seed, data)                  adapter.safetensors, adapter.json

Each stage writes its output atomically or appends line by line, and a finished stage is skipped on a
rerun, so a killed run goes on where it stopped (`fantasma train` with the same arguments).

A run can be extended: rerun with more `--rounds` and `--windows` (and another selection or generating
model) and the finished rounds stay as they are; the new rounds get the windows no round has used
(windows.jsonl grows with the same seeded draw). Each round records its windows and generating model
in `slice.json` when it starts.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from train.data import DEFAULT_CORPORA, TrainingWindow, training_windows
from train.generate import GenerateConfig, generate, read_records
from train.lora import LoraTrainConfig, train_adapter
from train.select import ChunkIdentifiability, SelectionConfig, select_examples

# Settings a rerun may change on an existing run dir: they shape the rounds still to come only.
EXTENSIBLE = ("windows", "rounds", "selection", "generate_from_round", "candidates")


def _settings_view(config: dict) -> dict:
    """A run's recorded settings with the candidates per window lifted out of `generate` (the only
    generation setting a later round may change: candidate i's seed does not depend on K, so K = 8 draws
    the K = 4 candidates and four more; the guards' thresholds, the temperature and the budget stay)."""
    view = {k: v for k, v in config.items() if k != "generate"}
    generate = dict(config.get("generate") or {})
    view["candidates"] = generate.pop("candidates", None)
    view["generate"] = generate
    return view


@dataclass(frozen=True)
class RecipeConfig:
    base: str  # GGUF file or Hugging Face dir (the weights trained and merged into)
    corpora: tuple[str, ...] = DEFAULT_CORPORA
    windows: int = 300  # over all rounds (each round gets a fresh slice)
    rounds: int = 2
    generate: GenerateConfig = field(default_factory=GenerateConfig)
    lora: LoraTrainConfig = field(default_factory=LoraTrainConfig)
    precision: str = "int4"  # of the model dirs the rounds generate with
    seed: int = 0
    # None: the pipeline's best accepted candidate of each window (rounds 1–2 of the first run);
    # else the stricter training selection of train/select.py.
    selection: SelectionConfig | None = field(default_factory=SelectionConfig)
    generate_from_round: int | None = None  # None: each round generates with the previous round's model


def _write_text(path: Path, text: str) -> None:
    """`path` replaced whole: a full disk leaves the old file (or none), never half of one or a stray temp."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _write_json(path: Path, data: dict) -> None:
    _write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _say(message: str) -> None:
    print(f"[train {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _export(base: Path, out_dir: Path, adapter_path: Path | None, precision: str) -> None:
    from export.graph import Precision
    from export.lora import export_merged, load_adapter
    from export.registry import ExportOptions

    if (out_dir / "model.onnx").is_file() and (out_dir / "fantasma_model.json").is_file():
        return
    adapter = load_adapter(adapter_path) if adapter_path else None
    label = f"{base.name}+lora:{adapter.sha256[:12]}" if adapter else base.name
    export_merged(base, out_dir, adapter, ExportOptions(Precision(precision), source_label=label))


def _round_slice(
    round_dir: Path, r: int, config: RecipeConfig, windows: list[TrainingWindow], used: set[str]
) -> tuple[list[TrainingWindow], int]:
    """(windows, round whose model generates) of round `r`: as recorded in its slice.json, else (a
    round finished before slice files existed) the windows of its candidates.jsonl, else dealt now:
    every (rounds - r + 1)-th window no earlier round used. For a fresh run that is windows[r-1::rounds],
    the slicing of the first runs."""
    by_id = {w.id: w for w in windows}
    path = round_dir / "slice.json"
    if path.exists():
        recorded = json.loads(path.read_text())
        return [by_id[i] for i in recorded["windows"]], recorded["generate_from_round"]
    if (round_dir / "metrics.json").exists():
        return [by_id[rec["id"]] for rec in read_records(round_dir / "candidates.jsonl")], r - 1
    unused = [w for w in windows if w.id not in used]
    chosen = unused[:: max(1, config.rounds - r + 1)]
    source = r - 1 if config.generate_from_round is None else min(config.generate_from_round, r - 1)
    round_dir.mkdir(parents=True, exist_ok=True)
    _write_json(path, {"windows": [w.id for w in chosen], "generate_from_round": source})
    return chosen, source


def _extend_windows(windows: list[TrainingWindow], config: RecipeConfig) -> list[TrainingWindow]:
    """`windows` plus the seeded draw's windows past their count (a draw of more windows repeats the
    smaller one's order; the neutralizer may have changed a few texts since, hence the id check)."""
    if len(windows) >= config.windows:
        return windows
    known = {w.id for w in windows}
    draw = training_windows(config.corpora, config.windows, config.seed)
    return windows + [w for w in draw[len(windows) :] if w.id not in known]


def _pipeline_examples(rounds_dirs: list[Path]) -> list[dict]:
    """The best accepted candidate of every window generated so far (latest round wins a repeat)."""
    best: dict[str, dict] = {}
    for directory in rounds_dirs:
        for record in read_records(directory / "candidates.jsonl"):
            if record["best"] is None:
                continue
            chosen = next(c for c in record["candidates"] if c["n"] == record["best"])
            best[record["id"]] = {
                "id": record["id"],
                "source": record["text"],
                "rewrite": chosen["text"],
                "score": chosen["score"],
                "prompt_ids": record["prompt_ids"],
                "target_ids": record["target_ids"],
            }
    return list(best.values())


def _strict_examples(
    round_dirs: list[Path], judge_dir: Path, config: RecipeConfig, show_progress: bool
) -> tuple[list[dict], dict]:
    """train/select.py over every round's candidates so far; fluency judged by the base model (not by
    a tuned model that would vouch for its own habits)."""
    from native_host.engine import Engine

    assert config.selection is not None
    records = [rec for d in round_dirs for rec in read_records(d / "candidates.jsonl")]
    judge = Engine.load(judge_dir)
    identifiability = ChunkIdentifiability(config.corpora, config.seed)
    return select_examples(records, judge, config.selection, identifiability, show_progress=show_progress)


class TooLittleData(ValueError):
    """The selection kept fewer examples than asked for; generation is kept, nothing is trained."""


def record_settings(recorded: Path, settings: dict, command: str) -> None:
    """Write a new run's settings and command to recipe.json, or check a rerun's against them: a rerun
    may add windows and rounds, change the selection, the generating round and the candidates per window
    (an extension, appended with its command), and nothing else."""
    if recorded.exists():
        history = json.loads(recorded.read_text())
        now = json.loads(json.dumps(settings))
        previous, now_view = _settings_view(history["config"]), _settings_view(now)
        fixed = [
            k
            for k in set(previous) | set(now_view)
            if k not in EXTENSIBLE and previous.get(k) != now_view.get(k)
        ]
        if fixed:
            raise ValueError(
                f"{recorded.parent} holds a run with other settings ({', '.join(sorted(fixed))}: {recorded}); use another --out"
            )
        if now["windows"] < previous["windows"] or now["rounds"] < previous["rounds"]:
            raise ValueError(
                f"{recorded.parent}: a run can get more windows and rounds, not fewer ({recorded})"
            )
        last_command = (history.get("extensions") or [history])[-1]["command"]
        if {k: previous.get(k) for k in EXTENSIBLE} != {k: now_view.get(k) for k in EXTENSIBLE} or (
            command and command != last_command
        ):
            history.setdefault("extensions", []).append({"config": now, "command": command})
            history["config"] = now
            _write_json(recorded, history)
    else:
        _write_json(recorded, {"config": settings, "command": command})


def run(
    config: RecipeConfig, out_dir: Path, command: str = "", show_progress: bool = True, min_examples: int = 0
) -> dict:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = Path(config.base)
    settings = {**asdict(config), "base": str(base)}
    record_settings(out_dir / "recipe.json", settings, command)

    windows_path = out_dir / "windows.jsonl"
    if windows_path.exists():
        windows = [TrainingWindow(**json.loads(line)) for line in windows_path.read_text().splitlines()]
    else:
        windows = []
    if len(windows) < config.windows:
        _say(f"cutting {config.windows} training windows from {', '.join(config.corpora)}")
        windows = _extend_windows(windows, config)
        _write_text(
            windows_path, "".join(json.dumps(w.to_json(), ensure_ascii=False) + "\n" for w in windows)
        )

    base_model_dir = out_dir / "round_0" / "model"
    _say(f"base model dir {base_model_dir}")
    _export(base, base_model_dir, None, config.precision)
    round_dirs: list[Path] = []
    summaries = []
    used: set[str] = set()
    for r in range(1, config.rounds + 1):
        round_dir = out_dir / f"round_{r}"
        round_dirs.append(round_dir)
        slice_, source_round = _round_slice(round_dir, r, config, windows, used)
        used.update(w.id for w in slice_)
        metrics_path = round_dir / "metrics.json"
        if metrics_path.exists():
            summaries.append(json.loads(metrics_path.read_text()))
            continue
        model_dir = out_dir / f"round_{source_round}" / "model"
        _say(
            f"round {r}: {len(slice_)} windows × {config.generate.candidates} candidates from round_{source_round}"
        )
        started = time.perf_counter()
        generation = generate(
            slice_, model_dir, round_dir / "candidates.jsonl", config.generate, show_progress=show_progress
        )
        generation["wall_s"] = round(time.perf_counter() - started, 1)
        generation["model"] = f"round_{source_round}"
        selection = None
        if config.selection is None:
            examples = _pipeline_examples(round_dirs)
        else:
            _say(f"round {r}: training selection over rounds 1..{r} (fluency judged by {base_model_dir})")
            examples, selection = _strict_examples(round_dirs, base_model_dir, config, show_progress)
            _write_json(round_dir / "selection.json", selection)
        if len(examples) < min_examples:
            raise TooLittleData(
                f"round {r}: the selection kept {len(examples)} examples (< {min_examples}); its candidates "
                f"are kept in {round_dir}: rerun with more --windows (or a looser selection) to go on"
            )
        data_path = round_dir / "train.jsonl"
        _write_text(data_path, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples))
        _say(
            f"round {r}: {generation['windows_accepted']}/{generation['windows']} windows accepted; training on {len(examples)}"
        )
        started = time.perf_counter()
        training = train_adapter(
            base,
            [(e["prompt_ids"], e["target_ids"]) for e in examples],
            round_dir / "lora",
            config.lora,
            show_progress=show_progress,
        )
        training["wall_s"] = round(time.perf_counter() - started, 1)
        model_dir = round_dir / "model"
        started = time.perf_counter()
        _export(base, model_dir, round_dir / "lora" / "adapter.safetensors", config.precision)
        metrics = {
            "round": r,
            "generation": generation,
            "training": training,
            "export_s": round(time.perf_counter() - started, 1),
            "train_examples": len(examples),
            "train_data_bytes": data_path.stat().st_size,
            "selection": selection if selection is not None else "pipeline: best accepted candidate",
        }
        _write_json(metrics_path, metrics)
        summaries.append(metrics)

    manifest = run_manifest(out_dir)
    shutil.copy2(round_dirs[-1] / "lora" / "adapter.safetensors", out_dir / "adapter.safetensors")
    _write_json(out_dir / "adapter.json", manifest)
    plot_losses(out_dir)
    return manifest


def run_manifest(out_dir: Path) -> dict:
    """Provenance of the latest finished round's adapter: command, seed, settings, data, every finished
    round's metrics (a run stopped before its last round is said to be so)."""
    out_dir = Path(out_dir)
    recorded = json.loads((out_dir / "recipe.json").read_text())
    config = recorded["config"]
    rounds = [
        json.loads(p.read_text())
        for p in sorted(out_dir.glob("round_*/metrics.json"), key=lambda p: int(p.parent.name.split("_")[1]))
    ]
    if not rounds:
        raise ValueError(f"{out_dir}: no finished round yet")
    windows = sum(1 for _ in (out_dir / "windows.jsonl").open())
    return {
        "file": "adapter.safetensors",
        "sha256": rounds[-1]["training"]["adapter_sha256"],
        "adapter_of_round": rounds[-1]["round"],
        "rounds_planned": config["rounds"],
        "base": Path(config["base"]).name,
        "command": (recorded.get("extensions") or [recorded])[-1]["command"],
        "commands": [recorded["command"], *(e["command"] for e in recorded.get("extensions", []))],
        "seed": config["seed"],
        "config": config,
        "data": {
            "corpora": config["corpora"],
            "windows": windows,
            "train_examples": rounds[-1]["train_examples"],
            "excluded": (
                "every chunk fantasma eval could test on (--chunks-per-author 1..12, every author) and its "
                "neighbours, and any window found inside one"
            ),
        },
        "rounds": rounds,
    }


def ship_adapter(run_dir: Path, target: Path) -> dict:
    """Write the latest finished round's adapter into the repo as float16 (`target`.safetensors +
    `target`.json, the manifest `fantasma setup` reads), with the run's provenance and figures."""
    import numpy as np

    from export.lora import load_adapter, save_adapter

    run_dir, target = Path(run_dir), Path(target)
    manifest = run_manifest(run_dir)
    source = run_dir / f"round_{manifest['adapter_of_round']}" / "lora" / "adapter.safetensors"
    adapter = load_adapter(source, manifest["sha256"])
    weights, manifest_path = target.with_suffix(".safetensors"), target.with_suffix(".json")
    # Both files are written beside their targets first and renamed only when both are whole: a full
    # disk leaves the shipped pair as it was, never new weights under an old manifest's sha256.
    staged_weights = weights.with_name(f".{weights.name}.tmp")
    staged_manifest = manifest_path.with_name(f".{manifest_path.name}.tmp")
    try:
        sha = save_adapter(staged_weights, adapter.scale, adapter.factors, dtype=np.float16)
        shipped = {
            **manifest,
            "file": weights.name,
            "sha256": sha,
            "bytes": staged_weights.stat().st_size,
            "dtype": "float16",
            "trained_sha256": manifest["sha256"],  # the float32 file the run wrote
        }
        staged_manifest.write_text(json.dumps(shipped, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(staged_weights, weights)
        os.replace(staged_manifest, manifest_path)
    finally:
        staged_weights.unlink(missing_ok=True)
        staged_manifest.unlink(missing_ok=True)
    return shipped


def plot_losses(out_dir: Path) -> Path | None:
    """loss.png: training loss per step, one line per round."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    for losses in sorted(Path(out_dir).glob("round_*/lora/losses.jsonl")):
        entries = [json.loads(line) for line in losses.read_text().splitlines()]
        ax.plot([e["step"] for e in entries], [e["loss"] for e in entries], label=losses.parent.parent.name)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("loss (completion tokens)")
    ax.set_title("LoRA self-training loss")
    ax.legend()
    fig.tight_layout()
    path = Path(out_dir) / "loss.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def command_line() -> str:
    return shlex.join(["fantasma", *sys.argv[1:]]) if sys.argv else "fantasma train"
