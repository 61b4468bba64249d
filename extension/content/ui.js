// In-page UI: a progress pill, a message bar (errors, blocked posts), the identifiability card, the marker
// overlay and the preview dialog. All of it lives in one closed shadow root per document: page CSS cannot
// restyle it and page scripts cannot read it or press its buttons. At most one box is shown per document
// (a new one replaces the old), it is placed where it leaves the field and the controls next to it (the
// send button among them) clear, and Escape or a click outside closes it.
"use strict";

const UI_CSS = `
:host { all: initial; }
.box { position: fixed; z-index: 2147483647; font: 13px/1.4 system-ui, sans-serif; color: #1d1b2e;
  background: #fff; border: 1px solid #b9b3e0; border-radius: 6px; box-shadow: 0 2px 10px rgba(0,0,0,.18); }
.pill { padding: 3px 9px; background: #5846b4; color: #fff; border: none; display: flex; gap: 8px; align-items: center; }
.pill button.cancel { padding: 0 8px; background: #fff; color: #3d2f8f; border-color: #fff; }
.bar { padding: 8px 10px; max-width: 520px; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.bar.error { border-color: #c0392b; background: #fff4f2; }
button { font: inherit; padding: 2px 10px; border-radius: 4px; border: 1px solid #8a80c8; background: #f4f2ff; cursor: pointer; }
button.primary { background: #5846b4; color: #fff; border-color: #5846b4; }
.panel { padding: 10px 12px; max-width: 560px; max-height: 60vh; overflow: auto; }
.panel h2 { font-size: 14px; margin: 0 0 6px; }
.text { white-space: pre-wrap; padding: 6px; background: #faf9ff; border-radius: 4px; margin-bottom: 8px; }
mark { background: #ffe08a; border-bottom: 2px solid #e0a800; border-radius: 2px; cursor: help; }
mark sup { font-size: 9px; color: #7a5b00; margin-left: 1px; }
ol { margin: 0; padding-left: 22px; }
li .family { color: #5846b4; font-weight: 600; }
.row { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }
.diff-old { color: #8a1f11; } .diff-new { color: #135e2a; }
.card { padding: 8px 10px; max-width: 520px; }
.card p { margin: 0 0 4px; } .card .headline { font-weight: 600; }
.card ul { margin: 0 0 4px; padding-left: 18px; } .card .next { color: #3d2f8f; }
.card .row { margin-top: 4px; }
code { font: 12px ui-monospace, monospace; background: #f1effa; padding: 0 3px; border-radius: 3px; }
.card details { margin: 0 0 4px; } .card summary { cursor: pointer; color: #3d2f8f; }
.changes { max-height: 30vh; overflow: auto; } .changes li { margin: 2px 0; } .changes del { color: #8a1f11; } .changes ins { color: #135e2a; text-decoration: none; }
.changes button { margin-left: 6px; padding: 0 6px; font-size: 12px; }
.standing { margin: 0 0 6px; } .sentence { border-radius: 2px; }
.top { margin: 0 0 8px; } .top li .share { color: #6b2020; font-weight: 600; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/**
 * The UI's shadow root in `doc`: closed, so page scripts cannot read it (the marker panel shows findings
 * built from the user's profile) nor reach its buttons. Its host is a plain element we made and keep a
 * reference to: an element the page planted, or a custom element it defined, is never used. (Custom
 * element definitions live in the page's world; `customElements` is not even available here.)
 */
const uiRoots = new WeakMap();
/** Marks our hosts in the page, so that a newer copy of the scripts can remove a cut-off copy's boxes. */
const UI_HOST_ATTR = "data-fantasma-ui";
/** The documents this copy has put UI into (to take it all away when a newer copy takes over). */
const uiDocs = new Set();
function uiRoot(doc) {
  let root = uiRoots.get(doc);
  if (!root || !root.host.isConnected) {
    const host = doc.createElement("div");
    host.setAttribute(UI_HOST_ATTR, "");
    uiDocs.add(doc);
    root = host.attachShadow({ mode: "closed" });
    const style = doc.createElement("style");
    style.textContent = UI_CSS;
    root.append(style);
    // Inline and important: page style sheets cannot hide the host (a hidden "Send original" invites misclicks).
    for (const [prop, value] of [["display", "block"], ["opacity", "1"], ["visibility", "visible"], ["position", "static"], ["all", "initial"]].reverse()) {
      host.style.setProperty(prop, value, "important");
    }
    // Where the body is the editor (TinyMCE's iframe, designMode), a child of it would become the user's text.
    (doc.body && !doc.body.isContentEditable ? doc.body : doc.documentElement).append(host);
    uiRoots.set(doc, root);
    uiListen(doc);
  }
  return root;
}

/** Our buttons act only on the user's own clicks, and only while they can be seen. */
function onUserClick(button, run) {
  button.addEventListener("click", (event) => {
    if (!event.isTrusted) return;
    if (button.checkVisibility && !button.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return;
    run();
  });
}

// ---- one box per document, placed clear of the field's controls -----------------------------------

/** What the user can press next to a field: the send button, other buttons, the form's other fields. */
const UI_CONTROLS = 'button, input:not([type="hidden" i]), select, textarea, [role="button"], a[href], [contenteditable=""], [contenteditable="true"]';
const UI_NEAR_PX = 200; // controls this close to the field belong to it (a send button below or beside it)
const UI_GAP = 6;
const UI_MARGIN = 4;

/** The box shown in each document: {box, field, kind, onClose, sticky}. */
const uiShown = new WeakMap();

function uiGapBetween(a, b) {
  const dx = Math.max(0, a.left - b.right, b.left - a.right);
  const dy = Math.max(0, a.top - b.bottom, b.top - a.bottom);
  return Math.hypot(dx, dy);
}

function uiOverlap(a, b) {
  const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  return w > 0 && h > 0 ? w * h : 0;
}

function uiVisibleRect(el) {
  const r = el.getBoundingClientRect();
  if (r.width < 1 || r.height < 1) return null;
  if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return null;
  return r;
}

/** The field's rectangle and those of the controls that belong with it: its form's, and any within UI_NEAR_PX. */
function uiKeepClear(field) {
  const fieldRect = field.getBoundingClientRect();
  const controls = [];
  const taken = new Set([field]);
  const add = (node) => {
    if (taken.has(node) || field.contains(node)) return;
    taken.add(node);
    const r = uiVisibleRect(node);
    if (r) controls.push(r);
  };
  const form = field.form ?? field.closest?.("form");
  if (form) for (const node of form.elements) add(node);
  for (const root of new Set([field.getRootNode(), field.ownerDocument])) {
    let looked = 0;
    for (const node of root.querySelectorAll?.(UI_CONTROLS) ?? []) {
      if (++looked > 500) break; // a huge page: the nearest controls come first in most layouts anyway
      if (uiGapBetween(node.getBoundingClientRect(), fieldRect) <= UI_NEAR_PX) add(node);
    }
  }
  return { fieldRect, controls };
}

/**
 * Puts a fixed box below, above, right or left of the field and its controls, the first place where it
 * covers none of them and fits the window; a panel too tall for any of them gets the tallest free band
 * (it scrolls inside). If nothing fits, the place that covers least wins, a control counting far more
 * than the field's own text.
 */
function uiPlace(box, field) {
  const view = field.ownerDocument.defaultView;
  const vw = view.innerWidth;
  const vh = view.innerHeight;
  box.style.maxWidth = `${Math.max(120, Math.min(560, vw - 2 * UI_MARGIN))}px`;
  box.style.maxHeight = "";
  const { fieldRect, controls } = uiKeepClear(field);
  const zone = { left: fieldRect.left, top: fieldRect.top, right: fieldRect.right, bottom: fieldRect.bottom };
  for (const r of controls) {
    zone.left = Math.min(zone.left, r.left);
    zone.top = Math.min(zone.top, r.top);
    zone.right = Math.max(zone.right, r.right);
    zone.bottom = Math.max(zone.bottom, r.bottom);
  }
  const below = vh - UI_MARGIN - (zone.bottom + UI_GAP);
  const above = zone.top - UI_GAP - UI_MARGIN;
  let { width: w, height: h } = box.getBoundingClientRect();
  if (box.classList.contains("panel") && h > Math.max(below, above) && Math.max(below, above) >= 120) {
    box.style.maxHeight = `${Math.floor(Math.max(below, above))}px`;
    ({ width: w, height: h } = box.getBoundingClientRect());
  }
  const clampX = (x) => Math.max(UI_MARGIN, Math.min(x, vw - w - UI_MARGIN));
  const clampY = (y) => Math.max(UI_MARGIN, Math.min(y, vh - h - UI_MARGIN));
  const spots = [
    { x: clampX(fieldRect.left), y: zone.bottom + UI_GAP },
    { x: clampX(fieldRect.left), y: zone.top - UI_GAP - h },
    { x: zone.right + UI_GAP, y: clampY(fieldRect.top) },
    { x: zone.left - UI_GAP - w, y: clampY(fieldRect.top) },
  ];
  const cost = ({ x, y }) => {
    const r = { left: x, top: y, right: x + w, bottom: y + h };
    const outside = x < 0 || y < 0 || r.right > vw || r.bottom > vh;
    return (outside ? 1e9 : 0) + controls.reduce((sum, c) => sum + 1000 * uiOverlap(r, c), 0) + uiOverlap(r, fieldRect);
  };
  let best = spots.find((spot) => cost(spot) === 0);
  if (!best) {
    const inside = spots.map(({ x, y }) => ({ x: clampX(x), y: clampY(y) }));
    best = inside.reduce((a, b) => (cost(b) < cost(a) ? b : a));
  }
  box.style.left = `${Math.round(best.x)}px`;
  box.style.top = `${Math.round(best.y)}px`;
}

/**
 * Shows `box` for `field` as the document's one box: the one shown before is closed (its onClose runs,
 * e.g. a preview counts as cancelled). `sticky` boxes (the progress pill) ignore Escape and outside clicks.
 * `staleAfterInput()` is asked after each input in the field: true closes the box (it described the text
 * before the edit).
 */
function uiShow(box, field, { onClose = () => {}, sticky = false, staleAfterInput = () => false } = {}) {
  const doc = field.ownerDocument;
  uiClose(doc);
  const root = uiRoot(doc);
  root.append(box);
  root.host.setAttribute(UI_HOST_ATTR, box.dataset.fantasma); // what a newer copy would find cut off
  const cutOff = !fantasma.alive(); // shown by a cut-off copy: its own notice, not stale
  uiShown.set(doc, { box, field, kind: box.dataset.fantasma, onClose, sticky, staleAfterInput, cutOff });
  uiPlace(box, field);
  if (!cutOff) uiWatchForCutOff(doc);
  return box;
}

/**
 * While a box is shown, checks every second that the extension is still there: after an update or a
 * reload, a progress pill, a markers panel or a preview of this cut-off copy would stay stale, so it
 * closes (a preview closing counts as cancelled: the field keeps what the user typed).
 */
const uiWatched = new WeakSet();
function uiWatchForCutOff(doc) {
  if (uiWatched.has(doc)) return;
  uiWatched.add(doc);
  const timer = setInterval(() => {
    const current = uiShown.get(doc);
    const stale = current && !current.cutOff && !fantasma.alive();
    if (current && !stale) return;
    clearInterval(timer);
    uiWatched.delete(doc);
    if (stale) uiClose(doc);
  }, CUT_OFF_CHECK_MS); // port.js (loaded after this file, before anything is shown)
}

/** Closes the document's box (only `box`, when given: a box closing itself after another replaced it is a no-op). */
function uiClose(doc, box = null) {
  const current = uiShown.get(doc);
  if (!current || (box && current.box !== box)) {
    box?.remove();
    return;
  }
  uiShown.delete(doc);
  current.box.remove();
  uiRoots.get(doc)?.host.setAttribute(UI_HOST_ATTR, "");
  current.onClose();
}

// A newer copy of the scripts took the page over: every box of this cut-off copy goes, and its hosts.
fantasma.retirements.push(() => {
  for (const doc of uiDocs) {
    uiClose(doc);
    uiRoots.get(doc)?.host.remove();
  }
  uiDocs.clear();
});

/**
 * Removes the boxes a cut-off copy of the scripts left in `doc` (Firefox stops such a copy at once, so
 * it cannot remove them itself). @returns {string[]} the kinds of box that were shown ("indicator": a
 * rewrite was under way)
 */
fantasma.removeStaleUi = function removeStaleUi(doc = document) {
  const ours = uiRoots.get(doc)?.host;
  const kinds = [];
  for (const host of doc.querySelectorAll(`div[${UI_HOST_ATTR}]`)) {
    if (host === ours) continue;
    const kind = host.getAttribute(UI_HOST_ATTR);
    if (kind) kinds.push(kind);
    host.remove();
  }
  return kinds;
};

const uiListening = new WeakSet();
/** Escape and a click outside close the box; the field changing closes a markers panel and the card; scrolling moves the box. */
function uiListen(doc) {
  const view = doc.defaultView;
  if (!view || uiListening.has(doc)) return;
  uiListening.add(doc);
  view.addEventListener(
    "keydown",
    (event) => {
      const current = uiShown.get(doc);
      if (event.key !== "Escape" || !event.isTrusted || !current || current.sticky) return;
      uiClose(doc);
      event.stopPropagation(); // the Escape closed our box; the page does not also act on it
    },
    true,
  );
  view.addEventListener(
    "pointerdown",
    (event) => {
      const current = uiShown.get(doc);
      if (!event.isTrusted || !current || current.sticky) return;
      const host = uiRoots.get(doc)?.host;
      if (host && event.composedPath().includes(host)) return;
      uiClose(doc);
    },
    true,
  );
  view.addEventListener(
    "input",
    (event) => {
      const current = uiShown.get(doc);
      if (!current) return;
      const target = event.composedPath()[0];
      if (target !== current.field && !current.field.contains(target)) return;
      // the markers described the text before this edit; the card, the text its rewrite left
      if (current.kind === "markers" || current.staleAfterInput()) uiClose(doc);
      else uiPlace(current.box, current.field); // the field may have grown
    },
    true,
  );
  let queued = false;
  const replace = () => {
    if (queued) return;
    queued = true;
    view.requestAnimationFrame(() => {
      queued = false;
      const current = uiShown.get(doc);
      if (current?.field.isConnected) uiPlace(current.box, current.field);
    });
  };
  view.addEventListener("scroll", replace, { capture: true, passive: true });
  view.addEventListener("resize", replace, { passive: true });
}

/** The field's text changed under a markers panel or a card (a rewrite, the composer's Insert): it is stale. */
fantasma.fieldChanged = function fieldChanged(field) {
  const current = uiShown.get(field.ownerDocument);
  if (["markers", "figure"].includes(current?.kind) && current.field === field) uiClose(field.ownerDocument);
};

function el(doc, tag, props = {}, children = []) {
  const node = doc.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/**
 * A small pill beside the field, fed by the host's progress events (PROTOCOL.md §2): "Anonymizing… 40% ·
 * 2 of 5 parts done · about 30 s left", and a Cancel button when `onCancel` is given (it stops the host's
 * job; the field is left as it is).
 */
fantasma.showIndicator = function showIndicator(field, onCancel) {
  const doc = field.ownerDocument;
  const pill = el(doc, "div", { className: "box pill", role: "status" });
  pill.dataset.fantasma = "indicator";
  const label = el(doc, "span", { className: "progress", textContent: fantasma.t("rewriting") });
  pill.append(label);
  if (onCancel) {
    const cancel = el(doc, "button", { textContent: fantasma.t("cancel"), className: "cancel" });
    onUserClick(cancel, () => {
      cancel.disabled = true;
      onCancel();
    });
    pill.append(cancel);
  }
  uiShow(pill, field, { sticky: true }); // a markers panel open on the field is about to be stale: it goes
  return {
    update(progress) {
      label.textContent = progressWords(progress);
      if (pill.isConnected) uiPlace(pill, field);
    },
    remove: () => uiClose(doc, pill),
  };
};

/** A progress event in words: the share done, the parts done of all, the seconds left when known. */
function progressWords(progress) {
  const parts = [fantasma.t("rewriting")];
  if (typeof progress?.fraction === "number") parts[0] += ` ${Math.round(progress.fraction * 100)}%`;
  if (Number.isInteger(progress?.done) && Number.isInteger(progress?.total) && progress.total > 0) {
    parts.push(fantasma.t("progressParts", progress.done, progress.total));
  } else if (progress?.message || progress?.stage) {
    parts.push(progress.message || progress.stage);
  }
  const eta = progress?.eta_s;
  if (typeof eta === "number" && eta >= 0) {
    parts.push(eta < 60 ? fantasma.t("progressSeconds", Math.max(1, Math.round(eta))) : fantasma.t("progressMinutes", Math.round(eta / 60)));
  }
  return parts.join(" · ");
}

/**
 * A message bar under the field. `actions` are buttons; each closes the bar after its callback.
 * @param {HTMLElement} field
 * @param {{text: string, kind?: "error"|"info", actions?: {label: string, primary?: boolean, run: () => void}[]}} m
 */
fantasma.showMessage = function showMessage(field, { text, kind = "error", actions = [] }) {
  const doc = field.ownerDocument;
  const bar = el(doc, "div", { className: `box bar ${kind}`, role: "alert" });
  bar.dataset.fantasma = "message";
  bar.append(el(doc, "span", { textContent: text }));
  const all = [...actions, { label: fantasma.t("dismiss"), run: () => {} }];
  for (const action of all) {
    const button = el(doc, "button", { textContent: action.label, className: action.primary ? "primary" : "" });
    onUserClick(button, () => {
      uiClose(doc, bar);
      action.run();
    });
    bar.append(button);
  }
  return uiShow(bar, field);
};

/**
 * After a rewrite: a markers panel open on the field is closed (its markers described the old text), and
 * the host's summary in words (PROTOCOL.md `rewrite`, `summary`: what changed, how likely the text now is
 * to be linked to you, the one next step in a browser user's words) is shown in a card beside the field,
 * with the figure's digits and the changed words on demand, each change with its own Undo. The card stays
 * until the user dismisses it (Dismiss, Escape, a click outside) or edits the field.
 */
fantasma.onRewritten = function onRewritten(field, result) {
  fantasma.fieldChanged(field);
  const summary = typeof result?.summary?.headline === "string" ? result.summary : null;
  const text = summary?.headline ?? result?.identifiability?.text; // a host without `summary`: the figure
  if (!text || !field.isConnected) return;
  const doc = field.ownerDocument;
  const box = el(doc, "div", { className: "box card info", role: "status" });
  box.dataset.fantasma = "figure";
  box.append(el(doc, "p", { className: "headline" }, withCode(doc, text)));
  const details = Array.isArray(summary?.details) ? summary.details.filter((d) => typeof d === "string") : [];
  if (details.length) box.append(el(doc, "ul", {}, details.map((d) => el(doc, "li", {}, withCode(doc, d)))));
  const next = typeof summary?.next_step_browser === "string" ? summary.next_step_browser : summary?.next_step;
  if (typeof next === "string") {
    box.append(el(doc, "p", { className: "next" }, [el(doc, "b", { textContent: fantasma.t("nextStep") }), ...withCode(doc, ` ${next}`)]));
  }
  // What the field holds now: an edit that leaves it otherwise (typing, another tool) makes the card stale.
  const shown = { text: typeof result?.text === "string" ? result.text : fantasma.readField(field) };
  const changes = changedWords(result);
  if (changes.length) box.append(changesList(doc, field, changes, shown));
  // The number on demand: the headline says the level in words, the digits are the ones the CLI prints.
  const line = summary?.identifiability?.line;
  if (typeof line === "string") {
    box.append(el(doc, "details", { className: "figure-number" }, [el(doc, "summary", { textContent: fantasma.t("showFigure") }), el(doc, "p", { textContent: line })]));
  }
  // Where the automatic rewrite stops, the guide takes over: the sentences that still give the writer
  // away (the reply's `guide`), and the composer opened on the rewritten text to reword them by hand.
  const remaining = stillGivingAway(result);
  if (remaining.length) box.append(remainingList(doc, result.text, remaining));
  const dismiss = el(doc, "button", { textContent: fantasma.t("dismiss") });
  onUserClick(dismiss, () => uiClose(doc, box));
  const buttons = [dismiss];
  if (remaining.length) {
    const finish = el(doc, "button", { className: "primary", textContent: fantasma.t("finishByHand") });
    finish.dataset.action = "finish-by-hand";
    onUserClick(finish, () => {
      uiClose(doc, box);
      fantasma.openComposer?.(field, fantasma.readField(field));
    });
    buttons.unshift(finish);
  }
  box.append(el(doc, "div", { className: "row" }, buttons));
  uiShow(box, field, { staleAfterInput: () => !fantasma.sameText(fantasma.readField(field), shown.text) });
};

/**
 * The rewrite's sentences that still give the writer away, in the guide's order (its `top`), while the
 * meter is above "unlikely": [{start, end, reasons}] in UTF-16 offsets of `result.text`; [] otherwise.
 */
function stillGivingAway(result) {
  const guide = result?.guide;
  if (!guide || guide.level === "unlikely" || typeof result?.text !== "string") return [];
  const sentences = Array.isArray(guide.sentences) ? guide.sentences : [];
  const at = utf16Offsets(result.text);
  return (Array.isArray(guide.top) ? guide.top : [])
    .map((index) => sentences[index])
    .filter((s) => s && Number.isInteger(s.start) && Number.isInteger(s.end) && s.share > 0)
    .map((s) => ({ start: at(s.start), end: at(s.end), reasons: Array.isArray(s.reasons) ? s.reasons : [] }));
}

function remainingList(doc, text, remaining) {
  const excerpt = (s) => {
    const flat = s.replace(/\s+/g, " ").trim();
    return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  };
  const items = remaining.map((s) =>
    el(doc, "li", {}, [
      el(doc, "q", { textContent: excerpt(text.slice(s.start, s.end)) }),
      ...(s.reasons.length ? [el(doc, "span", { textContent: ` ${s.reasons[0]}` })] : []),
    ]),
  );
  return el(doc, "details", { className: "remaining" }, [
    el(doc, "summary", { textContent: fantasma.t("stillGivesAway") }),
    el(doc, "ol", {}, items),
  ]);
}

/** The code point → UTF-16 offsets of `text` (the host counts code points, the page UTF-16 units). */
function utf16Offsets(text) {
  const offsets = [];
  let i = 0;
  for (const ch of text) {
    offsets.push(i);
    i += ch.length;
  }
  offsets.push(i);
  return (cp) => offsets[Math.max(0, Math.min(cp, offsets.length - 1))];
}

/**
 * The rewrite's changes (PROTOCOL.md `rewrite`, `edits`: code points of the submitted text, sorted) as
 * {at, was, now}: where each replacement stands in the result's text, in UTF-16 units, and the words it
 * replaced. An edit list that does not add up to the result's text gives none (nothing wrong is offered).
 */
function changedWords(result) {
  const edits = Array.isArray(result?.edits) ? result.edits : [];
  const after = typeof result?.text === "string" ? result.text : null;
  if (!after || !edits.length) return [];
  const at = utf16Offsets(after);
  const changes = [];
  let shift = 0; // code points the earlier edits added (negative: removed)
  for (const edit of edits) {
    const { start, end, original, replacement } = edit ?? {};
    if (![start, end].every(Number.isInteger) || typeof original !== "string" || typeof replacement !== "string") return [];
    const from = at(start + shift);
    const to = at(start + shift + [...replacement].length);
    if (after.slice(from, to) !== replacement) return [];
    const last = changes.at(-1);
    const gap = last ? after.slice(last.at + last.now.length, from) : "";
    if (last && !gap.trim()) {
      // Only white space between two changes ("tbh" → "to be" + "honest"): one change to the reader.
      last.was += gap + original;
      last.now += gap + replacement;
    } else {
      changes.push({ at: from, was: original, now: replacement });
    }
    shift += [...replacement].length - (end - start);
  }
  return changes;
}

/** A change in words: “rubbish” → “garbage”, “:-)” deleted, “very” added. */
function changeWords(doc, change) {
  const quote = (s) => `“${s.trim().replace(/\n/g, "⏎")}”`;
  const was = change.was.trim() ? quote(change.was) : change.was.includes("\n") ? fantasma.t("changeLineBreak") : fantasma.t("changeSpace");
  const now = change.now.trim() ? quote(change.now) : change.now.includes("\n") ? fantasma.t("changeLineBreak") : fantasma.t("changeSpace");
  if (!change.now) return [el(doc, "del", { textContent: was }), ` ${fantasma.t("changeDeleted")}`];
  if (!change.was) return [el(doc, "ins", { textContent: now }), ` ${fantasma.t("changeAdded")}`];
  return [el(doc, "del", { textContent: was }), " → ", el(doc, "ins", { textContent: now })];
}

/**
 * "What changed (N)": each change, with an Undo that puts that one change back in the field as one
 * undoable edit (the rest stays rewritten). `shown.text` follows the field through our own undos.
 */
function changesList(doc, field, changes, shown) {
  const list = el(doc, "ol", { className: "changes" });
  for (const change of changes) {
    const undo = el(doc, "button", { textContent: fantasma.t("undoChange") });
    undo.setAttribute("aria-label", `${fantasma.t("undoChange")}: ${change.now || change.was}`);
    const item = el(doc, "li", {}, [...changeWords(doc, change), undo]);
    onUserClick(undo, async () => {
      const now = fantasma.readField(field);
      if (!fantasma.sameText(now, shown.text) || now.slice(change.at, change.at + change.now.length) !== change.now) return;
      const reverted = now.slice(0, change.at) + change.was + now.slice(change.at + change.now.length);
      undo.disabled = true;
      shown.text = reverted; // set first: the edit's own input events must not close the card
      try {
        await fantasma.replaceText(field, reverted);
      } catch (error) {
        shown.text = now;
        undo.disabled = false;
        item.append(el(doc, "span", { className: "error", textContent: ` ${error?.message ?? error}` }));
        return;
      }
      fantasma.approveField?.(field); // the user chose this text: auto-rewrite sends it as it is
      undo.textContent = fantasma.t("changeUndone");
      item.classList.add("undone");
      const grew = change.was.length - change.now.length;
      for (const later of changes) if (later.at > change.at) later.at += grew;
      change.now = change.was; // undone: nothing of it is left to undo
    });
    list.append(item);
  }
  return el(doc, "details", { className: "changes-box" }, [el(doc, "summary", { textContent: fantasma.t("whatChanged", changes.length) }), list]);
}

/** The host's words with `a command` shown as code (text nodes only: nothing the host sends becomes markup). */
function withCode(doc, text) {
  return text.split("`").map((part, i) => (i % 2 ? el(doc, "code", { textContent: part }) : part));
}

