"""`fantasma profile add FILES... | show | clear`: learn what is distinctive about your own writing."""

from __future__ import annotations

import argparse
import json
import sys

from native_host.commands._io import InputError, read_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("profile", help="learn your own habits from your past writing")
    actions = parser.add_subparsers(dest="profile_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="learn from one or more of your own texts")
    add.add_argument("files", nargs="+", metavar="FILE")
    show = actions.add_parser("show", help="print your distinctive habits")
    show.add_argument("--json", action="store_true")
    actions.add_parser("clear", help="delete the profile")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from native_host.style.profile import Profile, ProfileError, clear_profile, load_profile

    if args.profile_action == "clear":
        from native_host.style.identify import clear_samples

        deleted = clear_profile()
        deleted = clear_samples() or deleted  # the per-chunk counts the identifiability model trains on
        print("profile deleted" if deleted else "no profile to delete")
        return 0
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
        path = profile.save()
        from native_host.style.identify import add_samples

        add_samples(text for _, text in texts)  # counts for the identifiability model, not the texts
        print(
            f"learned from {len(texts)} file(s); profile now covers {profile.documents} texts, "
            f"{profile.words} words ({path})"
        )
        return 0
    if profile is None:
        print("no profile yet; create one with: fantasma profile add FILES...")
        return 0
    habits = profile.habits()
    phrases = sorted(profile.habitual_phrases())
    samples = _identifiability_samples()
    if getattr(args, "json", False):
        json.dump(
            {
                "documents": profile.documents,
                "words": profile.words,
                "habits": habits,
                "phrases": phrases,
                "samples": samples,
            },
            sys.stdout,
            indent=1,
            ensure_ascii=False,
        )
        sys.stdout.write("\n")
        return 0
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
    return 0


def _identifiability_samples() -> int | None:
    """How many ~250-word pieces the identifiability model trains on; None when unreadable."""
    from native_host.style.identify import IdentifyError, load_samples

    try:
        return len(load_samples() or [])
    except IdentifyError:
        return None
