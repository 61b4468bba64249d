// The native-messaging contract as the extension sees it. Normative text: PROTOCOL.md (repo root).
// Messages between the extension's own parts (content ⇄ background ⇄ popup) are typed here too.

export const HOST_NAME = "org.fantasma.host";
export const PROTOCOL_VERSION = 1;
export const CLIENT = "fantasma-extension/0.1.0";
export const INSTALL_COMMAND = "fantasma-host install";

/**
 * @typedef {"hello"|"analyze"|"neutralize"|"rewrite"|"cancel"|"profile.show"|"profile.add"|
 *   "profile.clear"|"settings.get"|"settings.set"} RequestType
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
 * @property {{loaded: boolean, available?: boolean, reason?: string, model_dir?: string}} model
 * @property {"llm"|"neutralizer"} rewrite_path
 * @property {string[]} types
 */

/** @typedef {{text: string, use_profile?: boolean}} AnalyzeParams */
/**
 * A style marker; the style package may add fields, which the extension ignores.
 * Offsets are Unicode code points of the analyzed text.
 * @typedef {{family: string, start: number, end: number, reason?: string, message?: string}} Finding
 */
/** @typedef {{score: number, findings: Finding[]}} AnalyzeResult */

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
 */

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
});

/** Errors raised inside the extension (never sent by the host). */
export const EXTENSION_ERRORS = Object.freeze({
  host_not_installed: "The Fantasma host is not installed. Run: " + INSTALL_COMMAND,
  host_disconnected: "The Fantasma host stopped unexpectedly.",
  timeout: "The Fantasma host did not answer in time.",
  edit_failed: "The field could not be edited; it was left as it was.",
  no_field: "Click into a text field first.",
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
 * @typedef {{kind: "rewrite", text: string}|{kind: "analyze", text: string}} JobRequest
 *
 * popup/options → background (runtime.sendMessage):
 * @typedef {{kind: "status"}|{kind: "reconnect"}} PanelRequest
 */

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
