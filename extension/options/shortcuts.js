// Keyboard shortcuts as the browser has them now, for the options page and the popup: each page that
// loads this module gets its `[data-shortcuts]` element filled ("full" on the options page, "compact" in
// the popup). The keys come from commands.getAll(), never from the manifest: the user may have changed
// them, and Chromium leaves a suggested key it refuses (one of its own, or another extension's) unset.
// A missing key, or one Firefox keeps for itself, comes with how to set another.
const api = globalThis.browser ?? globalThis.chrome;
const t = (key, ...subs) => api.i18n.getMessage(key, subs.map(String)) || key;

/** The commands of the manifest, with the short name the context menu gives each. */
const LABELS = { "anonymize-field": "menuAnonymize", "show-markers": "menuMarkers", "open-composer": "menuCompose" };

// Keys Firefox (Windows, Linux) acts on itself, so our command never sees them although about:addons
// lists them without a warning: its own Ctrl+Shift keys (browser and DevTools key sets), and Alt or
// Alt+Shift with a letter, which opens the menu bar's menu with that access key (File is Alt+F in English,
// and the letters differ by language). Chromium needs no list: it leaves a key it will not deliver unset.
const FIREFOX_OWN = /^Ctrl\+Shift\+([ABCDEGHIJKMNOPRSTWXYZ]|Delete)$/;
const FIREFOX_MENU = /^Alt\+(Shift\+)?[A-Z]$/;

export function isFirefox() {
  return typeof api.runtime.getBrowserInfo === "function";
}

/** "Ctrl+Shift+Period" → "Ctrl+Shift+." (the browsers' names for keys, as people read them). */
export function readable(shortcut) {
  return shortcut
    .replace(/\bPeriod$/, ".")
    .replace(/\bComma$/, ",")
    .replace(/\bMacCtrl\b/, "Control")
    .replace(/\bCommand\b/, "Cmd");
}

/** null when the key reaches us; "unset" or "taken" otherwise. */
export function problemOf(shortcut, os, firefox = isFirefox()) {
  if (!shortcut) return "unset";
  if (firefox && os !== "mac" && (FIREFOX_OWN.test(shortcut) || FIREFOX_MENU.test(shortcut))) return "taken";
  return null;
}

/** @returns {Promise<{name: string, label: string, shortcut: string, problem: string|null}[]>} */
export async function currentShortcuts() {
  const [commands, platform] = await Promise.all([api.commands.getAll(), api.runtime.getPlatformInfo()]);
  const order = Object.keys(LABELS);
  return commands
    .filter((c) => LABELS[c.name])
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name))
    .map((c) => ({
      name: c.name,
      label: t(LABELS[c.name]),
      shortcut: c.shortcut ?? "",
      problem: problemOf(c.shortcut ?? "", platform.os),
    }));
}

/** The browser's own page for extension shortcuts (Firefox: about:addons → Manage Extension Shortcuts). */
export function openShortcutSettings() {
  if (typeof api.commands.openShortcutSettings === "function") return api.commands.openShortcutSettings();
  return api.tabs.create({ url: "chrome://extensions/shortcuts" });
}

function el(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** Fills `box` with one line per command; a missing or taken key says how to set one. */
export async function renderShortcuts(box) {
  const compact = box.dataset.shortcuts === "compact";
  const list = await currentShortcuts();
  const lines = list.map(({ name, label, shortcut, problem }) => {
    const key = shortcut ? el("kbd", { textContent: readable(shortcut) }) : el("em", { textContent: t("shortcutsNotSet") });
    const line = el("li", {}, [key, ` ${label}`]);
    line.dataset.command = name;
    if (problem) line.dataset.problem = problem;
    if (problem === "taken") {
      const warning = el("div", { className: "warning", textContent: t("shortcutsTaken", readable(shortcut)) });
      warning.style.color = "#c0392b";
      line.append(warning);
    }
    return line;
  });
  const troubled = list.some((s) => s.problem);
  const how = el("p", { className: "hint", textContent: t(isFirefox() ? "shortcutsHowFirefox" : "shortcutsHowChromium") });
  const change = el("button", { type: "button", textContent: t("shortcutsChange") });
  change.addEventListener("click", (event) => {
    event.preventDefault();
    openShortcutSettings();
  });
  const parts = compact ? [el("ul", {}, lines)] : [el("legend", { textContent: t("shortcutsLegend") }), el("ul", {}, lines)];
  if (!compact || troubled) parts.push(how, change);
  box.replaceChildren(...parts);
  box.dataset.state = troubled ? "trouble" : "ok";
}

for (const box of globalThis.document?.querySelectorAll("[data-shortcuts]") ?? []) {
  renderShortcuts(box).catch((error) => {
    box.textContent = String(error?.message ?? error);
  });
}
