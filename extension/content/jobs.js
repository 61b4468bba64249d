// Content-script side of a job: anonymizeField() sends the field's text (fantasma.runJob, port.js).
"use strict";

/**
 * Rewrites a field in place. Resolves to true when the field now holds the rewrite, false when the
 * user declined the preview; rejects (and leaves the field untouched) on any failure.
 * @param {HTMLElement} field
 */
fantasma.anonymizeField = async function anonymizeField(field) {
  const original = fantasma.readField(field);
  if (!original.trim()) return true; // nothing to anonymize; an empty post is the page's business
  const indicator = fantasma.showIndicator(field);
  let result;
  try {
    result = await fantasma.runJob({ kind: "rewrite", text: original }, (p) => indicator.update(p));
  } finally {
    indicator.remove();
  }
  if (!fantasma.sameText(fantasma.readField(field), original)) {
    // The user kept typing while the host worked: their newer text wins, nothing is overwritten.
    throw { code: "edit_failed", message: "The text changed while it was being rewritten; nothing was replaced." };
  }
  if (fantasma.settings.previewBeforeApply && !(await fantasma.confirmPreview(field, original, result.text))) {
    return false;
  }
  if (!fantasma.sameText(result.text, original)) await fantasma.replaceText(field, result.text);
  fantasma.onRewritten?.(field, result); // ui.js: the identifiability figure next to the field
  return true;
};
