"""After a rewrite, the card beside the field and the popup say what happened in plain words: the host's
`summary` (PROTOCOL.md `rewrite`) — what changed, how likely the text now is to be linked to you, the one
next step in a browser user's words (the options page, not a terminal) — and never a family code ("char3",
"delta", "function_words"). The changed words are on demand, each with its own Undo; the card stays until
it is dismissed or the field changes. The markers panel counts habits as the card does and says the text's
level in the card's words, before and after the rewrite. The card and the panel live in a closed shadow
root; PageUi reads them as the browser's inspector does."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.summary.test_words import assert_no_code

from .harness import EXTENSION_ID, Browser, PageUi, host_request
from .server import PageServer

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
# Many habits (slang, shouting, emoji, !!!, British spelling): the summary has something to report.
TEXT = "OMG the colour of the new logo is SO gorgeous!!! :) tbh I'd ship it tmrw, innit... Cheers, mate."
CARD_STAYS_S = 21  # the card used to close itself after 20 s


def shown(text: str) -> str:  # `a command` is shown as code: the same characters, without the marks
    return text.replace("`", "")


def changes(text: str, rewritten: str, edits: list[dict]) -> list[tuple[str, str, int]]:
    """The host's edits as the card lists them: (was, now, where `now` starts in the rewrite), edits with
    only white space between them joined (the reader sees "tbh" → "to be honest", not two changes)."""
    out: list[list] = []
    shift = 0
    for edit in edits:
        at = edit["start"] + shift
        gap = rewritten[out[-1][2] + len(out[-1][1]) : at] if out else "x"
        if out and not gap.strip():
            out[-1][0] += gap + edit["original"]
            out[-1][1] += gap + edit["replacement"]
        else:
            out.append([edit["original"], edit["replacement"], at])
        shift += len(edit["replacement"]) - (edit["end"] - edit["start"])
    return [(was, now, at) for was, now, at in out]


def test_the_card_and_the_popup_show_the_summary_in_browser_words_and_no_family_code(
    browser: Browser, page: Page, server: PageServer, host_home: Path, artifacts: Path
) -> None:
    browser.set_settings(strength="light")
    oracle = host_request(host_home, "rewrite", {"text": TEXT, "options": {"strength": "light"}})["result"]
    words = oracle["summary"]
    assert words["next_step_browser"] and words["details"], words  # light, no samples: advice to show

    page.goto(server.url("textarea.html"))
    page.fill("#field", TEXT)
    browser.menu(page, "#field", "fantasma-anonymize")
    expect(page.locator("#field")).to_have_value(oracle["text"], timeout=15_000)
    # A replaced span at a sentence start begins with a capital ("gorgeous! To be honest", not "! to be")
    rewritten = page.locator("#field").input_value()
    assert "To be honest I'd" in rewritten and not re.search(r"[.!?] +[a-z]", rewritten), rewritten
    ui = PageUi(page)
    card = ui.wait_for("figure", words["headline"])
    shown_at = time.monotonic()

    for detail in words["details"]:
        assert shown(detail) in card, (detail, card)
    assert shown(f"Next: {words['next_step_browser']}") in card
    assert "options page" in card and "fantasma rewrite" not in card and "fantasma profile" not in card, card
    assert words["identifiability"]["text"] in card  # the digits `fantasma rewrite` prints, on demand
    assert_no_code(card)

    # Which words changed, on demand: every change of the host's edit list, old and new.
    listed = changes(TEXT, oracle["text"], oracle["edits"])
    assert f"What changed ({len(listed)})" in card, card
    ui.click_tag("figure", "summary", "What changed")
    card = ui.wait_for("figure", "Undo")
    for was, now, _ in listed:
        assert (
            f"“{was.strip()}” → “{now.strip()}”"
            if was.strip() and now.strip()
            else f"“{(was or now).strip()}”"
        ) in card
    assert "“colour” → “color”" in card  # a single word, as the reader would name it
    page.screenshot(path=str(artifacts / "summary-card.png"))

    # Undo one change: that span goes back, the rest stays rewritten, and the card stays.
    was, now, at = next(c for c in listed if c[0] == "colour")
    first = next(i for i, c in enumerate(listed) if c[0] == "colour")
    undone = oracle["text"][:at] + was + oracle["text"][at + len(now) :]
    undo_buttons = [b for b in ui.boxes("figure")[0]["buttons"] if b[0] == "Undo"]
    assert len(undo_buttons) == len(listed)
    quad = ui.cdp.send("DOM.getContentQuads", {"backendNodeId": undo_buttons[first][1]})["quads"][0]
    page.mouse.click(sum(quad[0::2]) / 4, sum(quad[1::2]) / 4)
    expect(page.locator("#field")).to_have_value(undone, timeout=10_000)
    assert "Undone" in ui.wait_for("figure", "Undone"), "the card closed on its own Undo"

    # It does not close by itself.
    page.wait_for_timeout(max(0.0, CARD_STAYS_S - (time.monotonic() - shown_at)) * 1000)
    assert ui.boxes("figure"), "the card closed by itself"

    # The browser's own undo takes that Undo back as one edit; the field changed, so the card goes.
    page.focus("#field")
    page.keyboard.press("Control+z")
    expect(page.locator("#field")).to_have_value(oracle["text"], timeout=10_000)
    ui.wait_gone("figure")

    popup = browser.context.new_page()
    popup.goto(POPUP)
    expect(popup.locator("#last-rewrite-figure")).to_have_text(words["headline"], timeout=10_000)
    expect(popup.locator("#last-rewrite-next")).to_have_text(shown(f"Next: {words['next_step_browser']}"))
    assert "fantasma " not in popup.locator("#last-rewrite-next").inner_text()
    assert_no_code(popup.locator("#last-rewrite").inner_text())
    popup.screenshot(path=str(artifacts / "popup-summary.png"))
    popup.close()


def habits(findings: list[dict]) -> int:
    """What the card counts as habits (markers_before.count): marked places, a finding without one once."""
    return sum(max(1, len(f.get("spans") or [])) for f in findings)


def panel_title(findings: list[dict]) -> str:
    if not findings:
        return "Style habits in this text: none"
    kinds = "1 kind" if len(findings) == 1 else f"{len(findings)} kinds"
    return f"Style habits in this text: {habits(findings)}, of {kinds}"


def test_the_markers_panel_counts_as_the_card_shades_sentences_and_agrees_after_the_rewrite(
    browser: Browser, page: Page, server: PageServer, host_home: Path, artifacts: Path
) -> None:
    browser.set_settings(strength="light")
    report = host_request(host_home, "analyze", {"text": TEXT})["result"]
    oracle = host_request(host_home, "rewrite", {"text": TEXT, "options": {"strength": "light"}})["result"]
    assert habits(report["findings"]) == oracle["summary"]["markers"]["before"]  # one unit for both

    page.goto(server.url("textarea.html"))
    page.fill("#field", TEXT)
    page.focus("#field")
    ui = PageUi(page)
    browser.command("show-markers")
    panel = ui.wait_for("markers", "Style habits in this text")
    box = ui.boxes("markers")[0]
    page.screenshot(path=str(artifacts / "markers-panel.png"))

    assert panel_title(report["findings"]) in panel, panel
    assert "Show style markers" not in panel  # a title, not a command
    assert report["standing"]["headline"] in panel and report["standing"]["strands"] in panel
    # "!!!" as the text has it; the typical rate in words, as the count beside it.
    assert '"!!!"' in panel and "(!!)" not in panel, panel
    assert re.search(r"typical writers use about 1 in [\d,]+ words", panel), panel
    assert not re.search(r"typical writers use about 0\.\d", panel), panel
    # Marks numbered in reading order: each number first appears after the one before it.
    numbers = [int(e["text"]) for e in box["elements"] if e["tag"] == "sup"]
    assert numbers, panel
    firsts = list(dict.fromkeys(numbers))
    assert firsts == list(range(1, len(firsts) + 1)), numbers

    # The guide's shading, read-only: one shaded sentence per sentence that adds to the score, the most
    # giving one darkest, each with the words a screen reader says; the top three named.
    rows = report["identifiability"]["sentences"]
    giving = sorted((r for r in rows if r[2] > 0), key=lambda r: -r[2])
    shaded = [e for e in box["elements"] if "data-share" in e["attrs"]]
    assert len(shaded) == len(giving), (shaded, rows)
    total = sum(r[2] for r in giving)
    top = max(shaded, key=lambda e: float(e["attrs"]["data-share"]))
    digitless = re.sub(r"\d", "", top["text"])  # the marks' numbers sit inside the sentence's text
    assert re.sub(r"\d", "", TEXT[giving[0][0] : giving[0][1]].strip()) in digitless, top
    # One sentence alone adds to the score here: the panel says so, not "100% of what identifies this
    # text" (the habits, and the other sentences, identify it too).
    if len(giving) == 1:
        assert "is the only sentence that makes this text easier to identify" in top["text"], top
        assert "the only sentence that makes the text easier to identify" in panel, panel
    else:
        share = round(100 * giving[0][2] / total)
        assert (
            f"gives away {share}% of what the sentences add to how identifiable this text is" in top["text"]
        )
    assert "100%" not in panel and "of what identifies this text" not in panel, panel
    assert "The sentences that give most away:" in panel
    for start, end, _ in giving[:3]:
        assert f"“{' '.join(TEXT[start:end].split())[:40]}" in panel

    # After the rewrite the panel on the new text says what the card says of it.
    page.keyboard.press("Escape")
    ui.wait_gone("markers")
    page.focus("#field")
    browser.command("anonymize-field")
    expect(page.locator("#field")).to_have_value(oracle["text"], timeout=15_000)
    card = ui.wait_for("figure", oracle["summary"]["headline"])
    page.keyboard.press("Escape")
    ui.wait_gone("figure")
    after = host_request(host_home, "analyze", {"text": oracle["text"]})["result"]
    page.focus("#field")
    browser.command("show-markers")
    panel = ui.wait_for("markers", "Style habits in this text")
    assert habits(after["findings"]) == oracle["summary"]["markers"]["after"]
    assert panel_title(after["findings"]) in panel, (panel, card)
    level_words = oracle["summary"]["identifiability"]["level_words"][1]
    assert level_words in card and level_words in panel, (card, panel)
    strands = after["standing"]["strands"]
    assert strands in card and strands in panel, (card, panel)
    if oracle["summary"]["markers"]["after"]:
        assert "No style habits found" not in panel
