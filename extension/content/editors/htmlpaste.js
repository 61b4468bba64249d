// Editors whose model is HTML blocks and whose plain-text paste turns a blank line into a paragraph break
// (CKEditor 5), so "a\n\nb" would lose its empty paragraph and verification would fail: a synthetic paste
// that also carries the text as HTML, one <p> per line (an empty line an empty paragraph). Before
// `beforeinput`, whose multi-line insertText CKEditor records as several undo steps.
"use strict";

fantasma.escapeHtml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

fantasma.editors.push({
  name: "html-paste",
  detect: (field) => field.isContentEditable && field.classList.contains("ck-editor__editable"),
  replace(field, text) {
    const data = new DataTransfer();
    data.setData("text/plain", text);
    const blocks = text.split(/\r\n?|\n/).map((line) => (line ? `<p>${fantasma.escapeHtml(line)}</p>` : "<p><br></p>"));
    data.setData("text/html", blocks.join(""));
    field.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true, composed: true }));
  },
});
