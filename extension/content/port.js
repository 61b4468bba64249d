// A job: one runtime Port named "job" to the background per request (background.js answers it). A classic
// script, not a module, so one file serves both loaders: the content scripts (manifest.json, after
// namespace.js) and the composer page (composer.html, before composer.js); both call fantasma.runJob.
"use strict";

globalThis.fantasma ??= {};

/**
 * @param {{kind: "rewrite"|"analyze", text: string}} request
 * @param {(progress: object) => void} [onProgress]
 * @returns {Promise<object>} the host's result; rejects with {code, message}
 */
fantasma.runJob = function runJob(request, onProgress) {
  return new Promise((resolve, reject) => {
    const port = (globalThis.browser ?? globalThis.chrome).runtime.connect({ name: "job" });
    let settled = false;
    port.onMessage.addListener((message) => {
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
