// Background: owns the native port, the menus, the commands, the badge and notifications.
// Every incoming event goes through one switch to a small handler.

import { NativeHost } from "./native.js";
import {
  MIN_RIVAL_CHUNKS,
  codePointToUtf16,
  describeFigure,
  extensionError,
  identifiabilityFigure,
} from "./protocol.js";
import { loadSettings, rewriteOptions } from "./settings.js";

const api = globalThis.browser ?? globalThis.chrome;
const host = new NativeHost();

const MENU_ANONYMIZE = "fantasma-anonymize";
const MENU_MARKERS = "fantasma-markers";
const MENU_COMPOSE = "fantasma-compose";
// Other people's writing on the page, added to the people a reader might suspect (rivals).
const MENU_SUSPECTS_SELECTION = "fantasma-suspects-selection";
const MENU_SUSPECTS_PAGE = "fantasma-suspects-page";
const SUSPECT_SCOPES = { [MENU_SUSPECTS_SELECTION]: "selection", [MENU_SUSPECTS_PAGE]: "page" };
const MENU_KINDS = { [MENU_ANONYMIZE]: "anonymize", [MENU_MARKERS]: "markers", [MENU_COMPOSE]: "compose" };
const COMMAND_KINDS = { "anonymize-field": "anonymize", "show-markers": "markers", "open-composer": "compose" };
/**
 * Counts of work started, read by the e2e tests (a page must never start host work on its own), and the
 * last notification shown (the tests cannot read a system notification's words).
 */
const stats = { jobs: 0, composers: 0, lastNotification: null };

// ---- menus and commands ------------------------------------------------------------------------

function createMenus() {
  api.contextMenus.removeAll(() => {
    api.contextMenus.create({ id: MENU_ANONYMIZE, title: api.i18n.getMessage("menuAnonymize"), contexts: ["editable"] });
    api.contextMenus.create({ id: MENU_MARKERS, title: api.i18n.getMessage("menuMarkers"), contexts: ["editable"] });
    api.contextMenus.create({ id: MENU_COMPOSE, title: api.i18n.getMessage("menuCompose"), contexts: ["editable"] });
    api.contextMenus.create({
      id: MENU_SUSPECTS_SELECTION,
      title: api.i18n.getMessage("menuSuspectsSelection"),
      contexts: ["selection"],
    });
    api.contextMenus.create({ id: MENU_SUSPECTS_PAGE, title: api.i18n.getMessage("menuSuspectsPage"), contexts: ["page"] });
  });
}

/** The context menu: the frame that was right-clicked acts on the field it recorded. */
export async function handleMenuClick(info, tab) {
  if (SUSPECT_SCOPES[info.menuItemId]) return addSuspects(SUSPECT_SCOPES[info.menuItemId], info, tab);
  const kind = MENU_KINDS[info.menuItemId];
  if (!kind) return;
  await sendToTab(tab.id, { kind, focusedOnly: false }, { frameId: info.frameId ?? 0 });
}

/** The keyboard shortcut: every frame is asked; only the one holding focus in an editable acts. */
export async function handleCommand(command, tab) {
  const kind = COMMAND_KINDS[command];
  if (!kind) return;
  const tabId = tab?.id ?? (await api.tabs.query({ active: true, currentWindow: true }))[0]?.id;
  if (tabId != null) await sendToTab(tabId, { kind, focusedOnly: true });
}

async function sendToTab(tabId, message, options = {}) {
  try {
    await messageTab(tabId, message, options);
  } catch (error) {
    notify(error);
  }
}

// ---- content scripts in tabs that were open before an update -------------------------------------

/**
 * Sends `message` to the tab's content scripts (one frame with `options.frameId`, else every frame).
 * Where no content script answers, the tab was open before the extension was installed, updated or
 * reloaded (the browser cut its scripts off and Chromium does not put new ones in), so the scripts are
 * injected into it first: the user's gesture (menu, shortcut) lends this tab to the extension
 * (`activeTab`), no host permission needed. Rejects with `page_closed` where the browser lets no
 * extension in (its own pages, extension stores).
 */
export async function messageTab(tabId, message, options = {}) {
  try {
    return await api.tabs.sendMessage(tabId, message, options);
  } catch (error) {
    // Only where nothing received it: a message delivered that then failed in the tab must not run twice.
    if (!noReceiver(error)) throw error;
  }
  try {
    await injectContentScripts(tabId, options.frameId);
    return await api.tabs.sendMessage(tabId, message, options);
  } catch (error) {
    console.warn("fantasma: no content script in the tab", error);
    throw extensionError("page_closed", api.i18n.getMessage("pageClosedToExtensions"));
  }
}

