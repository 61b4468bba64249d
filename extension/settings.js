// Extension settings in storage.local. Content scripts read the same keys directly (see content/main.js).

const api = globalThis.browser ?? globalThis.chrome;

/**
 * @typedef {object} Settings
 * @property {boolean} autoRewrite rewrite before posting on every site (off by default)
 * @property {Record<string, boolean>} sites per-site override of autoRewrite, by hostname
 * @property {""|"light"|"medium"|"strong"} strength "" = the host's default
 * @property {""|"american"|"british"} spelling target spelling; "" = the host's default (american)
 * @property {boolean} keepEmoji leave emoji alone (the host removes them by default)
 * @property {boolean} expandSlang spell out slang and abbreviations (host default true)
 * @property {string[]} protectedTerms kept verbatim
 * @property {boolean} previewBeforeApply show original and rewrite, apply on confirmation
 */

/** @type {Settings} */
export const DEFAULTS = Object.freeze({
  autoRewrite: false,
  sites: {},
  strength: "",
  spelling: "",
  keepEmoji: false,
  expandSlang: true,
  protectedTerms: [],
  previewBeforeApply: false,
});

/** @returns {Promise<Settings>} */
export async function loadSettings() {
  const stored = await api.storage.local.get(Object.keys(DEFAULTS));
  return { ...DEFAULTS, ...stored };
}

/** @param {Partial<Settings>} changes */
export async function saveSettings(changes) {
  await api.storage.local.set(changes);
}

/** @param {Settings} settings @param {string} hostname */
export function autoRewriteOn(settings, hostname) {
  return settings.sites[hostname] ?? settings.autoRewrite;
}

/** The `rewrite` request options (PROTOCOL.md §3) for the current settings. */
export function rewriteOptions(settings) {
  /** @type {import("./protocol.js").RewriteOptions} */
  const options = { protected_terms: settings.protectedTerms };
  if (settings.strength) options.strength = settings.strength;
  // Target style keys are native_host.style.Target's fields; only what the user changed is sent.
  const target = {};
  if (settings.spelling) target.spelling = settings.spelling;
  if (settings.keepEmoji) target.keep_emoji = true;
  if (!settings.expandSlang) target.expand_slang = false;
  if (Object.keys(target).length > 0) options.target = target;
  return options;
}

/**
 * The words to show where "Rewrite before posting" was just switched on, if the extension was updated in
 * this browser session: tabs open since then run a copy of the content scripts that cannot see it
 * (0.1.0's copy posts as typed; later copies hold the send and ask). "" when there is nothing to say.
 */
export async function oldTabsNote(switchedOn) {
  if (!switchedOn) return "";
  const stored = await api.storage.session?.get("updatedFrom").catch(() => undefined);
  return typeof stored?.updatedFrom === "string" ? api.i18n.getMessage("autoRewriteOldTabs") : "";
}
