// A job: one runtime Port named "job" to the background per request (background.js answers it). A classic
// script, not a module, so one file serves both loaders: the content scripts (manifest.json, after
// namespace.js) and the composer page (composer.html, before composer.js); both call fantasma.runJob.
"use strict";

globalThis.fantasma ??= {};

/** How often a waiting job (and ui.js, a shown box) checks that the extension is still there. */
const CUT_OFF_CHECK_MS = 1000;
const DISCONNECT_GRACE_MS = 1000;

/**
 * @param {{kind: "rewrite"|"analyze", text: string}} request
 * @param {(progress: object) => void} [onProgress]
 * @param {AbortSignal} [signal] aborting closes the port: the background cancels the host's job
 * @returns {Promise<object>} the host's result; rejects with {code, message} ({code: "cancelled"} on abort)
 */
fantasma.runJob = function runJob(request, onProgress, signal) {
  const runtime = (globalThis.browser ?? globalThis.chrome).runtime;
  return new Promise((resolve, reject) => {
    let port;
    try {
      port = runtime.connect({ name: "job" });
    } catch {
      // "Extension context invalidated": this copy of the scripts was cut off by an update
      reject(reloadedError());
      return;
    }
    let settled = false;
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearInterval(cutOffWatch);
      fn(value);
    };
    // A backstop for the port's own disconnect: however the job's end reaches (or fails to reach) this
    // page, a runtime without its id means the extension was updated or reloaded under it.
    const cutOffWatch = setInterval(() => {
      if (runtime?.id) return;
      settle(reject, reloadedError());
      try {
        port.disconnect();
      } catch {
        // already gone with the extension
      }
    }, CUT_OFF_CHECK_MS);
    signal?.addEventListener("abort", () => {
      if (settled) return;
      settle(reject, { code: "cancelled", message: "Cancelled; the text is as it was." });
      port.disconnect();
    });
    port.onMessage.addListener((message) => {
      if (settled) return;
      if (message.kind === "progress") {
        onProgress?.(message.progress);
        return;
      }
      if (message.kind === "result") settle(resolve, message.result);
      else settle(reject, message.error);
      port.disconnect();
    });
    port.onDisconnect.addListener(async () => {
      // The port closes a moment before the runtime loses its id when the extension is updated or
      // reloaded under this page: only a runtime still there after that moment means the background stopped.
      for (let waited = 0; waited < DISCONNECT_GRACE_MS && runtime?.id; waited += 100) {
        await new Promise((resume) => setTimeout(resume, 100));
      }
      if (!runtime?.id) settle(reject, reloadedError());
      else settle(reject, { code: "host_disconnected", message: "The extension's background stopped." });
    });
    port.postMessage(request);
  });
};

function reloadedError() {
  // The words were looked up while the extension was there (ui.js): a cut-off copy cannot read them.
  return { code: "extension_reloaded", message: fantasma.t?.("extensionReloaded") ?? "Fantasma was updated or restarted." };
}
