// Generic contenteditable, last: insertText over the select-all in the field's own document (a native
// edit: the browser's undo stack has it, and editors that read DOM mutations pick it up).
"use strict";

fantasma.selectAllIn = function selectAllIn(field) {
  const doc = field.ownerDocument;
  field.focus();
  const range = doc.createRange();
  range.selectNodeContents(field);
  const selection = doc.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
};

fantasma.editors.push({
  name: "contenteditable",
  detect: (field) => field.isContentEditable,
  replace(field, text) {
    const doc = field.ownerDocument;
    // TinyMCE keeps undo levels only for edits it sees as steps (its own commands, navigation keys, blur);
    // a native edit is none of these, so Ctrl+Z would skip past the original. A navigation keyup (End)
    // before and after makes it record the text before and after our edit as two levels.
    const tinymce = field.classList.contains("mce-content-body");
    const commitLevel = () =>
      field.dispatchEvent(new KeyboardEvent("keyup", { key: "End", code: "End", keyCode: 35, which: 35, bubbles: true, cancelable: true }));
    if (tinymce) commitLevel();
    const done = text === "" ? doc.execCommand("delete") : doc.execCommand("insertText", false, text);
    if (tinymce) commitLevel();
    if (!done) throw new Error("insertText was refused");
  },
});
