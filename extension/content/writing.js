// Other people's writing on the page, for "people a reader might suspect" (the menu items on a page
// or a selection). Only what the user asked for, only text: never a field's content (that is the
// user's own writing, or something the site keeps), never menus, forms or hidden parts.
"use strict";

/** Elements whose text is not someone's writing, or not someone else's. */
const SKIP = /^(script|style|template|noscript|svg|canvas|nav|header|footer|aside|form|button|select|option|textarea|input|code|pre)$/;
const BLOCKS = /^(p|li|blockquote|dd|td|th|h[1-6]|article|section|div|main|figcaption)$/;
const MIN_BLOCK_WORDS = 8; // shorter blocks are labels, buttons, dates, names

function skipped(el) {
  return (
    SKIP.test(el.localName) ||
    el.hidden ||
    el.isContentEditable ||
    el.getAttribute("aria-hidden") === "true" ||
    ["navigation", "banner", "contentinfo", "menu", "menubar", "toolbar", "search", "dialog"].includes(
      el.getAttribute("role") ?? "",
    )
  );
}

/**
 * The page's prose as paragraphs: text gathered per block element (a block inside a block starts a new
 * paragraph), fields, forms, menus and hidden parts left out, blocks under MIN_BLOCK_WORDS words dropped,
 * a paragraph seen twice kept once (quoted replies repeat a post).
 */
fantasma.pageWriting = function pageWriting(doc = document) {
  const paragraphs = [];
  const seen = new Set();
  let current = "";
  const flush = () => {
    const text = current.replace(/\s+/g, " ").trim();
    current = "";
    if (text.split(" ").length >= MIN_BLOCK_WORDS && !seen.has(text)) {
      seen.add(text);
      paragraphs.push(text);
    }
  };
  const visit = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      current += node.data;
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE || skipped(node)) return;
    if (node.localName === "br") {
      current += " ";
      return;
    }
    const style = node.ownerDocument.defaultView?.getComputedStyle(node);
    if (style && (style.display === "none" || style.visibility === "hidden")) return;
    const block = BLOCKS.test(node.localName);
    if (block) flush();
    for (const child of node.childNodes) visit(child);
    if (node.shadowRoot) for (const child of node.shadowRoot.childNodes) visit(child);
    if (block) flush();
  };
  if (doc.body) visit(doc.body);
  flush();
  return paragraphs.join("\n\n");
};

/**
 * The selected text, unless the selection is in (or holds) a field: that is the user's own draft, which
 * belongs in their own samples, not with other people's writing.
 * @returns {{text: string, inField: boolean}}
 */
fantasma.selectedWriting = function selectedWriting(doc = document) {
  // A text control's selection is not the document's (that stays outside the control): ask the control.
  const active = fantasma.focusedEditable(doc);
  if (fantasma.isTextControl(active) && active.selectionStart !== active.selectionEnd) return { text: "", inField: true };
  const selection = doc.getSelection();
  if (!selection || selection.rangeCount === 0) return { text: "", inField: false };
  for (let i = 0; i < selection.rangeCount; i++) {
    const range = selection.getRangeAt(i);
    const fields = range.cloneContents().querySelectorAll("textarea, input, [contenteditable]");
    if (fantasma.editableRoot(range.commonAncestorContainer) || fields.length) return { text: "", inField: true };
  }
  return { text: selection.toString().trim(), inField: false };
};

fantasma.api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.kind !== "collect-writing") return false;
  // The page's address too: the background has no "tabs" permission, so it cannot read the tab's URL.
  const collected =
    message.scope === "selection" ? fantasma.selectedWriting(document) : { text: fantasma.pageWriting(document), inField: false };
  sendResponse({ ...collected, url: location.href });
  return false;
});
