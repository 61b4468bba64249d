"""Each guard on tiny texts: cases that must pass and cases that must fail."""

from __future__ import annotations

from collections import Counter

import pytest

from native_host.rewrite import guards


def _spans(text):
    from native_host.style import protected_spans

    return protected_spans(text)


# -- wrappers and chatter ----------------------------------------------------------------------------

SOURCE = "We meet at noon on Friday."


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"We will meet at noon on Friday."', "We will meet at noon on Friday."),
        ("“We will meet at noon on Friday.”", "We will meet at noon on Friday."),
        ("Here is the rewritten text:\nWe will meet at noon on Friday.", "We will meet at noon on Friday."),
        ('Rewritten text:\n"We will meet at noon on Friday."', "We will meet at noon on Friday."),
        ("```\nWe will meet at noon on Friday.\n```", "We will meet at noon on Friday."),
        ("  We will meet at noon on Friday.  ", "We will meet at noon on Friday."),
        # Not a wrapper: two quoted parts, not one pair around everything.
        ('"Yes" she said, "noon"', '"Yes" she said, "noon"'),
    ],
)
def test_strip_wrappers(raw, expected):
    assert guards.strip_wrappers(raw, SOURCE) == expected


def test_strip_wrappers_keeps_quotes_the_source_had():
    assert guards.strip_wrappers('"Stop."', '"Halt."') == '"Stop."'


@pytest.mark.parametrize(
    "candidate",
    [
        "We will meet at noon on Friday.",
        "Here is the plan: we meet at noon on Friday.",  # "here is" inside the user's own sentence
        "Of the options, Friday at noon works.",
    ],
)
def test_chatter_passes_plain_rewrites(candidate):
    assert guards.check_chatter(candidate, SOURCE).ok


@pytest.mark.parametrize(
    "candidate",
    [
        "Sure, here is the rewritten text: We meet at noon on Friday.",
        "Certainly! We meet at noon on Friday.",
        "Here's a rewritten version of the text: We meet at noon on Friday.",
        "We meet at noon on Friday. Let me know if you need anything else.",
        "We meet at noon on Friday.\n(Note: I removed the slang.)",
        "As an AI language model, I rewrote it: we meet at noon on Friday.",
        "I have rewritten the sentence to be neutral.",
        "",
    ],
)
def test_chatter_rejects_assistant_talk(candidate):
    assert not guards.check_chatter(candidate, SOURCE).ok


def test_chatter_allowed_when_the_source_says_it_too():
    source = "Sure, I can come. Let me know if Friday works."
    assert guards.check_chatter("Sure, I can come. Let me know if Friday suits you.", source).ok


# -- length -------------------------------------------------------------------------------------------

LONG = "The committee will review every application that arrives before the end of the month."


def test_length_passes_similar_lengths():
    assert guards.check_length(
        "All applications received before month end will be reviewed by the committee.", LONG
    ).ok


@pytest.mark.parametrize("candidate", ["The committee reviews.", LONG + " " + LONG])
def test_length_rejects_truncation_and_rambling(candidate):
    assert not guards.check_length(candidate, LONG).ok


def test_length_short_sources_use_an_absolute_margin():
    assert guards.check_length("Thanks a lot.", "Thx!").ok
    assert not guards.check_length("Thank you so very much for all of the help you gave me today.", "Thx!").ok


# -- protected tokens ---------------------------------------------------------------------------------

PROTECTED_SOURCE = (
    "Ask Dana Whitfield at dana@example.org or @dwhit about the 3.5% fee, see https://example.org/fees. "
    "Run `pip install fantasma` first."
)


def test_protected_tokens_found():
    tokens = guards.protected_tokens(PROTECTED_SOURCE, ("fee schedule",), _spans(PROTECTED_SOURCE))
    for token in [
        "Dana",
        "Whitfield",
        "dana@example.org",
        "@dwhit",
        "3.5",
        "https://example.org/fees",
        "`pip install fantasma`",
    ]:
        assert token in tokens, token
    assert "fee schedule" not in tokens  # a term the text does not contain requires nothing
    assert "Ask" not in tokens and "Run" not in tokens  # sentence-initial words are not names


