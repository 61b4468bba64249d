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
 */
function uiShow(box, field, { onClose = () => {}, sticky = false } = {}) {
  const doc = field.ownerDocument;
  uiClose(doc);
  const root = uiRoot(doc);
  root.append(box);
  root.host.setAttribute(UI_HOST_ATTR, box.dataset.fantasma); // what a newer copy would find cut off
  const cutOff = !fantasma.alive(); // shown by a cut-off copy: its own notice, not stale
  uiShown.set(doc, { box, field, kind: box.dataset.fantasma, onClose, sticky, cutOff });
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
/** Escape and a click outside close the box; the field changing closes a markers panel; scrolling moves the box. */
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
      if (current.kind === "markers") uiClose(doc); // the markers described the text before this edit
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

/** The field's text changed under a markers panel (a rewrite, the composer's Insert): the panel is stale. */
fantasma.fieldChanged = function fieldChanged(field) {
  const current = uiShown.get(field.ownerDocument);
  if (current?.kind === "markers" && current.field === field) uiClose(field.ownerDocument);
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
 * the host's summary in words (PROTOCOL.md `rewrite`, `summary`: what changed, whether the text is harder
 * to link to you, the one next step) is shown in a small card beside the field that goes away by itself.
 * The card shows the host's words and digits as they are, the ones `fantasma rewrite` prints.
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
  if (typeof summary?.next_step === "string") {
    box.append(el(doc, "p", { className: "next" }, [el(doc, "b", { textContent: fantasma.t("nextStep") }), ...withCode(doc, ` ${summary.next_step}`)]));
  }
  // The number on demand: the headline says the level in words, the digits are the ones the CLI prints.
  const line = summary?.identifiability?.line;
  if (typeof line === "string") {
    box.append(el(doc, "details", { className: "figure-number" }, [el(doc, "summary", { textContent: fantasma.t("showFigure") }), el(doc, "p", { textContent: line })]));
  }
  const dismiss = el(doc, "button", { textContent: fantasma.t("dismiss") });
  onUserClick(dismiss, () => uiClose(doc, box));
  box.append(el(doc, "div", { className: "row" }, [dismiss]));
  uiShow(box, field);
  setTimeout(() => uiClose(doc, box), summary ? 20_000 : 12_000); // more to read than a figure
};

/** The host's words with `a command` shown as code (text nodes only: nothing the host sends becomes markup). */
function withCode(doc, text) {
  return text.split("`").map((part, i) => (i % 2 ? el(doc, "code", { textContent: part }) : part));
}

/** A finding's highlighted ranges: its `spans`, or the finding itself when it has start/end. */
function findingSpans(finding) {
  const spans = Array.isArray(finding.spans) ? finding.spans : [finding];
  return spans.filter((s) => Number.isInteger(s.start) && Number.isInteger(s.end) && s.end > s.start);
}

/** One human line per finding; the style package names the fields (docs/style.md). */
function findingReason(finding) {
  const label = finding.label ?? finding.family ?? "marker";
  const why = finding.evidence ?? finding.reason ?? finding.message ?? "";
  return why ? `${label}: ${why}` : label;
}

/**
 * Highlights each marker in a copy of the field's text, with its reason on hover and in a numbered list.
 * @param {HTMLElement} field
 * @param {string} text the text that was analyzed
 * @param {object[]} findings the host's findings, offsets already in UTF-16 units
 */
fantasma.showMarkers = function showMarkers(field, text, findings) {
  const doc = field.ownerDocument;
  const panel = el(doc, "div", { className: "box panel", role: "dialog" });
  panel.dataset.fantasma = "markers";
  panel.append(el(doc, "h2", { textContent: `${fantasma.t("menuMarkers")} (${findings.length})` }));
  const marks = findings
    .flatMap((f, i) => findingSpans(f).map((span) => ({ ...span, n: i + 1, reason: findingReason(f) })))
    .sort((a, b) => a.start - b.start);
  const body = el(doc, "div", { className: "text" });
  let at = 0;
  for (const m of marks) {
    if (m.start < at) continue; // overlapping spans: the list below still names every finding
    body.append(text.slice(at, m.start));
    const mark = el(doc, "mark", { title: m.reason }, [text.slice(m.start, m.end)]);
    mark.append(el(doc, "sup", { textContent: String(m.n) }));
    body.append(mark);
    at = m.end;
  }
  body.append(text.slice(at));
  panel.append(body);
  if (findings.length === 0) panel.append(el(doc, "p", { textContent: fantasma.t("noMarkers") }));
  const list = el(doc, "ol");
  for (const f of findings) {
    const family = el(doc, "span", { className: "family", textContent: f.label ?? f.family ?? "" });
    const why = f.evidence ?? f.reason ?? f.message ?? "";
    list.append(el(doc, "li", {}, [family, why ? ` — ${why}` : ""]));
  }
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
