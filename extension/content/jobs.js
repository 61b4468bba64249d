// Content-script side of a job: anonymizeField() sends the field's text (fantasma.runJob, port.js).
"use strict";

/**
 * Rewrites a field in place. Resolves to true when the field now holds the rewrite, false when the
 * user cancelled it or declined the preview; rejects (and leaves the field untouched) on any failure.
 * @param {HTMLElement} field
 */
fantasma.anonymizeField = async function anonymizeField(field) {
  const original = fantasma.readField(field);
  if (!original.trim()) return true; // nothing to anonymize; an empty post is the page's business
  const stop = new AbortController();
  const indicator = fantasma.showIndicator(field, () => stop.abort()); // its Cancel stops the host's job
  let result;
  try {
    result = await fantasma.runJob({ kind: "rewrite", text: original }, (p) => indicator.update(p), stop.signal);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    // The user's Cancel: the field is as they typed it, and a held post stays unsent.
    fantasma.showMessage(field, { text: fantasma.t("rewriteCancelled"), kind: "info" });
    return false;
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