def test_protected_passes_when_all_kept():
    required = guards.protected_tokens(PROTECTED_SOURCE, (), _spans(PROTECTED_SOURCE))
    candidate = (
        "Contact Dana Whitfield (dana@example.org, @dwhit) regarding the 3.5% fee; details at "
        "https://example.org/fees. First run `pip install fantasma`."
    )
    assert guards.check_protected(candidate, required).ok
    assert guards.keep_rate(candidate, required) == 1.0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("3.5%", "three and a half percent"),
        ("dana@example.org", "her e-mail"),
        ("https://example.org/fees", "the website"),
        ("Whitfield", "whitfield"),
        ("`pip install fantasma`", "pip install fantasma"),
        ("@dwhit", "dwhit"),
    ],
)
def test_protected_rejects_any_changed_token(old, new):
    required = guards.protected_tokens(PROTECTED_SOURCE, (), _spans(PROTECTED_SOURCE))
    candidate = PROTECTED_SOURCE.replace(old, new)
    verdict = guards.check_protected(candidate, required)
    assert not verdict.ok and "lost protected" in verdict.detail
    assert guards.keep_rate(candidate, required) < 1.0


@pytest.mark.parametrize(
    ("candidate", "why"),
    [
        ("Tom liked the effort, but the report is weak. Thanks, Tom", "added"),  # name used twice
        ("I liked the effort, but the report is weak. Thanks, Tom and Sally", "invented"),
        ("I liked the effort, but the 2 reports are weak. Thanks, Tom", "invented"),
        ("I liked the effort, but see https://example.org, the report is weak. Thanks, Tom", "invented"),
    ],
)
def test_protected_rejects_added_or_invented_tokens(candidate, why):
    source = "I appreciate the effort, but the report is rather weak. Cheers, Tom"
    required = guards.protected_tokens(source, (), _spans(source))
    verdict = guards.check_protected(candidate, required, source, _spans(candidate))
    assert not verdict.ok and why in verdict.detail


def test_protected_accepts_a_faithful_rewrite_with_source_context():
    source = "I appreciate the effort, but the report is rather weak. Cheers, Tom"
    candidate = "Thank you for the effort; however, the report is fairly weak. Regards, Tom"
    required = guards.protected_tokens(source, (), _spans(source))
    assert guards.check_protected(candidate, required, source, _spans(candidate)).ok


def test_user_terms_and_repeated_tokens_count():
    required = guards.protected_tokens("the blue widget and the blue widget", ("blue widget",))
    assert required == Counter({"blue widget": 2})
    assert not guards.check_protected("the blue widget and the other one", required).ok


def test_sentence_initial_name_counts_when_seen_mid_sentence():
    names = guards.capitalized_names("Paris is big. I love Paris. The city is old. NASA said so.")
    assert names.count("Paris") == 2 and "The" not in names and "I" not in names and "NASA" in names


# -- markers ------------------------------------------------------------------------------------------


def _fake_counter(text: str) -> Counter:
    # A stand-in counter with the same shape as the real one: family → number of spans.
    return Counter({"punctuation": text.count("!"), "emoji": text.count(":)")}) - Counter()


def test_no_new_markers_passes_when_markers_drop_or_stay():
    source = _fake_counter("Great!! :)")
    assert guards.check_no_new_markers("Great :)", source, _fake_counter).ok
    assert guards.check_no_new_markers("Great.", source, _fake_counter).ok


def test_no_new_markers_rejects_added_markers():
    verdict = guards.check_no_new_markers("Great! :) :)", _fake_counter("Great."), _fake_counter)
    assert not verdict.ok and "emoji +2" in verdict.detail and "punctuation +1" in verdict.detail


def test_no_new_markers_with_the_real_analyzer():
    from native_host.style.markers import count_markers

    source = "We will meet at noon on Friday to review the budget."
    assert guards.check_no_new_markers(
        "We meet at noon on Friday to go over the budget.", count_markers(source), count_markers
    ).ok
    assert not guards.check_no_new_markers(
        "We meet at noon on Friday — lol — to go over the budget!!! 😀", count_markers(source), count_markers
    ).ok


# -- meaning ------------------------------------------------------------------------------------------


def test_similarity_threshold():
    assert guards.check_similarity(0.91).ok
    assert guards.check_similarity(guards.MIN_SIMILARITY).ok
    assert not guards.check_similarity(0.62).ok


