"""Golden tests per marker family: positive and negative cases with exact spans ({marked} text)."""

from __future__ import annotations

import re

import pytest
from style_helpers import finding, marked, markers

from native_host.style.analyze import analyze
from native_host.style.model import Target

# (marker, text, expected text with {span->replacement} marks)
GOLDEN = [
    # punctuation
    ("punctuation.em_dash", "ages — whilst mad—and", "ages{ — ->, }whilst mad{—->, }and"),
    ("punctuation.em_dash", "— Hello there", "{—} Hello there"),
    ("punctuation.em_dash", "this -- that", "this{ -- ->, }that"),
    # before a new clause a comma would splice two sentences: reported, not replaced (seen in the eval)
    ("punctuation.em_dash", "lay Pilot—Adèle knelt", "lay Pilot{—}Adèle knelt"),
    ("punctuation.em_dash", "he left — she stayed", "he left {—} she stayed"),
    ("punctuation.en_dash", "pages 3–5 and now – then", "pages 3{–->-}5 and now{ – ->, }then"),
    ("punctuation.ellipsis", "Well... The end...", "Well{...->.} The end{...->.}"),
    ("punctuation.ellipsis", "wait… what", "wait{…->,} what"),
    ("punctuation.ellipsis", "...and so", "{...}and so"),
    ("punctuation.multiple_exclamation", "Wow!! Great!!!", "Wow{!!->!} Great{!!!->!}"),
    ("punctuation.interrobang", "Really?! Why??", "Really{?!->?} Why{??->?}"),
    ("punctuation.space_before", "Yes , and no ! ok", "Yes{ ->}, and no{ ->}! ok"),
    ("punctuation.two_spaces_after_stop", "One.  Two. Three.   Four.", "One.{  -> }Two. Three.{   -> }Four."),
    ("punctuation.multiple_spaces", "a  b   c", "a{  -> }b{   -> }c"),
    ("punctuation.oxford_comma", "red, white, and blue", "red, white{,} and blue"),
    ("punctuation.oxford_comma", "red, white and blue", "red, white and blue"),
    ("punctuation.semicolon", "one; two ;) three", "one{;} two ;) three"),
    ("punctuation.parentheses", "it (mostly) works :)", "it {(mostly)} works :)"),
    # quotes
    ("quotes.curly_double", "He said “hi”.", 'He said {“->"}hi{”->"}.'),
    ("quotes.curly_apostrophe", "I’m here, ‘ok’", "I{’->'}m here, ‘ok’"),
    ("quotes.curly_single", "I’m here, ‘ok’", "I’m here, {‘->'}ok{’->'}"),
    ("quotes.guillemets", "«oui»", '{«->"}oui{»->"}'),
    ("quotes.tex_quotes", "``quoted'' text", "{``->\"}quoted{''->\"} text"),
    ("quotes.mixed", 'It’s "fine"', 'It’s {"}fine{"}'),
    ("quotes.mixed", 'It\'s "fine"', 'It\'s "fine"'),
    # spelling
    ("spelling.british", "The Colour of the centre", "The {Colour->Color} of the {centre->center}"),
    ("spelling.british", "whilst amongst realised", "{whilst->while} {amongst->among} {realised->realized}"),
    ("spelling.british", "The color of the center", "The color of the center"),
    ("spelling.british", "an hour or four tours", "an hour or four tours"),
    ("spelling.american", "The color of the center", "The {color} of the {center}"),
    ("spelling.british_vocabulary", "I reckon it's rubbish", "I {reckon->think} it's {rubbish->garbage}"),
    ("spelling.british_vocabulary", "A force to reckon with, mate", "A force to {reckon} with, {mate}"),
    ("spelling.british_vocabulary", "Shambles. The loo", "Shambles. The {loo->bathroom}"),
    ("spelling.british_vocabulary", "I think it's garbage", "I think it's garbage"),
    ("spelling.canadian", "We organize the colour", "We {organize} the {colour}"),
    ("spelling.canadian", "We organise the colour", "We organise the colour"),
    # contractions
    ("contractions.rate", "I'm sure it's fine, don't worry", "{I'm} sure {it's} fine, {don't} worry"),
    ("contractions.rate", "I am sure it is fine", "I am sure it is fine"),
    # capitalization
    (
        "capitalization.lowercase_i",
        "i think i'm right, i.e. fine",
        "{i->I} think {i'm->I'm} right, i.e. fine",
    ),
    (
        "capitalization.all_caps_emphasis",
        "I LOVE it. NEVER. NASA ok",
        "I {LOVE->love} it. {NEVER->Never}. NASA ok",
    ),
    (  # a name set in capitals keeps its capital: the text writes it Title-cased elsewhere
        "capitalization.all_caps_emphasis",
        "Hail, UNITED AMERICA! We love America. I was VERY ANGRY.",
        "Hail, {UNITED->United} {AMERICA->America}! We love America. I was {VERY->very} {ANGRY->angry}.",
    ),
    (  # short words inside a shouted run are shouted too ("such A situation" was seen in the eval);
        # a run with an unshouted long word (END: an acronym) keeps its short words; "I" stays
        "capitalization.all_caps_emphasis",
        "SUCH A SITUATION. IT IS A DISGRACE, I AM SO TIRED. END OF STORY. Hail, UNITED STATES OF AMERICA! "
        "We love America.",
        "{SUCH->Such} {A->a} {SITUATION->situation}. {IT->It} {IS->is} {A->a} {DISGRACE->disgrace}, "
        "I {AM->am} {SO->so} {TIRED->tired}. END OF {STORY->story}. Hail, {UNITED->United} {STATES->States} "
        "{OF->of} {AMERICA->America}! We love America.",
    ),
    (  # a roman numeral is a number, not shouting ("Chapter viii" was seen in the eval)
        "capitalization.all_caps_emphasis",
        "CHAPTER VIII. The end of PART XIV came.",
        "{CHAPTER->Chapter} VIII. The end of {PART->part} XIV came.",
    ),
    (  # ... also a short one beside a shouted word ("Chapter ii." was seen in the 12-01 eval)
        "capitalization.all_caps_emphasis",
        "CHAPTER II. The end of PART IV came.",
        "{CHAPTER->Chapter} II. The end of {PART->part} IV came.",
    ),
    (  # a heading in capitals with a word we would not lower (a rare word, a name) stays whole: the
        # 2026-12-02 eval gave "Chapter IX, soldier boy and SHEKELS again", "TO the editor OF the ..."
        "capitalization.all_caps_emphasis",
        'CHAPTER IX--SOLDIER BOY AND SHEKELS AGAIN "Well, this is the way it happened. It was NEVER over.',
        'CHAPTER IX--SOLDIER BOY AND SHEKELS AGAIN "Well, this is the way it happened. It was {NEVER->never} over.',
    ),
    (
        "capitalization.all_caps_emphasis",
        "TO THE EDITOR OF THE KNICKERBOCKER.\nSir, I am VERY sorry.",
        "TO THE EDITOR OF THE KNICKERBOCKER.\nSir, I am {VERY->very} sorry.",
    ),
    (  # ... but an acronym does not hold the words around it
        "capitalization.all_caps_emphasis",
        "I HATE NASA. We LOVE it.",
        "I {HATE->hate} NASA. We {LOVE->love} it.",
    ),
    (  # initials make a run of capitals a name or a speaker's label, not shouting (the eval turned
        # this into "Bb And Lieutenant-General Alison bb")
        "capitalization.all_caps_emphasis",
        "BB AND LIEUTENANT-GENERAL ALISON BB (saluting). It was NEVER over.",
        "BB AND LIEUTENANT-GENERAL ALISON BB (saluting). It was {NEVER->never} over.",
    ),
    (
        "capitalization.all_lowercase",
        "one here. two there. three now.",
        "{one->One} here. {two->Two} there. {three->Three} now.",
    ),
    ("capitalization.all_lowercase", "One here. Two there. three now.", "One here. Two there. three now."),
    # emoji
    ("emoji.emoji", "Hi 😂😂 there 👍🏽", "Hi{ 😂😂->} there{ 👍🏽->}"),
    ("emoji.emoticon", "ok :) fine ;) <3", "ok{ :)->} fine{ ;)->}{ <3->}"),
    ("emoji.emoticon", "ok :-) fine", "ok :-) fine"),
    ("emoji.emoticon_nosed", "ok :-) fine", "ok{ :-)->} fine"),
    # slang
    ("slang.abbreviations", "tbh u r right lol", "{tbh->to be honest} {u->you} {r->are} right{ lol->}"),
    ("slang.abbreviations", "TBH I'm gonna go", "{TBH->To be honest} I'm {gonna->going to} go"),
    ("slang.abbreviations", "the U.S. and R&D and a u-turn", "the U.S. and R&D and a u-turn"),
    # phrases
    (
        "phrases.repeated",
        "at the end of the day we win; at the end of the day they lose",
        "{at the end of the day} we win; {at the end of the day} they lose",
    ),
    (
        "phrases.repeated",
        "we went to the shop and then to the park",
        "we went to the shop and then to the park",
    ),
    # vocabulary
    (
        "vocabulary.rare",
        "a perspicacious and sesquipedalian dog",
        "a {perspicacious} and {sesquipedalian} dog",
    ),
    ("vocabulary.rare", "a clever and talkative dog", "a clever and talkative dog"),
    # layout
    ("layout.blank_line_runs", "a\n\n\n\nb", "a{\n\n\n\n->\n\n}b"),
    ("layout.trailing_spaces", "a  \nb", "a{  ->}\nb"),
    ("layout.hard_wrapped", "this line goes\non here.", "this line goes{\n}on here."),
    ("layout.indented_paragraphs", "\tFirst.\n\n\tSecond.", "{\t}First.\n\n{\t}Second."),
    # formats
    ("formats.currency_pound", "from £1,200 to $5", "from {£1,200} to $5"),
    ("formats.currency_after", "it is 10 € now", "it is {10 €} now"),
    ("formats.date_day_first", "on 29/11/2026 and 11/29/2026", "on {29/11/2026} and 11/29/2026"),
    ("formats.date_month_first", "on 29/11/2026 and 11/29/2026", "on 29/11/2026 and {11/29/2026}"),
    ("formats.date_iso", "on 2026-11-29.", "on {2026-11-29}."),
    ("formats.time_24h", "at 14:30 or 9:15", "at {14:30} or 9:15"),
    ("formats.time_ampm", "at 3pm or 4:00 PM", "at {3pm} or {4:00 PM}"),
    ("formats.time_ampm_dots", "at 3 p.m. sharp", "at {3 p.m.} sharp"),
    ("formats.date_day_month", "on 29th November", "on {29th November}"),
    ("formats.date_month_day", "on November 29th", "on {November 29th}"),
    # misspellings
    (
        "misspellings.common",
        "I definately recieve alot",
        "I {definately->definitely} {recieve->receive} {alot->a lot}",
    ),
    ("misspellings.common", "Could of done it", "{Could of->Could have} done it"),
    ("misspellings.common", "I definitely received a lot", "I definitely received a lot"),
    # greetings
    ("greetings.greeting", "Hiya all!\n\nText here.", "{Hiya all->Hi all}!\n\nText here."),
    ("greetings.greeting", "Howdy,\nText", "{Howdy->Hi},\nText"),
    ("greetings.greeting", "This text has no greeting.", "This text has no greeting."),
    ("greetings.signoff", "Text here.\n\nCheers,\nM.", "Text here.\n\n{Cheers->Thanks},\nM."),
    ("greetings.signature", "Text here.\n\nCheers,\nM.", "Text here.\n\nCheers,\n{M.}"),
    (
        "greetings.signoff",
        "Cheers to that, said everyone in the room.",
        "Cheers to that, said everyone in the room.",
    ),
    # invisible
    ("invisible.zero_width", "zero\u200bwidth", "zero{\u200b->}width"),
    ("invisible.zero_width", "family 👨\u200d👩\u200d👧 emoji", "family 👨\u200d👩\u200d👧 emoji"),
    ("invisible.bidi", "a\u202eb", "a{\u202e->}b"),
    ("invisible.unusual_space", "a\u00a0b\u2009c", "a{\u00a0-> }b{\u2009-> }c"),
    ("invisible.homoglyph", "p\u0430ypal", "p{\u0430->a}ypal"),
    ("invisible.homoglyph", "привет мир", "привет мир"),
]


