"""`fantasma models [--json]`, `fantasma models use NAME`, `fantasma models remove NAME`.

The installed models (native_host/models/registry.py): the embedded default and those `fantasma setup
--model SPEC` added. `use` sets the `model` setting (the host rewrites with it from its next rewrite,
and drops the old one's engine then); `remove` deletes a model dir (never the embedded default).
"""

from __future__ import annotations

import argparse
import json

from native_host import paths
from native_host.commands._io import InputError, storage


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "models",
        help="list, choose and remove the installed models",
        description="List the installed models (the active one is marked *); `use` or `remove` one. "
        "Add one with: fantasma setup --model SPEC",
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    use = actions.add_parser("use", help="make NAME the model the host rewrites with")
    use.add_argument("name", metavar="NAME")
    remove = actions.add_parser("remove", help="delete the installed model NAME (not the embedded default)")
    remove.add_argument("name", metavar="NAME")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.models import registry

    try:
        if args.action == "use":
            with storage(f"make {args.name} the active model (settings in {paths.config_dir()})"):
                model = registry.use(args.name)
            print(f"active: {model.name}; the host rewrites with it from its next rewrite")
            return 0
        if args.action == "remove":
            # the setting changes first and the dir is renamed away before it is deleted: a failure
            # leaves the model whole and still installed
            with storage(f"remove {args.name} from {paths.models_dir()}"):
                model, was_active = registry.remove(args.name)
            print(f"removed {model.name} ({registry.human_bytes(model.size_bytes)} freed)")
            if was_active:
                print(f"it was the active model: {registry.embedded_name()} (embedded) is active again")
            return 0
    except registry.RegistryError as exc:
        raise InputError(str(exc)) from None
    active = registry.active()
    entries = registry.installed()
    if args.json:
        listing = [m.to_json(active=m.dir == active.model.dir) for m in entries]
        print(json.dumps({"models": listing, "active": active.to_json()}, indent=2))
        return 0
    for model in entries:
        print("\n".join(describe(model, model.dir == active.model.dir)))
    if active.fallback:
        print(f"note: {active.fallback}")
    print(
        "add one: fantasma setup --model SPEC [--use]  (SPEC: a hub id such as Qwen/Qwen3.5-0.8B, a dir, a .gguf)"
    )
    return 0


def describe(model, active: bool) -> list[str]:
    """Three lines: name, what it is, where it came from and how fast it decodes here."""
    mark = "*" if active else " "
    tags = [t for t, on in (("active", active), ("embedded default", model.embedded)) if on]
    lines = [f"{mark} {model.name}" + (f"  ({', '.join(tags)})" if tags else "")]
    if model.problem:
        return [*lines, f"    unusable: {model.problem}"]
    from native_host.models.registry import human_bytes, human_count

    params = f"{human_count(model.parameters)} parameters" if model.parameters else "parameters unknown"
    lines.append(
        f"    {model.architecture}, {model.layers}, {params}, {human_bytes(model.size_bytes)} on disk"
    )
    speed = (
        f"decodes {model.decode_tokens_per_s:.1f} tokens/s (measured at install)"
        if model.decode_tokens_per_s is not None
        else "decode speed not measured"
    )
    lines.append(f"    source {model.source}; adapter {model.adapter or 'none'}; {speed}")
    return lines
