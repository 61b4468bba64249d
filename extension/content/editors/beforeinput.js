// Model-based editors that take every edit from `beforeinput` (Lexical, Slate, CKEditor 5): a synthetic
// `insertText` over the (already synced) select-all, as the browser would send for typing over a
// selection. Untrusted events have no default action, so an editor that ignores it leaves the field as is.
"use strict";

fantasma.editors.push({
  name: "beforeinput",
  detect: (field) => field.isContentEditable,
  replace(field, text) {
    field.dispatchEvent(
      new InputEvent("beforeinput", { inputType: "insertText", data: text, bubbles: true, cancelable: true, composed: true }),
    );
  },
});
