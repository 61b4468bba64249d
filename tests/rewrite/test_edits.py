"""Edit proposals (native_host.rewrite.edits): cases that must change, cases that must not, and the
properties every proposal keeps (protected spans untouched, negations kept, well-formed text)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native_host.rewrite.edits import Edit, propose
from native_host.rewrite.edits.text import negations


def apply(text: str, edit: Edit) -> str:
    return text[: edit.start] + edit.replacement + text[edit.end :]


def results(text: str, family: str | None = None) -> dict[str, list[str]]:
    """rule -> the texts its edits give (one per edit)."""
    out: dict[str, list[str]] = {}
    for e in propose(text):
        if family is None or e.family == family:
            out.setdefault(e.rule, []).append(apply(text, e))
    return out


def all_results(text: str, family: str | None = None) -> set[str]:
    return {t for ts in results(text, family).values() for t in ts}


# --- function words: must change ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We waited whilst the rain fell.", "We waited while the rain fell."),
        ("We waited while the rain fell.", "We waited whilst the rain fell."),
        ("They met amongst the trees.", "They met among the trees."),
        ("It depends upon the weather.", "It depends on the weather."),
        ("It depends on the weather.", "It depends upon the weather."),
        ("She left in order to catch the train.", "She left to catch the train."),
        ("Each member will vote.", "Every member will vote."),
        ("Every member will vote.", "Each member will vote."),
        ("The house which stands on the hill is old.", "The house that stands on the hill is old."),
        ("The house that stands on the hill is old.", "The house which stands on the hill is old."),
        ("I think that he is right.", "I think he is right."),
        ("I think he is right.", "I think that he is right."),
        ("It is late and we should go.", "It's late and we should go."),
        ("It's late and we should go.", "It is late and we should go."),
        ("It's been a long day.", "It has been a long day."),
        ("I've seen it before.", "I have seen it before."),
        ("You've seen it before.", "You have seen it before."),
        ("We've seen it before.", "We have seen it before."),
        ("They've seen it before.", "They have seen it before."),
        ("We have seen it before.", "We've seen it before."),
        ("We do not agree.", "We don't agree."),
        ("We don't agree.", "We do not agree."),
        ("She cannot swim.", "She can't swim."),
        ("However, the plan failed.", "But the plan failed."),
        ("But the plan failed.", "However, the plan failed."),
        ("However, the plan failed.", "Nevertheless, the plan failed."),
        ("Moreover, the plan failed.", "Furthermore, the plan failed."),
        ("Therefore, we stayed home.", "So we stayed home."),
        ("Therefore, we stayed home.", "Thus, we stayed home."),
        ("A number of people came.", "Several people came."),
        ("Several people came.", "A number of people came."),
        ("In spite of the rain, we went.", "Despite the rain, we went."),
        ("I wonder whether or not it works.", "I wonder whether it works."),
        ("Cities such as Paris are busy.", "Cities like Paris are busy."),
        ("Cities like Paris are busy.", "Cities such as Paris are busy."),
        ("At present the roads are closed.", "Currently the roads are closed."),
        ("They helped each other.", "They helped one another."),
        ("All of the books were wet.", "All the books were wet."),
        ("All the books were wet.", "All of the books were wet."),
        ("She came about 20 minutes late.", "She came around 20 minutes late."),
        ("I asked if it was ready.", "I asked whether it was ready."),
        ("We liked it too.", "We liked it as well."),
        ("It was quite cold.", "It was rather cold."),
        ("I'm tired.", "I am tired."),
        ("I am tired of it.", "I'm tired of it."),
        ("She was an honest woman, although poor.", "She was an honest woman, though poor."),
    ],
)
def test_function_word_changes(text: str, expected: str) -> None:
    assert expected in all_results(text, "function_word"), sorted(all_results(text, "function_word"))


# --- function words: must not change -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("We rested for a while.", "We rested for a whilst."),
        ("I know what it is.", "I know what it's."),
        ("Don't you see?", "Do not you see?"),
        ("The man, which was odd, left.", "The man, that was odd, left."),
        ("The fact that he left is sad.", "The fact which he left is sad."),
        # no "that" beside another (2026-12-02 eval output: "appearances that that malady")
        (
            "They are deceived by the delusive appearances which that malady casts on objects.",
            "They are deceived by the delusive appearances that that malady casts on objects.",
        ),
        (
            "There can be no restriction of that authority which is to provide for the defense.",
            "There can be no restriction of that authority that is to provide for the defense.",
        ),
        # "too, for" -> "as well, for" -> "as well, as" (two edits, two rounds; read in the same output)
        (
            "Banish them from your mind, and my own too, for I hate to think of them.",
            "Banish them from your mind, and my own as well, for I hate to think of them.",
        ),
        (
            "Banish them from your mind, and my own as well, for I hate to think of them.",
            "Banish them from your mind, and my own as well, as I hate to think of them.",
        ),
        # the adjective "very" (2026-12-02 eval sample: "quit Gateshead the extremely next morning")
        (
            "I resolved to quit Gateshead the very next morning.",
            "I resolved to quit Gateshead the extremely next morning.",
        ),
        (
            "I resolved to quit Gateshead the very next morning.",
            "I resolved to quit Gateshead the really next morning.",
        ),
        ("I know that is true.", "I know is true."),
        ("They love each of them.", "They love every of them."),
        ("We meet every day.", "We meet each day."),
        ("It is all the same to me.", "It is all of the same to me."),
        ("So many people came.", "Therefore, many people came."),
        ("I like the idea.", "I such as the idea."),
        # "such as to" is "of a kind to", not "for example" (read in the eval's changed sentences)
        ("They were not such as to create alarm.", "They were not like to create alarm."),
        ("The faults were such as to alarm us.", "The faults were like to alarm us."),
        ("He talked about the war.", "He talked around the war."),
        ("Once upon a time there was a king.", "Once on a time there was a king."),
        ("He turned on the light.", "He turned upon the light."),
        (
            "He would have gone, had not his mistress come in.",
            "He would have gone, hadn't his mistress come in.",
        ),
        ("Those who have found fault with it are wrong.", "Those who have found mistake with it are wrong."),
        ("It leaves to the several States a power.", "It leaves to the a number of States a power."),
        (
            "Not only will the war be short in every way, but it will also be cheap.",
            "Not only will the war be short in every way. But it will also be cheap.",
        ),
        (
            "She lived to help, although the weather was cold.",
            "She lived to assistance, although the weather was cold.",
        ),
    ],
)
def test_function_word_must_not(text: str, forbidden: str) -> None:
    assert forbidden not in all_results(text)


# --- lexical ------------------------------------------------------------------------------------


def test_lexical_changes_common_words_in_the_right_form() -> None:
    text = "The buildings were enormous and the streets were quiet."
    got = all_results(text, "lexical")
    assert got, "no lexical edit on plain prose"
    for t in got:
        assert t.endswith(".") and t.count(" ") == text.count(" ")


def test_lexical_leaves_names_alone() -> None:
    text = "We met Rose and Hope at the Grand Hotel yesterday."
    for e in propose(text):
        assert e.family != "lexical" or text[e.start : e.end].islower(), e


def test_article_agreement_is_fixed() -> None:
    text = "It was a huge building."
    for t in all_results(text, "lexical"):
        words = t.split()
        i = words.index(next(w for w in words if w in ("a", "an")))
        assert words[i] == ("an" if words[i + 1][0] in "aeiou" else "a"), t


# --- protected spans and negations ----------------------------------------------------------------

PROTECTED_TEXT = (
    'He said "we do not agree upon anything whilst it rains" and left. '
    "See https://example.org/upon/whilst for 1,200 details; run `do not whilst` here. "
    "Mail anna.upon@example.com today. The buildings were enormous and we waited whilst it rained."
)


def test_no_edit_touches_quotes_urls_numbers_code_or_emails() -> None:
    text = PROTECTED_TEXT
    keep = [m.span() for m in re.finditer(r'"[^"]*"|https://\S+|1,200|`[^`]*`|anna\.upon@example\.com', text)]
    edits = propose(text)
    assert edits  # "left", "See", "details", "Mail", "today" leave room for something
    for e in edits:
        for s, t in keep:
            assert e.end <= s or e.start >= t, (e, text[s:t])


def test_caller_protected_spans_are_respected() -> None:
    text = "We waited whilst the rain fell on the buildings."
    start = text.index("whilst")
    edits = propose(text, protected=[(start, start + len("whilst"))])
    assert not any(e.start < start + 6 and e.end > start for e in edits)
    assert any(e.rule == "whilst->while" for e in propose(text))


NEGATION_TEXTS = [
    "We do not think that it is wise, and nobody can say that it isn't.",
    "It is not clear whether or not they will come; no one knows.",
    "She never said that he cannot win, but however you look at it, nothing is certain.",
]


@pytest.mark.parametrize("text", NEGATION_TEXTS)
def test_negations_never_added_or_dropped(text: str) -> None:
    for e in propose(text):
        assert negations(apply(text, e)) == negations(text), (e, apply(text, e))


# --- every edit alone keeps the text well-formed -------------------------------------------------

PROSE = (
    "However, the committee did not agree. It is clear that we must act whilst there is time, and I "
    "think that the proposal which was made by the council is the best one. Each member will vote "
    "on it tomorrow. The majority of the people said they would come in order to help, although the "
    "weather was very cold. A number of large houses stood empty; their owners had left the city "
    "because the roads were dangerous. It was the mayor who closed the bridge. We waited for a while. "
    "Then we went home, and the children slept."
)


def _well_formed(text: str) -> list[str]:
    problems = []
    if "  " in text:
        problems.append("double space")
    if re.search(r"\s[,.;:!?]", text):
        problems.append("space before punctuation")
    if re.search(r"[,;:][^\s\"'”’)]", text):
        problems.append("no space after , ; :")
    if re.search(r"[.!?]\s+[a-z]", text):
        problems.append("lower-case sentence start")
    if re.search(r"\ba [aeiou]", text, re.I) and not re.search(r"\ba (?:uni|use|one|eu)", text, re.I):
        problems.append("a before vowel")
    if re.search(r"\ban [bcdfgjklmnpqrstvwxyz]", text, re.I):
        problems.append("an before consonant")
    if re.search(r",,|\.\.|,\.|\.,", text):
        problems.append("doubled punctuation")
    if not text[0].isupper():
        problems.append("lower-case text start")
    return problems


def test_every_edit_alone_is_well_formed() -> None:
    edits = propose(PROSE)
    assert len(edits) > 35
    assert not _well_formed(PROSE)
    for e in edits:
        out = apply(PROSE, e)
        assert not _well_formed(out), (e, _well_formed(out), out)


def test_edits_are_sorted_valid_spans_with_known_families() -> None:
    edits = propose(PROSE)
    assert edits == sorted(edits, key=lambda e: (e.start, e.end, e.replacement))
    for e in edits:
        assert 0 <= e.start < e.end <= len(PROSE)
        assert e.family in ("lexical", "function_word", "syntax")
        assert e.rule and isinstance(e.needs_lm_check, bool)
        assert PROSE[e.start : e.end] != e.replacement


def test_empty_and_plain_inputs() -> None:
    assert propose("") == []
    assert propose("   \n\n ") == []
    assert propose("12345 67") == []


# --- syntax -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We waited for hours at the station, and we went home.",
            "We waited for hours at the station. We went home.",
        ),
        (
            "We waited for hours at the station, but we went home.",
            "We waited for hours at the station. But we went home.",
        ),
        (
            "We waited for hours at the station, and we went home.",
            "We waited for hours at the station and we went home.",
        ),
        (
            "The old house was empty; its roof leaked badly.",
            "The old house was empty. Its roof leaked badly.",
        ),
        ("It rained all day. We stayed inside.", "It rained all day; we stayed inside."),
        ("It rained all day. We stayed inside.", "It rained all day, and we stayed inside."),
        ("We stayed inside because it was raining hard.", "Because it was raining hard, we stayed inside."),
        ("Because it was raining hard, we stayed inside.", "We stayed inside because it was raining hard."),
        ("It was the mayor who closed the bridge.", "The mayor closed the bridge."),
        ("We bought apples, pears, and plums.", "We bought apples, pears and plums."),
        ("We bought apples, pears and plums.", "We bought apples, pears, and plums."),
        ("The new law (passed in May) was unpopular.", "The new law, passed in May, was unpopular."),
        ("The power of the government grew.", "The government's power grew."),
        ("The government's power grew.", "The power of the government grew."),
        ("Then, we went home.", "Then we went home."),
        ("Then we went home.", "Then, we went home."),
    ],
)
def test_syntax_changes(text: str, expected: str) -> None:
    assert expected in all_results(text, "syntax"), sorted(all_results(text, "syntax"))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("It was clear that he had left.", "Clear he had left."),
        ("The majority of the people agreed.", "The people's majority agreed."),
        ("It rained all day.\n\nWe stayed inside.", "It rained all day;\n\nwe stayed inside."),
        ("Bread, and butter.", "Bread. Butter."),
        ("Then we left because it was late.", "Because it was late, then we left."),
    ],
)
def test_syntax_must_not(text: str, forbidden: str) -> None:
    assert forbidden not in all_results(text)


def test_split_never_breaks_a_quotation() -> None:
    text = 'He said "we waited for hours at the station, and we went home" to us.'
    for e in propose(text):
        assert e.family != "syntax" or not (text.index('"') < e.start < text.rindex('"')), e


# --- real prose: how many edits, and each one alone well-formed -----------------------------------

# Floors a little under the figures in docs/anonymization-edits.md (10 test chunks per author, 3
# authors): a change that quietly halves the pool fails here. The Federalist floor went 43 -> 41 when 97
# wrong-sense lexical pairs were denied after reading the issue-10 eval samples (42.8 measured); to 37
# and 32 with the fifth pass's frequency limits on inflected forms, part-of-speech and preposition cues
# and denied pairs (42.7 -> 37.5 and 37.0 -> 33.1 measured; the rows lost are mostly wrong senses).
POOL_FLOORS = {"federalist": 36, "brontes": 32}


@pytest.mark.parametrize("corpus", sorted(POOL_FLOORS))
def test_pool_size_on_real_prose(corpus: str) -> None:
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

    split = split_corpus(find_corpus(corpus, load_manifest()), 3, 10, 2)
    per_250 = []
    families: set[str] = set()
    for chunk in split.test:
        edits = propose(chunk.text)
        per_250.append(len(edits) * 250 / chunk.words)
        families.update(e.family for e in edits)
    assert families == {"lexical", "function_word", "syntax"}
    mean = sum(per_250) / len(per_250)
    assert mean >= POOL_FLOORS[corpus], f"{corpus}: {mean:.1f} edits per 250 words"


def test_every_edit_alone_is_well_formed_on_real_prose() -> None:
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

    split = split_corpus(find_corpus("federalist", load_manifest()), 3, 2, 2)
    for chunk in split.test:
        text = chunk.text
        before = set(_well_formed(text))
        for e in propose(text):
            out = apply(text, e)
            new = set(_well_formed(out)) - before
            assert not new, (e, new, out[max(0, e.start - 60) : e.end + 60])
            assert negations(out) == negations(text), e


def test_wide_tier_is_opt_in_and_always_lm_checked() -> None:
    text = PROSE * 2
    narrow, wide = propose(text), propose(text, wide=True)
    assert not any(e.rule.startswith("lex-wide:") for e in narrow)
    extra = [e for e in wide if e.rule.startswith("lex-wide:")]
    assert extra and all(e.needs_lm_check for e in extra)
    assert set(narrow) <= set(wide)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The powers which are delegated to the Union are few.",
            "The powers delegated to the Union are few.",
        ),
        ("And the war came at last.", "The war came at last."),
        ("In the first place, we must act.", "First, we must act."),
        ("It was not only cheap but also good.", "It was not only cheap but good."),
        ("I loved my friend;—that was all.", "I loved my friend; that was all."),
        ("She was kind—very kind to us.", "She was kind, very kind to us."),
    ],
)
def test_more_changes(text: str, expected: str) -> None:
    assert expected in all_results(text), sorted(all_results(text))


def test_reduced_relative_keeps_adjectives() -> None:
    assert "The door open leads out." not in all_results("The door which is open leads out.")


_WORDS = st.sampled_from(
    "the a an and but however whilst while upon on it is do not don't I he said that which each every "
    'large house houses were was , . ; ( ) " “ ” 12 http://x.org `code` Mr. \n \n\n'.split(" ")
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORDS, max_size=60), st.text(max_size=40))
def test_any_text_gives_valid_edits(words: list[str], noise: str) -> None:
    text = " ".join(words) + noise
    for e in propose(text):
        assert 0 <= e.start < e.end <= len(text)
        assert negations(apply(text, e)) == negations(text)


def test_no_family_changes_a_name() -> None:
    text = "Yesterday we met Will Hope and Mark Rose at the Grand Hotel, and May said that Faith was ill."
    names = ["Will Hope", "Mark Rose", "Grand Hotel", "May", "Faith"]
    for e in propose(text):
        out = apply(text, e)
        for name in names:
            assert out.count(name) == text.count(name), (e, out)


# --- periphrases that move the most frequent words (the, of, it, is, that, which, as, by, be) -------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It is evident that the people will decide.", "Evidently, the people will decide."),
        ("And it is clear that the plan failed.", "And clearly the plan failed."),
        ("It may be that the war will end.", "Perhaps the war will end."),
        ("Clearly, the plan failed.", "It is clear that the plan failed."),
        ("Perhaps he will come.", "It may be that he will come."),
        (
            "The Union, the powers of which are limited, survives.",
            "The Union, whose powers are limited, survives.",
        ),
        ("This plan is not only cheap but also fast.", "This plan is both cheap and fast."),
        ("They fed the army as well as the navy.", "They fed the army and the navy."),
        ("He is one of the most able men.", "He is among the most able men."),
        ("She was among the most able women.", "She was one of the most able women."),
        ("The law seems to be necessary.", "The law seems necessary."),
        ("They spoke by means of signs.", "They spoke by signs."),
        ("The whole of the Union agreed.", "The whole Union agreed."),
        ("The whole of their army fled.", "All of their army fled."),
        ("That which is good survives.", "What is good survives."),
        ("The question as to the date remains.", "The question about the date remains."),
        ("We worked in the course of the day.", "We worked during the day."),
        ("We worked during the day.", "We worked in the course of the day."),
        ("The greater part of the people agreed.", "Most of the people agreed."),
        ("He was at all times ready.", "He was always ready."),
        ("It was done in like manner.", "It was done in the same way."),
        ("So far as I know, he left.", "As far as I know, he left."),
        ("The means whereby it works are simple.", "The means by which it works are simple."),
        ("The matter is of great importance to us.", "The matter is very important to us."),
        ("A large number of men came.", "Many men came."),
        ("The plan was bold: it could not fail.", "The plan was bold; it could not fail."),
        ("The plan was bold: and it could not fail.", "The plan was bold; and it could not fail."),
    ],
)
def test_frequent_word_periphrases_change(text: str, expected: str) -> None:
    assert expected in all_results(text), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # comparison, not addition; and a singular verb that "and" would make wrong
        ("He did as well as he could.", "He did and he could."),
        ("The army as well as the navy was ready.", "The army and the navy was ready."),
        # the inverted "Not only did ..." is left alone; longer or listed conjuncts too
        ("Not only did he come but also he stayed.", "Both did he come and he stayed."),
        ("It is not only red or blue but also green.", "It is both red or blue and green."),
        # a real negation stays
        ("It is not evident that the people will decide.", "Evidently, the people will decide."),
        # "it is clear that" only at a clause opening
        ("He said it is clear that we won.", "He said clearly, we won."),
        # "of which" -> "whose" only after a comma, never for "all of which"
        ("He saw all of which they spoke.", "He saw all whose they spoke."),
        ("The book the cover of which is red.", "The book whose cover is red."),
        # "one of the most" needs "is/was" before it; "among the most" after "are" stays plural
        ("They are among the most able men.", "They are one of the most able men."),
        ("One of the most able men left.", "Among the most able men left."),
        # "seems to be" keeps a noun phrase: "seems a fool" is not the same register
        ("He seems to be a fool.", "He seems a fool."),
        # "that which" inside "all that which"
        ("He gave all that which he had.", "He gave all what he had."),
        # "as to" opening a sentence is "As for", not "About"
        ("As to the date, we agree.", "About the date, we agree."),
        # a colon before a list stays
        ("He bought three things: the bread, the milk and the eggs.", "He bought three things; the bread"),
        ("He said: it is late: we go.", "He said; it is late: we go."),
        # "at all times" after "not": "not always" means something else
        ("He was not at all times ready.", "He was not always ready."),
    ],
)
def test_frequent_word_periphrases_must_not(text: str, forbidden: str) -> None:
    assert not any(forbidden in out for out in all_results(text)), sorted(all_results(text))


def test_not_only_is_no_negation_but_not_is() -> None:
    assert negations("not only cheap but also fast") == 0
    assert negations("both cheap and fast") == 0
    assert negations("it is not cheap") == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The powers which they possess are few.", "The powers they possess are few."),
        ("The man whom we saw left.", "The man we saw left."),
        ("The book that I read was long.", "The book I read was long."),
        (
            "The Constitution, which was ratified in that year, is old.",
            "The Constitution, ratified in that year, is old.",
        ),
        ("The Senate, which is the smaller body, acts slowly.", "The Senate, the smaller body, acts slowly."),
    ],
)
def test_relative_reductions_change(text: str, expected: str) -> None:
    assert expected in all_results(text), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("The fact that they knew it is sad.", "The fact they knew it is sad."),
        ("He had such power that they obeyed.", "He had such power they obeyed."),
        ("The house which stands here is old.", "The house stands here is old."),
        # a second verb in the clause: no apposition
        ("The Senate, which is the body that meets, acts.", "The Senate, the body that meets, acts."),
        # the apposition needs a closing comma inside the sentence
        ("We saw the Senate, which is the smaller body.", "We saw the Senate, the smaller body."),
        # "which is open": an adjective, not a participle
        ("The door, which is open today, creaks.", "The door, open today, creaks."),
    ],
)
def test_relative_reductions_must_not(text: str, forbidden: str) -> None:
    assert forbidden not in all_results(text), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The plan was bold: it could not fail.", "The plan was bold. It could not fail."),
        ("We saw the men — the old ones — leave.", "We saw the men (the old ones) leave."),
        ("I remember that he was kind.", "I remember he was kind."),
        ("We must conclude that they failed.", "We must conclude they failed."),
        ("I remember he was kind.", "I remember that he was kind."),
    ],
)
def test_punctuation_and_that_changes(text: str, expected: str) -> None:
    assert expected in all_results(text), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("The plan was bold: and it could not fail.", "The plan was bold. And it could not fail."),
        ("We must consider that the States are weak.", "We must consider the States are weak."),
        ("It was judged that he left.", "It was judged he left."),
    ],
)
def test_punctuation_and_that_must_not(text: str, forbidden: str) -> None:
    assert forbidden not in all_results(text), sorted(all_results(text))


def test_as_to_of_so_far_as_to_stays() -> None:
    text = "They should so far abandon the rules of caution as to place their fate in his hands."
    assert not any("caution about place" in out for out in all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("He walked as far as the church.", "He walked so far as the church."),
        ("We came to the agreement that we would wait.", "We came to the agreement we would wait."),
        ("I asked if she had seen him;—yes: she believed he was out.", "him;—yes; she believed"),
    ],
)
def test_reading_fixes_must_not(text: str, forbidden: str) -> None:
    assert not any(forbidden in out for out in all_results(text)), sorted(all_results(text))


def test_as_far_as_i_know_still_changes() -> None:
    assert "So far as I know, he left." in all_results("As far as I know, he left.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("They can see the hill.", "They are able to see the hill."),
        ("He can swim well.", "He is able to swim well."),
        ("We must go now.", "We have to go now."),
        ("She must leave today.", "She has to leave today."),
    ],
)
def test_modal_periphrases_change(text: str, expected: str) -> None:
    assert expected in all_results(text), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("He must have gone.", "He has to have gone."),
        ("They can be trusted.", "They are able to be trusted."),
        ("They cannot see.", "They are able to"),
        ("The law can decide.", "The law is able to decide."),
    ],
)
def test_modal_periphrases_must_not(text: str, forbidden: str) -> None:
    assert not any(forbidden in out for out in all_results(text)), sorted(all_results(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("It is less safe here than in that which left them free.", "than in what left"),
        ("She gave a command that he must run down the road.", "that he has to run"),
    ],
)
def test_second_reading_fixes_must_not(text: str, forbidden: str) -> None:
    assert not any(forbidden in out for out in all_results(text)), sorted(all_results(text))
