// The native-messaging contract as the extension sees it. Normative text: PROTOCOL.md (repo root).
// Messages between the extension's own parts (content ⇄ background ⇄ popup) are typed here too.

export const HOST_NAME = "org.fantasma.host";
export const PROTOCOL_VERSION = 1;
export const CLIENT = "fantasma-extension/0.1.1";
export const INSTALL_COMMAND = "fantasma-host install";
/** A rival counts in the score from two ~250-word pieces (PROTOCOL.md profile.show). */
export const MIN_RIVAL_CHUNKS = 2;

/**
 * @typedef {"hello"|"analyze"|"neutralize"|"rewrite"|"cancel"|"profile.show"|"profile.add"|
 *   "profile.clear"|"settings.get"|"settings.set"|"models"} RequestType
 */

/**
 * @typedef {object} Request
 * @property {string} id unique among the requests in flight on this port
 * @property {RequestType} type
 * @property {object} [params]
 */

/** @typedef {{protocol?: number, client?: string}} HelloParams */
/**
 * @typedef {object} HelloResult
 * @property {string} app
 * @property {string} version
 * @property {number} protocol
 * @property {ModelStatus} model
 * @property {"llm"|"neutralizer"} rewrite_path
 * @property {string[]} types
 */

/**
 * hello.model: the load state of the model that answers, and what it is (PROTOCOL.md `hello`).
 * @typedef {object} ModelStatus
 * @property {"not_installed"|"available"|"loading"|"ready"|"error"} state
 * @property {string} [reason]
 * @property {string} [name] the model dir's name (`fantasma models`)
 * @property {string} [architecture] "qwen3_5", "llama"
 * @property {boolean} [hybrid] Gated DeltaNet and attention layers
 * @property {string} [layers] e.g. "hybrid: 18 Gated DeltaNet + 6 attention"
 * @property {boolean} [embedded] the embedded default model
 * @property {string|null} [chosen] what the `model` setting names (null: the embedded default)
 * @property {string|null} [fallback] why the chosen model does not answer, else null
 */
/**
 * One installed model (PROTOCOL.md `models`).
 * @typedef {{name: string, embedded: boolean, active: boolean, usable: boolean, problem: string|null,
 *   architecture: string, hybrid: boolean, layers: string, parameters: number|null, size_bytes: number,
 *   adapter: string|null, source: string, decode_tokens_per_s: number|null}} InstalledModel
 */
/** {} lists; `use` (a name, null = the embedded default) switches first. @typedef {{use?: string|null}} ModelsParams */
/** @typedef {{models: InstalledModel[], active: ModelStatus, install_command: string}} ModelsResult */

/** @typedef {{text: string, use_profile?: boolean}} AnalyzeParams */
/**
 * A style marker; the style package may add fields, which the extension ignores.
 * Offsets are Unicode code points of the analyzed text.
 * @typedef {{family: string, start: number, end: number, reason?: string, message?: string}} Finding
 */
/**
 * How likely an attacker holding the user's writing samples links a text to them (PROTOCOL.md,
 * "Identifiability report"); `mode` "typicality": how far it stands from other writers.
 * @typedef {object} IdentifiabilityReport
 * @property {number} score 0–1, the mean of `families`
 * @property {Object<string, number>} families "char3" | "delta" | "function_words" → 0–1
 * @property {string[]} linked_by the families (≥ 0.5) that still link the text
 * @property {Array<[number, number, number]>} sentences [start, end, contribution]; code points
 * @property {"profile"|"typicality"} mode
 * @property {string} message why the mode is not the one asked for, else ""
 * @property {string[]} [rivals] names of the people (stored rivals) the score compared the user with
 */
/**
 * @typedef {object} AnalyzeResult
 * @property {number} score
 * @property {Finding[]} findings
 * @property {IdentifiabilityReport|null} identifiability null when the host has no population data
 */

/** @typedef {{text: string, target?: object|null}} NeutralizeParams */
/** @typedef {{start: number, end: number, original: string, replacement: string, family: string}} Edit */
/** @typedef {{text: string, edits: Edit[]}} NeutralizeResult */

/**
 * @typedef {object} RewriteOptions
 * @property {"light"|"medium"|"strong"} [strength] host default "medium"
 * @property {{spelling?: "american"|"british", keep_emoji?: boolean, expand_slang?: boolean}|null} [target]
 * @property {string[]} [protected_terms]
 * @property {number} [candidates] 1–8
 */
/** @typedef {{text: string, options?: RewriteOptions}} RewriteParams */
/**
 * @typedef {object} MarkerSummary
 * @property {number} score 0–100, the analyze score of that text
 * @property {number} count marked places; always the sum of `families`
 * @property {Object<string, number>} families count per marker family (families with none are absent)
 */
