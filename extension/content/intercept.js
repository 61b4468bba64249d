// Auto-rewrite before posting. The model (docs/extension.md, "Auto-rewrite before posting"): every user
// gesture that can send text — Enter / Ctrl+Enter in a composer, a click or key press on a send-like
// button, a form submit the user started — is held in the capture phase, before the page sees it, until
// every visible text field that belongs to the send holds a rewrite the extension put there and read
// back (or text the user explicitly chose to send as is). Then the send is replayed the way the page
// expects it. When the extension cannot tell what a send carries, it holds the send and asks. Only
// trusted user gestures start host work; a page's own submit is held and asked about, never rewritten.
"use strict";

/** Labels of buttons that never send (formatting, pickers, closing); anything else near the text may. */
const NOT_SEND =
  /^(bold|italic|underline|strike|emoji|gif|sticker|attach|upload|add (a )?(file|image|photo)|image|photo|link|insert|format|heading|bullet|numbered|quote|code|mention|more|options|menu|close|cancel|discard|delete|remove|clear|undo|redo|expand|collapse|help|settings|back|minimi[sz]e|maximi[sz]e|fullscreen)\b/i;
/** Labels of buttons that send, even when the button sits far from the text it sends. */
const SEND_WORDS = /\b(send|post|submit|reply|comment|publish|tweet|toot|share|save|enviar|senden|envoyer|invia)\b/i;
/** Labels of multi-line composers that send on Enter (Discord, Slack, Teams, WhatsApp: "Message #general"). */
const CHAT_LABEL = /\b(message|chat|type a message|write a message)\b/i;
const BUTTON_LIKE = 'button, input[type="submit" i], input[type="button" i], input[type="image" i], [role="button"]';
const GESTURE_WINDOW_MS = 1000; // a submit this long after the user's Enter/click on that form is theirs
const PRESS_EVENTS = ["pointerdown", "mousedown", "pointerup", "mouseup"];

/**
 * State shared by the content scripts of same-origin frames. In Chromium the frames of one origin share
 * the extension's isolated world, so the top-most reachable frame's namespace holds it (a send that starts
 * in an iframe editor and submits the parent's form is then seen as ours there too). In Firefox each frame
 * has its own sandbox and this is per frame: such a cross-frame send is then held and asked about.
 */
function shared() {
  let ns = fantasma;
  try {
    for (let w = window; w.parent !== w; ) {
      w = w.parent;
      if (w.fantasma?.api) ns = w.fantasma;
    }
  } catch {
    // a cross-origin ancestor: stop there
  }
  ns.interceptState ??= {
    busy: false, // a rewrite-then-send runs: every further send waits
    passThrough: 0, // > 0 while we send ourselves
    approved: new WeakMap(), // field → text the user may send as it is (our verified rewrite, or chosen)
    lastGesture: null, // {time, kind: "enter"|"click", target}
    lastTyped: null, // the field the user last typed into
    lastFrameFocus: null, // an iframe the focus went into (its content may be unreadable)
  };
  return ns.interceptState;
}

// ---- settings -------------------------------------------------------------------------------------

/**
 * "on" | "off" | "unknown" (settings not loaded yet: a send is held until they are) | "cut-off" (the
 * extension was updated or reloaded under this copy: its settings stopped at that moment, since
 * `storage.onChanged` no longer reaches it, so it cannot know whether "Rewrite before posting" is on now
 * and holds every send of the user's text, as "on" would, docs/decisions.md).
 */
function autoRewriteState() {
  const s = fantasma.settings;
  if (!s) return "unknown";
  if (!fantasma.alive()) return "cut-off";
  return (s.sites?.[location.hostname] ?? s.autoRewrite) ? "on" : "off";
}

// ---- fields ---------------------------------------------------------------------------------------

