// Extension settings in storage.local. Content scripts read the same keys directly (see content/main.js).

const api = globalThis.browser ?? globalThis.chrome;

/**
 * @typedef {object} Settings
 * @property {boolean} autoRewrite rewrite before posting on every site (off by default)
 * @property {Record<string, boolean>} sites per-site override of autoRewrite, by hostname
 * @property {""|"light"|"medium"|"strong"} strength "" = the host's default
 * @property {""|"us"|"uk"} dialect target spelling dialect; "" = leave as is
 * @property {string[]} protectedTerms kept verbatim
 * @property {boolean} previewBeforeApply show original and rewrite, apply on confirmation
 */

/** @type {Settings} */
export const DEFAULTS = Object.freeze({
  autoRewrite: false,
  sites: {},
  strength: "",
  dialect: "",
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
  if (settings.dialect) options.target = { dialect: settings.dialect };
  return options;
}