/** A finding's highlighted ranges: its `spans`, or the finding itself when it has start/end. */
function findingSpans(finding) {
  const spans = Array.isArray(finding.spans) ? finding.spans : [finding];
  return spans.filter((s) => Number.isInteger(s.start) && Number.isInteger(s.end) && s.end > s.start);
}

/** The habits a finding counts: its marked places, one for a finding that marks none (as the host's
 * `markers_before.count`, native_host/style/markers.py, so the panel and the card count alike). */
function findingHabits(finding) {
  return Array.isArray(finding.spans) ? Math.max(1, finding.spans.length) : 1;
}

/** One human line per finding; the style package names the fields (docs/style.md). */
function findingReason(finding) {
  const label = finding.label ?? finding.family ?? "marker";
  const why = finding.evidence ?? finding.reason ?? finding.message ?? "";
  return why ? `${label}: ${why}` : label;
}

/**
 * The sentences by their share of what identifies the text (PROTOCOL.md identifiability report,
 * `sentences`: [start, end, contribution] in code points): [{start, end, share}] in UTF-16 units, the
 * shares of the positive contributions summing to 1. None without a report.
 */
function sentenceShares(text, identifiability) {
  const rows = Array.isArray(identifiability?.sentences) ? identifiability.sentences : [];
  const at = utf16Offsets(text);
  const sentences = rows
    .filter((r) => Array.isArray(r) && Number.isInteger(r[0]) && Number.isInteger(r[1]) && typeof r[2] === "number" && r[1] > r[0])
    .map(([start, end, contribution]) => ({ start: at(start), end: at(end), gives: Math.max(0, contribution) }));
  const total = sentences.reduce((sum, s) => sum + s.gives, 0);
  return sentences.map((s) => ({ ...s, share: total > 0 ? s.gives / total : 0 }));
}

