"""Fixes from reading the eval's changed sentences (2026-12-01, issue 10's naturalness goal): each has
a case that must still change and one that must not (docs/anonymization-edits.md, "Fifth pass")."""

from __future__ import annotations

import pytest

from native_host.rewrite.edits import Edit, propose


def apply(text: str, edit: Edit) -> str:
    return text[: edit.start] + edit.replacement + text[edit.end :]


def outputs(text: str) -> set[str]:
    return {apply(text, e) for e in propose(text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a split after a pronoun subject with its verb
        (
            "He then got into a ship called the President, and I went into another one.",
            "He then got into a ship called the President. I went into another one.",
        ),
        (
            "We waited for hours at the old station, and he then left for home.",
            "We waited for hours at the old station. He then left for home.",
        ),
        (
            "We waited for hours at the old station and he went home.",
            "We waited for hours at the old station, and he went home.",
        ),
        # the preposition "along with" / "together with"
        ("The army, along with the navy, was ready.", "The army, together with the navy, was ready."),
        ("He sent the letter together with a gift.", "He sent the letter along with a gift."),
        # "and so" as a conclusion
        ("It was late, and so we went home.", "It was late, and therefore we went home."),
        # the part-of-speech cues: a verb after a pronoun, a noun after a determiner
        ("We start at noon.", "We begin at noon."),
        ("The doctor came late.", "The physician came late."),
        # commas around an adverb inside a clause; "no one" as a pronoun; "certainly" inside a clause
        ("He was, therefore, late for the train.", "He was therefore late for the train."),
        ("No one came to the door.", "Nobody came to the door."),
        ("He will certainly come to the house.", "He will surely come to the house."),
        ("This power was given to them.", "The power was given to them."),
        ("Apart from this, the plan was sound.", "Aside from this, the plan was sound."),
        # 's / 'd read by the verb after them, past an adverb
        ("There's never been a traveler here.", "There has never been a traveler here."),
        ("It's never easy to go home.", "It is never easy to go home."),
        ("So we went home at last.", "Therefore, we went home at last."),
        ("The nations of Europe were at war.", "The countries of Europe were at war."),
        ("The room was quite large and cold.", "The room was rather large and cold."),
        ("They had fond memories of the old house.", "They had affectionate memories of the old house."),
        # the 79b0907 runs' failures (anon-natural2): the plurals keep their pairs, purpose "so that" keeps
        # "in order that"
        (
            "Such were the consequences of the fallacious principle on which it was founded.",
            "Such were the results of the fallacious principle on which it was founded.",
        ),
        (
            "Certainly in most of the countries of Europe postal savings banks exist.",
            "Certainly in most of the nations of Europe postal savings banks exist.",
        ),
        (
            "He ran fast so that he might catch the coach.",
            "He ran fast in order that he might catch the coach.",
        ),
        # an aside set off by dashes still reads as commas or parentheses (rewrite/edits/syntax.py)
        (
            "It had been a mild, serene spring day—one of those days which rise shining over the earth.",
            "It had been a mild, serene spring day, one of those days which rise shining over the earth.",
        ),
        (
            "I remember the master stroking her bonny hair—it pleased him rarely to see her gentle—and saying so.",
            "I remember the master stroking her bonny hair (it pleased him rarely to see her gentle) and saying so.",
        ),
        # the synonym is still offered where it does not repeat a nearby word
        (
            "Such organs do not belong to low, vulgar forms; they are fair.",
            "Such organs do not belong to low, coarse forms; they are fair.",
        ),
        # causal "as" and a plain "each" are still offered (the 913cdce fixes only narrow them)
        (
            "He stayed at home all day, as he was tired of the long road.",
            "He stayed at home all day, because he was tired of the long road.",
        ),
        (
            "They searched each room of the old house before they left.",
            "They searched every room of the old house before they left.",
        ),
    ],
)
def test_reading_fixes_still_change(text: str, expected: str) -> None:
    assert expected in outputs(text), sorted(outputs(text))


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        # gapping: "I into another" has no verb of its own
        (
            "He then got into a ship called the President, and I into another called the Tontine.",
            "President. I into another",
        ),
        ("She took the red apple from the bowl, and he the green one.", ". He the green"),
        # a compound subject, not two clauses (the 12-01 eval: "then the Lieutenant-General, and I went")
        (
            "Then we sent them home; then the Lieutenant-General and I went off on a gallop.",
            "the Lieutenant-General, and I went",
        ),
        # "all along" (all the while) and the verb particle "came along" are no "along with"
        (
            "They hung on her story, interrupting her all along with eager questions.",
            "all together with",
        ),
        ("The dog came along with us to the river.", "came together with"),
        ("They got together with their neighbours.", "got along with"),
        # "so" of degree
        ("He is the finest horse, and so beautiful and shiny and black.", "therefore beautiful"),
        ("He is the finest horse, and so quickly gone.", "therefore quickly"),
        # after an adjective a noun ("a short stay", "a quick start"), not the verb's synonym
        ("He got a quick start in life.", "quick begin"),
        # before a noun it modifies, no noun synonym ("any material change" is no "stuff change")
        ("It was a material change in the law.", "stuff change"),
        # an adverb opening the next clause keeps its commas
        ("If it has any influence, therefore, it must be on the mode.", "influence therefore it"),
        # "no one of these" is not "nobody of these"; "certainly" set off by commas concedes
        ("No one of these mischiefs is less than the last.", "Nobody of"),
        ("He was better in health, certainly, than before.", "surely"),
        ("He was better in health, certainly, than before.", "definitely"),
        ("I used to take a seat apart from them, near the window.", "seat aside from"),
        ("There's never been a traveler here.", "There is never been"),
        ("So saying, she ran off to the house.", "Therefore, saying"),
        # fixed phrases: "the laws of nations", "in the gift of"
        ("The laws of nations afford just causes of war.", "laws of countries"),
        ("He asked for the bottom office in the gift of the government.", "in the present of"),
        ("They could be quite sure her approbation was sincere.", "rather sure"),
        # an adjective's preposition belongs to it: "fond of" is no "affectionate of"
        ("The favours of the gentry made him fond of his lord.", "affectionate of"),
        # a list of phrases with participles is no pair of clauses
        (
            "The presents of good cheer passing and repassing, tokens of regard; the evergreens "
            "distributed about houses and churches, emblems of peace; all these have a pleasing effect.",
            "regard. The evergreens",
        ),
        # a clause broken off after its auxiliary is not a sentence of its own
        ("He swore it was not mine, and he'd, but I'll not repeat his language.", "he'd. But"),
        # "from this point" points back
        ("From this point, we may travel on to the lakes.", "From the point"),
        # "under the influence" is the idiom for drunk (2026-12-02 medium eval sample)
        ("It might be under this influence that Kenyon threw in a criticism.", "under the influence"),
        ("He left under this impression, and said nothing more.", "under the impression"),
        # the 79b0907 runs' failures (anon-natural2): consequence (importance), country (countryside),
        # multiplication (increase in number), detailed (set out in detail), "So that" of result
        (
            "The interest of their local rulers in the power and consequence of their offices.",
            "power and result",
        ),
        (
            "The interest of their local rulers in the power and consequence of their offices.",
            "power and effect",
        ),
        ("Steam-boats had not as yet confounded town with country.", "town with nation"),
        ("One source indicated, is the multiplication of offices under the new government.", "propagation"),
        (
            "From these considerations, which might, if consistent with prudence, be more amplified and "
            "detailed, it is easy to see that jealousies may slide into the minds of the cabinets.",
            "amplified and elaborate",
        ),
        (
            "He is likely to have a pernicious effect on those with whom he associates.",
            "pernicious consequence",
        ),
        (
            "So that here, during the hundred years that had elapsed since the first settlement, they lived.",
            "In order that here",
        ),
        (
            "The departments shall be separate and distinct, so that neither exercise the powers of the other.",
            "in order that neither",
        ),
        # a stammer or a broken-off thought keeps its dash (style.families.punctuation.interrupted_dash)
        ("I could still be loving him, if—no, no! Even if he had doted on me.", "if, no"),
        (
            "He swore it was not, nor ever should be, mine; and he’d—but I’ll not repeat his language.",
            "he’d, but",
        ),
        ("It has actually been let—and—what do you think? It has been taken.", "let, and, what"),
        ("It has actually been let—and—what do you think? It has been taken.", "(and)"),
        ("He said she might return in a short time to—the house of her ancestors—and stay.", "to, the house"),
        # senses read wrong in the 2026-12-02 eval samples (lexicon_deny.txt)
        ("None could equal them for the splendor of their array, the gallantry of their devices.", "valor"),
        ("True, generous feeling is made small account of by some, but not by her.", "history"),
        ("I am surprised my father has never had me instructed in the modern languages.", "contemporary"),
        ("They are still to be seen in the faded frescos of Giotto.", "bleached"),
        ("They looked upon his regulations as the established laws of honorable housekeeping.", "honest"),
        # a synonym already standing next to the word
        ("Such organs do not belong to coarse, vulgar forms; they are fair.", "coarse, coarse"),
        # the 0d69288 eval's strong sample: regret is no sorrow, keen air is not "penetrating"
        ("They devote their whole life to misery and vain regret.", "vain sorrow"),
        ("It was a beverage in the skilful mixture of which he prided himself.", "adept mixture"),
        # a dropped comma before "and" + a noun subject makes a garden path (the 3c23f4f --rivals sample)
        (
            "Dwellings had risen close to the hill's foot, and the meadow that lay on the other side of "
            "the road had been cultivated.",
            "foot and the meadow",
        ),
        ("The flower grew in a high, keen atmosphere.", "penetrating atmosphere"),
        # the 913cdce eval samples (docs/results.md): a "though" clause split from its "yet", a time read as
        # a cause, a pair's "each", two senses
        (
            "The circumstances are so complicated that, though we may clearly see upon the whole that there "
            "has been mismanagement, yet it may be impracticable to pronounce to whose account it is due.",
            "mismanagement. Yet",
        ),
        (
            "The old gentleman's countenance beamed with delight, as he stirred this mighty bowl.",
            "because he",
        ),
        ("She stood at the bottom of the long room, for there was a fire at each end of it.", "every end"),
        ("I felt my heels and coat-laps peculiar subjects of assault.", "curious subjects"),
        ("Those whom the constitution has not admitted to the rights of suffrage.", "acknowledged"),
        # and the 34670a7 samples
        ("She felt disposed to encourage an acquaintance she found so agreeable.", "familiarity"),
        ("A lusty dame rushed into the midst of us flourishing a frying-pan.", "thriving"),
    ],
)
def test_reading_fixes_must_not(text: str, forbidden: str) -> None:
    assert not any(forbidden in out for out in outputs(text)), sorted(
        o for o in outputs(text) if forbidden in o
    )