/** A field whose text is prose the user writes: textarea, one-line text input, contenteditable root. */
function isProseField(el) {
  if (!el || el.nodeType !== 1) return false;
  if (el.localName === "textarea" || el.localName === "input") {
    if (el.readOnly || el.disabled) return false;
    if (el.localName === "textarea") return true;
    return ["text", ""].includes((el.getAttribute("type") ?? "").toLowerCase());
  }
  if (el.localName === "body" && el.ownerDocument.designMode === "on") return true;
  return el.isContentEditable && !el.parentElement?.isContentEditable && el.parentNode?.host?.isContentEditable !== true;
}

/** Seen by the user: rendered, not transparent, not collapsed to a dot, not parked off the page. */
function isVisible(el) {
  for (let node = el; node; node = node.ownerDocument.defaultView?.frameElement ?? null) {
    if (!node.isConnected) return false;
    if (node.checkVisibility && !node.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const rect = node.getBoundingClientRect();
    if (rect.width < 4 || rect.height < 4) return false;
    const view = node.ownerDocument.defaultView;
    if (rect.right + view.scrollX <= 0 || rect.bottom + view.scrollY <= 0) return false;
  }
  return true;
}

/** The field's text is the user's and not yet approved for sending. */
function isPending(field) {
  const text = fantasma.readField(field);
  if (!text.trim()) return false;
  const approved = shared().approved.get(field);
  return approved === undefined || !fantasma.sameText(approved, text);
}

fantasma.approveField = function approveField(field) {
  shared().approved.set(field, fantasma.readField(field));
};

/**
 * Visible prose fields under `root`, through open shadow roots and same-origin frames. `opaque` lists
 * the frames whose content cannot be read (another origin): their text, if any, is unknown.
 */
function fieldsUnder(root, found = { fields: [], opaque: [] }) {
  const visit = (el) => {
    if (isProseField(el)) {
      if (isVisible(el)) found.fields.push(el);
      if (el.localName !== "body" && el.isContentEditable) return; // its children are its content
    }
    if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child);
    if (el.localName === "iframe" || el.localName === "frame") {
      let doc = null;
      try {
        doc = el.contentDocument;
      } catch {
        doc = null;
      }
      if (doc?.body) visit(doc.body);
      else if (!doc && isVisible(el)) found.opaque.push(el);
    }
    for (const child of el.children) visit(child);
  };
  visit(root);
  return found;
}

