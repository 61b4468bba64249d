"""What a rewrite is asked (RewriteOptions) and what it answers (RewriteResult, one WindowOutcome per
LLM window); `to_json()` is the `rewrite` reply of PROTOCOL.md."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from native_host.rewrite import guards
from native_host.style.model import Target

if TYPE_CHECKING:
    from native_host.style.identify import Identifiability

STRENGTHS = ("light", "medium", "strong")
# The strengths that run the identifiability search; each has a budget in search.BUDGETS.
SEARCH_STRENGTHS = ("medium", "strong")
MAX_NEW_TOKENS = 160  # per window; windows are ≤ 40 words (~60 tokens) unless one sentence is longer

ProgressFn = Callable[[dict], None]


@dataclass(frozen=True)
class RewriteOptions:
    strength: str = "medium"  # light: neutralizer only; medium / strong: the search, small / large budget
    target: Target | None = None  # None = the neutralizer's default style
    protected_terms: tuple[str, ...] = ()
    candidates: int = 3  # 1 greedy + (n-1) sampled
    model_dir: Path | None = None  # None = native_host.paths.default_model_dir()
    embedder_dir: Path | None = None  # None = native_host.paths.embedder_dir()
    min_similarity: float = guards.MIN_SIMILARITY
    max_new_tokens: int = MAX_NEW_TOKENS
    seed: int = 0
    # medium / strong: the identifiability model the search minimizes. None = your stored samples (`fantasma
    # profile add`), typicality when there are none; the eval passes one trained on an author's texts.
    identifiability: Identifiability | None = None
    # medium / strong: LLM window candidates join the search's edit pool. None (the default) = by the model's
    # class (models/size_class.py): off for small models like the embedded one (about 1 window in 5 passes the
    # guards, and generating them costs more than the 2 s per 100 words budget on 2 cores:
    # docs/anonymization.md), on for a model above the size threshold, which is asked to restructure.
    llm_windows: bool | None = None
    search: bool = True  # medium / strong: False = the pre-search pipeline (each window's best LLM candidate)
    # False: your profile, samples and rivals are not read; the search minimizes typicality (the host's
    # `use_profile` setting). An `identifiability` given above is used either way.
    use_profile: bool = True
    threads: int | None = None  # intra-op threads of the model sessions; None = one per physical core

    @property
    def neutral_target(self) -> Target:
        """What the neutralizer writes towards in this rewrite: at medium and strong the marks keep their
        rates (Target.keep_mark_rates; the search keeps them too, guards.KEPT_MARKS)."""
        target = self.target or Target()
        if self.strength in SEARCH_STRENGTHS:
            return replace(target, keep_mark_rates=True)
        return target

    def __post_init__(self) -> None:
        if self.strength not in STRENGTHS:
            raise ValueError(f"strength must be one of {', '.join(STRENGTHS)} (got {self.strength!r})")
        if self.candidates < 1:
            raise ValueError("candidates must be >= 1")
        if isinstance(self.protected_terms, str):
            raise ValueError("protected_terms must be a tuple of strings, not one string")
        object.__setattr__(self, "protected_terms", tuple(str(t) for t in self.protected_terms))
        if not 0.0 <= self.min_similarity <= 1.0:
            raise ValueError("min_similarity must be in [0, 1]")


@dataclass
class WindowOutcome:
    index: int
    source: str  # the neutralized window the model saw
    text: str  # what replaces it
    path: str  # "llm" | "neutralizer"
    reason: str = ""
    similarity: float | None = None
    rejected: list[str] = field(default_factory=list)  # one line per rejected candidate
    passing: list[str] = field(default_factory=list)  # every candidate that passed the guards, best first
    candidates: int = 0  # how many the model generated for this window

    def to_json(self) -> dict:
        """The wire form: not the window's texts, nor the ranked candidates (the search reads those)."""
        hidden = ("source", "text", "passing")
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}


@dataclass
class RewriteResult:
    text: str
    original: str
    edits: list[dict]
    markers_before: dict
    markers_after: dict
    similarity: float | None  # word-weighted mean over windows the LLM rewrote; None if none
    path: str  # "llm" | "neutralizer"
    reason: str
    timings: dict
    strength: str
    windows: list[WindowOutcome] = field(default_factory=list)
    protected_keep_rate: float = 1.0
    cancelled: bool = False
    identifiability_before: dict | None = None  # IdentifiabilityReport.to_json() (medium/strong)
    identifiability_after: dict | None = None
    search: dict | None = None  # medium/strong: the edits the search applied and what the guards rejected

    def to_json(self) -> dict:
        """The `rewrite` reply (PROTOCOL.md): every field but `original`, which the caller sent."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "original"}
        out["windows"] = [w.to_json() for w in self.windows]
        return out
