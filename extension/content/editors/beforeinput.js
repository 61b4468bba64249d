// Editors that take every edit from `beforeinput` and cancel it (Lexical, Slate, ProseMirror-based ones):
// we hand them the replacement the same way the browser would and let their model do the edit.
"use strict";

fantasma.editors.push({
  name: "beforeinput",
  detect: (field) =>
    field.isContentEditable &&
    (field.hasAttribute("data-lexical-editor") ||
      field.hasAttribute("data-slate-editor") ||
      field.classList.contains("ProseMirror")),
  replace(field, text) {
    fantasma.selectAllIn(field);
    const event = new InputEvent("beforeinput", {
      inputType: "insertText",
      data: text,
      bubbles: true,
      cancelable: true,
      composed: true,
    });
    field.dispatchEvent(event);
    // An untrusted beforeinput has no default action: if the editor did not take it, nothing changed.
    if (!event.defaultPrevented) throw new Error("the editor ignored beforeinput");
  },
});
