"""Small helpers for the style tests: spans written as strings with {braces} around the marked text."""

from __future__ import annotations

from native_host.style import analyze
from native_host.style.analyze import observe
from native_host.style.document import Document
from native_host.style.model import Target


def marked(text: str, marker: str, target: Target | None = None) -> str:
    """The text with every span of `marker` wrapped in {braces} (replacement after ->, if any)."""
    spans = []
    for obs in observe(Document(text), target or Target()):
        if obs.marker == marker:
            spans.extend(obs.spans)
    out, pos = [], 0
    for s in sorted(spans, key=lambda s: s.start):
        out.append(text[pos : s.start])
        out.append("{" + s.text + ("" if s.replacement is None else "->" + s.replacement) + "}")
        pos = s.end
    out.append(text[pos:])
    return "".join(out)


def markers(text: str) -> set[str]:
    """Markers the report shows for `text`."""
    return {f.marker for f in analyze(text).findings}


def finding(text: str, marker: str):
    found = [f for f in analyze(text).findings if f.marker == marker]
    assert found, f"{marker} not reported for {text!r}"
    return found[0]
