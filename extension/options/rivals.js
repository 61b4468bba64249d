// Options → "People a reader might suspect" (rivals): send another person's writing to the host
// (profile.add with `rival`), list what it holds of each person (the `rivals` of profile.show /
// profile.add), remove one (profile.clear with `rival`). "Clear my profile" (profile.js) clears them too.
// The aim is that a text no longer points to the user, never that it points to one of these people.
import { MIN_RIVAL_CHUNKS } from "../protocol.js";
import { ask, collectSamples, explain, t } from "./profile.js";

const $ = (id) => document.getElementById(id);

function say(text, kind = "") {
  $("rivals-status").textContent = text;
  $("rivals-status").dataset.kind = kind;
}

/** @param {import("../protocol.js").RivalSummary[]|null|undefined} rivals null: the host cannot read them */
export function renderRivals(rivals) {
  if (rivals === undefined) return; // a reply from a host that does not know rivals: leave the list be
  const table = $("rivals-list");
  const body = table.tBodies[0];
  body.replaceChildren();
  table.hidden = !rivals?.length;
  $("rivals-note").textContent = rivals === null ? t("rivalsUnreadable") : rivals.length ? "" : t("rivalsNone");
  for (const rival of rivals ?? []) {
    const row = body.insertRow();
    row.dataset.rival = rival.name;
    row.insertCell().textContent = rival.name;
    row.insertCell().textContent =
      rival.chunks < MIN_RIVAL_CHUNKS ? t("rivalsTooFew", rival.chunks, MIN_RIVAL_CHUNKS) : String(rival.chunks);
    row.insertCell().textContent = String(rival.words);
    const remove = Object.assign(document.createElement("button"), { type: "button", textContent: t("rivalsRemove") });
    remove.addEventListener("click", () => void removeRival(rival.name));
    row.insertCell().append(remove);
  }
}

async function addRival() {
  const name = $("rival-name").value.trim();
  if (!name) {
    say(t("rivalsNoName"), "error");
    return;
  }
  let samples;
  try {
    samples = await collectSamples("rival-sample", "rival-files");
  } catch (error) {
    say(error.message, "error");
    return;
  }
  if (!samples.length) {
    say(t("rivalsNoSample"), "error");
    return;
  }
  $("rival-add").disabled = true;
  say(t("rivalsLearning"));
  let learned = 0;
  try {
    for (const [sample, text] of samples) {
      try {
        renderRivals((await ask({ kind: "profile.add", text, rival: name })).rivals);
        learned += 1;
      } catch (error) {
        const why = t("rivalsSampleFailed", sample, explain(error));
        say(learned ? t("rivalsPartlyLearned", why, learned) : why, "error");
        return; // the inputs stay as they are: nothing the user gave is lost
      }
    }
    $("rival-name").value = "";
    $("rival-sample").value = "";
    $("rival-files").value = "";
    say(learned === 1 ? t("rivalsLearnedOne", name) : t("rivalsLearnedMany", learned, name), "ok");
  } finally {
    $("rival-add").disabled = false;
  }
}

async function removeRival(name) {
  if (!confirm(t("rivalsRemoveConfirm", name))) return;
  try {
    const { cleared, rivals } = await ask({ kind: "profile.clear", rival: name });
    renderRivals(rivals);
    say(cleared ? t("rivalsRemoved", name) : t("rivalsAlreadyGone", name), "ok");
  } catch (error) {
    say(explain(error), "error");
  }
}

export function initRivals() {
  for (const element of $("rivals").querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  $("rival-add").addEventListener("click", () => void addRival());
}