@pytest.mark.parametrize(
    ("word", "bad"),
    [
        # forms much rarer than the word they replace (a mass noun pluralized, an archaism) ...
        ("materials", "stuffs"),
        ("snakes", "serpents"),
        ("illnesses", "sicknesses"),
        # ... or much commoner (a vaguer word in another sense)
        ("avert", "avoid"),
        ("correspond", "match"),
        # senses read wrong in the eval's chunks (lexicon_deny.txt)
        ("creature", "fauna"),
        ("castle", "palace"),
        ("curious", "funny"),
        ("fortunes", "hazards"),
        ("apparent", "plain"),
        # a plural WordNet lists as a noun of its own ("manners": conduct) is no plural of the singular
        ("manners", "ways"),
        ("lodgings", "housings"),
        ("premises", "assumptions"),
        ("badly", "severely"),
        ("reckon", "think"),
        ("aroused", "elicited"),
        ("tune", "melody"),
        ("tales", "narratives"),
        ("despair", "desperation"),
        ("ceased", "quit"),
        ("settlement", "colony"),
        ("plan", "program"),
        # a denied pair in every form, also where the curated table listed it ("wealthy <> rich")
        ("richest", "wealthiest"),
        ("apprehend", "grasp"),
        ("aroused", "provoked"),
        ("consequence", "result"),
        ("consequence", "effect"),
        ("country", "nation"),
        ("multiplication", "propagation"),
        ("detailed", "elaborate"),
        ("careful", "detailed"),
        ("gallantry", "valor"),
        ("account", "history"),
        ("modern", "contemporary"),
        ("charms", "appeals"),
        ("habit", "wont"),
        ("leans", "tilts"),
        ("resumed", "restarted"),
        ("enduring", "abiding"),
        ("faded", "bleached"),
        ("honorable", "honest"),
        ("accumulating", "collecting"),
        ("accumulated", "compiled"),
        ("spectator", "witness"),
        ("impressions", "beliefs"),
        ("merry", "jolly"),
        ("honest", "honorable"),
        ("peculiar", "curious"),
        ("admitted", "acknowledged"),
        ("acquaintance", "familiarity"),
        ("flourishing", "thriving"),
    ],
)
def test_lexicon_rows_dropped_by_frequency_and_reading(word: str, bad: str) -> None:
    from native_host.rewrite.edits.lexicon_data import substitutes

    assert bad not in {s.word for s in substitutes(word)}


def test_lexicon_keeps_forms_of_similar_frequency() -> None:
    from native_host.rewrite.edits.lexicon_data import substitutes

    assert "physician" in {s.word for s in substitutes("doctor")}
    assert "begin" in {s.word for s in substitutes("start")}
    assert "countries" in {s.word for s in substitutes("nations")}
    assert "manner" in {s.word for s in substitutes("mode")}
    assert "lasting" in {s.word for s in substitutes("enduring")}  # only "enduring > abiding" is denied
