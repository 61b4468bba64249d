// Unit tests of the extension's protocol helpers and native port logic under Node (node --test).
// The port is a stand-in for runtime.connectNative: a browser cannot be made to crash a host on cue.
import assert from "node:assert/strict";
import { mock, test } from "node:test";

import { NativeHost } from "../../../extension/native.js";
import { PartBuffer, codePointToUtf16 } from "../../../extension/protocol.js";

class FakePort {
  constructor(runtime) {
    this.runtime = runtime;
    this.sent = [];
    this.messageListeners = [];
    this.disconnectListeners = [];
    this.onMessage = { addListener: (f) => this.messageListeners.push(f) };
    this.onDisconnect = { addListener: (f) => this.disconnectListeners.push(f) };
  }
  postMessage(message) {
    this.sent.push(message);
  }
  reply(message) {
    for (const f of this.messageListeners) f(message);
  }
  die(error) {
    this.runtime.lastError = error ? { message: error } : undefined;
    for (const f of this.disconnectListeners) f(this);
    this.runtime.lastError = undefined;
  }
  disconnect() {}
}

function fakeRuntime() {
  const runtime = { ports: [], lastError: undefined };
  runtime.connectNative = () => {
    const port = new FakePort(runtime);
    runtime.ports.push(port);
    return port;
  };
  return runtime;
}

const helloReply = (id) => ({ id, type: "result", result: { app: "fantasma", version: "0.1.0", protocol: 1, model: {} } });

test("part frames are reassembled in order and rejected out of order", () => {
  const parts = new PartBuffer();
  const whole = JSON.stringify({ id: "r-1", type: "result", result: { text: "héllo 👋 wörld" } });
  const slices = [whole.slice(0, 10), whole.slice(10, 30), whole.slice(30)];
  assert.equal(parts.push({ id: "r-1", type: "part", index: 0, count: 3, data: slices[0] }), null);
  assert.equal(parts.push({ id: "r-1", type: "part", index: 1, count: 3, data: slices[1] }), null);
  assert.deepEqual(parts.push({ id: "r-1", type: "part", index: 2, count: 3, data: slices[2] }), JSON.parse(whole));
  assert.throws(() => parts.push({ id: "r-2", type: "part", index: 1, count: 2, data: "x" }), /out of order/);
});

test("code point offsets become UTF-16 offsets", () => {
  const text = "a👋b😀c";
  assert.equal(codePointToUtf16(text, 0), 0);
  assert.equal(codePointToUtf16(text, 2), 3); // after "a👋"
  assert.equal(text.slice(codePointToUtf16(text, 3), codePointToUtf16(text, 4)), "😀");
});

test("a missing host fails the request once and is not retried in a loop", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const runtime = fakeRuntime();
    const host = new NativeHost({ runtime });
    const pending = host.request("rewrite", { text: "x" });
    runtime.ports[0].die("Specified native messaging host not found.");
    await assert.rejects(pending, { code: "host_not_installed" });
    assert.equal(host.state, "not_installed");
    mock.timers.tick(120_000);
    assert.equal(runtime.ports.length, 1, "no reconnect attempts while the host is not installed");
    // The next user action tries once more (so installing the host needs no browser restart).
    host.request("hello").catch(() => {});
    assert.equal(runtime.ports.length, 2);
  } finally {
    mock.timers.reset();
  }
});

test("after a crash: pending jobs fail, then a bounded number of reconnects with growing delays", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const runtime = fakeRuntime();
    const host = new NativeHost({ runtime });
    const job = host.request("rewrite", { text: "x" });
    const port = runtime.ports[0];
    port.reply(helloReply(port.sent[0].id));
    port.die("Native host has exited.");
    await assert.rejects(job, { code: "host_disconnected" });
    const delays = [];
    let elapsed = 0;
    for (let step = 0; step < 200; step++) {
      mock.timers.tick(500);
      elapsed += 500;
      if (runtime.ports.length > delays.length + 1) {
        delays.push(elapsed);
        const p = runtime.ports.at(-1);
        p.die("Native host has exited."); // it keeps crashing
      }
    }
    assert.deepEqual(delays.length, 5);
    const gaps = delays.map((t, i) => t - (delays[i - 1] ?? 0));
    for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i] > gaps[i - 1], `delays grow: ${gaps}`);
  } finally {
    mock.timers.reset();
  }
});

test("a silent host times out, gets a cancel, and progress restarts the clock", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const runtime = fakeRuntime();
    const host = new NativeHost({ runtime });
    const progress = [];
    const job = host.request("analyze", { text: "x" }, { timeoutMs: 1000, onProgress: (p) => progress.push(p) });
    const port = runtime.ports[0];
    const id = port.sent.find((m) => m.type === "analyze").id;
    mock.timers.tick(900);
    port.reply({ id, type: "progress", stage: "analyze", fraction: 0.5, message: "" });
    mock.timers.tick(900); // 1.8 s in total, but only 0.9 s since the progress event
    assert.equal(progress.length, 1);
    mock.timers.tick(200);
    await assert.rejects(job, { code: "timeout" });
    assert.deepEqual(port.sent.at(-1), { id: `c-${id}`, type: "cancel", params: { target: id } });
  } finally {
    mock.timers.reset();
  }
});

test("results, host errors and split results reach the right request", async () => {
  mock.timers.enable({ apis: ["setTimeout"] }); // the requests' timers must not keep Node alive
  const runtime = fakeRuntime();
  const host = new NativeHost({ runtime });
  const a = host.request("analyze", { text: "a" });
  const b = host.request("rewrite", { text: "b" });
  const c = host.request("neutralize", { text: "c" });
  const port = runtime.ports[0];
  const idOf = (type) => port.sent.find((m) => m.type === type).id;
  port.reply({ id: idOf("rewrite"), type: "error", error: { code: 13, name: "model_unavailable", message: "no model" } });
  const whole = JSON.stringify({ id: idOf("analyze"), type: "result", result: { score: 7, findings: [] } });
  port.reply({ id: idOf("analyze"), type: "part", index: 0, count: 2, data: whole.slice(0, 15) });
  port.reply({ id: idOf("analyze"), type: "part", index: 1, count: 2, data: whole.slice(15) });
  port.reply({ id: idOf("neutralize"), type: "result", result: { text: "C", edits: [] } });
  assert.deepEqual(await a, { score: 7, findings: [] });
  await assert.rejects(b, { code: "model_unavailable", message: "no model" });
  assert.deepEqual(await c, { text: "C", edits: [] });
  mock.timers.reset();
});