/**
 * True for the error both browsers give when no listener in the tab (or frame) took the message:
 * "Could not establish connection. Receiving end does not exist."
 */
export function noReceiver(error) {
  return /receiving end does not exist/i.test(String(error?.message ?? error));
}

const CONTENT_SCRIPTS = api.runtime.getManifest().content_scripts[0].js;
/** Tab id → the injection under way there: two gestures at once wait for the same one. */
const injecting = new Map();

/**
 * Injects the manifest's content scripts into the tab's frames (`frameId`: that frame only) that do
 * not have them yet. Each frame is claimed first (`claimFrame`, in the content scripts' own world), so a
 * frame never gets them twice. @returns {Promise<number>} how many frames got them
 */
export function injectContentScripts(tabId, frameId) {
  const previous = injecting.get(tabId) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(async () => {
    const target = frameId == null ? { tabId, allFrames: true } : { tabId, frameIds: [frameId] };
    const claims = await api.scripting.executeScript({ target, func: claimFrame });
    const frameIds = claims.filter((claim) => claim.result === true).map((claim) => claim.frameId);
    if (frameIds.length) await api.scripting.executeScript({ target: { tabId, frameIds }, files: CONTENT_SCRIPTS });
    return frameIds.length;
  });
  injecting.set(tabId, run);
  run.finally(() => injecting.get(tabId) === run && injecting.delete(tabId)).catch(() => {});
  return run;
}

/** Runs in a frame before the scripts: true if this frame has none yet (namespace.js sets the flag too). */
function claimFrame() {
  if (globalThis.fantasmaContentScripts) return false;
  globalThis.fantasmaContentScripts = true;
  return true;
}

// ---- other people's writing: the people a reader might suspect ------------------------------------

const MIN_SUSPECT_WORDS = 500; // MIN_RIVAL_CHUNKS ~250-word pieces: what the host needs before a rival counts

/** "Page: host" (rival names are 1–64 characters, PROTOCOL.md profile.add). */
export function suspectsName(url) {
  let where = "";
  try {
    where = new URL(url).hostname;
  } catch {
    // a page without a host name (file:, about:)
  }
  return `Page: ${where || "local file"}`.slice(0, 64);
}

/**
 * The selection, or the page's prose, of the frame that was right-clicked, sent to the host as writing of
 * the people a reader might suspect, under one name per site; the user is told what was kept. Only
 * counts are stored (PROTOCOL.md); the aim stays "not you", never "like them".
 * @returns {Promise<object>} what the user was told (for the e2e tests)
 */
export async function addSuspects(scope, info, tab) {
  const say = (message) => {
    notifyInfo(message);
    return { message };
  };
  let collected;
  try {
    collected = await messageTab(tab.id, { kind: "collect-writing", scope }, { frameId: info.frameId ?? 0 });
  } catch {
    return say(api.i18n.getMessage("suspectsNoPage"));
  }
  if (collected?.inField) return say(api.i18n.getMessage("suspectsInField"));
  const text = collected?.text ?? "";
  const words = text.split(/\s+/).filter(Boolean).length;
  if (words < MIN_SUSPECT_WORDS) return say(api.i18n.getMessage("suspectsTooShort", [String(words), String(MIN_SUSPECT_WORDS)]));
  const name = suspectsName(collected.url ?? info.frameUrl ?? info.pageUrl ?? "");
  try {
    const reply = await host.request("profile.add", { text, rival: name }, { timeoutMs: 60_000 });
    const rival = (reply.rivals ?? []).find((r) => r.name === name);
    const chunks = rival?.chunks ?? 0;
    const key = chunks < MIN_RIVAL_CHUNKS ? "suspectsAddedTooFew" : "suspectsAdded";
    return { ...say(api.i18n.getMessage(key, [String(words), name, String(chunks)])), name, words, chunks };
  } catch (error) {
    notify(error);
    return { error: normalizeError(error) };
  }
}

// ---- the private composer ---------------------------------------------------------------------

/**
 * A small extension window where the user writes, sees the markers and the rewrite, and inserts only the
 * rewrite into the field it was opened for (tab + frame; that frame's content script keeps the field).
 * An extension page: the site cannot read what is typed there.
 */
/** Token → the text a composer opens with (a rewrite's "Finish it yourself"), taken once by that window. */
const composerSeeds = new Map();

