// Content scripts are classic scripts (MV3 has no static ES-module content scripts), so they share one
// namespace object in the extension's isolated world. Pages cannot see it.
"use strict";

globalThis.fantasma = globalThis.fantasma ?? {
  /** @type {import("../protocol.js").EditorStrategy[]} ordered; the first that detects and verifies wins */
  editors: [],
  api: globalThis.browser ?? globalThis.chrome,
};
// This frame has the scripts: the background's injection into tabs open before an update skips it
// (background.js, claimFrame).
globalThis.fantasmaContentScripts = true;

/**
 * False once the extension was updated, reloaded or removed under this page: this copy of the scripts
 * is cut off from the background (Chromium keeps it running; Firefox stops it) and can start no job.
 */
fantasma.alive = function alive() {
  try {
    return !!fantasma.api.runtime?.id;
  } catch {
    return false;
  }
};

/** What a cut-off copy undoes when a newer copy takes the page over (main.js): listeners, UI. */
fantasma.retirements = [];
fantasma.retire = function retire() {
  for (const undo of fantasma.retirements.splice(0)) {
    try {
      undo();
    } catch (error) {
      console.warn("fantasma: retiring", error);
    }
  }
};

/** Text of a field as the user sees it: the value of inputs, the lines of rich editors. */
fantasma.readField = function readField(field) {
  if (fantasma.isTextControl(field)) return field.value;
  return fantasma.richText(field);
};

const BLOCK = /^(div|p|li|ul|ol|h[1-6]|blockquote|pre|section|article|header|footer|table|tr)$/;

/**
 * Lines of a contenteditable: a block starts and ends a line, <br> ends one. innerText does not do
 * for this: an empty line typed in Chromium (`<div><br></div>`) reads as two blank lines there.
 */
fantasma.richText = function richText(root) {
  const lines = [""];
  const visit = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      lines[lines.length - 1] += node.data;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || node.hidden || /^(script|style|template)$/.test(node.localName)) return;
    if (node.localName === "br") {
      lines.push("");
      return;
    }
    const block = BLOCK.test(node.localName);
    if (block && lines[lines.length - 1] !== "") lines.push("");
    for (const child of node.childNodes) visit(child);
    if (block && lines[lines.length - 1] !== "") lines.push("");
  };
  for (const child of root.childNodes) visit(child);
  return lines.join("\n").replace(/\n$/, "");
};

fantasma.isTextControl = function isTextControl(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.localName === "textarea") return true;
  if (el.localName !== "input") return false;
  return ["text", "search", "url", "email", ""].includes((el.getAttribute("type") ?? "").toLowerCase());
};

fantasma.isPassword = function isPassword(el) {
  return el?.localName === "input" && (el.getAttribute("type") ?? "").toLowerCase() === "password";
};

/** The editable element the user means: a text control, or the root of a contenteditable region. */
fantasma.editableRoot = function editableRoot(node) {
  let el = node?.nodeType === 1 ? node : node?.parentElement;
  if (!el) return null;
  if (fantasma.isTextControl(el)) return el.readOnly || el.disabled ? null : el;
  if (!el.isContentEditable) return null;
  while (el.parentElement?.isContentEditable) el = el.parentElement;
  return el;
};

/** The focused editable in this document, looking through open shadow roots. */
fantasma.focusedEditable = function focusedEditable(doc = document) {
  let el = doc.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return fantasma.editableRoot(el);
};

/** Compare texts the way editors store them: line endings and non-breaking spaces vary by editor. */
fantasma.sameText = function sameText(a, b) {
  const norm = (s) => s.replace(/\r\n?/g, "\n").replace(/\u00a0/g, " ").replace(/\n+$/, "");
  return norm(a) === norm(b);
};
