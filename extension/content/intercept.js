// Auto-rewrite before posting (off by default). In the capture phase, before the page sees them, we
// take Enter-to-send and form submits, rewrite the field(s), then send the way the page would. If the
// rewrite fails, nothing is sent, the original text stays and the user may send it deliberately.
"use strict";

fantasma.busy = false; // a rewrite-then-send is running: further sends wait for it
fantasma.passThrough = 0; // > 0 while we send ourselves: our own submit must not be intercepted
let swallowEnterKeyup = false;

function autoRewriteHere() {
  const s = fantasma.settings;
  return s ? (s.sites?.[location.hostname] ?? s.autoRewrite) : false;
}

/** A field where Enter (rather than Shift+Enter) sends: one-line chat boxes, not comment boxes. */
function enterSends(field, event) {
  if (event.ctrlKey || event.metaKey) return true; // Ctrl/Cmd+Enter is "send" wherever it does anything
  if (field.getAttribute("enterkeyhint") === "send") return true;
  if (field.localName === "input") return !field.form; // in a form, the submit event covers it
  if (field.localName === "textarea") return Number(field.getAttribute("rows")) === 1;
  return field.getAttribute("aria-multiline") !== "true" && field.getBoundingClientRect().height < 60;
}

const SEND_LABEL = /^(send|post|submit|reply|comment|publish|tweet)\b/i;

/** The page's send button near the field: a submit button of its form, or a button labelled "Send". */
function findSendButton(field) {
  const form = field.form ?? field.closest("form");
  const submit = form?.querySelector('button[type="submit"], button:not([type]), input[type="submit"]');
  if (submit) return submit;
  let scope = field.parentElement;
  for (let depth = 0; scope && depth < 4; depth++, scope = scope.parentElement) {
    for (const button of scope.querySelectorAll('button, [role="button"], input[type="submit"]')) {
      const label = button.getAttribute("aria-label") ?? button.title ?? "";
      const text = button.textContent || button.value || "";
      if (SEND_LABEL.test(label.trim()) || SEND_LABEL.test(text.trim()) || button.dataset.testid?.includes("send")) {
        return button;
      }
    }
  }
  return null;
}

function sendFromField(field) {
  const form = field.form ?? field.closest("form");
  fantasma.passThrough++;
  try {
    if (form) return form.requestSubmit();
    const button = findSendButton(field);
    if (button) return button.click();
    // Last resort: a synthetic Enter. It is untrusted, so our own listener lets it through.
    for (const type of ["keydown", "keypress", "keyup"]) {
      field.dispatchEvent(new KeyboardEvent(type, { key: "Enter", code: "Enter", keyCode: 13, which: 13, bubbles: true, cancelable: true, composed: true }));
    }
  } finally {
    fantasma.passThrough--;
  }
}

function sendForm(form, submitter) {
  fantasma.passThrough++;
  try {
    form.requestSubmit(submitter?.form === form ? submitter : undefined);
  } finally {
    fantasma.passThrough--;
  }
}

/** The fields of a form worth anonymizing: free-text areas, rich editors, and the focused text input. */
function formFields(form) {
  const doc = form.ownerDocument;
  const fields = [...form.querySelectorAll('textarea, [contenteditable=""], [contenteditable="true"]')]
    .map((el) => fantasma.editableRoot(el))
    .filter(Boolean);
  const focused = fantasma.focusedEditable(doc);
  if (focused && form.contains(focused) && !fields.includes(focused)) fields.push(focused);
  return [...new Set(fields)].filter((f) => fantasma.readField(f).trim());
}

/** Rewrites every field, then sends; on failure blocks the post and offers to send the original. */
async function rewriteThenSend(fields, send) {
  fantasma.busy = true;
  try {
    for (const field of fields) {
      if (!(await fantasma.anonymizeField(field))) return; // preview declined: not sent, user edits
    }
  } catch (error) {
    const field = fields[0];
    fantasma.showMessage(field, {
      text: `${fantasma.t("blockedPost")} ${error?.message ?? ""}`.trim(),
      actions: [{ label: fantasma.t("sendOriginal"), run: send }],
    });
    return;
  } finally {
    fantasma.busy = false;
  }
  send();
}

function onKeydown(event) {
  if (event.key !== "Enter" || !event.isTrusted) return;
  if (event.isComposing || event.keyCode === 229 || event.shiftKey || event.altKey) return;
  const field = fantasma.editableRoot(event.composedPath()[0]);
  if (!field || fantasma.isPassword(field) || !autoRewriteHere()) return;
  if (fantasma.busy) {
    event.preventDefault();
    event.stopImmediatePropagation();
    swallowEnterKeyup = true;
    return;
  }
  if (!enterSends(field, event) || !fantasma.readField(field).trim()) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  swallowEnterKeyup = true; // pages that send on keyup must not see this Enter either
  rewriteThenSend([field], () => sendFromField(field));
}

function onKeyup(event) {
  if (event.key !== "Enter" || !swallowEnterKeyup) return;
  swallowEnterKeyup = false;
  event.preventDefault();
  event.stopImmediatePropagation();
}

function onSubmit(event) {
  if (fantasma.passThrough > 0 || !autoRewriteHere()) return;
  const form = event.target;
  // Login and sign-up forms: user names and passwords are not prose, and must reach the site as typed.
  if (form.querySelector?.('input[type="password" i]')) return;
  if (fantasma.busy) {
    event.preventDefault();
    event.stopImmediatePropagation();
    return;
  }
  const fields = formFields(form);
  if (fields.length === 0) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  const submitter = event.submitter;
  rewriteThenSend(fields, () => sendForm(form, submitter));
}

window.addEventListener("keydown", onKeydown, true);
window.addEventListener("keyup", onKeyup, true);
window.addEventListener("submit", onSubmit, true);