const percent = (share) => `${Math.round(share * 100)}%`;
/** One sentence holds every share: "100% of what identifies this text" would say it is all that does
 * (the habits, and the sentences that add nothing, identify it too). */
const alone = (sentences) => sentences.filter((s) => s.share > 0).length === 1;

/**
 * The marked text: each sentence shaded by its share of what identifies the text (read-only: the
 * composer is where a sentence is reworded), each habit marked, with its number, in reading order.
 */
function shadedText(doc, text, marks, sentences) {
  const body = el(doc, "div", { className: "text" });
  const most = Math.max(0, ...sentences.map((s) => s.share));
  // A mark is never split: a sentence edge inside one moves to the mark's end.
  const inMark = (c) => marks.some((m) => m.start < c && c < m.end);
  const edges = sentences.flatMap((s) => [s.start, s.end]).filter((c) => !inMark(c));
  const cuts = [...new Set([0, text.length, ...edges, ...marks.flatMap((m) => [m.start, m.end])])]
    .filter((c) => c >= 0 && c <= text.length)
    .sort((a, b) => a - b);
  let holder = body;
  let holderSentence = null;
  for (let k = 0; k + 1 < cuts.length; k++) {
    const [from, to] = [cuts[k], cuts[k + 1]];
    const sentence = sentences.find((s) => s.start <= from && from < s.end && s.share > 0) ?? null;
    if (sentence !== holderSentence) {
      holderSentence = sentence;
      holder = body;
      if (sentence) {
        const n = sentences.indexOf(sentence) + 1;
        const words = alone(sentences) ? fantasma.t("sentenceOnly", n) : fantasma.t("sentenceShare", n, percent(sentence.share));
        holder = el(doc, "span", { className: "sentence", title: words });
        holder.dataset.share = sentence.share.toFixed(3);
        holder.style.background = `rgba(214, 69, 65, ${(0.08 + 0.37 * (sentence.share / most)).toFixed(3)})`;
        holder.append(el(doc, "span", { className: "sr", textContent: `${words}: ` })); // what a screen reader says first
        body.append(holder);
      }
    }
    const mark = marks.find((m) => m.start <= from && from < m.end);
    if (!mark) {
      holder.append(text.slice(from, to));
      continue;
    }
    const piece = el(doc, "mark", { title: mark.reason }, [text.slice(from, to)]);
    if (to === mark.end) piece.append(el(doc, "sup", { textContent: String(mark.n) }));
    holder.append(piece);
  }
  return body;
}

