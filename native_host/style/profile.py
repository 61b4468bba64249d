"""The personal profile: what is distinctive about one person's writing, learned from their own texts.

Stored with msgpack at native_host.paths.profile_path(). Only aggregate counts and short phrases are
kept, never the texts themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from native_host import paths
from native_host.style import baseline
from native_host.style.analyze import observe, score
from native_host.style.document import Document
from native_host.style.families.phrases import NGRAM_SIZES, content_ngrams
from native_host.style.model import Target

PROFILE_VERSION = 1
_MAX_PHRASES = 5000
_DISTINCTIVE = 0.5  # identifiability (on all of the person's words together) that makes a habit "theirs"
_MIN_RATIO = 1.5  # and at least this many times the population rate


class ProfileError(Exception):
    """The profile file exists but cannot be read (corrupt, or written by a newer version)."""


@dataclass
class Profile:
    documents: int = 0
    words: int = 0
    # marker -> {"count": occurrences, "docs": documents where it showed, "ident_sum": summed per-document
    # identifiability (for markers that are statistics rather than counts)}
    markers: dict[str, dict[str, float]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    # "phrase words" -> [occurrences, documents]
    phrases: dict[str, list[int]] = field(default_factory=dict)

    def learn(self, text: str) -> None:
        doc = Document(text)
        self.documents += 1
        self.words += doc.n_words
        for obs in observe(doc, Target()):
            if not obs.report or (obs.n == 0 and obs.surprise is None):
                continue
            finding = score(obs, doc.n_words)
            entry = self.markers.setdefault(obs.marker, {"count": 0, "docs": 0, "ident_sum": 0.0})
            entry["count"] += obs.n
            entry["docs"] += 1
            entry["ident_sum"] += finding.identifiability
            self.labels[obs.marker] = obs.label
        for n in NGRAM_SIZES:
            for gram, starts in content_ngrams(doc, n).items():
                counts = self.phrases.setdefault(" ".join(gram), [0, 0])
                counts[0] += len(starts)
                counts[1] += 1
        if len(self.phrases) > _MAX_PHRASES:
            keep = sorted(self.phrases.items(), key=lambda kv: (-kv[1][1], -kv[1][0]))[:_MAX_PHRASES]
            self.phrases = dict(keep)

    def habits(self) -> list[dict[str, Any]]:
        """The person's distinctive markers, most identifying first."""
        out: list[dict[str, Any]] = []
        for marker, entry in self.markers.items():
            base_rate = baseline.marker_rate(marker)
            rate = 1000.0 * entry["count"] / max(self.words, 1)
            if base_rate is not None and not marker.startswith(("phrases.", "greetings.")):
                expected = baseline.expected_count(base_rate, self.words)
                ident = baseline.identifiability(baseline.poisson_surprise(int(entry["count"]), expected))
                if rate < _MIN_RATIO * max(base_rate, baseline.RATE_FLOOR_PER_1K):
                    ident = 0.0
            else:
                ident = entry["ident_sum"] / max(self.documents, 1)
            if ident >= _DISTINCTIVE:
                out.append(
                    {
                        "marker": marker,
                        "label": self.labels.get(marker, marker),
                        "rate_per_1k": rate,
                        "baseline_per_1k": base_rate,
                        "identifiability": ident,
                        "documents": int(entry["docs"]),
                    }
                )
        out.sort(key=lambda h: -float(h["identifiability"]))
        return out

    def distinctive_markers(self) -> frozenset[str]:
        return frozenset(h["marker"] for h in self.habits())

    def habitual_phrases(self) -> frozenset[str]:
        return frozenset(
            phrase
            for phrase, (count, docs) in self.phrases.items()
            if (docs >= 2 and count >= 3) or docs >= 3 or (self.documents == 1 and count >= 3)
        )

    # --- storage ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "version": PROFILE_VERSION,
            "documents": self.documents,
            "words": self.words,
            "markers": self.markers,
            "labels": self.labels,
            "phrases": self.phrases,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Profile:
        if not isinstance(raw, dict) or raw.get("version") != PROFILE_VERSION:
            raise ProfileError("profile was written by a different version of fantasma")
        return cls(
            documents=int(raw["documents"]),
            words=int(raw["words"]),
            markers={k: dict(v) for k, v in raw["markers"].items()},
            labels=dict(raw.get("labels", {})),
            phrases={k: list(v) for k, v in raw["phrases"].items()},
        )

    def save(self, path: Path | None = None) -> Path:
        path = path or paths.profile_path()
        # 0600 in a 0700 dir (phrases from the user's own writing), atomic: never half a profile
        return paths.write_private(path, msgpack.packb(self.to_dict(), use_bin_type=True))


def load_profile(path: Path | None = None) -> Profile | None:
    """The saved profile, or None when there is none. Raises ProfileError when it is unreadable."""
    path = path or paths.profile_path()
    if not path.exists():
        return None
    try:
        raw = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        return Profile.from_dict(raw)
    except ProfileError:
        raise
    except (ValueError, KeyError, TypeError, msgpack.UnpackException) as exc:
        raise ProfileError(f"{path}: profile is corrupt ({exc}); run `fantasma profile clear`") from exc


def clear_profile() -> tuple[bool, bool]:
    """`profile clear`: the profile, your samples and every rival's, deleted together or not at all
    (paths.delete_together). Returns (the profile or your samples were there, the rivals' were)."""
    from native_host.style.samples import default_rivals_path, default_samples_path

    rivals = default_rivals_path()
    deleted = paths.delete_together([paths.profile_path(), default_samples_path(), rivals])
    return any(path != rivals for path in deleted), rivals in deleted
