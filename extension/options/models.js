// Options → "Model": the language models installed on this computer (PROTOCOL.md `models`), the one the
// host rewrites with selected; choosing another switches at once (the host drops the old one from
// memory). The page never downloads anything: adding a model is a command in a terminal, shown here.
import { INSTALL_COMMAND } from "../protocol.js";
import { ask, explain } from "./profile.js";

const $ = (id) => document.getElementById(id);
const ADD_COMMAND = "fantasma setup --model Qwen/Qwen3.5-0.8B --use"; // the host's reply names it too

function say(text, kind = "") {
  $("models-status").textContent = text;
  $("models-status").dataset.kind = kind;
}

function hostError(error) {
  if (error?.code === "host_not_installed") {
    return `The Fantasma host is not installed, so there is no model to choose. Install it with: ${INSTALL_COMMAND}`;
  }
  return explain(error);
}

export function formatBytes(bytes) {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

export function formatParameters(count) {
  if (count == null) return "";
  return count >= 1e9 ? `${(count / 1e9).toFixed(1)} B parameters` : `${Math.round(count / 1e6)} M parameters`;
}

/** "a Llama-family language model…" → "A Llama-family language model….": a cell reads as a sentence. */
function sentence(text) {
  const plain = String(text).trim();
  return plain ? `${plain[0].toUpperCase()}${plain.slice(1)}${/[.!?]$/.test(plain) ? "" : "."}` : "";
}

/**
 * What a rewrite costs with the model here (PROTOCOL.md `models`, `cost`), in words: seconds per 100
 * words at each strength measured; where none is, the host's reason (`cost.note`). The decode speed
 * measured at install, when there is one, follows.
 */
export function speedWords(model) {
  const lines = [];
  for (const strength of ["medium", "strong"]) {
    const measured = model.cost?.[strength];
    if (typeof measured?.seconds_per_100_words !== "number") continue;
    const seconds = measured.seconds_per_100_words;
    const over = `${measured.rewrites} ${measured.rewrites === 1 ? "rewrite" : "rewrites"}`;
    lines.push(`${strength}: about ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s per 100 words (${over})`);
  }
  if (!lines.length) lines.push(sentence(model.cost?.note || "Not measured yet."));
  if (typeof model.decode_tokens_per_s === "number") lines.push(`${model.decode_tokens_per_s.toFixed(1)} tokens/s at install`);
  return lines.flatMap((line, i) => (i ? [document.createElement("br"), line] : [line]));
}

/** One row: a radio button (off for a model whose dir is unusable), what it is, its size and speed. */
function row(model, onChoose) {
  const tr = document.createElement("tr");
  tr.dataset.model = model.name;
  const radio = Object.assign(document.createElement("input"), {
    type: "radio",
    name: "model",
    value: model.name,
    checked: model.active,
    disabled: !model.usable,
    id: `model-${model.name}`,
  });
  radio.addEventListener("change", () => radio.checked && onChoose(model));
  const label = Object.assign(document.createElement("label"), { htmlFor: radio.id, textContent: model.name });
  const from = Object.assign(document.createElement("small"), {
    textContent: model.embedded ? "embedded default" : `from ${model.source}`,
  });
  // What it is in words (the host's description), not its code names; an unusable one: why.
  const kind = model.usable ? sentence(model.description ?? [model.architecture, model.layers].filter(Boolean).join(", ")) : sentence(model.problem ?? "");
  const cells = [
    [radio, label, from],
    [kind],
    [model.usable ? formatBytes(model.size_bytes) : "—"],
    speedWords(model),
  ];
  for (const parts of cells) tr.insertCell().append(...parts);
  return tr;
}

/** @param {import("../protocol.js").ModelsResult} reply */
export function renderModels(reply) {
  const table = $("models-list");
  table.tBodies[0].replaceChildren(...reply.models.map((model) => row(model, choose)));
  table.hidden = false;
  $("models-command").textContent = reply.install_command || ADD_COMMAND;
  if (reply.active?.fallback) say(reply.active.fallback, "error");
}

async function choose(model) {
  say(`Switching to ${model.name}…`);
  try {
    const reply = await ask({ kind: "models", use: model.embedded ? null : model.name });
    renderModels(reply);
    if (!reply.active?.fallback) say(`Rewrites now use ${reply.active.name}.`, "ok");
  } catch (error) {
    say(hostError(error), "error");
    void refresh(); // the radio buttons show what the host holds, not the refused choice
  }
}

async function refresh() {
  try {
    renderModels(await ask({ kind: "models" }));
  } catch (error) {
    say(hostError(error), "error");
  }
}

export async function initModels() {
  $("models-command").textContent = ADD_COMMAND;
  await refresh();
}