/** "The sentences that give most away": the top three by share, quoted (shortened) with their share. */
function topSentences(doc, text, sentences) {
  const top = [...sentences].filter((s) => s.share > 0).sort((a, b) => b.share - a.share).slice(0, 3);
  if (!top.length) return [];
  const quote = (s) => {
    const words = text.slice(s.start, s.end).trim().replace(/\s+/g, " ");
    return `“${words.length > 90 ? `${words.slice(0, 88)}…` : words}”`;
  };
  const list = el(doc, "ul", { className: "top" }); // not numbered: the numbers are the habits'
  for (const s of top) {
    list.append(el(doc, "li", {}, [quote(s), " — ", el(doc, "span", { className: "share", textContent: alone(sentences) ? fantasma.t("shareOnly") : fantasma.t("shareOfText", percent(s.share)) })]));
  }
  return [el(doc, "p", {}, [el(doc, "b", { textContent: fantasma.t("topSentences") })]), list];
}

/**
 * The markers panel: what the analysis found in the field's text, read-only. Its title counts habits as
 * the after-rewrite card does; the host's `standing` says the text's level in the card's words; the
 * sentences are shaded by how much each gives away (the identifiability report's `sentences`), the three
 * that give most away named; each habit is marked and numbered in reading order, its reason on hover and
 * in the list below.
 * @param {HTMLElement} field
 * @param {string} text the text that was analyzed
 * @param {object[]} findings the host's findings, offsets already in UTF-16 units
 * @param {{identifiability?: object|null, standing?: object|null}} [report] the rest of the `analyze` result
 */
