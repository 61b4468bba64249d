"""The alternations aimed at Cosine Delta's most frequent words (native_host.rewrite.edits.frequent_word_phrases):
each rule has cases that must change and cases that must not (names, numbers, quotes, negation, the
readings that would change the meaning)."""

from __future__ import annotations

import pytest

from native_host.rewrite.edits import Edit, propose
from native_host.rewrite.edits.text import negations


def apply(text: str, edit: Edit) -> str:
    return text[: edit.start] + edit.replacement + text[edit.end :]


def outputs(text: str) -> set[str]:
    return {apply(text, e) for e in propose(text)}


CHANGES = [
    # with / to / along / together
    ("They acted in accordance with the law.", "They acted according to the law."),
    ("The cost is small compared with the gain.", "The cost is small compared to the gain."),
    ("The cost is small compared to the gain.", "The cost is small compared with the gain."),
    ("He sent the letter together with a gift.", "He sent the letter along with a gift."),
    ("He sent the letter along with a gift.", "He sent the letter together with a gift."),
    ("He built it with the aid of a lever.", "He built it with the help of a lever."),
    ("In addition to the tax, they paid a fine.", "Besides the tax, they paid a fine."),
    ("They paid a fine besides the tax.", "They paid a fine in addition to the tax."),
    # under / in
    ("Under the circumstances, he did well.", "In the circumstances, he did well."),
    ("In these circumstances, he did well.", "Under these circumstances, he did well."),
    # by
    ("The case is by no means clear.", "The case is in no way clear."),
    ("He was excused by reason of his age.", "He was excused because of his age."),
    ("By this means the States keep their power.", "In this way the States keep their power."),
    # the fact that
    ("In view of the fact that the war was over, they left.", "Since the war was over, they left."),
    ("He went on in spite of the fact that it rained.", "He went on although it rained."),
    ("Given the fact that it rained, we stayed.", "Given that it rained, we stayed."),
    # conditions and time
    ("You may go, on condition that you return.", "You may go, provided that you return."),
    ("You may go provided that you return.", "You may go if you return."),
    ("At the present time the treasury is empty.", "At present the treasury is empty."),
    ("At first sight the plan seemed sound.", "At first glance the plan seemed sound."),
    ("The plan failed at the outset.", "The plan failed at the start."),
    # still / even
    ("Still more men came to the gate.", "Even more men came to the gate."),
    ("The danger is even greater now.", "The danger is still greater now."),
    # quantities
    ("Much of the land was sold.", "A great deal of the land was sold."),
    ("They marched a hundred miles.", "They marched one hundred miles."),
    ("They marched one hundred miles.", "They marched a hundred miles."),
    ("He left the others in the hall.", "He left the rest in the hall."),
    # round / around
    ("She turned round and left.", "She turned around and left."),
    ("She turned around and left.", "She turned round and left."),
    # word order: all
    ("They all went home.", "All of them went home."),
    ("We all know the answer.", "All of us know the answer."),
    ("All of them were gone.", "They all were gone."),
    ("He said that all of us had failed.", "He said that we all had failed."),
    # such / so
    ("It was such a large sum that he was afraid.", "It was so large a sum that he was afraid."),
    ("So large a sum had never been seen.", "Such a large sum had never been seen."),
    ("It was such an able plan.", "It was so able a plan."),
    # very
    ("He was a very old man.", "He was an old man."),
    ("The road was very long.", "The road was long."),
    # there are ... who
    ("There are many men who think so.", "Many men think so."),
    ("There were several members who voted against it.", "Several members voted against it."),
    # want / less / is to be / by + -ing / had
    ("They failed for want of money.", "They failed for lack of money."),
    ("There were less men than before.", "There were fewer men than before."),
    ("They keep power by establishing courts.", "They keep power through establishing courts."),
    ("He had gone home before the rain.", "He'd gone home before the rain."),
    ("It was indeed a strange sight.", "It was in fact a strange sight."),
    ("It was in fact a strange sight.", "It was indeed a strange sight."),
    ("Other people think so too.", "Others think so too."),
    ("Others think so too.", "Other people think so too."),
    ("He left the rest in the hall.", "He left the others in the hall."),
    ("The wall was strong enough to hold.", "The wall was sufficiently strong to hold."),
    ("The wall was sufficiently strong to hold.", "The wall was strong enough to hold."),
    ("He must choose the army or the navy.", "He must choose either the army or the navy."),
    ("The militia forms a part of the army.", "The militia forms part of the army."),
    ("The militia is part of the army.", "The militia is a part of the army."),
    (
        "Every government would join the cause. Plans would be made.",
        "Every government would join the cause, and plans would be made.",
    ),
    # the lexicon: regular "-ied" past forms now reach the table
    ("She replied that the hour was late.", "She answered that the hour was late."),
    ("He went in order to see the hall.", "He went so as to see the hall."),
]


