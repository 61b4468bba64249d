// Editors that apply a paste to their own model (Draft.js, Quill, ProseMirror/TipTap, CodeMirror, TinyMCE):
// a synthetic paste of the text as text/plain over the select-all, what Ctrl+A, Ctrl+V would do.
// Untrusted paste events have no default action, so a page that does not handle paste changes nothing.
"use strict";

fantasma.editors.push({
  name: "paste",
  detect: (field) => field.isContentEditable,
  replace(field, text) {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    field.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true, composed: true }));
  },
});
