"""analyze(text, profile) -> Report: run every family, score each observation against the baseline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from native_host.style import baseline
from native_host.style.document import Document
from native_host.style.families import FAMILIES, phrases
from native_host.style.model import Finding, Observation, Report, Target


class PersonalHabits(Protocol):
    """What analyze reads from a profile (profile.Profile is one). A Protocol, not an import of
    profile.py: profile.py builds on analyze, and the two would import each other."""

    def habitual_phrases(self) -> frozenset[str]: ...

    def distinctive_markers(self) -> frozenset[str]: ...


_TOP_CONTRIBUTORS = 10
_WEIGHT = 0.6  # how much one fully identifying marker alone moves the overall score
_PERSONAL_WEIGHT = 0.85
_REASON_MIN = 0.3
_MAX_REASONS = 5
# Families whose ordinary use is the population norm: shown, but never scored as identifying.
_NEUTRAL_MARKERS = frozenset({"spelling.american"})
# Below this a finding is what most writers do (one semicolon in a long text): not worth a line.
MIN_REPORTED = 0.05
# Families whose spans are words worth quoting in the evidence ("3 British spellings (colour, ...)").
_WORD_FAMILIES = frozenset({"spelling", "slang", "misspellings", "vocabulary", "capitalization", "formats"})
# Marks whose runs differ from text to text: the evidence quotes the runs the text has ("!!!", "?!").
_QUOTED_MARKS = frozenset({"punctuation.multiple_exclamation", "punctuation.interrobang"})


def observe(
    doc: Document,
    target: Target,
    habitual: frozenset[str] = frozenset(),
    *,
    editing_only: bool = False,
    check_cancelled: Callable[[], None] | None = None,
) -> list[Observation]:
    """Every observation of every family (shared by analyze and neutralize). `editing_only` skips the
    families that never propose a replacement (the neutralizer's fast path). `check_cancelled` runs
    before each family, so a cancel of a long text waits for one family, not all of them."""
    found: list[Observation] = []
    for family in FAMILIES:
        if editing_only and not family.EDITS:
            continue
        if check_cancelled is not None:
            check_cancelled()
        if family is phrases:
            found.extend(phrases.observe(doc, target, habitual))
        else:
            found.extend(family.observe(doc, target))
    return found


# The head nouns of the families' labels, for evidence about a single occurrence ("1 em dash").
_SINGULAR = {
    "abbreviations": "abbreviation",
    "ampersands": "ampersand",
    "apostrophes": "apostrophe",
    "asides": "aside",
    "characters": "character",
    "combinations": "combination",
    "commas": "comma",
    "contractions": "contraction",
    "dashes": "dash",
    "ellipses": "ellipsis",
    "emoticons": "emoticon",
    "guillemets": "guillemet",
    "lines": "line",
    "marks": "mark",
    "misspellings": "misspelling",
    "quotes": "quote",
    "runs": "run",
    "semicolons": "semicolon",
    "spaces": "space",
    "spellings": "spelling",
    "starts": "start",
    "words": "word",
}


def count_phrase(n: int, label: str) -> str:
    """ "4 em dashes", "1 em dash": the first plural noun of the label made singular for n == 1
    (labels that open with a number, "two spaces after a full stop", are left as they are)."""
    if n == 1 and not label.startswith(("two ", "three ")):
        parts = label.split(" ")
        for i, part in enumerate(parts):
            if part in _SINGULAR:
                parts[i] = _SINGULAR[part]
                label = " ".join(parts)
                break
    return f"{n} {label}"


def score(obs: Observation, words: int) -> Finding:
    rate = 1000.0 * obs.n / max(words, 1)
    base_rate = baseline.marker_rate(obs.marker)
    expected = baseline.expected_count(base_rate or 0.0, words)
    examples = ""
    if (obs.family in _WORD_FAMILIES or obs.marker in _QUOTED_MARKS) and obs.spans:
        distinct = list(dict.fromkeys(sp.text.strip() for sp in obs.spans))
        shown = [f'"{d}"' if obs.marker in _QUOTED_MARKS else d for d in distinct[:3]]
        examples = " (" + ", ".join(shown) + (", ..." if len(distinct) > 3 else "") + ")"
    typical = baseline.typical_use(base_rate, words)
    default = f"{count_phrase(obs.n, obs.label)}{examples} in {words} words; typical writers use {typical}"
    if obs.surprise is not None:
        surprise = obs.surprise
        evidence = obs.evidence or default
    else:
        surprise = 0.0 if obs.marker in _NEUTRAL_MARKERS else baseline.poisson_surprise(obs.n, expected)
        evidence = f"{default}; {obs.evidence}" if obs.evidence else default
    return Finding(
        family=obs.family,
        marker=obs.marker,
        label=obs.label,
        spans=tuple(obs.spans),
        count=obs.n,
        rate_per_1k=rate,
        baseline_per_1k=base_rate,
        identifiability=baseline.identifiability(surprise),
        evidence=evidence,
    )


def analyze(text: str, profile: PersonalHabits | None = None) -> Report:
    doc = Document(text)
    habitual = profile.habitual_phrases() if profile else frozenset()
    personal = profile.distinctive_markers() if profile else frozenset()
    findings = []
    for obs in observe(doc, Target(), habitual):
        if not obs.report or (obs.n == 0 and obs.surprise is None):
            continue
        finding = score(obs, doc.n_words)
        if finding.marker in personal or finding.marker == "phrases.habitual":
            finding = _as_personal(finding)
        elif finding.identifiability < MIN_REPORTED:
            continue
        findings.append(finding)
    findings.sort(key=lambda f: (not f.personal, -f.identifiability, f.family))
    return Report(
        text_length=len(text),
        words=doc.n_words,
        score=overall_score(findings),
        reasons=tuple(
            (f.evidence if f.label in f.evidence else f"{f.label}: {f.evidence}")
            + (" (one of your habits)" if f.personal else "")
            for f in findings[:_MAX_REASONS]
            if f.identifiability >= _REASON_MIN
        ),
        findings=tuple(findings),
        profile_used=profile is not None,
    )


def overall_score(findings: list[Finding]) -> int:
    """0-100: the chance-like combination of the top contributors, each weighted below 1 so that one
    marker alone never reads as "certainly you"."""
    top = sorted(findings, key=lambda f: -f.identifiability)[:_TOP_CONTRIBUTORS]
    remaining = 1.0
    for f in top:
        remaining *= 1.0 - (_PERSONAL_WEIGHT if f.personal else _WEIGHT) * f.identifiability
    return round(100 * (1.0 - remaining))


def _as_personal(f: Finding) -> Finding:
    boosted = max(f.identifiability, 0.5)
    return Finding(
        f.family,
        f.marker,
        f.label,
        f.spans,
        f.count,
        f.rate_per_1k,
        f.baseline_per_1k,
        boosted,
        f.evidence,
        True,
    )
