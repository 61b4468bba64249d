// <textarea> and text <input>: execCommand("insertText") over the select-all. The browser records one
// undo step and fires real beforeinput/input events, so React and friends see the change and Ctrl+Z restores.
"use strict";

fantasma.editors.push({
  name: "input",
  detect: (field) => fantasma.isTextControl(field),
  replace(field, text) {
    const doc = field.ownerDocument; // the field's own document: iframes have their own execCommand
    const done = text === "" ? doc.execCommand("delete") : doc.execCommand("insertText", false, text);
    if (!done) throw new Error("insertText was refused");
  },
});
