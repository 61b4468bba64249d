// options/shortcuts.js: which keys Firefox keeps for itself, and how a key is shown.
import assert from "node:assert/strict";
import { test } from "node:test";

import { problemOf, readable } from "../../../extension/options/shortcuts.js";

test("a missing key is unset in either browser", () => {
  assert.equal(problemOf("", "linux", false), "unset");
  assert.equal(problemOf("", "win", true), "unset");
});

test("Firefox's menu keys and its own Ctrl+Shift keys are taken there, not on a Mac, not in Chromium", () => {
  for (const key of ["Alt+Shift+F", "Alt+E", "Ctrl+Shift+Y", "Ctrl+Shift+K", "Ctrl+Shift+Delete"]) {
    assert.equal(problemOf(key, "linux", true), "taken", key);
    assert.equal(problemOf(key, "win", true), "taken", key);
    assert.equal(problemOf(key, "linux", false), null, key);
  }
  assert.equal(problemOf("Alt+Shift+F", "mac", true), null);
});

test("the default keys reach us in both browsers", () => {
  for (const key of ["Ctrl+Shift+F", "Ctrl+Shift+Period", "Ctrl+Shift+Comma"]) {
    assert.equal(problemOf(key, "linux", true), null, key);
    assert.equal(problemOf(key, "linux", false), null, key);
  }
});

test("keys read as people name them", () => {
  assert.equal(readable("Ctrl+Shift+Period"), "Ctrl+Shift+.");
  assert.equal(readable("Ctrl+Shift+Comma"), "Ctrl+Shift+,");
  assert.equal(readable("MacCtrl+Shift+F"), "Control+Shift+F");
  assert.equal(readable("Ctrl+Shift+F"), "Ctrl+Shift+F");
});
