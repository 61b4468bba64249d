// The rewrite's identifiability figure as the background hands it to the popup and the page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { describeFigure, identifiabilityFigure } from "../../../extension/protocol.js";

const report = (score, linked, mode = "profile") => ({
  score,
  families: { char3: score, delta: score, function_words: score },
  linked_by: linked,
  sentences: [],
  mode,
  message: "",
});

test("figure from a rewrite result: before and after scores, families that still link it", () => {
  const figure = identifiabilityFigure({
    text: "x",
    identifiability_before: report(0.82, ["char3", "delta"]),
    identifiability_after: report(0.41, ["char3"]),
  });
  assert.deepEqual(figure, {
    before: 0.82,
    after: 0.41,
    linkedBy: ["char3"],
    mode: "profile",
    rivals: [],
    summary: null,
  });
  assert.equal(describeFigure(figure), "identifiability 0.82 → 0.41 · still linked by char3");
  assert.equal(
    describeFigure({ ...figure, linkedBy: [] }),
    "identifiability 0.82 → 0.41 · no attacker family still links it",
  );
});

test("typicality is said as such; a reply without the fields has no figure", () => {
  const figure = identifiabilityFigure({
    identifiability_before: report(0.9, ["char3"], "typicality"),
    identifiability_after: report(0.7, ["char3"], "typicality"),
  });
  assert.equal(figure.mode, "typicality");
  assert.match(describeFigure(figure), /^identifiability 0\.90 → 0\.70 · stands out to char3 \(no writing samples\)$/);
  assert.equal(identifiabilityFigure({ text: "x" }), null);
  assert.equal(identifiabilityFigure({ identifiability_before: null, identifiability_after: report(0.1, []) }), null);
  assert.equal(identifiabilityFigure(undefined), null);
});

test("rivals the score compared with are named by their number", () => {
  const figure = identifiabilityFigure({
    identifiability_before: { ...report(0.8, ["char3"]), rivals: ["Ann", "Bob"] },
    identifiability_after: { ...report(0.3, []), rivals: ["Ann", "Bob"] },
  });
  assert.deepEqual(figure.rivals, ["Ann", "Bob"]);
  assert.equal(
    describeFigure(figure),
    "identifiability 0.80 → 0.30 · no attacker family still links it · compared with 2 people you named",
  );
  assert.match(describeFigure({ ...figure, rivals: ["Ann"] }), / · compared with 1 person you named$/);
});

test("with the host's summary, the figure is the host's words and digits (what `fantasma rewrite` prints)", () => {
  const line = "identifiability 0.13 → 0.12 · a little harder to link to you";
  const summary = { headline: "2 habits removed, none left; …", details: [], next_step: null, next: null, identifiability: { text: "identifiability 0.13 → 0.12", line, direction: "lower" } };
  // 0.125: JavaScript's toFixed(2) says 0.13 where Python says 0.12; the host's digits are shown, not recomputed.
  const figure = identifiabilityFigure({ identifiability_before: report(0.13, []), identifiability_after: report(0.125, []), summary });
  assert.equal(figure.summary, summary);
  assert.equal(describeFigure(figure), line);
  assert.equal(identifiabilityFigure({ identifiability_before: report(0.1, []), identifiability_after: report(0.1, []), summary: {} }).summary, null);
});
