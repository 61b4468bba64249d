// Options: strength, target style (native_host.style.Target), protected terms, preview-before-apply, the
// per-site auto-rewrite list, the writing profile (profile.js) and the people a reader might suspect
// (rivals.js).
import { loadSettings, oldTabsNote, saveSettings } from "../settings.js";
import { initHostSettings, showProfilePresence } from "./host-settings.js";
import { initModels } from "./models.js";
import { initProfile } from "./profile.js";
import { initRivals, renderRivals } from "./rivals.js";

const $ = (id) => document.getElementById(id);

function flashSaved() {
  $("saved").textContent = "Saved.";
  setTimeout(() => ($("saved").textContent = ""), 1500);
}

async function save(changes) {
  await saveSettings(changes);
  flashSaved();
}

function renderSites(sites) {
  const body = $("sites").tBodies[0];
  body.replaceChildren();
  for (const [hostname, on] of Object.entries(sites).sort()) {
    const row = body.insertRow();
    row.insertCell().textContent = hostname;
    const toggle = Object.assign(document.createElement("input"), { type: "checkbox", checked: on });
    toggle.addEventListener("change", async () => {
      const fresh = await loadSettings();
      await save({ sites: { ...fresh.sites, [hostname]: toggle.checked } });
    });
    row.insertCell().append(toggle);
    const remove = Object.assign(document.createElement("button"), { type: "button", textContent: "Remove" });
    remove.addEventListener("click", async () => {
      const { [hostname]: _gone, ...rest } = (await loadSettings()).sites;
      await save({ sites: rest });
      renderSites(rest);
    });
    row.insertCell().append(remove);
  }
}

async function init() {
  const settings = await loadSettings();
  $("strength").value = settings.strength;
  $("spelling").value = settings.spelling;
  $("keep-emoji").checked = settings.keepEmoji;
  $("expand-slang").checked = settings.expandSlang;
  $("protected-terms").value = settings.protectedTerms.join("\n");
  $("preview").checked = settings.previewBeforeApply;
  $("auto-global").checked = settings.autoRewrite;
  renderSites(settings.sites);

  $("strength").addEventListener("change", (e) => save({ strength: e.target.value }));
  $("spelling").addEventListener("change", (e) => save({ spelling: e.target.value }));
  $("keep-emoji").addEventListener("change", (e) => save({ keepEmoji: e.target.checked }));
  $("expand-slang").addEventListener("change", (e) => save({ expandSlang: e.target.checked }));
  $("protected-terms").addEventListener("change", (e) =>
    save({ protectedTerms: e.target.value.split("\n").map((s) => s.trim()).filter(Boolean) }),
  );
  $("preview").addEventListener("change", (e) => save({ previewBeforeApply: e.target.checked }));
  $("auto-global").addEventListener("change", async (e) => {
    await save({ autoRewrite: e.target.checked });
    $("old-tabs").textContent = await oldTabsNote(e.target.checked);
  });
  $("add-site").addEventListener("click", async () => {
    const hostname = $("new-site").value.trim().toLowerCase().replace(/^https?:\/\//, "").split("/")[0];
    if (!hostname) return;
    const fresh = await loadSettings();
    const sites = { ...fresh.sites, [hostname]: true };
    await save({ sites });
    $("new-site").value = "";
    renderSites(sites);
  });
  $("options").addEventListener("submit", (e) => e.preventDefault());
}

init();
initRivals();
initProfile({ onRivals: renderRivals, onProfile: showProfilePresence });
initHostSettings();
initModels();
