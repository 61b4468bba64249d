// Popup: host status (from hello), the last rewrite in words (the host's summary), and the auto-rewrite
// toggles for all sites and for this site.
import { INSTALL_COMMAND, describeFigure } from "../protocol.js";
import { autoRewriteOn, loadSettings, oldTabsNote, saveSettings } from "../settings.js";

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const t = (key) => api.i18n.getMessage(key) || key;

function showStatus(status) {
  let state = status?.state ?? "failed";
  const model = status?.hello?.model ?? {};
  if (state === "connected" && (status.loadingModel || model.state === "loading")) state = "model_loading";
  $("status").dataset.state = state;
  $("install-command").hidden = state !== "not_installed";
  $("install-command").textContent = INSTALL_COMMAND;
  const detail = $("status-detail");
  detail.textContent = "";
  switch (state) {
    case "connected": {
      $("status-text").textContent = t("statusConnected");
      const hello = status.hello;
      if (hello) detail.textContent = [`host ${hello.version}`, modelLine(model)].filter(Boolean).join("\n");
      break;
    }
    case "model_loading":
      $("status-text").textContent = t("statusModelLoading");
      break;
    case "not_installed":
      $("status-text").textContent = t("statusNotInstalled");
      break;
    case "checking":
      $("status-text").textContent = t("statusChecking");
      break;
    default:
      $("status-text").textContent = t("statusError");
      detail.textContent = status?.error?.message ?? "";
  }
}

/** The model that answers, by name (PROTOCOL.md `hello`: model.name, model.layers, model.fallback). */
function modelName(model) {
  if (!model.name) return "";
  const kind = model.hybrid ? ` (${model.layers})` : "";
  const fallback = model.fallback ? ` — ${model.fallback}` : "";
  return `model ${model.name}${model.embedded ? " (embedded)" : kind}${fallback}`;
}

/** The model's line: its name and state; no name when none is installed (a name beside "no language
 * model" read as a contradiction). */
function modelLine(model) {
  if (model.state === "not_installed") return t("popupModelNotInstalled");
  return [modelName(model), describeModel(model)].filter(Boolean).join(" · ");
}

/** hello.model is native_host.models.choice.status() (PROTOCOL.md, `hello`). */
function describeModel(model) {
  switch (model.state) {
    case "ready":
      return "model loaded";
    case "loading":
      return "model loading…";
    case "available":
      return "the model loads on first use";
    case "error":
      return `model unusable (${model.reason ?? "unknown error"}); rewriting is rule-based`;
    default:
      return model.reason ? `model: ${model.reason}` : "model status unknown";
  }
}

async function currentHostname() {
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  try {
    const url = new URL(tab?.url ?? "");
    return url.protocol.startsWith("http") ? url.hostname : "";
  } catch {
    return "";
  }
}

async function init() {
  $("auto-global-label").textContent = t("popupAutoGlobal");
  $("auto-site-label").textContent = t("popupAutoSite");
  $("open-options").textContent = t("popupOptions");
  $("open-options").addEventListener("click", (e) => {
    e.preventDefault();
    api.runtime.openOptionsPage();
  });
  showStatus({ state: "checking" });

  const settings = await loadSettings();
  const hostname = await currentHostname();
  $("site").textContent = hostname;
  $("auto-global").checked = settings.autoRewrite;
  $("auto-site").checked = hostname ? autoRewriteOn(settings, hostname) : false;
  $("auto-site").disabled = !hostname;
  $("auto-global").addEventListener("change", async (e) => {
    await saveSettings({ autoRewrite: e.target.checked });
    const fresh = await loadSettings();
    if (hostname) $("auto-site").checked = autoRewriteOn(fresh, hostname);
    $("old-tabs").textContent = await oldTabsNote(e.target.checked);
  });
  $("auto-site").addEventListener("change", async (e) => {
    const fresh = await loadSettings();
    await saveSettings({ sites: { ...fresh.sites, [hostname]: e.target.checked } });
    $("old-tabs").textContent = await oldTabsNote(e.target.checked);
  });

  showLastRewrite((await api.runtime.sendMessage({ kind: "lastRewrite" }))?.figure);
  showStatus(await api.runtime.sendMessage({ kind: "status" }));
}

/** @param {import("../protocol.js").IdentifiabilityFigure|null|undefined} figure */
function showLastRewrite(figure) {
  $("last-rewrite").hidden = !figure;
  if (!figure) return;
  $("last-rewrite-label").textContent = t("popupLastRewrite");
  // The host's words (PROTOCOL.md `rewrite`, `summary`): what changed, how much harder to link, what next.
  const summary = figure.summary;
  $("last-rewrite-figure").textContent = summary?.headline ?? describeFigure(figure);
  // The browser's words (the options page where it can do the step); a host without them: the CLI's.
  const step = typeof summary?.next_step_browser === "string" ? summary.next_step_browser : summary?.next_step;
  if (typeof step === "string") {
    const next = document.createElement("p");
    next.id = "last-rewrite-next";
    // `a command` in monospace (samp: the popup styles code as a block); text nodes only, never markup
    const parts = step.split("`").map((part, i) => (i % 2 ? Object.assign(document.createElement("samp"), { textContent: part }) : part));
    next.append(`${t("nextStep")} `, ...parts);
    $("last-rewrite").append(next);
  }
  const line = summary?.identifiability?.line;
  if (typeof line === "string") {
    const number = document.createElement("details");
    number.id = "last-rewrite-number";
    number.append(Object.assign(document.createElement("summary"), { textContent: t("showFigure") }), line);
    $("last-rewrite").append(number);
  }
}

init();