/** Parent across shadow roots and same-origin frames. */
function composedParent(el) {
  if (el.parentElement) return el.parentElement;
  if (el.parentNode?.host) return el.parentNode.host;
  try {
    return el.ownerDocument.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

/** The form an element belongs to, looking out of shadow roots and same-origin frames. */
function formOf(el) {
  for (let node = el; node; node = composedParent(node)) {
    if (node.form instanceof node.ownerDocument.defaultView.HTMLFormElement) return node.form;
    if (node.localName === "form") return node;
  }
  return null;
}

/**
 * Forms whose text is not a post: login and sign-up forms (user names and passwords must reach the site
 * as typed) and search forms (a rewritten query finds other things).
 */
function isExemptForm(form) {
  if (form.querySelector('input[type="password" i]')) return true;
  return form.getAttribute("role") === "search" || !!form.closest('[role="search"], search');
}

/** Every visible prose field of a form: its controls (also those outside it via form=), editors, frames. */
function formFields(form) {
  const found = fieldsUnder(form);
  for (const el of form.elements) {
    if (isProseField(el) && isVisible(el) && !found.fields.includes(el)) found.fields.push(el);
  }
  return found;
}

function rectIn(el) {
  // Rectangles of elements in frames, in the top-most reachable document's coordinates.
  const r = el.getBoundingClientRect();
  let { left, top, right, bottom } = r;
  for (let frame = el.ownerDocument.defaultView?.frameElement; frame; frame = frame.ownerDocument.defaultView?.frameElement) {
    const f = frame.getBoundingClientRect();
    left += f.left;
    right += f.left;
    top += f.top;
    bottom += f.top;
  }
  return { left, top, right, bottom };
}

function distance(a, b) {
  const ra = rectIn(a);
  const rb = rectIn(b);
  const dx = Math.max(0, ra.left - rb.right, rb.left - ra.right);
  const dy = Math.max(0, ra.top - rb.bottom, rb.top - ra.bottom);
  return Math.hypot(dx, dy);
}

const NEAR_PX = 160;

/**
 * The composer an element (a field or a button) sits in: its form, else the nearest ancestor (up to six
 * levels, across shadow roots and frames) that holds a visible text field. At page level (body) only the
 * fields next to the element count.
 */
function composerOf(el) {
  const form = formOf(el);
  if (form) return { form, ...formFields(form) };
  let node = composedParent(el);
  for (let depth = 0; node && depth < 6; depth++, node = composedParent(node)) {
    const pageLevel = node.localName === "body" || node.localName === "html";
    const found = fieldsUnder(node);
    if (pageLevel) {
      found.fields = found.fields.filter((f) => f === el || distance(f, el) <= NEAR_PX);
      found.opaque = found.opaque.filter((f) => distance(f, el) <= NEAR_PX);
    }
    if (found.fields.length || found.opaque.length) return { form: null, ...found };
    if (pageLevel) break;
  }
  return { form: null, fields: isProseField(el) ? [el] : [], opaque: [] };
}

/** The opaque frames of a composer that the user was typing in (their text cannot be read). */
function typedOpaque(composer) {
  const frame = shared().lastFrameFocus;
  return composer.opaque.filter((f) => f === frame);
}

// ---- buttons --------------------------------------------------------------------------------------

function buttonIn(path) {
  for (const node of path) {
    if (node.nodeType !== 1) continue;
    if (node.matches(BUTTON_LIKE)) return node.disabled || node.getAttribute("aria-disabled") === "true" ? null : node;
    if (node.localName === "a" || node.localName === "form" || node.localName === "body") return null;
  }
  return null;
}

/** What a user or a screen reader would call the button. */
function buttonLabel(button) {
  const byIds = (button.getAttribute("aria-labelledby") ?? "")
    .split(/\s+/)
    .map((id) => (id ? button.ownerDocument.getElementById(id)?.textContent : ""))
    .join(" ");
  const parts = [
    button.getAttribute("aria-label"),
    byIds,
    button.title,
    button.localName === "input" ? button.value || button.alt : button.textContent,
    button.querySelector?.("img[alt]")?.alt,
  ];
  const label = parts.find((p) => p && /\p{L}/u.test(p)) ?? "";
  return label.trim().replace(/\s+/g, " ");
}

function buttonHints(button) {
  return [button.dataset?.testid, button.name, button.id, button.className?.baseVal ?? button.className]
    .filter((s) => typeof s === "string")
    .join(" ");
}

/**
 * What a press on `button` would send: a plan, or null when it is not a send (or nothing of the user's
 * is at stake). Buttons that say they do something else (bold, emoji, close…) never send; any other
 * button of a composer holding un-rewritten text is taken as a send (wrongly holding a formatting button
 * costs a rewrite; wrongly passing a send posts the original).
 */
function planForButton(button) {
  if (button.localName === "input" ? button.type === "reset" : button.getAttribute("type") === "reset") return null;
  const label = buttonLabel(button);
  if (label && NOT_SEND.test(label)) return null;
  const composer = composerOf(button);
  if (composer.form && isExemptForm(composer.form)) return null;
  const fields = composer.fields.filter(isPending);
  const opaque = typedOpaque(composer);
  const replay = () => replayClick(button);
  if (fields.length && !opaque.length) return { fields, send: replay, anchor: fields[0], userInitiated: true };
  if (opaque.length) {
    return { fields, send: replay, anchor: button, userInitiated: true, unsure: fantasma.t("askOpaqueFrame") };
  }
  // A send button that cannot be tied to the text the user typed: hold it and ask.
  const typed = shared().lastTyped;
  const saysSend = SEND_WORDS.test(label) || SEND_WORDS.test(buttonHints(button));
  if (saysSend && typed?.isConnected && isVisible(typed) && isPending(typed)) {
    return { fields: [typed], send: replay, anchor: button, userInitiated: true, unsure: fantasma.t("askUntied") };
  }
  return null;
}

// ---- Enter ---------------------------------------------------------------------------------------

/** "send" | "newline" | "ask" for a plain or Ctrl/Cmd Enter in `field` (outside a form). */
function enterKind(field, event) {
  if (event.ctrlKey || event.metaKey) return "send"; // Ctrl/Cmd+Enter is "send" wherever it does anything
  const hint = (field.getAttribute("enterkeyhint") ?? "").toLowerCase();
  if (hint === "send") return "send";
  if (hint === "enter") return "newline";
  if (field.localName === "input") return "send"; // nothing else for Enter to do in a one-line input
  const multiLine =
    field.localName === "textarea"
      ? Number(field.getAttribute("rows") ?? 2) !== 1
      : field.getAttribute("aria-multiline") === "true" || field.getBoundingClientRect().height >= 60;
  if (!multiLine) return "send";
  const remembered = fantasma.settings?.enterSends?.[location.hostname];
  if (remembered !== undefined) return remembered ? "send" : "newline";
  const label = [field.getAttribute("aria-label"), field.getAttribute("placeholder"), field.getAttribute("aria-placeholder"), field.dataset?.placeholder]
    .filter(Boolean)
    .join(" ");
  if (CHAT_LABEL.test(label)) return "send"; // chat composers: Enter sends, Shift+Enter is a new line
  return "ask";
}

// ---- holding and replaying -------------------------------------------------------------------------

function swallow(event) {
  event.preventDefault();
  event.stopImmediatePropagation();
}

let swallowEnterKeyup = false;
/** Buttons whose press (pointerdown … mouseup) is being held: the page sees none of it. */
const heldPresses = new WeakSet();

function withPassThrough(fn) {
  const state = shared();
  state.passThrough++;
  try {
    return fn();
  } finally {
    state.passThrough--;
  }
}

/** Replays a press on the page's button (untrusted events: our own listeners let them pass). */
function replayClick(button) {
  const view = button.ownerDocument.defaultView;
  withPassThrough(() => {
    for (const type of PRESS_EVENTS) {
      const Ctor = type.startsWith("pointer") ? view.PointerEvent : view.MouseEvent;
      button.dispatchEvent(new Ctor(type, { bubbles: true, cancelable: true, composed: true, button: 0, buttons: type.endsWith("down") ? 1 : 0, isPrimary: true }));
    }
    button.click();
  });
}

/**
 * Replays the Enter the page would have seen (untrusted: our own listeners let it pass). If the page
 * does not take it (nobody cancels the keydown) and `newline` is set, the line break is typed for it.
 * @returns {boolean} whether the page took the keydown
 */
function replayEnter(field, event, newline = false) {
  const view = field.ownerDocument.defaultView;
  const init = { key: "Enter", code: "Enter", keyCode: 13, which: 13, bubbles: true, cancelable: true, composed: true, ctrlKey: !!event?.ctrlKey, metaKey: !!event?.metaKey };
  return withPassThrough(() => {
    const down = new view.KeyboardEvent("keydown", init);
    const taken = !field.dispatchEvent(down);
    if (!taken && newline) {
      field.focus();
      const doc = field.ownerDocument;
      if (fantasma.isTextControl(field)) doc.execCommand("insertText", false, "\n");
      else doc.execCommand("insertLineBreak");
    }
    if (!taken) field.dispatchEvent(new view.KeyboardEvent("keypress", init));
    field.dispatchEvent(new view.KeyboardEvent("keyup", init));
    return taken;
  });
}

/** Sends from a field the way the page would: its Enter handler, else its form, else its send button. */
function sendFromField(field, event) {
  if (replayEnter(field, event)) return;
  const form = formOf(field);
  if (form) return withPassThrough(() => form.requestSubmit());
  // Nobody took the Enter: the page sends with its button (a labelled send button next to the field).
  const composer = composedParent(field);
  for (let scope = composer, depth = 0; scope && depth < 4; depth++, scope = composedParent(scope)) {
    const button = [...scope.querySelectorAll(BUTTON_LIKE)].find(
      (b) => SEND_WORDS.test(buttonLabel(b)) || SEND_WORDS.test(buttonHints(b)),
    );
    if (button) return replayClick(button);
  }
}

function sendForm(form, submitter) {
  withPassThrough(() => form.requestSubmit(submitter?.form === form ? submitter : undefined));
}

/**
 * Runs a held send: waits for settings, asks when unsure or when the page started it, otherwise rewrites
 * every field, then replays the send. `plan`: {fields, send, anchor, userInitiated, unsure?, enter?}.
 */
async function runHeldSend(plan) {
  if (autoRewriteState() === "unknown") await fantasma.settingsReady;
  if (autoRewriteState() === "off") return plan.send();
  if (autoRewriteState() === "cut-off") return holdCutOff(plan);
  if (!plan.userInitiated) return askPageSend(plan);
  if (plan.unsure) return askUnsure(plan);
  return rewriteThenSend(plan);
}

/** Rewrites every field (each verified by replaceText), then sends; on failure blocks and explains. */
async function rewriteThenSend(plan) {
  if (!fantasma.alive()) return holdCutOff(plan);
  const state = shared();
  state.busy = true;
  try {
    for (const field of plan.fields) {
      if (!isPending(field)) continue;
      if (!(await fantasma.anonymizeField(field))) return; // preview declined: not sent, the user edits
      fantasma.approveField(field);
    }
  } catch (error) {
    fantasma.showMessage(plan.fields[0] ?? plan.anchor, {
      text: `${fantasma.t("blockedPost")} ${error?.message ?? ""}`.trim(),
      actions: [{ label: fantasma.t("sendOriginal"), run: () => sendAsIs(plan) }],
    });
    return;
  } finally {
    state.busy = false;
  }
  plan.send();
}

/**
 * The extension was updated or reloaded under this page: this copy of the scripts can start no rewrite,
 * so the send stays held and the user is told what to do (docs/decisions.md). Once a newer copy is in
 * the page (the menu or the shortcut puts it there), this one steps aside (main.js) and the newer one
 * holds and rewrites the next send.
 */
function holdCutOff(plan) {
  fantasma.showMessage(plan.fields[0] ?? plan.anchor, {
    text: fantasma.t("extensionReloadedSend"),
    actions: [{ label: fantasma.t("sendOriginal"), run: () => sendAsIs(plan) }],
  });
}

/** The user chose to send what the fields hold now. */
function sendAsIs(plan) {
  for (const field of plan.fields) if (field.isConnected) fantasma.approveField(field);
  plan.send();
}

function askPageSend(plan) {
  fantasma.showMessage(plan.anchor, {
    text: fantasma.t("askPageSend"),
    actions: [
      { label: fantasma.t("rewriteAndSend"), primary: true, run: () => rewriteThenSend(plan) },
      { label: fantasma.t("sendOriginal"), run: () => sendAsIs(plan) },
    ],
  });
}

function askUnsure(plan) {
  const actions = [];
  if (plan.fields.length) actions.push({ label: fantasma.t("rewriteAndSend"), primary: true, run: () => rewriteThenSend(plan) });
  actions.push({ label: fantasma.t("sendAsIs"), run: () => sendAsIs(plan) });
  fantasma.showMessage(plan.anchor, { text: plan.unsure, kind: "info", actions });
}

function askEnter(field, plan) {
  const remember = (sends) => {
    const enterSends = { ...(fantasma.settings?.enterSends ?? {}), [location.hostname]: sends };
    if (fantasma.settings) fantasma.settings.enterSends = enterSends;
    fantasma.api.storage.local.set({ enterSends }).catch(() => {});
  };
  fantasma.showMessage(field, {
    text: fantasma.t("askEnterSends"),
    kind: "info",
    actions: [
      {
        label: fantasma.t("enterSendsYes"),
        primary: true,
        run: () => {
          remember(true);
          rewriteThenSend(plan);
        },
      },
      {
        label: fantasma.t("enterSendsNo"),
        run: () => {
          remember(false);
          // The line break the user asked for, typed directly: a replayed Enter would reach the page's
          // own Enter handler, which may send.
          field.focus();
          const doc = field.ownerDocument;
          if (fantasma.isTextControl(field)) doc.execCommand("insertText", false, "\n");
          else doc.execCommand("insertLineBreak");
        },
      },
    ],
  });
}

// ---- gestures --------------------------------------------------------------------------------------

function recordGesture(kind, target) {
  shared().lastGesture = { time: Date.now(), kind, target };
}

/** A submit of `form` is the user's when their Enter in it, or their click on one of its buttons, came just before. */
function userStartedSubmit(form, submitter) {
  const gesture = shared().lastGesture;
  if (!gesture || Date.now() - gesture.time > GESTURE_WINDOW_MS) return false;
  if (navigator.userActivation && !navigator.userActivation.isActive) return false;
  if (gesture.kind === "click") return gesture.target === submitter || formOf(gesture.target) === form;
  return formOf(gesture.target) === form;
}

// ---- listeners -------------------------------------------------------------------------------------

function onKeydown(event) {
  if (!event.isTrusted || (event.key !== "Enter" && event.key !== " ")) return;
  const target = event.composedPath()[0];
  const field = fantasma.editableRoot(target);
  if (!field) {
    // Enter or Space on a focused send button: the same as a click on it.
    const button = buttonIn(event.composedPath());
    if (!button) return;
    recordGesture("click", button);
    if (button.localName === "button" || button.localName === "input") return; // the click that follows is handled
    onButtonPress(event, button, true);
    return;
  }
  if (event.key !== "Enter") return;
  recordGesture("enter", field);
  if (event.isComposing || event.keyCode === 229 || event.shiftKey || event.altKey) return;
  if (fantasma.isPassword(field) || autoRewriteState() === "off") return;
  if (shared().busy) {
    swallow(event);
    swallowEnterKeyup = true;
    return;
  }
  // In a form, Enter in a one-line input submits it implicitly (that submit is held). In a multi-line field
  // it is a new line unless something says it sends (a chat label, enterkeyhint, the user's answer for
  // this site): chat apps wrapped in a form (Discord) send on Enter with their own request, not a submit.
  const form = formOf(field);
  if (form && isExemptForm(form)) return;
  const modified = event.ctrlKey || event.metaKey;
  if (form && field.localName === "input" && !modified) return;
  if (autoRewriteState() === "unknown" && !modified && field.localName !== "input") {
    // The settings decide whether Enter sends here (remembered answers): hold it until they are known.
    swallow(event);
    swallowEnterKeyup = true;
    fantasma.settingsReady.then(() => replayEnterDecision(field, event));
    return;
  }
  let kind = enterKind(field, event);
  if (form && kind === "ask") kind = "newline"; // if Enter submits the form, the submit is held
  if (kind === "newline") return;
  const composer = composerOf(field);
  const fields = composer.fields.filter(isPending);
  if (!fields.includes(field) && isPending(field)) fields.unshift(field);
  if (!fields.length && !typedOpaque(composer).length) return; // nothing of the user's is at stake
  swallow(event);
  swallowEnterKeyup = true; // pages that send on keyup must not see this Enter either
  const plan = { fields, send: () => sendFromField(field, event), anchor: field, userInitiated: true };
  if (kind === "ask") askEnter(field, plan);
  else runHeldSend(plan);
}

/** An Enter held while settings loaded: decided now; a new line is typed back as the user meant it. */
function replayEnterDecision(field, event) {
  let kind = autoRewriteState() === "off" ? "off" : enterKind(field, event);
  if (kind === "ask" && formOf(field)) kind = "newline";
  const fields = composerOf(field).fields.filter(isPending);
  if (isPending(field) && !fields.includes(field)) fields.unshift(field);
  if (kind === "off" || kind === "newline" || !fields.length) return replayEnter(field, event, true);
  const plan = { fields, send: () => sendFromField(field, event), anchor: field, userInitiated: true };
  if (kind === "ask") askEnter(field, plan);
  else runHeldSend(plan);
}

function onKeyup(event) {
  if (event.key !== "Enter" || !swallowEnterKeyup) return;
  swallowEnterKeyup = false;
  swallow(event);
}

/** pointerdown … mouseup on a button that will be held as a send: the page must not see the press. */
function onPress(event) {
  if (!event.isTrusted) return;
  const button = buttonIn(event.composedPath());
  if (!button) return;
  const state = autoRewriteState();
  if (state === "off") return;
  if (event.type === "pointerdown" || event.type === "mousedown") {
    const busyHold = shared().busy && !NOT_SEND.test(buttonLabel(button));
    if (busyHold || planForButton(button)) heldPresses.add(button);
    else heldPresses.delete(button);
  }
  if (heldPresses.has(button)) event.stopImmediatePropagation();
}

function onClick(event) {
  if (!event.isTrusted) return;
  const button = buttonIn(event.composedPath());
  if (!button) return;
  recordGesture("click", button);
  heldPresses.delete(button);
  onButtonPress(event, button, false);
}

function onButtonPress(event, button, byKey) {
  const state = autoRewriteState();
  if (state === "off" || shared().passThrough > 0) return;
  if (shared().busy) {
    if (!NOT_SEND.test(buttonLabel(button))) swallow(event);
    return;
  }
  const plan = planForButton(button);
  if (!plan) return;
  swallow(event);
  if (byKey) plan.send = () => replayClick(button);
  runHeldSend(plan);
}

function onSubmit(event) {
  const state = shared();
  if (state.passThrough > 0) return;
  const form = event.target;
  if (isExemptForm(form) || autoRewriteState() === "off") return;
  if (state.busy) {
    swallow(event);
    return;
  }
  const composer = formFields(form);
  const fields = composer.fields.filter(isPending);
  const opaque = typedOpaque(composer);
  if (!fields.length && !opaque.length) return;
  swallow(event);
  const submitter = event.submitter;
  runHeldSend({
    fields,
    send: () => sendForm(form, submitter),
    anchor: fields[0] ?? submitter ?? form,
    userInitiated: userStartedSubmit(form, submitter),
    unsure: opaque.length ? fantasma.t("askOpaqueFrame") : undefined,
  });
}

function onInput(event) {
  if (!event.isTrusted) return;
  const field = fantasma.editableRoot(event.composedPath()[0]);
  if (field && isProseField(field)) shared().lastTyped = field;
}

function onWindowBlur() {
  // Focus went into a frame: if it is another origin's, whatever is typed there cannot be read from here.
  const active = document.activeElement;
  if (active?.localName === "iframe" || active?.localName === "frame") shared().lastFrameFocus = active;
}

function onFocusIn(event) {
  if (event.isTrusted && fantasma.editableRoot(event.composedPath()[0])) shared().lastFrameFocus = null;
}

const LISTENERS = [
  ["keydown", onKeydown],
  ["keyup", onKeyup],
  ...PRESS_EVENTS.map((type) => [type, onPress]),
  ["click", onClick],
  ["submit", onSubmit],
  ["input", onInput],
  ["blur", onWindowBlur],
  ["focusin", onFocusIn],
];
for (const [type, listener] of LISTENERS) window.addEventListener(type, listener, true);
// A newer copy took the page over: it holds the sends from now on (ours run first and would hide them).
fantasma.retirements.push(() => {
  for (const [type, listener] of LISTENERS) window.removeEventListener(type, listener, true);
});
