// Generic contenteditable, last: select the field's contents in its own document and insertText.
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
    fantasma.selectAllIn(field);
    const doc = field.ownerDocument;
    const done = text === "" ? doc.execCommand("delete") : doc.execCommand("insertText", false, text);
    if (!done) throw new Error("insertText was refused");
  },
});