@pytest.mark.parametrize(("text", "expected"), CHANGES)
def test_frequent_word_changes(text: str, expected: str) -> None:
    assert expected in outputs(text), sorted(outputs(text))


MUST_NOT = [
    # "according to him" is whose claim, not conformity: only the "in accordance with" direction
    ("He acted according to the law.", "He acted in accordance with the law."),
    # "compared with" before a verb is another construction
    ("It is small compared with being large.", "It is small compared to being large."),
    # the connective "Besides," is not the preposition
    ("Besides, the tax was low.", "In addition to, the tax was low."),
    # a negation stays: "not very good" is not "not good"
    ("The harvest was not very good.", "The harvest was not good."),
    ("It isn't very far.", "It isn't far."),
    # the adjective "very" ("the very man") and fixed "very much/well"
    ("He was the very man for the work.", "He was the man for the work."),
    ("I like it very much.", "I like it much."),
    ("She sang very well.", "She sang well."),
    # "still more" before "than" is a comparison of two things
    ("He had still more than enough.", "He had even more than enough."),
    # "you all" may be an object; "all of them" as an object stays
    ("I thank you all for coming.", "I thank all of you for coming."),
    ("He saw all of them at the inn.", "He saw they all at the inn."),
    # "they all" before a noun or adjective is no subject + verb
    ("They all alike were ruined.", "All of them alike were ruined."),
    # "such a" before a plural or a non-adjective
    ("It was such a pity.", "It was so pity a."),
    ("They were such good friends.", "They were so good friends."),
    # "and so a man" is not degree "so"
    ("He was poor, and so a man of no rank.", "He was poor, and such a man of no rank."),
    # a hundred "of" (the noun) and compound numbers stay
    ("Two thousand and one hundred men came.", "Two thousand and a hundred men came."),
    # "a hundred" inside a quotation is someone's exact words
    ('He wrote: "They marched a hundred miles."', 'He wrote: "They marched one hundred miles."'),
    # names: a capital mid-sentence is a name, not the phrase
    ("He met Still More in the hall.", "He met Even More in the hall."),
    # "the others'" possessive and "all the others"
    ("He read the others' letters.", "He read the rest' letters."),
    ("He left all the others behind.", "He left all the rest behind."),
    # "there are many N who" needs the plural noun right before "who" and a verb after
    ("There are many who think so.", "Many think so."),
    ("There is a man who thinks so.", "A man thinks so."),
    # "round" as a noun or adjective
    ("He won the first round and left.", "He won the first around and left."),
    # "under" stays: "under two exceptions" is "subject to", and "under the law" no quantity
    ("It passed under two exceptions only.", "It passed less than two exceptions only."),
    ("He lived under the law of the land.", "He lived less than the law of the land."),
    # "want" the verb, "less" before a mass noun or an idiom, "no less"
    ("They want of us a promise.", "They lack of us a promise."),
    ("He took less pains than his brother.", "He took fewer pains than his brother."),
    ("There was less money than before.", "There was fewer money than before."),
    ("They sent no less troops than before.", "They sent no fewer troops than before."),
    # "is to be" is mostly the planned future ("the President is to be elected"), not "must"
    ("The President is to be elected by the States.", "The President must be elected by the States."),
    ("It is to be hoped that he will come.", "It must be hoped that he will come."),
    # the passive "by", "by the time", "stood by watching"
    ("The law was made by the people.", "The law was made through the people."),
    ("He stood by watching the men.", "He stood through watching the men."),
    # "had" as the main verb ("she had a dog") and "had better"
    ("She had a dog and a cat.", "She'd a dog and a cat."),
    ("You had better go home.", "You'd better go home."),
    # "indeed" that closes a clause or opens a sentence is not the one inside a clause
    ("He was tired indeed.", "He was tired in fact."),
    ("Indeed, he was tired.", "In fact he was tired."),
    # "others" that are things, "the rest of", "many other people"
    ("Some states grew and others declined.", "Some states grew and other people declined."),
    ("He ate the rest of the bread.", "He ate the others of the bread."),
    ("Many other people came.", "Many others came."),
    # "long enough", "not strong enough", a noun before "enough"
    ("He stayed long enough to eat.", "He stayed sufficiently long to eat."),
    ("The wall was not strong enough to hold.", "The wall was not sufficiently strong to hold."),
    ("They had money enough to pay.", "They had sufficiently money to pay."),
    # "either" is not inserted after "whether", "between", "not", nor before a compound noun
    ("He asked whether the army or the navy came.", "He asked whether either the army or the navy came."),
    ("He did not choose the army or the navy.", "He did not choose either the army or the navy."),
    ("He joined the army or the navy yard.", "He joined either the army or the navy yard."),
    # "replied to" is not "answered to"; "so as to" does not open a sentence
    ("She replied to the letter at once.", "She answered to the letter at once."),
    ("In order to see the hall, he went.", "So as to see the hall, he went."),
    # pairs the eval's reading threw out (old abstract senses)
    ("They shook the fabric of the government.", "They shook the cloth of the government."),
    ("They were liable to error.", "They were apt to error."),
    ("It has been inferred that force was meant.", "It has been derived that force was meant."),
    ("It ensures the supremacy of the laws.", "It ensures the mastery of the laws."),
    ("It grew by means of new members.", "It grew by way of new members."),
    ("He came in spite of the rain.", "He came in venom of the rain."),
    ("In some ways she is just her age.", "In some manners she is just her age."),
    ("It might get him into trouble.", "It might receive him into trouble."),
    ("He spoke of the individual citizens.", "He spoke of the soul citizens."),
    ("The people exercise the government in person.", "The people workout the government in person."),
    # "part of" after other verbs ("took part of the bread" is not "a part"); "for the most part"
    ("He took part of the bread.", "He took a part of the bread."),
    # read in the third eval sample
    ("There can, in this view, be no difference.", "There can, in the view, be no difference."),
    (
        "He sorted the powers, as they may in their nature be laws.",
        "He sorted the powers, because they may in their nature be laws.",
    ),
    (
        "It is fresh in our memories how soon the press began.",
        "It is fresh in our memories how shortly the press began.",
    ),
    ("Nor will they barely make allowances.", "Nor will they hardly make allowances."),
    ("It may be obtained, if the persons can be found.", "It may be got, if the persons can be found."),
    # read in the fourth eval sample
    (
        "There never can be danger that the judges would act.",
        "There never can be hazard that the judges would act.",
    ),
    ("They grew in power and consequence by land.", "They grew in power and outcome by land."),
    # read in the fifth eval sample
    (
        "From this view of the subject it may be concluded.",
        "From the view of the subject it may be concluded.",
    ),
    ("It ends in aristocracy.", "It ends in nobility."),
    (
        "Which shape it will ultimately assume is unclear.",
        "Which shape it will ultimately presume is unclear.",
    ),
    # a merge with ", and" never extends a chain of them
    (
        "Every government would join the cause, and a letter would be sent. Plans would be made.",
        "Every government would join the cause, and a letter would be sent, and plans would be made.",
    ),
    ('"It is late," she observed, and rose.', '"It is late," she detected, and rose.'),
]


