// A job: one runtime Port named "job" to the background per request (background.js answers it). A classic
// script, not a module, so one file serves both loaders: the content scripts (manifest.json, after
// namespace.js) and the composer page (composer.html, before composer.js); both call fantasma.runJob.
"use strict";

globalThis.fantasma ??= {};

/**
 * @param {{kind: "rewrite"|"analyze", text: string}} request
 * @param {(progress: object) => void} [onProgress]
 * @param {AbortSignal} [signal] aborting closes the port: the background cancels the host's job
 * @returns {Promise<object>} the host's result; rejects with {code, message} ({code: "cancelled"} on abort)
 */
fantasma.runJob = function runJob(request, onProgress, signal) {
  return new Promise((resolve, reject) => {
    const port = (globalThis.browser ?? globalThis.chrome).runtime.connect({ name: "job" });
    let settled = false;
    signal?.addEventListener("abort", () => {
      if (settled) return;
      settled = true;
      port.disconnect();
      reject({ code: "cancelled", message: "Cancelled; the text is as it was." });
    });
    port.onMessage.addListener((message) => {
      if (settled) return;
      if (message.kind === "progress") {
        onProgress?.(message.progress);
        return;
      }
      settled = true;
      port.disconnect();
      if (message.kind === "result") resolve(message.result);
      else reject(message.error);
    });
    port.onDisconnect.addListener(() => {
      if (!settled) reject({ code: "host_disconnected", message: "The extension's background stopped." });
    });
    port.postMessage(request);
  });
};
