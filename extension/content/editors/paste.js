// Rich editors that rebuild their document from a paste (Draft.js and similar): a synthetic paste with
// the text as text/plain. Untrusted paste events have no default action, so "not handled" changes nothing.
"use strict";

fantasma.editors.push({
  name: "paste",
  detect: (field) => field.isContentEditable,
  replace(field, text) {
    fantasma.selectAllIn(field);
    const data = new DataTransfer();
    data.setData("text/plain", text);
    const event = new ClipboardEvent("paste", {
      clipboardData: data,
      bubbles: true,
      cancelable: true,
      composed: true,
    });
    field.dispatchEvent(event);
    if (!event.defaultPrevented) throw new Error("the page did not handle paste");
  },
});