@pytest.mark.parametrize(("marker", "text", "expected"), GOLDEN, ids=[f"{m}:{t[:20]}" for m, t, _ in GOLDEN])
def test_golden_spans(marker: str, text: str, expected: str) -> None:
    assert marked(text, marker) == expected


def test_british_target_marks_american_spellings() -> None:
    assert marked("The color", "spelling.american", Target(spelling="british")) == "The {color->colour}"


def test_markers_inside_protected_spans_are_ignored() -> None:
    text = "see `colour`, https://x.org/colour_tbh, @colour #tbh and mail colour@x.org"
    assert not markers(text) & {"spelling.british", "slang.abbreviations"}


def test_evidence_compares_with_population() -> None:
    f = finding("I went out — far out — and back — then home. " * 2, "punctuation.em_dash")
    assert f.count == 6
    assert "6 em dashes in" in f.evidence and "typical writers use about" in f.evidence
    assert f.baseline_per_1k is not None and f.identifiability > 0.5


def test_evidence_says_the_typical_rate_in_the_unit_it_counts_the_text_in() -> None:
    """ "2 in 21 words; typical writers use about 1 in 3,300 words": both halves count in words, never a
    bare fraction of a count ("about 0.005")."""
    f = finding("Wow!!! That is gorgeous, truly.", "punctuation.multiple_exclamation")
    typical = f.evidence.split("typical writers use ", 1)[1]
    every = re.fullmatch(r"about 1 in ([\d,]+) words", typical)
    assert every, f.evidence
    assert int(every.group(1).replace(",", "")) == pytest.approx(1000 / f.baseline_per_1k, rel=0.05)
    text = "It is not the case that we do not care. " * 30
    none = next(x for x in analyze(text).findings if x.marker == "contractions.none")
    assert re.search(r"typical writers use about [\d.]+ in 300 words$", none.evidence), none.evidence


