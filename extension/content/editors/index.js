// Replace a field's whole text with the first strategy that detects the field AND verifies; on a
// mismatch the field is restored and the next strategy tries. If none verifies, the field is left
// exactly as it was and the error says which strategies were tried.
"use strict";

fantasma.snapshot = function snapshot(field) {
  if (fantasma.isTextControl(field)) {
    return { value: field.value, start: field.selectionStart, end: field.selectionEnd };
  }
  return { nodes: [...field.childNodes].map((node) => node.cloneNode(true)) };
};

fantasma.restore = function restore(field, snap) {
  if ("value" in snap) {
    if (field.value !== snap.value) {
      // Prefer an undoable edit the page notices; fall back to the value setter plus an input event.
      field.focus();
      field.select();
      const doc = field.ownerDocument;
      const ok = snap.value === "" ? doc.execCommand("delete") : doc.execCommand("insertText", false, snap.value);
      if (!ok || field.value !== snap.value) {
        const proto = field.localName === "textarea" ? HTMLTextAreaElement : HTMLInputElement;
        Object.getOwnPropertyDescriptor(proto.prototype, "value").set.call(field, snap.value);
        field.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
    try {
      field.setSelectionRange(snap.start, snap.end);
    } catch {
      // some input types have no selection API; nothing to restore then
    }
    return;
  }
  const same =
    field.childNodes.length === snap.nodes.length && snap.nodes.every((node, i) => node.isEqualNode(field.childNodes[i]));
  if (!same) {
    field.replaceChildren(...snap.nodes.map((node) => node.cloneNode(true)));
    field.dispatchEvent(new Event("input", { bubbles: true }));
  }
};

/**
 * @param {HTMLElement} field
 * @param {string} text
 * @returns {string} name of the strategy that did the edit
 */
fantasma.replaceText = function replaceText(field, text) {
  const snap = fantasma.snapshot(field);
  const original = fantasma.readField(field);
  const tried = [];
  for (const strategy of fantasma.editors) {
    if (!strategy.detect(field)) continue;
    tried.push(strategy.name);
    try {
      strategy.replace(field, text);
    } catch (err) {
      fantasma.restore(field, snap);
      continue;
    }
    if (fantasma.sameText(fantasma.readField(field), text)) return strategy.name;
    fantasma.restore(field, snap);
  }
  if (!fantasma.sameText(fantasma.readField(field), original)) fantasma.restore(field, snap);
  throw Object.assign(new Error(`could not edit this field (tried: ${tried.join(", ") || "none"})`), {
    code: "edit_failed",
  });
};