@pytest.mark.parametrize(("text", "forbidden"), MUST_NOT)
def test_frequent_word_must_not(text: str, forbidden: str) -> None:
    assert forbidden not in outputs(text), sorted(outputs(text))


def test_numbers_in_digits_stay() -> None:
    text = "They marched 100 miles in less than 5 days, under 3 flags."
    for edit in propose(text):
        changed = text[edit.start : edit.end]
        assert not any(ch.isdigit() for ch in changed), (edit.rule, changed)
    assert "They marched 100 miles in under 5 days, under 3 flags." in outputs(text)


@pytest.mark.parametrize(
    "text",
    [
        "The case is by no means clear, and the harvest was not very good.",
        "There are many men who never think so.",
        "They all went home, but none of them were happy.",
        "It was such a large sum that nobody could pay it.",
    ],
)
def test_negations_kept(text: str) -> None:
    for edit in propose(text):
        assert negations(apply(text, edit)) == negations(text), (edit.rule, apply(text, edit))


_CHECKED = {
    "they all->all of them",
    "so ADJ a->such a",
    "very-deletion",
    "there-are-N-who->N",
    "less->fewer",
    "by->through",
}


def test_word_order_and_intensity_edits_are_lm_checked() -> None:
    checked = {e.rule for text, _ in CHANGES for e in propose(text) if e.rule in _CHECKED}
    assert checked == _CHECKED
    for text, _ in CHANGES:
        for e in propose(text):
            if e.rule in checked:
                assert e.needs_lm_check, e.rule
