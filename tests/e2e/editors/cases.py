"""The editors under test and the text they are tested with (shared by the Chromium and Firefox modules)."""

from __future__ import annotations

from dataclasses import dataclass

URL = "https://example.org/colour-guide?id=42"
EMAIL = "jo.bloggs@example.co.uk"
# Markers the light (rule-based) rewrite removes, around a URL and an e-mail that must not change.
ORIGINAL = (
    "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. "
    f"The guide is at {URL} or write to {EMAIL}, innit."
)
MARKERS = ("realise", "!!!", ":)", "innit")
# Undo grouping windows of the editors (Quill merges edits within 1000 ms, ProseMirror and CodeMirror
# within 500 ms): a user's typing and the later rewrite are separate steps only if this much time passes.
# A person takes at least that long to reach the menu or the shortcut.
UNDO_GROUP_MS = 1100


@dataclass(frozen=True)
class Editor:
    name: str
    field: str  # the editable the user clicks (inside `frame` when set)
    frame: str | None = None  # the iframe holding the editable (TinyMCE)
    html_body: bool = False  # the editor itself copies HTML into <textarea name=body> on submit


EDITORS = [
    Editor("ckeditor", ".ck-editor__editable", html_body=True),
    Editor("tinymce", "#tinymce", frame="iframe.tox-edit-area__iframe", html_body=True),
    Editor("lexical", "#field"),
    Editor("slate", "#field"),
    Editor("draft", ".public-DraftEditor-content"),
    Editor("quill", ".ql-editor"),
    Editor("tiptap", ".ProseMirror"),
    Editor("codemirror", ".cm-content"),
    Editor("react-textarea", "#field"),
]
