"""Identifiability for the commands that show it (`analyze`, `rewrite`): scored, and said in one line."""

from __future__ import annotations

from native_host.style.identify import Identifiability, IdentifyError


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
    """'0.82 (typicality; char3 0.91, delta 0.70, function_words 0.85)'; with rivals
    '0.64 (profile vs rivals Ann, Bob; char3 …)'."""
    families = ", ".join(f"{name} {value:.2f}" for name, value in report.get("families", {}).items())
    rivals = report.get("rivals") or []
    mode = report.get("mode", "?") + (f" vs rivals {', '.join(rivals)}" if rivals else "")
    return f"{report['score']:.2f} ({mode}" + (f"; {families})" if families else ")")


def linked_line(report: dict) -> str:
    """Which attacker families still link the text (typicality: in which it stands out)."""
    linked = report.get("linked_by") or []
    if report.get("mode") == "typicality":
        return ("stands out to: " + ", ".join(linked)) if linked else "stands out to no attacker family"
    return ("still linked by: " + ", ".join(linked)) if linked else "no attacker family still links the text"
