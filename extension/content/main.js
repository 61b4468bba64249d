// Entry point of the content script in every frame: settings, the right-clicked field, and the
// commands the background sends (context menu, keyboard shortcut, the private composer's Insert).
"use strict";

fantasma.settings = null; // null until storage answers: auto-rewrite holds sends until then
fantasma.settingsReady = fantasma.api.storage.local.get(null).then(
  (stored) => {
    fantasma.settings = { autoRewrite: false, sites: {}, previewBeforeApply: false, enterSends: {}, ...stored };
  },
  () => {
    // Storage failed: the defaults (auto-rewrite off) are all we can know.
    fantasma.settings = { autoRewrite: false, sites: {}, previewBeforeApply: false, enterSends: {} };
  },
);
fantasma.api.storage.onChanged.addListener((changes, area) => {
  if (area !== "local" || !fantasma.settings) return;
  for (const [key, { newValue }] of Object.entries(changes)) fantasma.settings[key] = newValue;
});

let contextField = null;
window.addEventListener(
  "contextmenu",
  (event) => {
    contextField = fantasma.editableRoot(event.composedPath()[0]);
  },
  true,
);

/** The field the private composer writes into (set when it was opened from this frame). */
let composeTarget = null;

function reportError(field, error) {
  const message = error?.message || String(error);
  if (field?.isConnected) fantasma.showMessage(field, { text: message });
}

async function showMarkers(field) {
  const text = fantasma.readField(field);
  if (!text.trim()) return fantasma.showMarkers(field, text, []);
  const report = await fantasma.runJob({ kind: "analyze", text });
  fantasma.showMarkers(field, text, report.findings ?? [], report);
}

/** The composer's Insert: only the rewritten text it sends is put into the field, as one edit. */
async function insertFromComposer(text) {
  const field = composeTarget;
  if (!field?.isConnected) {
    return { error: { code: "no_field", message: "The field the composer was opened for is gone." } };
  }
  try {
    await fantasma.replaceText(field, text);
  } catch (error) {
    return { error: { code: error?.code ?? "edit_failed", message: error?.message ?? String(error) } };
  }
  fantasma.fieldChanged(field); // a markers panel open on the field described the old text
  // Text the extension wrote and read back: auto-rewrite sends it as it is.
  fantasma.approveField?.(field);
  return { ok: true };
}

fantasma.api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.kind === "compose-insert") {
    if (!composeTarget) return false; // another frame's composer
    insertFromComposer(message.text).then(sendResponse);
    return true; // answered asynchronously
  }
  if (!["anonymize", "markers", "compose"].includes(message?.kind)) return false;
  let field;
  if (message.focusedOnly) {
    if (!document.hasFocus()) return false;
    field = fantasma.focusedEditable(document);
  } else {
    field = contextField ?? fantasma.focusedEditable(document);
  }
  if (!field || fantasma.isPassword(field)) return false;
  if (message.kind === "compose") {
    fantasma.openComposer(field);
    return false;
  }
  const work = message.kind === "anonymize" ? fantasma.anonymizeField(field) : showMarkers(field);
  work.catch((error) => reportError(field, error));
  return false;
});

/**
 * Opens the private composer for `field` (the background knows this frame from the sender); `text`, when
 * given (the card's "Finish it yourself"), is what the composer opens with, kept in the extension.
 */
fantasma.openComposer = function openComposer(field, text) {
  composeTarget = field;
  const message = { kind: "compose-open", label: fieldLabel(field), page: pageName() };
  if (typeof text === "string") message.text = text;
  fantasma.api.runtime.sendMessage(message).catch(() => {});
};

/**
 * The field as a person names it, for the composer ("Insert into “Reply to Ann” on …"): its label,
 * placeholder or tooltip; "" when it has none (the composer says "the text box"). Never the `name`
 * attribute, which is for the site's code ("message", "comment[body]").
 */
function fieldLabel(field) {
  const doc = field.ownerDocument;
  const labelledBy = (field.getAttribute("aria-labelledby") ?? "")
    .split(/\s+/)
    .map((id) => id && doc.getElementById(id)?.textContent)
    .filter(Boolean)
    .join(" ");
  const label =
    field.getAttribute("aria-label") ||
    labelledBy ||
    labelText(field.labels?.[0]) ||
    (field.id && labelText(doc.querySelector(`label[for="${CSS.escape(field.id)}"]`))) ||
    field.getAttribute("placeholder") ||
    field.getAttribute("aria-placeholder") ||
    field.getAttribute("title") ||
    "";
  return label.replace(/\s+/g, " ").trim().slice(0, 60);
}

/** A <label>'s own words: a label that wraps its field would otherwise include the field's text. */
function labelText(label) {
  if (!label) return "";
  const words = label.cloneNode(true);
  for (const control of words.querySelectorAll("input, textarea, select, [contenteditable]")) control.remove();
  return words.textContent;
}

/** The page as a person names it: its title (the top page's, when this frame may read it), else its site. */
function pageName() {
  let title = document.title;
  try {
    title = title || window.top.document.title;
  } catch {
    // a cross-origin frame: its own title or its site
  }
  return (title.replace(/\s+/g, " ").trim() || location.hostname || "this page").slice(0, 80);
}

// ---- after an update: one copy of the scripts per page -------------------------------------------

/**
 * An update or a reload of the extension cuts off the copy of these scripts already in the page; the
 * background injects a new copy on the user's next gesture (Firefox puts one in by itself). The new copy
 * announces itself with this event: a cut-off copy (Chromium keeps it running) takes away its listeners
 * and its boxes. Pages can send the event too; a live copy ignores it, a cut-off one only steps aside.
 */
const TAKEOVER_EVENT = "fantasma-scripts-replaced";
window.addEventListener(TAKEOVER_EVENT, () => {
  if (!fantasma.alive()) fantasma.retire();
});
window.dispatchEvent(new Event(TAKEOVER_EVENT));
// Boxes a stopped copy left behind (Firefox): gone; a rewrite that was under way is explained.
if (fantasma.removeStaleUi(document).includes("indicator")) {
  const field = fantasma.focusedEditable(document);
  if (field) fantasma.showMessage(field, { text: fantasma.t("extensionReloaded") });
}
