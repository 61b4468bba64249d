// The private composer: an extension page, so the site cannot read what is typed here (many sites keep
// drafts or read keystrokes as they arrive). The user writes, sees the markers and the rewrite, and
// Insert puts only the rewrite into the field the composer was opened for.

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const tabId = Number(params.get("tab"));
const frameId = Number(params.get("frame") ?? 0);

/** The rewrite that Insert would put in, and the draft it was made from (stale once the draft changes). */
let rewrite = null;

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", error);
}

function progressText(progress) {
  const pct = typeof progress?.fraction === "number" ? ` ${Math.round(progress.fraction * 100)}%` : "";
  return `Working…${pct}`;
}

function syncInsert() {
  const fresh = rewrite !== null && rewrite.draft === $("draft").value;
  $("insert").disabled = !fresh;
  $("result").classList.toggle("stale", !fresh);
}

async function showMarkers() {
  const text = $("draft").value;
  if (!text.trim()) return;
  setStatus("Looking for markers…");
  try {
    const report = await fantasma.runJob({ kind: "analyze", text });
    renderMarkers(text, report.findings ?? []);
    setStatus("");
  } catch (error) {
    setStatus(error?.message ?? String(error), true);
  }
}

function findingSpans(finding) {
  const spans = Array.isArray(finding.spans) ? finding.spans : [finding];
  return spans.filter((s) => Number.isInteger(s.start) && Number.isInteger(s.end) && s.end > s.start);
}

function renderMarkers(text, findings) {
  $("markers").hidden = false;
  $("marker-count").textContent = `(${findings.length})`;
  const marks = findings
    .flatMap((f, i) => findingSpans(f).map((span) => ({ ...span, n: i + 1, why: f.evidence ?? f.reason ?? f.message ?? "" })))
    .sort((a, b) => a.start - b.start);
  const body = $("marked");
  body.replaceChildren();
  let at = 0;
  for (const m of marks) {
    if (m.start < at) continue;
    body.append(text.slice(at, m.start));
    const mark = Object.assign(document.createElement("mark"), { title: m.why });
    mark.append(text.slice(m.start, m.end), Object.assign(document.createElement("sup"), { textContent: String(m.n) }));
    body.append(mark);
    at = m.end;
  }
  body.append(text.slice(at));
  const list = $("marker-list");
  list.replaceChildren(
    ...findings.map((f) => {
      const li = document.createElement("li");
      const why = f.evidence ?? f.reason ?? f.message ?? "";
      li.append(Object.assign(document.createElement("span"), { className: "family", textContent: f.label ?? f.family ?? "" }), why ? ` — ${why}` : "");
      return li;
    }),
  );
}

/** "identifiability 0.82 → 0.41 · still linked by char3", as the background words it. */
function identifiabilityText(result) {
  return result.identifiability?.text ?? "";
}

async function doRewrite() {
  const draft = $("draft").value;
  if (!draft.trim()) return;
  $("rewrite").disabled = true;
  setStatus("Working…");
  try {
    const result = await fantasma.runJob({ kind: "rewrite", text: draft }, (p) => setStatus(progressText(p)));
    rewrite = { draft, text: result.text };
    $("result").hidden = false;
    $("rewritten").textContent = result.text;
    $("identifiability").textContent = identifiabilityText(result);
    setStatus(
      typeof result.markers_before === "number" ? `Markers: ${result.markers_before} → ${result.markers_after ?? "?"}` : "",
    );
  } catch (error) {
    rewrite = null;
    setStatus(error?.message ?? String(error), true);
  } finally {
    $("rewrite").disabled = false;
    syncInsert();
  }
}

async function doInsert() {
  if (!rewrite || rewrite.draft !== $("draft").value) return syncInsert();
  $("insert").disabled = true;
  try {
    const reply = await api.tabs.sendMessage(tabId, { kind: "compose-insert", text: rewrite.text }, { frameId });
    if (!reply?.ok) throw reply?.error ?? { message: "The page did not answer: is its tab still open?" };
    window.close();
  } catch (error) {
    setStatus(error?.message ?? String(error), true);
    syncInsert();
  }
}

function init() {
  const label = params.get("label");
  $("target").textContent = label || "the field";
  $("draft").addEventListener("input", syncInsert);
  $("show-markers").addEventListener("click", showMarkers);
  $("rewrite").addEventListener("click", doRewrite);
  $("insert").addEventListener("click", doInsert);
  $("cancel").addEventListener("click", () => window.close());
  $("draft").focus();
}

init();