fantasma.showMarkers = function showMarkers(field, text, findings, report = {}) {
  const doc = field.ownerDocument;
  const panel = el(doc, "div", { className: "box panel", role: "dialog" });
  panel.dataset.fantasma = "markers";
  // Reading order: a finding is numbered by its first place in the text; those that mark none come last.
  const first = (f) => Math.min(Infinity, ...findingSpans(f).map((s) => s.start));
  const ordered = findings.map((f, i) => ({ f, i, at: first(f) })).sort((a, b) => a.at - b.at || a.i - b.i).map(({ f }) => f);
  const habits = ordered.reduce((sum, f) => sum + findingHabits(f), 0);
  const title = habits ? fantasma.t("markersTitle", habits, fantasma.t(ordered.length === 1 ? "markersOneKind" : "markersKinds", ordered.length)) : fantasma.t("markersTitleNone");
  panel.append(el(doc, "h2", { textContent: title }));
  panel.setAttribute("aria-label", title);
  const standing = report?.standing;
  if (typeof standing?.headline === "string") {
    const text = (value) => (typeof value === "string" ? value : "");
    const said = [standing.headline, text(standing.strands), text(standing.caveat)].filter(Boolean).join(" ");
    panel.append(el(doc, "p", { className: "standing" }, withCode(doc, said)));
  }
  const marks = [];
  let at = 0;
  const all = ordered
    .flatMap((f, i) => findingSpans(f).map((span) => ({ start: span.start, end: span.end, n: i + 1, reason: findingReason(f) })))
    .sort((a, b) => a.start - b.start);
  for (const m of all) {
    if (m.start < at) continue; // overlapping spans: the list below still names every finding
    marks.push(m);
    at = m.end;
  }
  const sentences = sentenceShares(text, report?.identifiability);
  panel.append(shadedText(doc, text, marks, sentences), ...topSentences(doc, text, sentences));
  if (ordered.length === 0) panel.append(el(doc, "p", { textContent: fantasma.t("noMarkers") }));
  const list = el(doc, "ol");
  for (const f of ordered) {
    const family = el(doc, "span", { className: "family", textContent: f.label ?? f.family ?? "" });
    const why = f.evidence ?? f.reason ?? f.message ?? "";
    list.append(el(doc, "li", { className: "habit" }, [family, why ? ` — ${why}` : ""]));
  }
  if (ordered.length) panel.append(el(doc, "p", {}, [el(doc, "b", { textContent: fantasma.t("habitsList") })]));
  panel.append(list);
  const dismiss = el(doc, "button", { textContent: fantasma.t("dismiss") });
  onUserClick(dismiss, () => uiClose(doc, panel));
  panel.append(el(doc, "div", { className: "row" }, [dismiss]));
  return uiShow(panel, field); // Escape, a click outside or the field changing closes it
};