/**
 * @typedef {object} RewriteResult
 * @property {string} text
 * @property {Edit[]} edits
 * @property {MarkerSummary} markers_before same type on both paths (PROTOCOL.md §3 rewrite)
 * @property {MarkerSummary} markers_after
 * @property {number} similarity
 * @property {"llm"|"neutralizer"} path
 * @property {string} reason
 * @property {IdentifiabilityReport|null} identifiability_before of the submitted text
 * @property {IdentifiabilityReport|null} identifiability_after of `text`
 * @property {RewriteSummary} summary the outcome in plain words (PROTOCOL.md `rewrite`)
 */

/**
 * What the profile holds (`profile.show`, `profile.add`): what is distinctive about the user's writing.
 * @typedef {object} ProfileSummary
 * @property {number} documents texts learned
 * @property {number} words
 * @property {Array<{marker: string, label: string, rate_per_1k: number, baseline_per_1k: number|null, identifiability: number, documents: number}>} habits
 * @property {string[]} phrases habitual phrases
 * @property {number|null} samples ~250-word pieces the identifiability model trains on (needs ≥ 2); null: unreadable
 */
/**
 * A person a reader might suspect instead of the user (`rivals` in profile.show / profile.add): counts only.
 * @typedef {{name: string, chunks: number, words: number}} RivalSummary
 */
/** rivals: null when the host cannot read them. @typedef {{profile: ProfileSummary|null, rivals: RivalSummary[]|null}} ProfileResult */
/** @typedef {{text: string, rival?: string}} ProfileAddParams */
/** {} clears everything; with `rival`, only that person. @typedef {{rival?: string}} ProfileClearParams */
/** @typedef {{cleared: boolean, rivals?: RivalSummary[]|null}} ProfileClearResult */

/** @typedef {{target: string}} CancelParams */
/** @typedef {{cancelled: boolean}} CancelResult */

/** @typedef {{id: string, type: "progress", stage: string, fraction: number|null, message: string}} Progress */
/** @typedef {{id: string, type: "result", result: object}} ResultReply */
/** @typedef {{code: number, name: string, message: string, data?: object}} HostError */
/** @typedef {{id: string|null, type: "error", error: HostError}} ErrorReply */
/** @typedef {{id: string, type: "part", index: number, count: number, data: string}} PartReply */
/** @typedef {Progress|ResultReply|ErrorReply|PartReply} Reply */

/**
 * Host error codes (PROTOCOL.md §6, append-only) plus the extension's own, which have no number.
 * The extension passes errors around by `name` (a stable string).
 */
export const HOST_ERRORS = Object.freeze({
  1: "internal_error",
  2: "bad_length",
  3: "frame_too_large",
  4: "truncated_frame",
  5: "invalid_utf8",
  6: "invalid_json",
  7: "invalid_message",
  8: "unknown_type",
  9: "invalid_params",
  10: "duplicate_id",
  11: "cancelled",
  12: "unsupported_protocol",
  13: "model_unavailable",
  14: "storage_error",
  15: "unknown_model",
});

/** Errors raised inside the extension (never sent by the host). */
export const EXTENSION_ERRORS = Object.freeze({
  host_not_installed: "The Fantasma host is not installed. Run: " + INSTALL_COMMAND,
  host_disconnected: "The Fantasma host stopped unexpectedly.",
  timeout: "The Fantasma host did not answer in time.",
  edit_failed: "The field could not be edited; it was left as it was.",
  no_field: "Click into a text field first.",
  // The browser lets no extension into this page (its own pages, extension stores): background.js messageTab.
  page_closed: "Fantasma cannot work on this page.",
  // This page's content scripts were cut off by an update or reload of the extension (port.js).
  extension_reloaded: "Fantasma was updated or restarted while it worked: your text is as you typed it.",
});

/**
 * @typedef {object} FantasmaError an error as the extension's parts pass it around
 * @property {string} code a name from HOST_ERRORS or EXTENSION_ERRORS
 * @property {string} message one human sentence, safe to show
 */

/** @returns {FantasmaError} */
export function extensionError(code, message = EXTENSION_ERRORS[code] ?? code) {
  return { code, message };
}

/** @param {HostError} error @returns {FantasmaError} */
export function fromHostError(error) {
  return { code: error?.name ?? HOST_ERRORS[error?.code] ?? "internal_error", message: error?.message ?? "" };
}

/**
 * Reassembles `part` frames (PROTOCOL.md §4). `push` returns the complete reply once the last part
 * arrives, null while parts are pending, or throws when parts arrive out of order.
 */