def test_evidence_quotes_the_exclamation_run_the_text_has() -> None:
    f = finding("Wow!!! That is gorgeous, truly.", "punctuation.multiple_exclamation")
    assert '"!!!"' in f.evidence and "(!!)" not in f.evidence + f.label, (f.label, f.evidence)


def test_identifiability_grows_with_rarity() -> None:
    # One semicolon is ordinary; four "!!" in the same length of text are not.
    semicolon = finding(
        "We met; we talked about the plan for the next week at length.", "punctuation.semicolon"
    )
    bangs = finding(
        "We met!! we talked!! about the plan!! for the next week!!", "punctuation.multiple_exclamation"
    )
    assert bangs.identifiability > semicolon.identifiability


def test_sentence_length_long_and_short() -> None:
    short = "I came. I saw. It was good. We left. We ate. It rained. We slept. Done now."
    assert finding(short, "rhythm.sentence_length").label == "short sentences"
    assert "rhythm.sentence_length" not in markers(
        "The committee met on Tuesday to discuss the budget for next year in some detail. " * 2
        + "Several members raised concerns about the cost of the new building and its upkeep. " * 3
    )


def test_function_word_profile_needs_enough_words_and_flags_overuse() -> None:
    assert "function_words.profile" not in markers("just " * 10 + "a dog ran.")
    text = " ".join(["I just really think that it is just very much just the thing we need."] * 15)
    f = finding(text, "function_words.profile")
    assert '"just"' in f.evidence
    assert all(s.text.lower() == "just" or s.text.lower() in f.evidence for s in f.spans)


def test_no_contractions_in_long_text_is_noticed() -> None:
    text = "It is not the case that we do not care. " * 30
    assert "contractions.none" in markers(text)
    assert "contractions.none" not in markers("It isn't so. " * 30)


def test_one_sentence_paragraphs() -> None:
    text = "First thought here.\n\nSecond thought here.\n\nThird thought here.\n\nFourth one."
    assert marked(text, "layout.one_sentence_paragraphs").count("{") == 4
    assert "layout.one_sentence_paragraphs" not in markers("One. Two.\n\nThree. Four.\n\nFive. Six.")


@pytest.mark.parametrize(
    "n, label, expected",
    [
        (4, "em dashes", "4 em dashes"),
        (1, "em dashes", "1 em dash"),
        (1, "repeated exclamation marks", "1 repeated exclamation mark"),
        (1, "ellipses", "1 ellipsis"),
        (1, "runs of spaces between words", "1 run of spaces between words"),
        (1, "two spaces after a full stop", "1 two spaces after a full stop"),
        (1, "emoji", "1 emoji"),
    ],
)
def test_evidence_counts_read_as_english(n, label, expected):
    from native_host.style.analyze import count_phrase

    assert count_phrase(n, label) == expected