def test_similarity_with_the_real_embedder(embedder_model_dir):
    from native_host.engine.embedder import Embedder

    embedder = Embedder(embedder_model_dir)
    source = "The meeting has been moved to Friday at noon because the room is booked on Thursday."
    paraphrase = "Because the room is booked on Thursday, the meeting moved to Friday at noon."
    drift = "The weather on Friday should be sunny with light wind."
    sims = embedder.similarities(source, [paraphrase, drift])
    assert guards.check_similarity(sims[0]).ok
    assert not guards.check_similarity(sims[1]).ok


@pytest.mark.parametrize(
    "candidate",
    [
        "The number 12 bus now leaves every forty minutes, not every twenty.",
        "Every forty minutes the number 12 bus leaves, instead of every twenty; it isn't faster.",
    ],
)
def test_facts_pass_when_quantities_and_negations_stay(candidate):
    source = "The number 12 bus now leaves every forty minutes instead of every twenty. It is not faster."
    assert guards.check_facts(candidate, source).ok


@pytest.mark.parametrize(
    "candidate, why",
    [
        ("The number 12 bus leaves every twenty minutes. It is not faster.", "lost 'forty'"),
        ("The bus leaves every forty minutes, not every thirty. It is not faster.", "'thirty'"),
        ("The number 12 bus now leaves every forty minutes instead of every twenty. It is faster.", "1 -> 0"),
        ("The bus never leaves every forty minutes instead of every twenty. It isn't faster.", "1 -> 2"),
    ],
)
def test_facts_reject_changed_quantities_and_flipped_negations(candidate, why):
    source = "The number 12 bus now leaves every forty minutes instead of every twenty. It is not faster."
    verdict = guards.check_facts(candidate, source)
    assert not verdict.ok and verdict.guard == "facts" and why in verdict.detail, verdict


def test_facts_count_contractions_and_ignore_one_as_a_pronoun():
    assert guards.check_facts("We cannot go; nobody has a car.", "We can't go, no one has a car.").ok
    assert guards.check_facts("I prefer the one with a garden.", "I prefer the house with a garden.").ok
    assert not guards.check_facts("We have a car.", "We have two cars.").ok


@pytest.mark.parametrize(
    "candidate, source, why",
    [
        (
            "The organization has realized nothing. They have just rebranded the same garbage.",
            "The organization has realized nothing, in my opinion; they have just rebranded the same garbage.",
            "hedges changed: 1 -> 0",
        ),
        ("They rebranded the same garbage.", "They rebranded the same garbage again.", "lost 'again'"),
        ("Only the board can sign it.", "The board can sign it.", "added 'only'"),
        ("The bus is late.", "The bus is probably late.", "hedges changed: 1 -> 0"),
        # found reading the eval's changed sentences: a window that lost an opening quote passed
        (
            'Come to the boat! he cried." Nobody moved.',
            '"Come to the boat!" he cried. Nobody moved.',
            "quotation marks changed: 2 -> 1",
        ),
        ('He said "yes" and left.', "He said yes and left.", "quotation marks changed: 0 -> 2"),
    ],
)
def test_facts_reject_dropped_hedges_and_scope_words(candidate, source, why):
    verdict = guards.check_facts(candidate, source)
    assert not verdict.ok and why in verdict.detail, verdict


def test_facts_accept_a_hedge_said_another_way():
    source = "In my opinion the report is late again."
    assert guards.check_facts("I think the report is late again.", source).ok
    assert guards.check_facts("Again the report is late, I believe.", source).ok
    assert guards.check_facts("“Come to the boat!” he shouted.", '"Come to the boat!" he cried.').ok


# Candidates of the default model that passed every other guard (eval test chunks, 2026-12-02): the
# people in the sentence changed (docs/rewrite.md, "Facts").
@pytest.mark.parametrize(
    "candidate, source, why",
    [
        (
            "With this youth Ellen Langton became familiar; for she was her only companion.",
            "With this youth Ellen Langton became familiar; for he was her only companion.",
            "lost 'he'",
        ),
        (
            "He made heroic endeavors to denounce his sister between the times of her infantile orations.",
            "He made heroic endeavors to denounce his sister between the times of his infantile orations.",
            "added 'she'",
        ),
        (
            "All the sweet summer is passing away without one breath of pleasure to him.",
            "All the sweet summer is passing away without one breath of pleasure to me or benefit to him.",
            "lost 'I'",
        ),
        ("Then they went home early.", "Then we went home early.", "lost 'we'; added 'they'"),
        ("It was sent to them at once.", "It was sent to me at once.", "lost 'I'; added 'they'"),
    ],
)
def test_facts_reject_a_change_of_the_people_referred_to(candidate, source, why):
    verdict = guards.check_facts(candidate, source)
    assert not verdict.ok and verdict.guard == "facts" and why in verdict.detail, verdict


