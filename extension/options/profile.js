// Options → "Your writing profile": send writing samples to the host (profile.add), show what is
// distinctive about them (profile.show), clear them (profile.clear: everything, the rivals too). The
// background owns the port; this page talks to it with runtime messages (protocol.js, PanelRequest).
// The host's replies also list the rivals (rivals.js renders them, through `onRivals`).
import { INSTALL_COMMAND } from "../protocol.js";

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const MIN_SAMPLES = 2; // the identifiability model needs two ~250-word pieces (PROTOCOL.md profile.show)
let onRivals = (_rivals) => {};
let onProfile = (_profile) => {};

/** A string of _locales/en/messages.json, with its $1…$9 substitutions. */
export const t = (key, ...subs) => api.i18n.getMessage(key, subs.map(String)) || key;

/** Sends a panel request; resolves with the host's result, rejects with {code, message}. */
export async function ask(request) {
  let reply;
  try {
    reply = await api.runtime.sendMessage(request);
  } catch (err) {
    throw { code: "internal_error", message: `The extension's background did not answer (${err?.message ?? err}).` };
  }
  if (reply?.error) throw reply.error;
  return reply;
}

export function explain(error) {
  if (error?.code === "host_not_installed") {
    return `The Fantasma host is not installed, so there is no profile to show or change. Install it with: ${INSTALL_COMMAND}`;
  }
  return error?.message || "The Fantasma host did not answer.";
}

function say(text, kind = "") {
  $("profile-status").textContent = text;
  $("profile-status").dataset.kind = kind;
}

/** @param {import("../protocol.js").ProfileSummary|null} profile */
export function renderProfile(profile) {
  onProfile(profile);
  const box = $("profile-summary");
  box.replaceChildren();
  const line = (text) => box.appendChild(Object.assign(document.createElement("p"), { textContent: text }));
  if (!profile) {
    line("No profile yet: nothing of your writing is stored. Rewrites aim at plain, typical English.");
    return;
  }
  line(`Learned from ${profile.documents} ${profile.documents === 1 ? "text" : "texts"}, ${profile.words} words.`);
  if (profile.samples == null) {
    line("The identifiability samples cannot be read; clear the profile and add your writing again.");
  } else if (profile.samples < MIN_SAMPLES) {
    line(
      `${profile.samples} of the ${MIN_SAMPLES} pieces of about 250 words the identifiability model needs: ` +
        "add more of your writing. Until then rewrites aim at plain, typical English.",
    );
  } else {
    line(`${profile.samples} pieces of about 250 words train the identifiability model.`);
  }
  if (!profile.habits.length && !profile.phrases.length) {
    line("Nothing distinctive found yet; add more of your writing.");
    return;
  }
  if (profile.habits.length) {
    line("What is distinctive about your writing:");
    const list = box.appendChild(document.createElement("ul"));
    list.id = "profile-habits";
    for (const habit of profile.habits) {
      const typical = habit.baseline_per_1k == null ? "" : `, typical ${habit.baseline_per_1k.toFixed(2)}`;
      list.appendChild(document.createElement("li")).textContent =
        `${habit.label}: ${habit.rate_per_1k.toFixed(2)} per 1,000 words${typical}`;
    }
  }
  if (profile.phrases.length) {
    line(`Habitual phrases: ${profile.phrases.slice(0, 20).map((p) => `“${p}”`).join(", ")}`);
  }
}

/**
 * The pasted sample and the picked files as [name, text]; throws {message} for a file that is not text.
 * @param {string} pasteId the textarea @param {string} filesId the file input
 */
export async function collectSamples(pasteId = "profile-sample", filesId = "profile-files") {
  const samples = [];
  const pasted = $(pasteId).value;
  if (pasted.trim()) samples.push(["the pasted sample", pasted]);
  for (const file of $(filesId).files) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes.subarray(0, 8192).includes(0)) throw { message: `${file.name} looks like a binary file; pick a .txt file.` };
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw { message: `${file.name} is not UTF-8 text; save it as UTF-8 and pick it again.` };
    }
    if (!text.trim()) throw { message: `${file.name} is empty.` };
    samples.push([file.name, text]);
  }
  return samples;
}

async function addSamples() {
  let samples;
  try {
    samples = await collectSamples();
  } catch (error) {
    say(error.message, "error");
    return;
  }
  if (!samples.length) {
    say("Paste a sample or pick a text file first.", "error");
    return;
  }
  $("profile-add").disabled = true;
  say("Learning…");
  let learned = 0;
  try {
    for (const [name, text] of samples) {
      try {
        const { profile, rivals } = await ask({ kind: "profile.add", text });
        renderProfile(profile);
        onRivals(rivals);
        learned += 1;
      } catch (error) {
        say(`${name}: ${explain(error)}${learned ? ` (the ${learned} before it were learned)` : ""}`, "error");
        return; // the inputs stay as they are: nothing the user gave is lost
      }
    }
    $("profile-sample").value = "";
    $("profile-files").value = "";
    say(`Learned from ${learned} ${learned === 1 ? "sample" : "samples"}.`, "ok");
  } finally {
    $("profile-add").disabled = false;
  }
}

async function clearProfile() {
  if (!confirm(t("profileClearConfirm"))) return;
  try {
    await ask({ kind: "profile.clear" });
    renderProfile(null);
    onRivals([]);
    say("Profile cleared.", "ok");
  } catch (error) {
    say(explain(error), "error");
  }
}

/**
 * @param {{onRivals?: (rivals: import("../protocol.js").RivalSummary[]|null|undefined) => void,
 *   onProfile?: (profile: import("../protocol.js").ProfileSummary|null) => void}} hooks
 */
export async function initProfile(hooks = {}) {
  onRivals = hooks.onRivals ?? onRivals;
  onProfile = hooks.onProfile ?? onProfile;
  $("profile-add").addEventListener("click", () => void addSamples());
  $("profile-clear").addEventListener("click", () => void clearProfile());
  try {
    const { profile, rivals } = await ask({ kind: "profile.show" });
    renderProfile(profile);
    onRivals(rivals);
  } catch (error) {
    say(explain(error), "error");
  }
}
