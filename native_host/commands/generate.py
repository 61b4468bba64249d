"""`fantasma generate`: run the engine on one prompt and print the generated token ids and text.

--prompt is wrapped in the model's chat template (unless --raw); --token-ids are fed as they are.
Text streams to stdout as it is generated; --json prints one JSON object at the end instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="generate text with a model dir (debugging, speed checks)",
        description="Generate from a prompt with the ONNX engine and print token ids and text.",
    )
    parser.add_argument("--model", type=Path, default=None, help="model dir (default: the embedded default)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--prompt", help="prompt text (wrapped in the chat template unless --raw)")
    source.add_argument("--token-ids", help="comma-separated prompt token ids, fed raw (e.g. 1,2,3)")
    parser.add_argument("--raw", action="store_true", help="with --prompt: no chat template")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument(
        "--min-new-tokens", type=int, default=0, help="no eos and no stop string before this many tokens"
    )
    parser.add_argument("--greedy", action="store_true", help="argmax decoding (default: sampling)")
    # Unset sampling settings: the model's own (its generation_config.json or card, docs/engine.md), else
    # FALLBACK_SAMPLING.
    parser.add_argument("--temperature", type=float, default=None)
    parser.add_argument("--top-p", type=float, default=None)
    parser.add_argument("--top-k", type=int, default=None)
    parser.add_argument("--presence-penalty", type=float, default=None, help="as OpenAI defines it (0 = off)")
    parser.add_argument("--repetition-penalty", type=float, default=None, help="as transformers (1 = off)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--stop", action="append", default=[], help="stop string (repeatable)")
    parser.add_argument("--no-speculative", action="store_true", help="switch off prompt-lookup speculation")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--json", action="store_true", help="print one JSON object (ids, text, timings)")
    parser.set_defaults(func=run)


def _parse_ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise ValueError(f"--token-ids must be comma-separated integers, got {text!r}") from None
    if not ids:
        raise ValueError("--token-ids is empty")
    return ids


FALLBACK_SAMPLING = {
    "temperature": 0.8,
    "top_p": 0.95,
    "top_k": 50,
    "presence_penalty": 0.0,
    "repetition_penalty": 1.0,
}


def _sampling(args: argparse.Namespace, model: Any) -> dict[str, Any]:
    """Each sampling setting: the flag where given, else the model's own (`model`: engine.sampling),
    else FALLBACK_SAMPLING's."""
    return {
        key: getattr(args, key)
        if getattr(args, key) is not None
        else getattr(model, key)
        if model is not None
        else fallback
        for key, fallback in FALLBACK_SAMPLING.items()
    }


def run(args: argparse.Namespace) -> int:
    from native_host import paths
    from native_host.engine import Engine, EngineError, GenerationOptions

    model_dir = args.model or paths.default_model_dir()
    if args.model is None and not (model_dir / "fantasma_model.json").is_file():
        print(f"no model at {model_dir}; run `fantasma setup` first (or pass --model DIR)", file=sys.stderr)
        return 2
    try:
        # bad flags are refused before the model loads
        GenerationOptions(
            max_new_tokens=args.max_new_tokens,
            min_new_tokens=args.min_new_tokens,
            greedy=args.greedy,
            stop_strings=tuple(args.stop),
            **_sampling(args, None),
        )
        prompt_ids = _parse_ids(args.token_ids) if args.token_ids is not None else None
    except ValueError as exc:
        print(f"fantasma generate: {exc}", file=sys.stderr)
        return 2
    try:
        engine = Engine.load(model_dir, threads=args.threads)
        options = GenerationOptions(
            max_new_tokens=args.max_new_tokens,
            min_new_tokens=args.min_new_tokens,
            greedy=args.greedy,
            seed=args.seed,
            stop_strings=tuple(args.stop),
            speculative=not args.no_speculative,
            **_sampling(args, engine.sampling),
        )
        if prompt_ids is None:
            text = args.prompt if args.raw else engine.render_chat([{"role": "user", "content": args.prompt}])
            prompt_ids = engine.encode(text)

        def stream(_token: int, piece: str) -> None:
            sys.stdout.write(piece)
            sys.stdout.flush()

        result = engine.generate(prompt_ids, options, on_token=None if args.json else stream)
    except EngineError as exc:
        print(f"fantasma generate: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # onnxruntime and tokenizers raise their own types: one line, no traceback
        if os.environ.get("FANTASMA_DEBUG"):
            raise
        first = (str(exc).strip().splitlines() or [""])[0]
        print(
            f"fantasma generate: the model in {model_dir} failed to run ({type(exc).__name__}: {first}); "
            "set FANTASMA_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
        return 1
    if args.json:
        print(json.dumps({"prompt_ids": prompt_ids, **result.to_json()}, ensure_ascii=False))
        return 0
    sys.stdout.write("\n")
    print(f"token_ids: {','.join(map(str, result.token_ids))}")
    timings = result.timings
    print(
        f"finish: {result.finish_reason}, prompt {result.prompt_tokens} tokens, "
        f"{len(result.token_ids)} generated, prefill {timings['prefill_s']:.3f} s, "
        f"decode {timings['decode_tokens_per_s']:.1f} tok/s",
        file=sys.stderr,
    )
    return 0