/** Shows original and rewrite; resolves true on Apply, false on Cancel. */
fantasma.confirmPreview = function confirmPreview(field, original, rewritten) {
  const doc = field.ownerDocument;
  const panel = el(doc, "div", { className: "box panel", role: "dialog" });
  panel.dataset.fantasma = "preview";
  panel.append(
    el(doc, "h2", { textContent: fantasma.t("menuAnonymize") }),
    el(doc, "div", { className: "text diff-old", textContent: original }),
    el(doc, "div", { className: "text diff-new", textContent: rewritten }),
  );
  return new Promise((resolve) => {
    let answer = false; // closed any other way (Escape, a click outside, another box): cancelled
    const apply = el(doc, "button", { textContent: fantasma.t("apply"), className: "primary" });
    const cancel = el(doc, "button", { textContent: fantasma.t("cancel") });
    onUserClick(apply, () => ((answer = true), uiClose(doc, panel)));
    onUserClick(cancel, () => uiClose(doc, panel));
    panel.append(el(doc, "div", { className: "row" }, [cancel, apply]));
    uiShow(panel, field, { onClose: () => resolve(answer) });
  });
};

/** Words looked up so far: a copy cut off by an update can no longer ask the browser for them. */
const uiWords = new Map();
fantasma.t = function t(key, ...subs) {
  const id = [key, ...subs].join("\u0000");
  if (!uiWords.has(id)) {
    try {
      uiWords.set(id, fantasma.api.i18n.getMessage(key, subs.map(String)) || key);
    } catch {
      return key;
    }
  }
  return uiWords.get(id);
};
// What a cut-off copy still has to say (intercept.js, port.js), looked up while it can.
for (const key of ["extensionReloaded", "extensionReloadedSend", "sendOriginal", "dismiss"]) fantasma.t(key);
