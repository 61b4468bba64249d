"""Readable terminal output for reports and neutralized text (ANSI colour only when asked for)."""

from __future__ import annotations

from native_host.style.model import Edit, Finding, Report

_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_HIGHLIGHT = "\033[30;43m"  # black on yellow
_DELETED, _INSERTED = "\033[31;9m", "\033[32m"
_CONTEXT = 30
_MAX_SPANS_SHOWN = 4


def report_text(report: Report, text: str, color: bool) -> str:
    b, d, r = (_BOLD, _DIM, _RESET) if color else ("", "", "")
    lines = [
        f"{b}Identifiability: {report.score}/100{r}  ({report.words} words"
        + (", your profile applied)" if report.profile_used else ")")
    ]
    for reason in report.reasons:
        lines.append(f"  - {reason}")
    if not report.findings:
        lines.append("No identifying markers found.")
        return "\n".join(lines)
    by_family: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_family.setdefault(f.family, []).append(f)
    for family, findings in by_family.items():
        lines.append("")
        lines.append(f"{b}{family.replace('_', ' ').upper()}{r}")
        for f in findings:
            mine = " [your habit]" if f.personal else ""
            lines.append(f"  {_bar(f.identifiability)} {f.label}{mine}")
            lines.append(f"      {d}{f.evidence}{r}")
            for span in f.spans[:_MAX_SPANS_SHOWN]:
                lines.append("      " + _in_context(text, span.start, span.end, span.replacement, color))
            if len(f.spans) > _MAX_SPANS_SHOWN:
                lines.append(f"      {d}... and {len(f.spans) - _MAX_SPANS_SHOWN} more{r}")
    return "\n".join(lines)


def neutralized_text(new_text: str, edits: list[Edit], original: str, color: bool) -> str:
    """The new text; with colour, deletions struck through in red and insertions in green, inline."""
    if not color:
        return new_text
    out, pos = [], 0
    for e in edits:
        out.append(original[pos : e.start])
        if e.original:
            out.append(f"{_DELETED}{e.original}{_RESET}")
        if e.replacement:
            out.append(f"{_INSERTED}{e.replacement}{_RESET}")
        pos = e.end
    out.append(original[pos:])
    return "".join(out)


def edits_text(edits: list[Edit]) -> str:
    if not edits:
        return "No changes."
    return "\n".join(f"  {e.start:>6}  {e.family:<14} {e.original!r} -> {e.replacement!r}" for e in edits)


def _bar(identifiability: float) -> str:
    filled = round(identifiability * 5)
    return "[" + "#" * filled + "." * (5 - filled) + "]"


def _in_context(text: str, start: int, end: int, replacement: str | None, color: bool) -> str:
    left = text[max(0, start - _CONTEXT) : start].replace("\n", "⏎ ")
    right = text[end : end + _CONTEXT].replace("\n", "⏎ ")
    mid = text[start:end].replace("\n", "⏎").replace("\t", "⇥") or "∅"
    if mid.strip() == "":
        mid = mid.replace(" ", "␣")
    marked = f"{_HIGHLIGHT}{mid}{_RESET}" if color else f"[{mid}]"
    arrow = f"  → {replacement!r}" if replacement is not None else ""
    return f"…{left}{marked}{right}…{arrow}"
