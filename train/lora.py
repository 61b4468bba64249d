"""Step 4 of a round: LoRA fine-tuning in torch (PEFT) on (prompt ids, completion ids) pairs.

The ids come from the generation step, made with the engine's own tokenizer and chat template, so the
model is trained on exactly the token sequence the pipeline sends; the loss covers the completion only
(the rewrite and its end-of-turn token).

Resumable: every `checkpoint_every` optimizer steps the LoRA weights, the optimizer, the step and the
random state are written atomically to `checkpoint.pt`; a rerun continues from there. The finished
adapter is written with export.lora.save_adapter (torch-free format, merged at setup with numpy).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

LLAMA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# Qwen3.5: the full-attention and MLP linears, and every Gated DeltaNet projection (q/k/v, the output
# gate z, the per-head beta b and decay a, out). The causal conv and the decay constants stay frozen.
QWEN35_TARGETS = (*LLAMA_TARGETS, "in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj")
TARGETS = {"llama": LLAMA_TARGETS, "qwen3_5": QWEN35_TARGETS}  # export.registry architecture -> targets


def targets_for(architecture: str) -> tuple[str, ...]:
    """The LoRA target modules for an architecture the exporter knows (export.registry.EXPORTERS)."""
    try:
        return TARGETS[architecture]
    except KeyError:
        raise ValueError(
            f"no LoRA recipe for architecture {architecture!r} (known: {', '.join(sorted(TARGETS))})"
        ) from None


def pick_device(requested: str | None = None) -> Any:
    """The torch device training runs on: `requested`, else the first CUDA device torch sees, else CPU."""
    import torch

    if requested:
        return torch.device(requested)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclass(frozen=True)
class LoraTrainConfig:
    rank: int = 8
    alpha: int = 16  # scale = alpha / rank, as PEFT applies it
    targets: tuple[str, ...] = LLAMA_TARGETS  # attention + MLP linears
    learning_rate: float = 5e-4
    epochs: int = 2
    batch_size: int = 4  # examples per optimizer step
    weight_decay: float = 0.0
    checkpoint_every: int = 5  # optimizer steps
    seed: int = 0
    threads: int = 2


def load_base_model(source: Path) -> Any:
    """A float32 transformers causal LM from a Hugging Face dir or a GGUF file (dequantized)."""
    import torch
    from transformers import AutoModelForCausalLM

    source = Path(source)
    if source.suffix.lower() == ".gguf":
        model = AutoModelForCausalLM.from_pretrained(
            str(source.parent), gguf_file=source.name, dtype=torch.float32
        )
    else:
        model = AutoModelForCausalLM.from_pretrained(str(source), dtype=torch.float32)
    return model


def attach_lora(model: Any, config: LoraTrainConfig) -> Any:
    import torch
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(config.seed)
    peft_config = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=0.0,
        target_modules=list(config.targets),
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, peft_config)


def adapter_factors(peft_model: Any) -> tuple[float, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """(scale, {Hugging Face module name: (A, B)}) of a PEFT model's default adapter."""
    scale = None
    factors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, module in peft_model.named_modules():
        if not hasattr(module, "lora_A") or "default" not in getattr(module, "lora_A", {}):
            continue
        hf_name = name.removeprefix("base_model.model.")
        a = module.lora_A["default"].weight.detach().float().cpu().numpy()
        b = module.lora_B["default"].weight.detach().float().cpu().numpy()
        factors[hf_name] = (a, b)
        scale = float(module.scaling["default"])
    if scale is None:
        raise ValueError("the model has no LoRA layers")
    return scale, factors


def _batch(examples: list[tuple[list[int], list[int]]], pad_id: int) -> dict[str, Any]:
    """Right-padded input ids, attention mask, and labels that score only the completion tokens."""
    import torch

    longest = max(len(p) + len(t) for p, t in examples)
    ids = torch.full((len(examples), longest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(examples), longest), dtype=torch.long)
    labels = torch.full((len(examples), longest), -100, dtype=torch.long)
    for row, (prompt_ids, target_ids) in enumerate(examples):
        seq = prompt_ids + target_ids
        ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
        labels[row, len(prompt_ids) : len(seq)] = torch.tensor(target_ids)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def shared_prefix(prompts: list[list[int]]) -> list[int]:
    """The longest prefix every prompt starts with, less one token (each suffix must keep a prompt
    token to predict the first completion token from). The pipeline's fixed instructions and example
    are most of every prompt."""
    first = prompts[0]
    n = min(len(p) for p in prompts) - 1
    for p in prompts[1:]:
        n = min(n, next((i for i, (a, b) in enumerate(zip(first, p, strict=False)) if a != b), n))
    return first[: max(n, 0)]


def _loss(model: Any, shared: list[int], batch: dict[str, Any]) -> Any:
    """Mean loss over the completion tokens. The shared prefix is run once, without gradients, and its
    key/value states serve the whole batch: the backward pass covers only what differs per example
    (about half of each sequence here). The forward values are exactly those of the full sequences;
    only the gradient through the prefix's states is left out. A cache that cannot be repeated over
    the batch (Qwen3.5's recurrent states) falls back to full sequences."""
    import torch

    if not shared:
        return model(**batch).loss
    rows, device = batch["input_ids"].shape[0], batch["input_ids"].device
    head = torch.tensor([shared], device=device).expand(rows, -1)
    mask = torch.cat([torch.ones_like(head), batch["attention_mask"]], dim=1)
    with torch.no_grad():
        cache = model(input_ids=head[:1], use_cache=True).past_key_values
    try:
        cache.batch_repeat_interleave(rows)
    except (AttributeError, NotImplementedError):  # recurrent-state caches (Qwen3.5's linear layers)
        labels = torch.cat([torch.full_like(head, -100), batch["labels"]], dim=1)
        ids = torch.cat([head, batch["input_ids"]], dim=1)
        return model(input_ids=ids, attention_mask=mask, labels=labels).loss
    return model(
        input_ids=batch["input_ids"], attention_mask=mask, labels=batch["labels"], past_key_values=cache
    ).loss