async function openComposer(tabId, frameId, label, page, seedText) {
  stats.composers++;
  // label: the field as a person names it (its label or placeholder); page: the page's title or site.
  const query = new URLSearchParams({ tab: String(tabId), frame: String(frameId), label: label ?? "", page: page ?? "" });
  if (typeof seedText === "string" && seedText.trim()) {
    // The text stays in the extension (never in the URL, which the browser keeps in its history).
    const token = crypto.randomUUID();
    composerSeeds.set(token, seedText);
    query.set("seed", token);
  }
  await api.windows.create({
    url: api.runtime.getURL(`composer/composer.html?${query}`),
    type: "popup",
    width: 560,
    height: 620,
  });
}

// ---- jobs from content scripts ---------------------------------------------------------------

/** One content-script job per Port: request in, progress events and one result/error out. */
function handleJobPort(port) {
  const tabId = port.sender?.tab?.id;
  const abort = new AbortController();
  let finished = false;
  port.onDisconnect.addListener(() => {
    if (!finished) abort.abort();
  });
  port.onMessage.addListener(async (request) => {
    stats.jobs++;
    const onProgress = (progress) => {
      setBadge(tabId, progress.fraction == null ? "…" : `${Math.round(progress.fraction * 100)}%`);
      safePost(port, { kind: "progress", progress });
    };
    setBadge(tabId, "…");
    try {
      const result = await runJob(request, { onProgress, signal: abort.signal });
      setBadge(tabId, "");
      safePost(port, { kind: "result", result });
    } catch (error) {
      setBadge(tabId, "!", "#c0392b");
      // A cancelled job was cancelled by the page going away or by the user: nothing to report. The
      // composer shows the guide's errors itself (a notification per keystroke would be noise).
      if (error?.code !== "cancelled" && !String(request.kind).startsWith("guide")) notify(error);
      safePost(port, { kind: "error", error: normalizeError(error) });
    } finally {
      finished = true;
    }
  });
}

async function runJob(request, opts) {
  switch (request.kind) {
    case "rewrite": {
      const settings = await loadSettings();
      const result = await host.request("rewrite", { text: request.text, options: rewriteOptions(settings) }, opts);
      const figure = identifiabilityFigure(result);
      await rememberLastRewrite(figure);
      // `text` is the figure in words, for the content script and the composer (which cannot import this).
      return { ...result, identifiability: figure && { ...figure, text: describeFigure(figure) } };
    }
    case "analyze": {
      const report = await host.request("analyze", { text: request.text }, opts);
      return { ...report, findings: toUtf16Findings(request.text, report.findings ?? []) };
    }
    case "guide":
    case "guide.alternatives":
      return runGuideJob(request, opts);
    default:
      throw extensionError("invalid_message", `unknown job kind ${request.kind}`);
  }
}

// ---- the guide (the composer's meter, shading and alternatives; PROTOCOL.md `guide`) ---------------

const GUIDE_TIMEOUTS_MS = { guide: 30_000, "guide.alternatives": 120_000 }; // the first call loads the surrogates / the model

/**
 * The composer speaks UTF-16 offsets (string indices), the host code points: offsets are converted both
 * ways here, so the composer never counts code points.
 */
async function runGuideJob(request, opts) {
  const text = request.text;
  const timeout = { ...opts, timeoutMs: GUIDE_TIMEOUTS_MS[request.kind] };
  if (request.kind === "guide") {
    const params = typeof request.previous === "string" ? { text, previous: request.previous } : { text };
    const report = await host.request("guide", params, timeout);
    const sentences = (report.sentences ?? []).map((s) => ({
      ...s,
      start: codePointToUtf16(text, s.start),
      end: codePointToUtf16(text, s.end),
    }));
    return { ...report, sentences };
  }
  const toPoints = (offset) => [...text.slice(0, offset)].length;
  const params = { text, start: toPoints(request.start), end: toPoints(request.end), max: 3 };
  const reply = await host.request("guide.alternatives", params, timeout);
  const alternatives = (reply.alternatives ?? []).map((a) => ({
    ...a,
    start: codePointToUtf16(a.text, a.start),
    end: codePointToUtf16(a.text, a.end),
  }));
  return { ...reply, start: request.start, end: request.end, alternatives };
}

/** Content scripts index strings in UTF-16 units; the host counts code points. */
function toUtf16Findings(text, findings) {
  const convert = (span) =>
    Number.isInteger(span?.start) && Number.isInteger(span?.end)
      ? { ...span, start: codePointToUtf16(text, span.start), end: codePointToUtf16(text, span.end) }
      : span;
  return findings.map((f) => ({ ...convert(f), ...(Array.isArray(f.spans) ? { spans: f.spans.map(convert) } : {}) }));
}

