// Entry point of the content script in every frame: settings, the right-clicked field, and the
// commands the background sends (context menu, keyboard shortcut).
"use strict";

fantasma.settings = null;
fantasma.api.storage.local.get(null).then((stored) => {
  fantasma.settings = { autoRewrite: false, sites: {}, previewBeforeApply: false, ...stored };
});
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

function reportError(field, error) {
  const message = error?.message || String(error);
  if (field?.isConnected) fantasma.showMessage(field, { text: message });
}

async function showMarkers(field) {
  const text = fantasma.readField(field);
  if (!text.trim()) return fantasma.showMarkers(field, text, []);
  const report = await fantasma.runJob({ kind: "analyze", text });
  fantasma.showMarkers(field, text, report.findings ?? []);
}

fantasma.api.runtime.onMessage.addListener((message) => {
  if (message?.kind !== "anonymize" && message?.kind !== "markers") return;
  let field;
  if (message.focusedOnly) {
    if (!document.hasFocus()) return;
    field = fantasma.focusedEditable(document);
  } else {
    field = contextField ?? fantasma.focusedEditable(document);
  }
  if (!field || fantasma.isPassword(field)) return;
  const work = message.kind === "anonymize" ? fantasma.anonymizeField(field) : showMarkers(field);
  work.catch((error) => reportError(field, error));
});
