// Replace a field's whole text as ONE user-like edit, the way the field's editor expects it, and verify
// it after the editor has settled. Many editors (CKEditor 5, Lexical, Slate, Draft.js, TinyMCE) take a
// synthetic event, cancel it and apply the edit later (a microtask, the next React render, a timeout), so
// nothing is read back until the field has been quiet for a moment. A strategy that changed nothing lets
// the next one try; a strategy that changed the field wrongly is undone through the editor's OWN history
// (its model, not just the DOM), and no other strategy ever runs on top of a changed field. If even the
// undo cannot bring the original back, the error says exactly what the field now holds.
"use strict";

const SELECTION_SYNC_MS = 200; // bound on waiting for the editor to see our select-all
const QUIET_MS = 80; // a field with no DOM mutation for this long has settled
const SETTLE_MAX_MS = 1500; // bound on waiting for an editor to settle

/** One animation frame (or a short timeout where frames do not run, e.g. a hidden tab). */
function nextFrame(view) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    view.requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Resolves once the field's editor has applied whatever it queued: microtasks, two animation frames,
 * then no DOM mutation inside the field for QUIET_MS (bounded by SETTLE_MAX_MS).
 * @param {HTMLElement} field
 */
fantasma.settle = async function settle(field) {
  const view = field.ownerDocument.defaultView;
  const deadline = performance.now() + SETTLE_MAX_MS;
  let lastChange = performance.now();
  const observer = new MutationObserver(() => {
    lastChange = performance.now();
  });
  observer.observe(field, { subtree: true, childList: true, characterData: true, attributes: true });
  try {
    await Promise.resolve();
    await nextFrame(view);
    await nextFrame(view);
    while (performance.now() < deadline) {
      const quietFor = performance.now() - lastChange;
      if (quietFor >= QUIET_MS) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(QUIET_MS - quietFor + 1, deadline - performance.now())));
    }
  } finally {
    observer.disconnect();
  }
};

/** Selects the field's whole content and waits until its editor has seen the selection change. */
fantasma.selectAllSynced = async function selectAllSynced(field) {
  if (fantasma.isTextControl(field)) {
    field.focus();
    field.select(); // the browser's own control: nothing to sync
    return;
  }
  const doc = field.ownerDocument;
  const changed = new Promise((resolve) => {
    const timer = setTimeout(resolve, SELECTION_SYNC_MS);
    doc.addEventListener(
      "selectionchange",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  fantasma.selectAllIn(field);
  await changed; // editors map the DOM selection to their model in their selectionchange listener
  await fantasma.settle(field);
};

/**
 * Undo our one edit through the editor's own history: a `historyUndo` beforeinput (Lexical, ProseMirror,
 * CodeMirror, Quill), else the editor's Ctrl/Cmd+Z key binding (CKEditor, Slate, Draft.js, TinyMCE),
 * else the browser's native undo (text controls, plain contenteditable). Exactly one of them acts.
 * @returns {string} which one acted
 */
fantasma.undoOnce = function undoOnce(field) {
  const doc = field.ownerDocument;
  field.focus();
  if (!fantasma.isTextControl(field)) {
    const input = new InputEvent("beforeinput", { inputType: "historyUndo", bubbles: true, cancelable: true, composed: true });
    field.dispatchEvent(input);
    if (input.defaultPrevented) return "historyUndo";
    const mac = /Mac|iPhone|iPad/.test(navigator.platform);
    const init = { key: "z", code: "KeyZ", keyCode: 90, which: 90, ctrlKey: !mac, metaKey: mac, bubbles: true, cancelable: true, composed: true };
    const down = new KeyboardEvent("keydown", init);
    field.dispatchEvent(down);
    field.dispatchEvent(new KeyboardEvent("keyup", init));
    if (down.defaultPrevented) return "keydown";
  }
  doc.execCommand("undo");
  return "execCommand";
};

function editFailed(message) {
  return Object.assign(new Error(message), { code: "edit_failed" });
}

/**
 * @param {HTMLElement} field
 * @param {string} text
 * @returns {Promise<string>} name of the strategy that did the edit
 */
fantasma.replaceText = async function replaceText(field, text) {
  const original = fantasma.readField(field);
  const tried = [];
  for (const strategy of fantasma.editors) {
    if (!strategy.detect(field)) continue;
    tried.push(strategy.name);
    await fantasma.selectAllSynced(field);
    try {
      strategy.replace(field, text);
    } catch {
      // e.g. insertText refused: the browser did nothing; the read-back below decides
    }
    await fantasma.settle(field);
    const now = fantasma.readField(field);
    if (fantasma.sameText(now, text)) return strategy.name;
    if (fantasma.sameText(now, original)) continue; // the editor ignored this kind of edit: try the next
    // The field changed, but not into the rewrite: take exactly that edit back through the editor.
    const how = fantasma.undoOnce(field);
    await fantasma.settle(field);
    const after = fantasma.readField(field);
    if (!fantasma.sameText(after, original)) {
      throw editFailed(
        `Could not replace the text cleanly (${strategy.name}), and undo (${how}) did not bring the original back. ` +
          `The field now holds: “${after}”`,
      );
    }
    // Back to the original through the editor's history: the next strategy starts from a clean field.
  }
  throw editFailed(`could not edit this field; it was left as it was (tried: ${tried.join(", ") || "none"})`);
};
