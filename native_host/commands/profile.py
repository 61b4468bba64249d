"""`fantasma profile add [--rival NAME] FILES... | show | clear [--rival NAME]`: learn what is distinctive
about your own writing, and keep the counts of the people a reader might suspect instead of you (rivals),
so a rewrite aims at what separates you from them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from native_host import paths
from native_host.commands._io import InputError, read_text, storage

RIVAL_HELP = (
    "the texts are NAME's, someone a reader might suspect instead of you (another member of the forum "
    "or committee): rewrites then aim at what separates you from them, never at looking like them"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("profile", help="learn your own habits from your past writing")
    actions = parser.add_subparsers(dest="profile_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="learn from one or more of your own texts (or a rival's)")
    add.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files; - reads standard input")
    add.add_argument("--rival", metavar="NAME", help=RIVAL_HELP)
    show = actions.add_parser("show", help="print your distinctive habits and the rivals you named")
    show.add_argument("--json", action="store_true")
    clear = actions.add_parser(
        "clear", help="delete the profile, your samples and every rival's (with --rival: that rival's only)"
    )
    clear.add_argument("--rival", metavar="NAME", help="delete only this rival's samples")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.style.profile import Profile, ProfileError, clear_profile, load_profile

    if args.profile_action == "clear":
        if args.rival is not None:
            return _clear_rival(args.rival)
        with storage(f"delete the profile in {paths.data_dir()}"):  # all three files, or none
            deleted, rivals_deleted = clear_profile()
        print("profile deleted" if deleted else "no profile to delete")
        if rivals_deleted:
            print("rivals' samples deleted")
        return 0
    if args.profile_action == "add" and args.rival is not None:
        return _add_rival(args.rival, args.files)
    try:
        profile = load_profile()
    except ProfileError as exc:
        print(f"fantasma profile: {exc}", file=sys.stderr)
        return 2
    if args.profile_action == "add":
        profile = profile or Profile()
        texts = []
        try:
            texts = [(name, read_text(name)) for name in args.files]
        except InputError as exc:  # learn nothing unless every file is readable
            print(f"fantasma profile add: {exc}", file=sys.stderr)
            return 2
        for _, text in texts:
            profile.learn(text)
        from native_host.style.samples import add_samples, samples_restored_on_failure

        try:  # both files replaced whole, or both left as they were
            with storage(f"save the profile in {paths.data_dir()}"), samples_restored_on_failure():
                add_samples(text for _, text in texts)  # counts for the identifiability model, not the texts
                path = profile.save()
        except InputError as exc:
            print(f"fantasma profile add: {exc}", file=sys.stderr)
            return 2
        print(
            f"learned from {len(texts)} file(s); profile now covers {profile.documents} texts, "
            f"{profile.words} words ({path})"
        )
        return 0
    rivals, rivals_problem = _rivals()
    samples = _identifiability_samples()
    if getattr(args, "json", False):
        shown: dict[str, Any] = {"documents": 0, "words": 0, "habits": [], "phrases": [], "samples": samples}
        if profile is not None:
            shown.update(
                documents=profile.documents,
                words=profile.words,
                habits=profile.habits(),
                phrases=sorted(profile.habitual_phrases()),
            )
        shown["rivals"] = rivals  # null: the rivals' file is unreadable
        json.dump(shown, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    if profile is None:
        print("no profile yet; create one with: fantasma profile add FILES...")
    else:
        _print_profile(profile, samples)
    _print_rivals(rivals, rivals_problem)
    return 0


def _print_profile(profile: Any, samples: int | None) -> None:
    habits = profile.habits()
    phrases = sorted(profile.habitual_phrases())
    print(f"Profile: {profile.documents} texts, {profile.words} words")
    if samples is None:
        print("Identifiability samples: unreadable; run `fantasma profile clear` and add your texts again")
    else:
        enough = "" if samples >= 2 else " (needs 2; until then rewrites aim at typicality)"
        print(f"Identifiability model: trained on {samples} pieces of ~250 words{enough}")
    if not habits and not phrases:
        print("Nothing distinctive learned yet; add more of your writing.")
    for h in habits:
        base = h["baseline_per_1k"]
        typical = f", typical {base:.2f}" if base is not None else ""
        print(
            f"  {h['label']}: {h['rate_per_1k']:.2f} per 1,000 words{typical} "
            f"(identifiability {h['identifiability']:.2f}, in {h['documents']} of your texts)"
        )
    if phrases:
        print("Habitual phrases: " + ", ".join(f'"{p}"' for p in phrases[:20]))


def _print_rivals(rivals: list[dict[str, Any]] | None, problem: str) -> None:
    if rivals is None:
        print(f"Rivals' samples: unreadable ({problem}); `fantasma profile clear` deletes them")
    elif not rivals:
        print(
            "No rivals named; add someone a reader might suspect with: fantasma profile add --rival NAME FILES..."
        )
    else:
        from native_host.style.identify import MIN_RIVAL_CHUNKS

        print(f"People a reader might suspect (rivals): {len(rivals)}")
        for rival in rivals:
            few = rival["chunks"] < MIN_RIVAL_CHUNKS
            wait = f" (needs {MIN_RIVAL_CHUNKS} before the score compares you with them)" if few else ""
            print(f"  {rival['name']}: {rival['chunks']} pieces of ~250 words, {rival['words']} words{wait}")


def _rivals() -> tuple[list[dict[str, Any]] | None, str]:
    """(the rivals summary, "") or (None, why) when the rivals' file cannot be read."""
    from native_host.style.samples import IdentifyError, rivals_summary

    try:
        return rivals_summary(), ""
    except IdentifyError as exc:
        return None, str(exc)