export class PartBuffer {
  constructor() {
    /** @type {Map<string, string[]>} */
    this.buffers = new Map();
  }

  /** @param {PartReply} part @returns {ResultReply|ErrorReply|null} */
  push(part) {
    const received = part.index === 0 ? [] : this.buffers.get(part.id);
    if (!received || received.length !== part.index) {
      this.buffers.delete(part.id);
      throw new Error(`part ${part.index} of ${part.count} arrived out of order`);
    }
    received.push(part.data);
    if (part.index < part.count - 1) {
      this.buffers.set(part.id, received);
      return null;
    }
    this.buffers.delete(part.id);
    return JSON.parse(received.join(""));
  }

  drop(id) {
    this.buffers.delete(id);
  }
}

// ---- messages between the extension's own parts ------------------------------------------------

/**
 * background → content script (tabs.sendMessage), per frame:
 * @typedef {{kind: "anonymize", focusedOnly: boolean}|{kind: "markers", focusedOnly: boolean}} TabCommand
 *
 * content script → background over a runtime Port named "job": one request, then the background posts
 * {kind: "progress", progress} events and one {kind: "result", result} or {kind: "error", error}.
 * For "rewrite", `result` is the host's RewriteResult plus `identifiability` (an IdentifiabilityFigure
 * or null): the figure the page shows after a rewrite.
 * @typedef {{kind: "rewrite", text: string}|{kind: "analyze", text: string}} JobRequest
 *
 * popup/options → background (runtime.sendMessage); replies are the host's result, or {error}:
 * @typedef {{kind: "status"}|{kind: "reconnect"}|{kind: "profile.show"}|{kind: "profile.add", text: string, rival?: string}|
 *   {kind: "profile.clear", rival?: string}|{kind: "lastRewrite"}|{kind: "models", use?: string|null}} PanelRequest
 * "lastRewrite" answers {figure: IdentifiabilityFigure|null} for the last rewrite this browser ran.
 */

/**
 * A rewrite's identifiability in one figure, for the popup and the page.
 * @typedef {object} IdentifiabilityFigure
 * @property {number} before score of the submitted text, 0–1
 * @property {number} after score of the rewrite, 0–1
 * @property {string[]} linkedBy attacker families that still link the rewrite
 * @property {"profile"|"typicality"} mode
 * @property {string[]} rivals names of the people the score compared the user with (may be empty)
 * @property {RewriteSummary|null} summary the host's words for the rewrite (PROTOCOL.md `rewrite`, `summary`)
 */
/**
 * @typedef {{headline: string, details: string[], next_step: string|null, next_step_browser?: string|null, next: string|null,
 *   identifiability: {text: string, line: string, direction: "lower"|"higher"|"same"}|null}} RewriteSummary
 */

/** @param {RewriteResult} result @returns {IdentifiabilityFigure|null} */
export function identifiabilityFigure(result) {
  const before = result?.identifiability_before;
  const after = result?.identifiability_after;
  if (typeof before?.score !== "number" || typeof after?.score !== "number") return null;
  return {
    before: before.score,
    after: after.score,
    linkedBy: Array.isArray(after.linked_by) ? after.linked_by : [],
    mode: after.mode === "profile" ? "profile" : "typicality",
    rivals: Array.isArray(after.rivals) ? after.rivals : [],
    summary: typeof result.summary?.headline === "string" ? result.summary : null,
  };
}

/**
 * "identifiability 0.82 → 0.41 · much harder to link to you": the host's words (summary.identifiability.line,
 * the digits `fantasma rewrite` prints); a host without `summary` gets the older line.
 */
export function describeFigure(figure) {
  if (typeof figure.summary?.identifiability?.line === "string") return figure.summary.identifiability.line;
  const scores = `identifiability ${figure.before.toFixed(2)} → ${figure.after.toFixed(2)}`;
  const families = figure.linkedBy.join(", ");
  const people = figure.rivals?.length ?? 0;
  const compared = people ? ` · compared with ${people} ${people === 1 ? "person" : "people"} you named` : "";
  if (figure.mode === "typicality") {
    return `${scores} · ${families ? `stands out to ${families}` : "stands out to no attacker family"} (no writing samples)${compared}`;
  }
  return `${scores} · ${families ? `still linked by ${families}` : "no attacker family still links it"}${compared}`;
}

/** @typedef {{name: string, detect: (field: HTMLElement) => boolean, replace: (field: HTMLElement, text: string) => void}} EditorStrategy */

/** Offsets from the host are code points; JS strings index UTF-16 units. */
export function codePointToUtf16(text, offset) {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === offset) break;
    units += ch.length;
    points += 1;
  }
  return units;
}