@pytest.mark.parametrize(
    "candidate, source",
    [
        ("She took the coat and left.", "She took her coat and left."),  # fewer words, same person
        ("He said that he had left.", "He said he left."),
        ("I'm sure we'll manage.", "I am sure that we will manage."),  # contractions count as their pronoun
        ("The US and our allies agreed.", "The United States and our allies agreed."),  # "US" is no "us"
        ("My brother and I went.", "I went with my brother."),
    ],
)
def test_facts_accept_the_same_people_said_another_way(candidate, source):
    assert guards.check_facts(candidate, source).ok


@pytest.mark.parametrize(
    "candidate, source",
    [
        # the edit pool's own alternations of scope words and hedges say the same thing
        ("It was nearly dark when we left.", "It was almost dark when we left."),
        ("She merely smiled at him.", "She only smiled at him."),
        ("He read the letter once more.", "He read the letter again."),
        ("He read the letter again.", "He read the letter once again."),
        ("It may be too late.", "It might be too late."),
        ("The plan appears to be sound.", "The plan seems to be sound."),
        ("It appears that nobody came.", "It seems that nobody came."),
    ],
)
def test_facts_accept_scope_words_and_hedges_said_another_way(candidate, source):
    assert guards.check_facts(candidate, source).ok


@pytest.mark.parametrize(
    "candidate, source, why",
    [
        # ... but a scope word or hedge lost or swapped for another kind is still refused
        ("It was dark when we left.", "It was nearly dark when we left.", "lost 'almost'"),
        ("She always smiled at him.", "She merely smiled at him.", "added 'always'"),
        ("He read the letter once.", "He read the letter once more.", "lost 'again'"),
        ("It is too late.", "It may be too late.", "hedges changed: 1 -> 0"),
        ("She still smiled at him.", "She only smiled at him.", "lost 'only'"),
        ("The plan is sound.", "The plan appears to be sound.", "hedges changed: 1 -> 0"),
    ],
)
def test_facts_still_refuse_scope_words_and_hedges_lost(candidate, source, why):
    verdict = guards.check_facts(candidate, source)
    assert not verdict.ok and why in verdict.detail, verdict


@pytest.mark.parametrize(
    ("source", "candidate", "changed"),
    [
        ("We left early; it rained.", "We left early. It rained.", [";"]),
        ("She was kind—very kind.", "She was kind, very kind.", ["—"]),
        ("a well-known fact", "a famous fact", ["-"]),
        ("the men (the old ones) left", "the men, the old ones, left", ["(", ")"]),
        ("Note: it is late; go.", "Note; it is late; go.", [";", ":"]),
    ],
)
def test_kept_marks_reject_a_changed_count(source, candidate, changed):
    assert guards.changed_marks(candidate, source) == changed
    verdict = guards.check_kept_marks(candidate, source)
    assert not verdict.ok and verdict.guard == "marks"


def test_kept_marks_pass_word_changes_and_moved_marks():
    assert guards.check_kept_marks("We left early; it rained hard.", "We went early; it rained a lot.").ok
    # the same number in another place is the same rate
    assert guards.check_kept_marks("It was late; we went — fast.", "It was late — we went; fast.").ok


def test_a_word_no_dictionary_knows_is_rejected_unless_the_source_holds_it() -> None:
    source = "If she dozed and lost herself for a moment, the labrick was gone."
    bad = guards.check_known_words(
        "If she didzed and lost herself for a moment, the labrick was gone.", source
    )
    assert not bad.ok and bad.guard == "words" and "didzed" in bad.detail
    assert guards.check_known_words(
        "If she slept and lost herself for a moment, the labrick was gone.", source
    ).ok
    assert guards.check_known_words(
        "Mr. Irish was in high gaminess.", "Mr. Irish was in high glee."
    ).detail.endswith("gaminess")
    assert guards.check_known_words("Dey sha'n't sell him.", "Dey sha'n't sell him down de river.").ok
