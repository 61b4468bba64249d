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
    const done = text === "" ? doc.execCommand("delete") : doc.execCommand("insertText", false, text);
    if (!done) throw new Error("insertText was refused");
  },
});