def _rival_name(raw: str, action: str) -> str | None:
    from native_host.style.samples import rival_name

    try:
        return rival_name(raw)
    except ValueError as exc:
        print(f"fantasma profile {action}: --rival: {exc}", file=sys.stderr)
        return None


def _add_rival(raw_name: str, files: list[str]) -> int:
    from native_host.style.samples import IdentifyError, add_rival_samples

    name = _rival_name(raw_name, "add")
    if name is None:
        return 2
    try:
        texts = [read_text(file) for file in files]  # learn nothing unless every file is readable
        # the rivals' file is replaced whole, or left as it was
        with storage(f"save {name}'s samples in {paths.data_dir()}"):
            added = add_rival_samples(name, texts)
    except InputError as exc:
        print(f"fantasma profile add: {exc}", file=sys.stderr)
        return 2
    except IdentifyError as exc:
        print(f"fantasma profile add: cannot read the rivals' samples: {exc}", file=sys.stderr)
        return 2
    shown = next((r for r in _rivals()[0] or [] if r["name"] == name), None)
    total = f"; {name} now has {shown['chunks']} pieces, {shown['words']} words" if shown else ""
    print(f"learned {added} pieces of ~250 words of {name}'s writing from {len(texts)} file(s){total}")
    return 0


def _clear_rival(raw_name: str) -> int:
    from native_host.style.samples import IdentifyError, clear_rivals

    name = _rival_name(raw_name, "clear")
    if name is None:
        return 2
    try:
        with storage(f"delete {name}'s samples in {paths.data_dir()}"):
            cleared = clear_rivals(name)
    except IdentifyError as exc:
        print(f"fantasma profile clear: cannot read the rivals' samples: {exc}", file=sys.stderr)
        return 2
    if not cleared:
        rivals = _rivals()[0] or []
        known = ", ".join(r["name"] for r in rivals) or "none yet"
        print(f"fantasma profile clear: no rival named {name!r} (rivals: {known})", file=sys.stderr)
        return 2
    print(f"{name}'s samples deleted")
    return 0


def _identifiability_samples() -> int | None:
    """How many ~250-word pieces the identifiability model trains on; None when unreadable."""
    from native_host.style.samples import IdentifyError, load_samples

    try:
        return len(load_samples() or [])
    except IdentifyError:
        return None