def _lora_state(model: Any) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in model.state_dict().items() if "lora_" in k}


def _save_atomic(obj: Any, path: Path) -> None:
    import torch

    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def train_adapter(
    base: Path | Any,
    examples: list[tuple[list[int], list[int]]],
    out_dir: Path,
    config: LoraTrainConfig,
    pad_id: int = 0,
    stop_after_steps: int | None = None,
    show_progress: bool = True,
    device: str | None = None,
) -> dict:
    """Fine-tune LoRA factors on `examples`; writes out_dir/{checkpoint.pt, losses.jsonl, adapter.safetensors,
    metrics.json}. `base` is a checkpoint path or an already loaded transformers model (tests).
    `stop_after_steps` stops (after checkpointing) once that many steps are done in total (tests).
    `device`: a torch device name; None = CUDA when torch sees one, else CPU (`pick_device`). It is not
    a training setting (a checkpoint written on one device resumes on another)."""
    import torch
    from tqdm import tqdm

    from export.lora import save_adapter

    if not examples:
        raise ValueError("no training examples: no candidate passed the guards")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    where = pick_device(device)
    model = load_base_model(Path(base)) if isinstance(base, (str, Path)) else base
    model = attach_lora(model.to(where), config)
    model.train()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=config.learning_rate, weight_decay=config.weight_decay)
    steps_per_epoch = (len(examples) + config.batch_size - 1) // config.batch_size
    total_steps = steps_per_epoch * config.epochs
    # Linear decay to 10%: a short run on little data, no warm-up needed for LoRA's zero-initialised B.
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 - 0.9 * s / max(1, total_steps))
    order = [
        random.Random(config.seed + epoch).sample(range(len(examples)), len(examples))
        for epoch in range(config.epochs)
    ]

    shared = shared_prefix([p for p, _ in examples])
    checkpoint_path = out_dir / "checkpoint.pt"
    losses_path = out_dir / "losses.jsonl"
    step, seconds, tokens_seen = 0, 0.0, 0
    data_sha256 = hashlib.sha256(json.dumps([examples, asdict(config)]).encode()).hexdigest()
    if checkpoint_path.exists():
        state = torch.load(checkpoint_path, weights_only=False, map_location=where)
        if state.get("data_sha256", data_sha256) != data_sha256:
            # Another selection or other settings since the checkpoint: resuming would mix two runs.
            print(
                f"{checkpoint_path}: written for other data or settings; training from the start",
                file=sys.stderr,
            )
            checkpoint_path.unlink()
            losses_path.unlink(missing_ok=True)
    if checkpoint_path.exists():
        model.load_state_dict(state["lora"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        step, seconds, tokens_seen = state["step"], state["seconds"], state["tokens"]
        torch.set_rng_state(state["torch_rng"].cpu())
    losses = (
        [json.loads(line) for line in losses_path.read_text().splitlines()] if losses_path.exists() else []
    )
    losses = [entry for entry in losses if entry["step"] <= step]  # steps after the checkpoint are redone

    def checkpoint() -> None:
        _save_atomic(
            {
                "lora": _lora_state(model),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "step": step,
                "seconds": seconds,
                "tokens": tokens_seen,
                "torch_rng": torch.get_rng_state(),
                "config": asdict(config),
                "data_sha256": data_sha256,
            },
            checkpoint_path,
        )
        tmp = losses_path.with_name(losses_path.name + ".tmp")
        tmp.write_text("".join(json.dumps(entry) + "\n" for entry in losses))
        os.replace(tmp, losses_path)

    bar = tqdm(total=total_steps, initial=step, desc="lora", unit="step", disable=not show_progress)
    while step < total_steps:
        if stop_after_steps is not None and step >= stop_after_steps:
            break
        epoch, k = divmod(step, steps_per_epoch)
        picked = order[epoch][k * config.batch_size : (k + 1) * config.batch_size]
        batch = _batch([(p[len(shared) :], t) for p, t in (examples[i] for i in picked)], pad_id)
        batch = {key: value.to(where) for key, value in batch.items()}
        started = time.perf_counter()
        loss = _loss(model, shared, batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        seconds += time.perf_counter() - started
        tokens_seen += int(batch["attention_mask"].sum())
        step += 1
        losses.append({"step": step, "epoch": epoch, "loss": round(loss.item(), 5)})
        bar.set_postfix(loss=f"{loss.item():.3f}")
        bar.update(1)
        if step % config.checkpoint_every == 0 or step == total_steps:
            checkpoint()
    bar.close()
    if step < total_steps:
        return {"steps": step, "total_steps": total_steps, "finished": False}

    scale, factors = adapter_factors(model)
    sha = save_adapter(out_dir / "adapter.safetensors", scale, factors)
    metrics = {
        "finished": True,
        "steps": step,
        "examples": len(examples),
        "epochs": config.epochs,
        "train_s": round(seconds, 1),
        "train_tokens_per_s": round(tokens_seen / seconds, 1) if seconds else None,
        "first_loss": losses[0]["loss"] if losses else None,
        "last_loss": losses[-1]["loss"] if losses else None,
        "adapter_sha256": sha,
        "adapter_bytes": (out_dir / "adapter.safetensors").stat().st_size,
        "device": str(where),
        "config": asdict(config),
    }
    (out_dir / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics
