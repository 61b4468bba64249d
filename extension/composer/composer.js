// The private composer: an extension page, so the site cannot read what is typed here (many sites keep
// drafts or read keystrokes as they arrive). It is also the guide (PROTOCOL.md `guide`): while the writer
// types, a meter says how likely the text is to be linked to them, each sentence is shaded by its share
// of the give-away, the three that give most away are named with their reasons, and a sentence offers
// up to three alternatives (`guide.alternatives`) with their effect on the meter. Insert puts the text
// in the box, as it then stands, into the field the composer was opened for; nothing else (no meter, no
// score) ever goes to the page.

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
/** The composer's words (extension/_locales/<lang>/messages.json, keys `composer*`). */
const t = (key, ...subs) => api.i18n.getMessage(key, subs.map(String)) || key;
const params = new URLSearchParams(location.search);
const frameId = Number(params.get("frame") ?? 0);
/** The tab holding the field; null when the composer was opened without one (nothing to insert into). */
const tabId = /^\d+$/.test(params.get("tab") ?? "") ? Number(params.get("tab")) : null;
let tabClosed = false;

const GUIDE_DEBOUNCE_MS = 400; // a pause in typing; each keystroke cancels the pending request
const EXCERPT_CHARS = 90;

/** The latest guide reply and the text it is about (offsets are UTF-16 indices into `text`). */
let guided = null; // {text, report}
let guideRun = null; // {timer, abort: AbortController, seq}
let guideSeq = 0;
/** The sentence that holds the sentences' one tab stop (the arrow keys move it). */
let focusIndex = 0;
/** The sentence whose alternatives are shown: {index, text, start, end, before, abort, loading, pct}. */
let chosen = null;
/** The text when the composer opened (or took the automatic rewrite in): sentences not in it are "changed". */
let openedText = null;
/** The reply before the latest, for another text: what the last change did to the meter. */
let previousReply = null; // {text, report}
/** The last automatic rewrite: {draft, text}. */
let rewrite = null;
let inserting = false;

// ---- small helpers -------------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function setText(node, text, error = false) {
  if (node.textContent !== text) node.textContent = text; // an unchanged live region says nothing again
  node.classList.toggle("error", error);
}

function errorText(error) {
  return error?.message ?? String(error);
}

function excerpt(text) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS - 1)}…` : flat;
}

function percent(share) {
  return `${Math.round(share * 100)}%`;
}

/** "is likely to be linked to you" / "stands out from other writers": the level words as a predicate. */
function meterSentence(levelWords) {
  return t(/^(likely|possibly|unlikely)\b/.test(levelWords) ? "composerMeterIs" : "composerMeterSays", levelWords);
}

/** How much a sentence gives away, in words first (the share is a part of the text's give-away). */
function shareWords(share, level) {
  // At "unlikely" the whole text gives little away: a sentence's share is a part of that little (the writer
  // study: "reached unlikely while one sentence still said 'gives a lot away'").
  if (level === "unlikely") return t(share > 0 ? "composerShareLittle" : "composerShareNothing");
  if (share >= 0.25) return t("composerShareLot");
  if (share >= 0.1) return t("composerShareSome");
  return t(share > 0 ? "composerShareLittle" : "composerShareNothing");
}

/** A sentence's share as a part of the whole give-away; one that holds (nearly) all of it reads "all of",
 * never "100% of", and at "unlikely" the whole is the little that is left. */
function shareOfWhole(share, level) {
  const words = shareWords(share, level);
  if (percent(share) === "100%") return t(level === "unlikely" ? "composerTopWhyAllLeft" : "composerTopWhyAll", words);
  return t(level === "unlikely" ? "composerTopWhyLeft" : "composerTopWhy", words, percent(share));
}

// ---- the target field ----------------------------------------------------------------------------

/** "“Message” on Plain textarea" / "the text box on example.org": the field as a person names it. */
function targetPhrase() {
  const label = (params.get("label") ?? "").trim();
  const page = (params.get("page") ?? "").trim();
  const field = label ? t("composerFieldLabel", label) : t("composerFieldBox");
  return page ? t("composerFieldOnPage", field, page) : field;
}

/** Why Insert is off, or "" when it is on. */
function insertBlocker() {
  if (tabId === null) {
    return t("composerInsertNoField");
  }
  if (tabClosed) return t("composerInsertTabClosed");
  if (!$("draft").value.trim()) return t("composerInsertEmpty");
  return "";
}

function syncInsert() {
  const why = insertBlocker();
  $("insert").disabled = inserting || why !== "";
  setText($("insert-why"), why);
  $("result").classList.toggle("stale", rewrite !== null && rewrite.draft !== $("draft").value);
}

// ---- the meter and the sentences (request `guide`) -----------------------------------------------

function onDraftInput() {
  syncInsert();
  if (chosen && $("draft").value !== chosen.text) {
    setText($("alt-status"), chosen.loading ? lookingWords(chosen) : t("composerAltStale"));
    for (const button of $("alt-list").querySelectorAll("button")) button.disabled = true;
  }
  $("sentences").classList.toggle("stale", guided !== null && guided.text !== $("draft").value);
  scheduleGuide(GUIDE_DEBOUNCE_MS);
}

/** Runs the guide after `delayMs` of quiet; a newer keystroke cancels the timer and any request in flight. */
function scheduleGuide(delayMs) {
  stopGuide();
  document.body.dataset.guide = "pending"; // "done" once the meter speaks for the text in the box
  const seq = ++guideSeq;
  const abort = new AbortController();
  guideRun = { seq, abort, timer: setTimeout(() => runGuide(seq, abort.signal), delayMs) };
}

function stopGuide() {
  if (!guideRun) return;
  clearTimeout(guideRun.timer);
  guideRun.abort.abort(); // closes the job's port: the host cancels it
}

async function runGuide(seq, signal) {
  if (signal.aborted) return;
  const text = $("draft").value;
  if (!text.trim()) {
    showNoText();
    return;
  }
  try {
    // the text of the last reply: a sentence changed since then gets reasons about what its new wording brought in
    const request = guided && guided.text !== text ? { kind: "guide", text, previous: guided.text } : { kind: "guide", text };
    const report = await fantasma.runJob(request, undefined, signal);
    if (seq !== guideSeq || text !== $("draft").value) return; // a stale reply: a newer request is coming
    if (guided && guided.text !== text) previousReply = guided;
    if (openedText === null) openedText = text;
    guided = { text, report };
    renderGuide();
    document.body.dataset.guide = "done";
  } catch (error) {
    if (error?.code === "cancelled" || seq !== guideSeq) return;
    setText($("guide-status"), t("composerMeterError", errorText(error)), true);
    $("open-options").hidden = true;
    document.body.dataset.guide = "done";
  }
}

function showNoText() {
  guided = null;
  setText($("meter"), t("composerMeterEmpty"));
  setText($("meter-figure"), "");
  $("meter-fill").style.width = "0";
  $("meter-fill").className = "";
  setText($("guide-status"), "");
  $("open-options").hidden = true;
  document.body.dataset.guide = "done";
  $("guided").hidden = true;
  closeAlternatives(false);
}

function renderGuide() {
  const { text, report } = guided;
  setText($("meter"), meterSentence(report.level_words));
  setText($("meter-figure"), t("composerScore", report.score.toFixed(2)));
  $("meter-fill").style.width = `${Math.round(Math.min(1, Math.max(0, report.score)) * 100)}%`;
  $("meter-fill").className = report.level;
  setText($("guide-status"), [comparedWords(report), caveatWords(report)].filter(Boolean).join(" "));
  $("open-options").hidden = report.mode !== "typicality" && !report.needs_suspects;
  const sentences = report.sentences ?? [];
  $("guided").hidden = sentences.length === 0;
  $("sentences").classList.remove("stale");
  // held at "possibly" below the lowest boundary (no one named): what is left is as little as at
  // "unlikely", and a nearly empty meter beside "gives a lot away" reads as a contradiction
  const shareLevel = report.needs_suspects ? "unlikely" : report.level;
  renderSentences(text, sentences, report.top ?? [], shareLevel);
  renderTop(text, sentences, report.top ?? [], shareLevel);
  renderChangeEffect(text, report);
}

/** The shown digits of a score: what is compared, so the words and the figure never disagree. */
function shown(score) {
  return Number(score).toFixed(2);
}

/**
 * What the last change did to the meter, in words: "Your last change lowered the meter: likely →
 * possibly", or, plainly, that it raised it, with Undo (the text as it was before, as one edit of the
 * box). A change is an edit of what was there; text added at the end is not one.
 */
function renderChangeEffect(text, report) {
  const box = $("change-effect");
  const before = previousReply?.report;
  // Text typed on at the end is writing, not a change of what was there: the meter alone speaks for it.
  if (!before || text.startsWith(previousReply.text)) {
    box.hidden = true;
    return;
  }
  const [was, now] = [Number(shown(before.score)), Number(shown(report.score))];
  const way = now < was ? "lowered" : now > was ? "raised" : "same";
  const levels = report.level !== before.level ? `${before.level_words} → ${report.level_words}` : t("composerStill", report.level_words);
  const figure = el("span", { className: "figure", textContent: ` (${shown(before.score)} → ${shown(report.score)})` });
  const words = { lowered: "composerChangeLowered", raised: "composerChangeRaised", same: "composerChangeSame" }[way];
  const parts = [t(words, levels), figure];
  if (way === "raised") {
    const undo = el("button", { type: "button", id: "undo-change", textContent: t("composerUndoChange") });
    const back = previousReply.text;
    undo.addEventListener("click", () => replaceInDraft(0, $("draft").value.length, back));
    parts.push(" ", undo);
  }
  box.className = `note effect ${way}`;
  box.replaceChildren(...parts);
  box.hidden = false;
}

/** A sentence the writer changed since the composer opened: its words are not in the text as it opened. */
function isChanged(text, sentence) {
  if (openedText === null) return false;
  const flat = (s) => s.replace(/\s+/g, " ").trim();
  return !flat(openedText).includes(flat(text.slice(sentence.start, sentence.end)));
}

/**
 * What the meter compares the text with, for a browser user: the host's `message` names a terminal
 * command, so in typicality mode the composer says where samples are added instead (the options page).
 */
function comparedWords(report) {
  const compared = report.compared_with ? t("composerComparedWith", report.compared_with) : "";
  if (report.mode !== "typicality") return compared;
  const why = /use_profile/.test(report.message ?? "")
    ? t("composerProfileOff")
    : t("composerAddSamples");
  return `${compared} ${why}`;
}

/**
 * Where the meter says "unlikely to be linked to you", what it does not read and that it is no guarantee:
 * it reads how the text is written, and what the writer keeps (names, places, numbers, the subject) can
 * still name them (the writer studies, held-out documents: at "unlikely" a character n-gram attacker still
 * names the writer about half the time, a third once those words are masked; docs/results.md, "The
 * meter's calibration").
 * Not in typicality mode, which says nothing of the writer; not at "likely" or "possibly", except where
 * the meter is held at "possibly" (`needs_suspects`: below its lowest boundary, but no one named a reader
 * might suspect, without whom "unlikely" did not keep its promise): then how to let it say more.
 */
function caveatWords(report) {
  if (report.needs_suspects) return t("composerNeedsSuspects");
  return report.level === "unlikely" && report.mode !== "typicality" ? t("composerUnlikelyCaveat") : "";
}

function sentenceLabel(text, sentence, index, rank, level) {
  const reasons = (sentence.reasons ?? []).join(". ");
  const ranked = rank >= 0 ? t("composerRanked", rank + 1) : "";
  const said = excerpt(text.slice(sentence.start, sentence.end));
  const why = [sentence.enough ? t("composerEnough") : "", reasons].filter(Boolean).join(". ");
  const words = shareWords(sentence.share, level);
  return t("composerSentenceLabel", index + 1, ranked, words, percent(sentence.share), why ? `. ${why}` : "", said);
}

/** The guided text, each sentence a focusable span shaded by its share (the top three also numbered). */
function renderSentences(text, sentences, top, level) {
  const body = $("sentences");
  const hadFocus = body.contains(document.activeElement); // a new reply must not drop the writer's focus
  body.replaceChildren();
  const most = Math.max(...sentences.map((s) => s.share), 0);
  let at = 0;
  sentences.forEach((sentence, index) => {
    if (sentence.start < at) return;
    body.append(text.slice(at, sentence.start));
    const rank = top.indexOf(index);
    const span = el("span", {
      className: "sentence",
      tabIndex: index === Math.min(focusIndex, sentences.length - 1) ? 0 : -1, // one tab stop: arrows move
      title: (sentence.reasons ?? []).join("\n"),
    });
    span.dataset.index = String(index);
    span.setAttribute("role", "button");
    span.setAttribute("aria-label", sentenceLabel(text, sentence, index, rank, level));
    span.style.setProperty("--share", String(most > 0 ? sentence.share / most : 0));
    if (chosen?.index === index && chosen.text === text) span.classList.add("chosen");
    if (isChanged(text, sentence)) span.classList.add("changed");
    span.append(text.slice(sentence.start, sentence.end));
    if (rank >= 0) span.append(el("sup", { textContent: String(rank + 1) }));
    body.append(span);
    at = sentence.end;
  });
  body.append(text.slice(at));
  if (hadFocus) body.querySelector('.sentence[tabindex="0"]')?.focus();
}

/**
 * Every sentence, most give-away first (the guide's `top` leads, then the rest by weight): the sentence,
 * its share, whether the writer changed it, whether rewording it alone could reach the lowest level
 * (`enough`), its reasons and what it feeds. Sentences that give nothing
 * away come last, so the writer can still see what to do once the first ones are rewritten.
 */
function renderTop(text, sentences, top, level) {
  const rest = sentences
    .map((_, index) => index)
    .filter((index) => !top.includes(index))
    .sort((a, b) => (sentences[b].weight ?? 0) - (sentences[a].weight ?? 0));
  const order = [...top, ...rest];
  // "no single sentence stands out" only where none has a share: quoted verse is never named first, yet
  // a text of verse alone is listed with its share and what to do about it
  $("top-none").hidden = top.length > 0 || sentences.some((s) => s.share > 0);
  $("top").replaceChildren(
    ...order.map((index) => {
      const sentence = sentences[index];
      const button = el("button", { type: "button", className: "top-sentence", textContent: `“${excerpt(text.slice(sentence.start, sentence.end))}”` });
      button.dataset.index = String(index);
      const changed = isChanged(text, sentence);
      const why = [shareOfWhole(sentence.share, level)];
      if (sentence.feeds?.length && sentence.share > 0) why.push(t("composerFeeds", sentence.feeds.join(", ")));
      if (sentence.enough) why.push(t("composerEnough"));
      const item = el("li", { className: changed ? "changed" : "" }, button);
      if (changed) item.append(el("span", { className: "changed-mark", textContent: t("composerChangedMark") }));
      // one line per reason: a reason holds a ";" of its own ("…; others write 'on'")
      const reasons = el("ul", { className: "reasons" }, ...(sentence.reasons ?? []).map((r) => el("li", { textContent: r })));
      item.append(el("span", { className: "why", textContent: why.join(". ") }), reasons);
      item.value = index + 1; // the number is the sentence's place in the text
      return item;
    }),
  );
}

function sentenceFromEvent(event) {
  const target = event.target.closest?.("[data-index]");
  return target ? Number(target.dataset.index) : null;
}

// ---- alternatives for one sentence (request `guide.alternatives`) ---------------------------------

async function chooseSentence(index) {
  if (!guided) return;
  const { text, report } = guided;
  const sentence = report.sentences[index];
  chosen?.abort.abort();
  chosen = {
    index,
    text,
    start: sentence.start,
    end: sentence.end,
    before: report,
    abort: new AbortController(),
    loading: true,
    pct: "",
  };
  const mine = chosen;
  focusIndex = index;
  for (const span of $("sentences").querySelectorAll(".sentence")) {
    span.classList.toggle("chosen", Number(span.dataset.index) === index);
    span.tabIndex = Number(span.dataset.index) === index ? 0 : -1;
  }
  $("alternatives").hidden = false;
  $("alternatives").setAttribute("aria-busy", "true"); // until this sentence's reply (or its error) is shown
  setText($("alt-number"), String(index + 1));
  setText($("alt-original"), text.slice(sentence.start, sentence.end));
  $("alt-list").replaceChildren();
  setText($("alt-status"), lookingWords(mine));
  $("alternatives").scrollIntoView({ block: "nearest" });
  const onProgress = (p) => {
    mine.pct = typeof p?.fraction === "number" ? ` ${Math.round(p.fraction * 100)}%` : "";
    if (chosen === mine) setText($("alt-status"), lookingWords(mine));
  };
  try {
    const reply = await fantasma.runJob(
      { kind: "guide.alternatives", text, start: sentence.start, end: sentence.end },
      onProgress,
      mine.abort.signal,
    );
    if (chosen !== mine) return;
    renderAlternatives(mine, reply.alternatives ?? [], reply.reason ?? "");
    $("alternatives").scrollIntoView({ block: "nearest" });
  } catch (error) {
    if (chosen !== mine || error?.code === "cancelled") return;
    setText($("alt-status"), t("composerNoAlternatives", errorText(error)), true);
  } finally {
    mine.loading = false;
    if (chosen === mine) $("alternatives").removeAttribute("aria-busy");
  }
}

/**
 * The status while a sentence's alternatives load. Once the text has changed it keeps saying so (a
 * progress event of the job must not put "Looking…" back): what comes is for the text as it was.
 */
function lookingWords(choice) {
  return t($("draft").value === choice.text ? "composerLooking" : "composerAltStaleLooking", choice.pct);
}

/** "likely to be linked to you → possibly linked to you", or "still …, a little lower". */
function effectWords(before, after) {
  if (after.level !== before.level) return t("composerEffectLevel", before.level_words, after.level_words);
  const way = t(after.score < before.score ? "composerLower" : after.score > before.score ? "composerHigher" : "composerUnchanged");
  return t("composerEffectStill", after.level_words, way);
}

/** @param {string} reason why no model answered ("" when one did): then the alternatives are rule edits only */
function renderAlternatives(choice, alternatives, reason) {
  const stale = $("draft").value !== choice.text;
  // The host's reason names paths and commands: the words say what it means, the tooltip the rest.
  const only = reason ? ` ${t("composerRulesOnly")}` : "";
  $("alt-status").title = reason;
  if (!alternatives.length) {
    setText(
      $("alt-status"),
      t("composerNoWording", only),
    );
    return;
  }
  setText(
    $("alt-status"),
    stale
      ? t("composerAltStale")
      : t(alternatives.length === 1 ? "composerWaysOne" : "composerWaysMany", alternatives.length, only),
  );
  $("alt-list").replaceChildren(
    ...alternatives.map((alt, n) => {
      const sentence = alt.text.slice(alt.start, alt.end);
      const changes = (alt.changes ?? []).map((c) => `${c.from} → ${c.to}`).join(", ");
      const figure = el("span", { className: "figure", textContent: ` (${choice.before.score.toFixed(2)} → ${alt.score.toFixed(2)})` });
      const use = el("button", { type: "button", className: "use-alternative", textContent: t("composerUseThis"), disabled: stale });
      use.setAttribute("aria-label", t("composerUseLabel", n + 1, excerpt(sentence)));
      use.addEventListener("click", () => acceptAlternative(choice, alt));
      return el(
        "li",
        {},
        el("span", { className: "alt-sentence", textContent: sentence }),
        " ",
        use,
        el("span", { className: "effect" }, effectWords(choice.before, alt), figure, changes ? ` · ${t("composerChanges", changes)}` : ""),
      );
    }),
  );
}

/**
 * Replaces the chosen sentence in the box by the alternative's, as one edit the box's own undo (Ctrl+Z)
 * reverts. Only that sentence changes: an alternative whose text differs elsewhere is refused.
 */
function acceptAlternative(choice, alt) {
  const draft = $("draft");
  if (draft.value !== choice.text) {
    setText($("alt-status"), t("composerChangedSince"), true);
    return;
  }
  const sameAround =
    alt.text.slice(0, alt.start) === choice.text.slice(0, choice.start) &&
    alt.text.slice(alt.end) === choice.text.slice(choice.end);
  if (!sameAround) {
    setText($("alt-status"), t("composerNotUsed"), true);
    return;
  }
  replaceInDraft(choice.start, choice.end, alt.text.slice(alt.start, alt.end));
  closeAlternatives(false);
  setText($("status"), t("composerReplaced", choice.index + 1));
  draft.setSelectionRange(choice.start + (alt.end - alt.start), choice.start + (alt.end - alt.start));
}

/** One edit of the box that its undo history keeps (execCommand), else a plain one. */
function replaceInDraft(start, end, replacement) {
  const draft = $("draft");
  const want = draft.value.slice(0, start) + replacement + draft.value.slice(end);
  draft.focus();
  draft.setSelectionRange(start, end);
  const undoable = replacement !== "" && document.execCommand("insertText", false, replacement);
  if (!undoable || draft.value !== want) draft.value = want;
  onDraftInput();
}

function closeAlternatives(refocus = true) {
  if (!chosen) {
    $("alternatives").hidden = true;
    return;
  }
  const { index } = chosen;
  chosen.abort.abort();
  chosen = null;
  $("alternatives").hidden = true;
  $("alternatives").removeAttribute("aria-busy");
  for (const span of $("sentences").querySelectorAll(".sentence.chosen")) span.classList.remove("chosen");
  if (refocus) $("sentences").querySelector(`[data-index="${index}"]`)?.focus();
}

function editByHand() {
  if (!chosen) return;
  const { start, end, text } = chosen;
  closeAlternatives(false);
  const draft = $("draft");
  draft.focus();
  if (draft.value === text) draft.setSelectionRange(start, end);
}

// ---- the automatic rewrite -------------------------------------------------------------------------

function progressText(progress) {
  const pct = typeof progress?.fraction === "number" ? ` ${Math.round(progress.fraction * 100)}%` : "";
  return t("composerRewriting", pct);
}

async function doRewrite() {
  const draft = $("draft").value;
  if (!draft.trim()) return;
  $("rewrite").disabled = true;
  setText($("status"), t("composerRewriting", ""));
  try {
    const result = await fantasma.runJob({ kind: "rewrite", text: draft }, (p) => setText($("status"), progressText(p)));
    rewrite = { draft, text: result.text };
    $("result").hidden = false;
    $("rewritten").textContent = result.text;
    // What changed and how likely the text now is to be linked to you, as the card says it (the host's
    // headline); the figures ("identifiability 0.82 → 0.41 · …", as the background words them) with Figures.
    $("rewrite-headline").textContent = result.summary?.headline ?? "";
    $("identifiability").textContent = result.identifiability?.text ?? "";
    setText($("status"), t("composerRewriteBelow"));
  } catch (error) {
    rewrite = null;
    setText($("status"), errorText(error), true);
  } finally {
    $("rewrite").disabled = false;
    syncInsert();
  }
}

function useRewrite() {
  if (!rewrite) return;
  replaceInDraft(0, $("draft").value.length, rewrite.text);
  rewrite = { ...rewrite, draft: rewrite.text };
  $("result").hidden = true;
  setText($("status"), t("composerRewriteInBox"));
}

// ---- insert ----------------------------------------------------------------------------------------

async function doInsert() {
  if (insertBlocker()) return syncInsert();
  const text = $("draft").value;
  inserting = true;
  syncInsert();
  try {
    const reply = await api.tabs.sendMessage(tabId, { kind: "compose-insert", text }, { frameId });
    if (!reply?.ok) throw reply?.error ?? { message: t("composerPageSilent") };
    stopGuide();
    window.close();
  } catch (error) {
    setText($("status"), errorText(error), true);
  } finally {
    inserting = false;
    syncInsert();
  }
}

// ---- wiring ----------------------------------------------------------------------------------------

const SENTENCE_MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

function onSentenceKey(event) {
  const index = sentenceFromEvent(event);
  if (index === null || event.target.tagName === "BUTTON") return; // buttons click on Enter/Space themselves
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    void chooseSentence(index);
    return;
  }
  // The sentences are one tab stop; the arrow keys, Home and End move between them (roving tabindex).
  const spans = [...$("sentences").querySelectorAll(".sentence")];
  const at = spans.indexOf(event.target);
  let next = null;
  if (event.key in SENTENCE_MOVES) next = at + SENTENCE_MOVES[event.key];
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = spans.length - 1;
  if (at < 0 || next === null || next < 0 || next >= spans.length) return;
  event.preventDefault();
  spans[at].tabIndex = -1;
  spans[next].tabIndex = 0;
  spans[next].focus();
  focusIndex = next;
}

/** Opened from a rewrite's card: the rewritten text the background keeps for this window goes in the box. */
async function takeSeed() {
  const token = params.get("seed");
  if (!token) return;
  const seed = await api.runtime.sendMessage({ kind: "compose-seed", token }).catch(() => null);
  if (typeof seed?.text !== "string" || $("draft").value.trim()) return;
  $("draft").value = seed.text;
  openedText = seed.text;
  setText($("status"), t("composerFromRewrite"));
  onDraftInput();
  scheduleGuide(0);
}

function init() {
  if (tabId === null) {
    $("privacy").textContent =
      t("composerPrivacyNoField");
  } else {
    $("target").textContent = targetPhrase();
    document.title = t("composerTitleFor", targetPhrase());
  }
  $("insert").textContent = t("composerInsert");
  $("draft").addEventListener("input", onDraftInput);
  for (const list of [$("sentences"), $("top")]) {
    list.addEventListener("click", (event) => {
      const index = sentenceFromEvent(event);
      if (index !== null) void chooseSentence(index);
    });
    list.addEventListener("keydown", onSentenceKey);
  }
  $("show-figures").addEventListener("change", (e) => document.body.classList.toggle("show-figures", e.target.checked));
  $("alt-close").addEventListener("click", () => closeAlternatives());
  $("open-options").addEventListener("click", () => api.runtime.openOptionsPage());
  $("alt-by-hand").addEventListener("click", editByHand);
  $("rewrite").addEventListener("click", doRewrite);
  $("use-rewrite").addEventListener("click", useRewrite);
  $("insert").addEventListener("click", doInsert);
  $("cancel").addEventListener("click", () => window.close());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && chosen) {
      event.preventDefault();
      closeAlternatives();
    }
  });
  api.tabs?.onRemoved?.addListener((closed) => {
    if (closed !== tabId) return;
    tabClosed = true;
    syncInsert();
  });
  syncInsert();
  $("draft").focus();
  void takeSeed();
  document.body.dataset.ready = "yes"; // every listener is attached (what reaches the box now is guided)
}

init();
