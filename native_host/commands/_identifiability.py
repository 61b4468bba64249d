"""Identifiability for the commands that show it (`analyze`, `rewrite`): scored, and said in one line."""

from __future__ import annotations

from native_host.style.identify import Identifiability
from native_host.style.samples import IdentifyError


def score(text: str, use_samples: bool = True) -> tuple[dict | None, str]:
    """(IdentifiabilityReport.to_json(), "") for `text`: against your stored writing samples (`fantasma
    profile add`; typicality while there are none, the report's `message` says so), or by typicality
    when `use_samples` is off. (None, why) when it cannot be scored (no population data)."""
    try:
        model = Identifiability.load("stored" if use_samples else None)
    except IdentifyError as exc:
        return None, f"identifiability unavailable: {exc}"
    return model.score(text).to_json(), ""


def describe(report: dict) -> str:
    """'0.82 (compared with writers in general)'; with samples '0.64 (compared with your writing
    samples)', with rivals '… (compared with your writing samples and Ann, Bob)'. No family codes: the
    parts that still stand out are said by linked_line."""
    if report.get("mode") != "profile":
        return f"{report['score']:.2f} (compared with writers in general)"
    rivals = report.get("rivals") or []
    return f"{report['score']:.2f} (compared with your writing samples" + (
        f" and {', '.join(rivals)})" if rivals else ")"
    )


def linked_line(report: dict) -> str:
    """Which parts of the style still link the text (typicality: in which it stands out), in words."""
    from native_host.rewrite.summary import strands_line

    return strands_line(report)


def notes(report: dict) -> list[str]:
    """Why the report compares what it compares (no samples yet, the profile off, the people named)."""
    from native_host.rewrite.summary import mode_notes

    return mode_notes(report)
