// In-page UI: a progress pill, a message bar (errors, blocked posts), the marker overlay and the preview
// dialog. All of it lives in one closed shadow root per document: page CSS cannot restyle it and page
// scripts cannot read it or press its buttons.
"use strict";

const UI_CSS = `
:host { all: initial; }
.box { position: fixed; z-index: 2147483647; font: 13px/1.4 system-ui, sans-serif; color: #1d1b2e;
  background: #fff; border: 1px solid #b9b3e0; border-radius: 6px; box-shadow: 0 2px 10px rgba(0,0,0,.18); }
.pill { padding: 3px 9px; background: #5846b4; color: #fff; border: none; }
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
`;

/**
 * The UI's shadow root in `doc`: closed, so page scripts cannot read it (the marker panel shows findings
 * built from the user's profile) nor reach its buttons. Its host is a plain element we made and keep a
 * reference to: an element the page planted, or a custom element it defined, is never used. (Custom
 * element definitions live in the page's world; `customElements` is not even available here.)
 */
const uiRoots = new WeakMap();
function uiRoot(doc) {
  let root = uiRoots.get(doc);
  if (!root || !root.host.isConnected) {
    const host = doc.createElement("div");
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

function placeNear(box, field, below = true) {
  const rect = field.getBoundingClientRect();
  const view = field.ownerDocument.defaultView;
  box.style.left = `${Math.max(4, Math.min(rect.left, view.innerWidth - 300))}px`;
  const top = below ? rect.bottom + 4 : rect.top - 30;
  box.style.top = `${Math.max(4, Math.min(top, view.innerHeight - 40))}px`;
}

function el(doc, tag, props = {}, children = []) {
  const node = doc.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/** A small "Anonymizing… 40%" pill at the field's corner, fed by the host's progress events. */
fantasma.showIndicator = function showIndicator(field) {
  const doc = field.ownerDocument;
  const pill = el(doc, "div", { className: "box pill", role: "status" });
  pill.dataset.fantasma = "indicator";
  pill.textContent = fantasma.t("rewriting");
  uiRoot(doc).append(pill);
  const rect = field.getBoundingClientRect();
  pill.style.left = `${Math.max(4, rect.right - 140)}px`;
  pill.style.top = `${Math.max(4, rect.bottom - 26)}px`;
  return {
    update(progress) {
      const pct = typeof progress?.fraction === "number" ? ` ${Math.round(progress.fraction * 100)}%` : "";
      const stage = progress?.message ?? progress?.stage ?? "";
      pill.textContent = `${fantasma.t("rewriting")}${pct}${stage ? ` · ${stage}` : ""}`;
    },
    remove: () => pill.remove(),
  };
};

/**
 * A message bar under the field. `actions` are buttons; each closes the bar after its callback.
 * @param {HTMLElement} field
 * @param {{text: string, kind?: "error"|"info", actions?: {label: string, primary?: boolean, run: () => void}[]}} m
 */
fantasma.showMessage = function showMessage(field, { text, kind = "error", actions = [] }) {
  const doc = field.ownerDocument;
  const root = uiRoot(doc);
  root.querySelector('[data-fantasma="message"]')?.remove();
  const bar = el(doc, "div", { className: `box bar ${kind}`, role: "alert" });
  bar.dataset.fantasma = "message";
  bar.append(el(doc, "span", { textContent: text }));
  const all = [...actions, { label: fantasma.t("dismiss"), run: () => {} }];
  for (const action of all) {
    const button = el(doc, "button", { textContent: action.label, className: action.primary ? "primary" : "" });
    onUserClick(button, () => {
      bar.remove();
      action.run();
    });
    bar.append(button);
  }
  root.append(bar);
  placeNear(bar, field);
  return bar;
};

/**
 * After a rewrite: the host's identifiability figure in words ("identifiability 0.82 → 0.41 · still linked
 * by char3"), in a small box under the field that goes away by itself.
 */
fantasma.onRewritten = function showFigure(field, result) {
  const text = result?.identifiability?.text;
  if (!text || !field.isConnected) return;
  const doc = field.ownerDocument;
  const root = uiRoot(doc);
  root.querySelector('[data-fantasma="figure"]')?.remove();
  const box = el(doc, "div", { className: "box bar info", role: "status" });
  box.dataset.fantasma = "figure";
  box.append(el(doc, "span", { textContent: text }));
  const close = el(doc, "button", { textContent: fantasma.t("dismiss") });
  onUserClick(close, () => box.remove());
  box.append(close);
  root.append(box);
  placeNear(box, field);
  setTimeout(() => box.remove(), 12_000);
};

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
  const root = uiRoot(doc);
  root.querySelector('[data-fantasma="markers"]')?.remove();
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
  const close = el(doc, "button", { textContent: fantasma.t("dismiss") });
  onUserClick(close, () => panel.remove());
  panel.append(el(doc, "div", { className: "row" }, [close]));
  root.append(panel);
  placeNear(panel, field);
  const onKey = (e) => {
    if (e.key !== "Escape") return;
    panel.remove();
    doc.removeEventListener("keydown", onKey, true);
  };
  doc.addEventListener("keydown", onKey, true);
  return panel;
};

/** Shows original and rewrite; resolves true on Apply, false on Cancel. */
fantasma.confirmPreview = function confirmPreview(field, original, rewritten) {
  const doc = field.ownerDocument;
  const root = uiRoot(doc);
  const panel = el(doc, "div", { className: "box panel", role: "dialog" });
  panel.dataset.fantasma = "preview";
  panel.append(
    el(doc, "h2", { textContent: fantasma.t("menuAnonymize") }),
    el(doc, "div", { className: "text diff-old", textContent: original }),
    el(doc, "div", { className: "text diff-new", textContent: rewritten }),
  );
  return new Promise((resolve) => {
    const apply = el(doc, "button", { textContent: fantasma.t("apply"), className: "primary" });
    const cancel = el(doc, "button", { textContent: fantasma.t("cancel") });
    onUserClick(apply, () => (panel.remove(), resolve(true)));
    onUserClick(cancel, () => (panel.remove(), resolve(false)));
    panel.append(el(doc, "div", { className: "row" }, [cancel, apply]));
    root.append(panel);
    placeNear(panel, field);
  });
};

fantasma.t = function t(key) {
  return fantasma.api.i18n.getMessage(key) || key;
};