function normalizeError(error) {
  if (error && typeof error.code === "string") return { code: error.code, message: error.message };
  return { code: "internal_error", message: String(error?.message ?? error) };
}

function safePost(port, message) {
  try {
    port.postMessage(message);
  } catch {
    // the tab went away; nothing to tell
  }
}

// ---- badge and notifications -----------------------------------------------------------------

function setBadge(tabId, text, color = "#5846b4") {
  if (tabId == null) return;
  api.action.setBadgeText({ tabId, text }).catch(() => {});
  api.action.setBadgeBackgroundColor({ tabId, color }).catch(() => {});
}

function showNotification(title, message) {
  stats.lastNotification = { title, message };
  api.notifications
    .create({ type: "basic", iconUrl: api.runtime.getURL("icons/icon128.png"), title, message })
    .catch((err) => console.warn("fantasma: notification failed", err));
}

function notifyInfo(message) {
  showNotification("Fantasma", message);
}

function notify(error) {
  showNotification(api.i18n.getMessage("errorTitle"), normalizeError(error).message);
}

// ---- popup / options ---------------------------------------------------------------------------

// The popup shows the last rewrite's figure. Session storage outlives the service worker's restarts
// and is gone when the browser closes (no record of what the user rewrote is kept on disk).
let lastRewrite = null;

async function rememberLastRewrite(figure) {
  lastRewrite = figure && { ...figure, at: Date.now() };
  await api.storage.session?.set({ lastRewrite }).catch(() => {});
}

async function recallLastRewrite() {
  const stored = await api.storage.session?.get("lastRewrite").catch(() => undefined);
  return { figure: stored?.lastRewrite ?? lastRewrite };
}

/** @returns {Promise<object>|undefined} undefined when the message is not for the background */
function handlePanelMessage(message, sender) {
  switch (message?.kind) {
    case "compose-open":
      // From the content script of the frame whose field the composer writes into.
      if (sender?.tab?.id == null) return undefined;
      return openComposer(sender.tab.id, sender.frameId ?? 0, message.label, message.page, message.text).then(() => ({
        ok: true,
      }));
    case "compose-seed": {
      // From the composer window opened with that token: the rewritten text, once.
      const text = composerSeeds.get(message.token);
      composerSeeds.delete(message.token);
      return Promise.resolve({ text: text ?? null });
    }
    case "status":
      return host.status();
    case "profile.show":
      return host.request(message.kind, {});
    case "profile.clear": // with `rival`: that person's samples only (PROTOCOL.md)
      return host.request(message.kind, message.rival == null ? {} : { rival: message.rival });
    case "profile.add": {
      const params = message.rival == null ? { text: message.text } : { text: message.text, rival: message.rival };
      return host.request("profile.add", params, { timeoutMs: 60_000 });
    }
    case "settings.get": // the host's own settings (options page, host-settings.js)
      return host.request("settings.get", {});
    case "settings.set":
      return host.request("settings.set", { settings: message.settings });
    case "models": // the installed models; with `use`, switch first (options page, models.js)
      return host.request("models", "use" in message ? { use: message.use } : {});
    case "lastRewrite":
      return recallLastRewrite();
    case "notify":
      notify(message.error);
      return Promise.resolve({ ok: true });
    default:
      return undefined;
  }
}

// ---- wiring ------------------------------------------------------------------------------------

api.runtime.onInstalled.addListener((details) => {
  createMenus();
  // Tabs open across an update run a cut-off copy of the content scripts until they are reloaded or a
  // gesture puts the new copy in (docs/extension.md): the popup and the options page say so when the
  // user switches "Rewrite before posting" on, for as long as this browser session lasts.
  if (details?.reason === "update") api.storage.session?.set({ updatedFrom: details.previousVersion ?? "" }).catch(() => {});
});
api.runtime.onStartup?.addListener(createMenus);
api.contextMenus.onClicked.addListener((info, tab) => void handleMenuClick(info, tab));
api.commands.onCommand.addListener((command, tab) => void handleCommand(command, tab));
api.runtime.onConnect.addListener((port) => {
  if (port.name === "job") handleJobPort(port);
});
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const reply = handlePanelMessage(message, sender);
  if (reply === undefined) return false;
  reply.then(sendResponse, (err) => sendResponse({ error: normalizeError(err) }));
  return true; // answered asynchronously
});

// The e2e tests call the same handlers the menu and the shortcut call (menus cannot be clicked headless).
globalThis.fantasmaBackground = {
  handleMenuClick,
  handleCommand,
  host,
  stats,
  runJob,
  addSuspects,
  injectContentScripts,
  messageTab,
};
