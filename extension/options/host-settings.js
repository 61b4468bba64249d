// Options → "Local host settings": the host's own settings (PROTOCOL.md settings.get / settings.set),
// which apply to every rewrite that does not choose for itself. The page shows what the host holds and
// sends each change as the user makes it; the host checks it, and the fields then show the host's reply.
import { INSTALL_COMMAND } from "../protocol.js";
import { ask, explain } from "./profile.js";

const $ = (id) => document.getElementById(id);

/** The field of each setting key: it reads the value the user gave and writes back the host's. */
const FIELDS = {
  default_strength: {
    label: "default strength",
    id: "host-default-strength",
    read: (el) => el.value,
    write: (el, value) => (el.value = value),
  },
  candidates: {
    label: "candidates",
    id: "host-candidates",
    read: (el) => wholeNumber(el.value, 1, 8, "Candidates"),
    write: (el, value) => (el.value = String(value)),
  },
  protected_terms: {
    label: "protected terms",
    id: "host-protected-terms",
    read: (el) => [...new Set(el.value.split("\n").map((s) => s.trim()).filter(Boolean))],
    write: (el, value) => (el.value = value.join("\n")),
  },
  use_profile: {
    label: "use my writing profile",
    id: "host-use-profile",
    read: (el) => el.checked,
    write: (el, value) => {
      held.useProfile = value;
      showUseProfile();
    },
  },
  threads: {
    label: "CPU threads",
    id: "host-threads",
    read: (el) => (el.value.trim() === "" ? null : wholeNumber(el.value, 1, 64, "Threads")),
    write: (el, value) => (el.value = value == null ? "" : String(value)),
  },
};

/** What the page knows of the host: the use_profile setting, and whether a profile is stored. */
const held = { useProfile: null, hasProfile: null };

/**
 * "Use my writing profile": the host's setting, except that with no profile stored there is nothing to
 * use, so the box is shown off and disabled with why (the setting itself is kept for when there is one).
 */
function showUseProfile() {
  const box = $("host-use-profile");
  const none = held.hasProfile === false;
  box.checked = !none && held.useProfile === true;
  box.disabled = none;
  $("host-use-profile-note").textContent = none ? "no samples yet — add some in “Your writing profile” above" : "";
}

/** @param {import("../protocol.js").ProfileSummary|null} profile the host's profile.show `profile` */
export function showProfilePresence(profile) {
  held.hasProfile = profile != null && (profile.documents ?? 0) > 0;
  showUseProfile();
}

/** The Rewriting section's "host default" strength says which one the host holds. */
function showHostDefault(strength) {
  const option = document.querySelector('#strength option[value=""]');
  if (option && typeof strength === "string") option.textContent = `host default (${strength})`;
}

function wholeNumber(text, low, high, what) {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < low || value > high) {
    throw { message: `${what} must be a whole number from ${low} to ${high}.` };
  }
  return value;
}

function hostError(error) {
  if (error?.code === "host_not_installed") {
    return `The Fantasma host is not installed, so it has no settings to show. Install it with: ${INSTALL_COMMAND}`;
  }
  return explain(error);
}

function say(text, kind = "") {
  $("host-settings-status").textContent = text;
  $("host-settings-status").dataset.kind = kind;
}

/** @param {Record<string, unknown>} settings every key, as the host returned them */
export function renderHostSettings(settings) {
  for (const [key, field] of Object.entries(FIELDS)) {
    if (key in settings) field.write($(field.id), settings[key]);
  }
  showHostDefault(settings.default_strength);
}

async function change(key) {
  let value;
  try {
    value = FIELDS[key].read($(FIELDS[key].id));
  } catch (error) {
    say(error.message, "error");
    return;
  }
  try {
    const { settings } = await ask({ kind: "settings.set", settings: { [key]: value } });
    renderHostSettings(settings);
    say(`Saved in the host: ${FIELDS[key].label}.`, "ok");
  } catch (error) {
    say(hostError(error), "error");
  }
}

export async function initHostSettings() {
  const box = $("host-settings");
  box.disabled = true; // until the host has said what it holds
  for (const [key, field] of Object.entries(FIELDS)) {
    $(field.id).addEventListener("change", () => void change(key));
  }
  try {
    const { settings } = await ask({ kind: "settings.get" });
    renderHostSettings(settings);
    box.disabled = false;
  } catch (error) {
    say(hostError(error), "error");
  }
}
