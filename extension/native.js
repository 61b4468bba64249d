// The one native port to the local host: lazy connect, request ids, progress, timeouts, part
// reassembly, and reconnect with back-off after a crash. A missing host is remembered as such and
// never retried in a loop: the next user action tries once more (so installing the host just works).

import {
  CLIENT,
  HOST_NAME,
  PROTOCOL_VERSION,
  PartBuffer,
  extensionError,
  fromHostError,
} from "./protocol.js";

/** Inactivity timeouts: each progress event restarts the clock. */
export const TIMEOUTS_MS = Object.freeze({
  hello: 15_000,
  analyze: 30_000,
  neutralize: 30_000,
  rewrite: 120_000, // the first rewrite loads the model; the host sends progress while it does
  default: 15_000,
});
const RECONNECT_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000]; // then stop until the next request
const IDLE_DISCONNECT_MS = 10 * 60_000; // frees the host's memory (model) when unused

/** Chromium and Firefox word "host not registered" differently; all of these mean "not installed". */
const NOT_INSTALLED = [/not found/i, /no such native application/i, /forbidden/i, /not registered/i];

/**
 * @typedef {"idle"|"connecting"|"connected"|"not_installed"|"failed"} HostState
 */

export class NativeHost {
  /** @param {{runtime?: object}} [deps] the extension runtime API (tests pass their own) */
  constructor({ runtime = (globalThis.browser ?? globalThis.chrome)?.runtime } = {}) {
    this.runtime = runtime;
    /** @type {HostState} */
    this.state = "idle";
    this.port = null;
    /** @type {import("./protocol.js").HelloResult|null} */
    this.hello = null;
    /** @type {import("./protocol.js").FantasmaError|null} */
    this.lastError = null;
    this.loadingModel = false;
    this.nextId = 1;
    /** @type {Map<string, {resolve: Function, reject: Function, onProgress?: Function, timer: any, timeoutMs: number, type: string}>} */
    this.pending = new Map();
    this.parts = new PartBuffer();
    this.reconnectAttempt = 0;
    this.reconnectTimer = null;
    this.idleTimer = null;
    this.gotMessage = false;
    /** @type {Set<(host: NativeHost) => void>} */
    this.listeners = new Set();
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  emit() {
    for (const listener of this.listeners) listener(this);
  }

  connect() {
    if (this.port) return;
    clearTimeout(this.reconnectTimer);
    this.state = "connecting";
    this.gotMessage = false;
    let port;
    try {
      port = this.runtime.connectNative(HOST_NAME);
    } catch (err) {
      // Firefox throws synchronously for some registration problems.
      this.fail(extensionError("host_not_installed"), "not_installed", String(err?.message ?? err));
      return;
    }
    this.port = port;
    port.onMessage.addListener((message) => this.receive(message));
    port.onDisconnect.addListener((p) => this.disconnected(p));
    // Every connection starts with hello: it fills the status the popup shows.
    this.request("hello", { protocol: PROTOCOL_VERSION, client: CLIENT }).catch(() => {});
  }

  disconnected(port) {
    if (port !== this.port) return;
    const why = this.runtime.lastError?.message ?? port.error?.message ?? "";
    this.port = null;
    if (this.intentionalClose) {
      this.intentionalClose = false;
      this.state = "idle";
      this.failPending(extensionError("host_disconnected"));
      this.emit();
      return;
    }
    const notInstalled = !this.gotMessage && NOT_INSTALLED.some((re) => re.test(why));
    if (notInstalled) {
      this.fail(extensionError("host_not_installed"), "not_installed", why);
      return;
    }
    const message = why ? `The Fantasma host stopped: ${why}` : undefined;
    this.fail(extensionError("host_disconnected", message), "failed", why);
    this.scheduleReconnect();
  }

  fail(error, state, detail) {
    console.warn("fantasma: native host", state, detail);
    this.port = null;
    this.state = state;
    this.lastError = error;
    this.hello = null;
    this.loadingModel = false;
    this.failPending(error);
    this.emit();
  }

  failPending(error) {
    for (const [id, job] of this.pending) {
      clearTimeout(job.timer);
      this.parts.drop(id);
      job.reject(error);
    }
    this.pending.clear();
  }

  /** After a crash: a few hello attempts with growing delays, then give up until the next request. */
  scheduleReconnect() {
    if (this.reconnectAttempt >= RECONNECT_DELAYS_MS.length) return;
    const delay = RECONNECT_DELAYS_MS[this.reconnectAttempt++];
    this.reconnectTimer = setTimeout(() => {
      this.request("hello", { protocol: PROTOCOL_VERSION, client: CLIENT }).catch(() => {});
    }, delay);
  }

  receive(message) {
    this.gotMessage = true;
    if (this.state === "connecting") this.state = "connected";
    if (message?.type === "part") {
      let whole;
      try {
        whole = this.parts.push(message);
      } catch (err) {
        this.settle(message.id, null, { code: 1, name: "internal_error", message: String(err.message) });
        return;
      }
      if (whole) this.receive(whole);
      return;
    }
    const job = message?.id != null ? this.pending.get(message.id) : undefined;
    if (!job) {
      if (message?.type === "error") console.warn("fantasma: host error without a request", message.error);
      return;
    }
    if (message.type === "progress") {
      this.restartTimer(message.id, job);
      const loading = message.stage === "load_model";
      if (loading !== this.loadingModel) {
        this.loadingModel = loading;
        this.emit();
      }
      job.onProgress?.(message);
    } else if (message.type === "result") {
      this.settle(message.id, message.result, null);
    } else if (message.type === "error") {
      this.settle(message.id, null, message.error);
    }
  }

  settle(id, result, hostError) {
    const job = this.pending.get(id);
    if (!job) return;
    clearTimeout(job.timer);
    this.pending.delete(id);
    if (job.type === "rewrite" && this.loadingModel) {
      this.loadingModel = false;
      this.emit();
    }
    if (hostError) {
      job.reject(fromHostError(hostError));
    } else {
      // Only real work proves the host is healthy: a host that answers hello and then dies must
      // not earn itself a fresh round of reconnects forever.
      if (job.type !== "hello") this.reconnectAttempt = 0;
      job.resolve(result);
    }
    this.armIdleTimer();
  }

  restartTimer(id, job) {
    clearTimeout(job.timer);
    job.timer = setTimeout(() => {
      this.pending.delete(id);
      this.parts.drop(id);
      this.post({ id: `c-${id}`, type: "cancel", params: { target: id } });
      job.reject(extensionError("timeout"));
    }, job.timeoutMs);
  }

  armIdleTimer() {
    clearTimeout(this.idleTimer);
    if (this.pending.size > 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0 || !this.port) return;
      this.intentionalClose = true;
      this.port.disconnect();
      this.disconnected(this.port);
    }, IDLE_DISCONNECT_MS);
  }

  post(message) {
    try {
      this.port?.postMessage(message);
    } catch (err) {
      console.warn("fantasma: postMessage failed", err);
    }
  }

  /**
   * Sends one request; resolves with its result, rejects with a FantasmaError.
   * @param {import("./protocol.js").RequestType} type
   * @param {object} params
   * @param {{onProgress?: (p: import("./protocol.js").Progress) => void, timeoutMs?: number, signal?: AbortSignal}} [opts]
   */
  request(type, params = {}, opts = {}) {
    clearTimeout(this.idleTimer);
    if (!this.port) this.connect();
    if (!this.port) return Promise.reject(this.lastError ?? extensionError("host_not_installed"));
    const id = `r-${this.nextId++}`;
    const promise = new Promise((resolve, reject) => {
      const job = {
        resolve,
        reject,
        onProgress: opts.onProgress,
        timer: null,
        timeoutMs: opts.timeoutMs ?? TIMEOUTS_MS[type] ?? TIMEOUTS_MS.default,
        type,
      };
      this.pending.set(id, job);
      this.restartTimer(id, job);
    });
    opts.signal?.addEventListener("abort", () => this.cancel(id));
    this.post({ id, type, params });
    if (type === "hello") {
      promise.then(
        (hello) => {
          this.hello = hello;
          this.state = "connected";
          this.lastError = null;
          this.emit();
        },
        () => {},
      );
    }
    return promise;
  }

  /** Asks the host to stop a job; the job itself then ends with error `cancelled`. */
  cancel(id) {
    if (this.pending.has(id)) this.post({ id: `c-${id}`, type: "cancel", params: { target: id } });
  }

  /** A fresh hello (connects when needed) and the resulting status, for the popup. */
  async status() {
    try {
      await this.request("hello", { protocol: PROTOCOL_VERSION, client: CLIENT });
    } catch {
      // the state and lastError say what went wrong
    }
    return this.snapshot();
  }

  snapshot() {
    return {
      state: this.state,
      loadingModel: this.loadingModel,
      hello: this.hello,
      error: this.lastError,
    };
  }
}
