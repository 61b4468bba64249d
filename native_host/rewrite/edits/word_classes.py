"""The word classes every edit family reads: one vocabulary, each class named for what it is.

Where two families need different sets (prepositions before "whom" vs the ones after an adjective), they are
two classes with two names here, never one set bent to both. The phrase tables (data/*_phrases.tsv) name
these classes in their conditions (`next_in(DEFINITE_DETERMINERS a)`): `named(name)` reads one by its name.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- pronouns and subjects -------------------------------------------------------------------------------

# personal pronouns as subjects (also the subjects of a dialogue tag: "said he")
PERSONAL_SUBJECTS = _words("i he she we they")

# pronoun subjects, with the dummy "it" and "there"
PRONOUN_SUBJECTS = _words("i he she we they it there")

# the subjects of an object relative clause ("the powers which they possess")
PERSONAL_SUBJECTS_AND_YOU = _words("i he she we they you")

# words that open a subject (that-deletion: "said that he")
SUBJECT_STARTERS = _words(
    "i he she we they you it there this these those the a an his her their our my your its some many most"
)

# words that open the subject of a clause after ", that" or ", and" (clause_punctuation)
CLAUSE_SUBJECT_STARTERS = _words(
    "i he she we they you it there this these those the a an his her their our my your its such no every "
    "each all some many most one"
)

# words that open an independent clause: a split there leaves two full sentences (syntax)
SENTENCE_SUBJECT_STARTERS = _words(
    "i he she we they it there this these those the a an his her their our my your its some many most no "
    "each every such one all both"
)

# the first word of a clause's subject ("because he", "since the")
SUBJECT_OPENERS = _words("i he she we they it there this these those the his her their our my its such")

# --- subordinators ------------------------------------------------------------------------------------

# subordinators whose adverbial clause may go to the front or the back ("X because Y." <-> "Because Y, X.")
FRONTABLE_SUBORDINATORS = _words("because if when although though unless while whereas once")

# subordinators after whose short opening clause the comma is optional ("When he came she left.")
COMMA_OPTIONAL_SUBORDINATORS = frozenset(
    "if|when|whenever|because|although|though|unless|once|after|before|as soon as".split("|")
)

# --- determiners -----------------------------------------------------------------------------------------

# articles, demonstratives, possessives and quantifiers before a noun
DETERMINERS = _words("the a an this that these those his her their its our my your some any every each no")

# determiners that point to something known: "the", demonstratives, possessives, "whose"
DEFINITE_DETERMINERS = _words("the these those his her their its our my your this that whose")

# determiners and quantifiers: a noun or an adjective follows (lexical)
NOUN_CUES = _words(
    "a an another any both each either every few her his its many my neither no our several some such "
    "that the their these this those whose your"
)

# "the" and the possessives ("the house of his father")
POSSESSIVE_DETERMINERS = _words("her his its my our the their your")

# determiners of a clause's subject ("and the Senate is")
CLAUSE_DETERMINERS = _words("each every her his its my our the their these this")

# a word right before one of these takes an object: a verb, not a noun (lexical)
OBJECT_STARTERS = _words("a an her his its my our the their these this those your")

# --- prepositions ----------------------------------------------------------------------------------------

# prepositions (before "whom"; after them "and/but" + a word is no separate predicate)
PREPOSITIONS = _words(
    "of to for with from by in on at about upon among between through without under over into"
)

# an adjective right before one of these takes it as its complement ("fond of", "liable to")
COMPLEMENT_PREPOSITIONS = _words("about at for from in of on to upon with")

# prepositions that open an introductory phrase ("In this case, we")
OPENING_PREPOSITIONS = _words(
    "after among at before by during for from in on since under with within without"
)

# --- verbs -----------------------------------------------------------------------------------------------

# auxiliaries, "be" and "been" included: a verb that makes a clause (syntax)
AUXILIARIES = _words(
    "are be been can could did do does had has have is may might must shall should was were will would"
)

# finite auxiliaries (clause_punctuation)
FINITE_AUXILIARIES = _words(
    "are can could did do does had has have is may might must shall should was were will would"
)

# finite auxiliaries that may follow a relative pronoun ("that is", "who will"), "shall" aside
RELATIVE_AUXILIARIES = _words(
    "are can could did do does had has have is may might must should was were will would"
)

# a finite verb after a short noun phrase ("said the man was ill")
NOUN_PHRASE_AUXILIARIES = _words(
    "are can could did does had has have is may might must should was were will would"
)

# auxiliaries that agree with a plural subject ("they all are")
PLURAL_AUXILIARIES = _words("are can could did do had have may might must shall should were will would")

# forms of "be" and the auxiliaries ("it was indeed a")
BE_AND_AUXILIARIES = _words(
    "is was are were be been will would shall should may might must can could has have had does did"
)

# forms of "be"
BE_FORMS = _words("am are be been being is was were")

# after "as" + subject, a verb that names a state reads as a cause ("as he was tired")
STATE_VERBS = _words("am are be been did do does had has have is knew know was were")

# what makes "have" the perfect auxiliary: a participle, or never/already/...
PARTICIPLES_AFTER_HAVE = _words(
    "already always become been begun brought come done ever felt found given gone got gotten had heard "
    "held just kept known left lost made met never not paid put read run said seen sent set shown spoken "
    "stood taken thought told understood won written"
)

# verbs that take a that-clause
THAT_VERBS = _words(
    "acknowledge acknowledged add added admit admitted agree agreed allow allowed answer answered argue "
    "argued assume assumed believe believed believes claim claimed conceive conceived conclude concluded "
    "confess confessed consider considered declare declared doubt expect expected fear feared feel feels "
    "felt find forget forgot found grant granted guess hope hoped hopes imagine imagined infer inferred "
    "insist insisted judge judged knew know knows learn learned learnt maintain maintained notice noticed "
    "observe observed observes perceive perceived perceives presume presumed prove proved proves realise "
    "realised realize realized recollect recollected remark remarked remember remembered replied reply "
    "said say says show showed shown suggest suggested suppose supposed supposes suspect suspected think "
    "thinks thought trust trusted understand understood"
)

# of those, the ones that also take a plain object: "that" goes only before a pronoun subject
THAT_VERBS_PRONOUN_ONLY = _words(
    "acknowledge acknowledged add added allow allowed answer answered conceive conceived conclude "
    "concluded confess confessed consider considered declare declared expect expected forget forgot grant "
    "granted imagine imagined infer inferred judge judged learn learned learnt maintain maintained "
    "observe observed observes perceive perceived perceives presume presumed prove proved proves "
    "recollect recollected remark remarked remember remembered replied reply suspect suspected trust "
    "trusted understand understood"
)

# verbs of a dialogue tag
SPEECH_VERBS = _words(
    "added answered asked continued cried exclaimed observed remarked replied returned said whispered"
)

# verbs of saying and thinking: their subject is a person ("others think")
PEOPLE_VERBS = _words(
    "argue argued believe believed claim claimed fear feared feel felt hope hoped knew know said say "
    "think thought want wanted"
)

# words before an indirect question ("asked if" = "asked whether")
ASK_VERBS = _words(
    "ask asked asks asking wonder wondered wonders wondering know knew see saw check checked doubt "
    "doubted decide decided determine determined tell unsure sure"
)

# words whose "on" may be "upon" ("depend on")
UPON_VERBS = _words(
    "depend depends depended depending rely relies relied relying based insist insists insisted dwell "
    "dwelt dwelling imposed impose bestowed bestow conferred confer incumbent reflect reflected "
    "reflecting entered enter embark embarked embarking touched touch"
)

# "seems to be" + an adjective
SEEM_VERBS = _words("seem seems seemed appear appears appeared")

# verbs of turning or going ("turned round" = "turned around")
TURN_VERBS = _words(
    "turn turned turns turning look looked looks looking come came comes coming go went goes going"
)

# verbs before "(a) part of"
FORM_PART_VERBS = _words(
    "is was are were be been form forms formed forming become becomes became constitute constitutes"
)

# "is one of the most" = "is among the most"
BE_BEFORE_AMONG = _words("is was be been")

# --- nouns -----------------------------------------------------------------------------------------------

# nouns for people: "who", not "which"
PEOPLE_NOUNS = _words(
    "anybody anyone author authors boy boys child children citizen citizens everybody everyone friend "
    "friends gentleman gentlemen girl girls individual individuals ladies lady man member members men "
    "officer officers one parent parents people person somebody someone stranger strangers student "
    "students teacher teachers those woman women worker workers writer writers"
)

# nouns that take a that-clause ("the fact that"): that "that" is no relative
COMPLEMENT_NOUNS = _words(
    "agreement argument assumption assurance belief certainty chance claim conclusion condition "
    "consideration conviction danger day decision degree demand determination doubt evidence expectation "
    "extent fact fear feeling guarantee hope hypothesis idea impression knowledge message moment news "
    "notice notion opinion point possibility presumption principle promise proof proposition reason "
    "report requirement resolution risk rule rumor rumour sense sign so statement such suggestion "
    "supposition suspicion theory thought time understanding view warning way wish"
)

# places and situations: "in which" = "where"
PLACE_NOUNS = _words(
    "area areas building case cases church cities city countries country extent field garden house houses "
    "office part parts place places point region regions room rooms school situation society state states "
    "street system town towns village way world"
)

# things that come in twos: "at each end" is not "at every end"
PAIRED_NOUNS = _words("arm bank cheek ear end eye foot half hand leg parent shoulder side twin")

# plural units of time ("many times")
TIME_UNITS = _words("ages centuries days hours minutes moments months seconds times weeks years")

# plurals without an -s
IRREGULAR_PLURALS = _words("children men people women")

# plurals that count nothing ("less pains")
NOT_COUNT_PLURALS = _words(
    "amends arms clothes goods manners means news odds pains riches spirits thanks wages"
)

# words whose "about" names a topic ("talked about")
ABOUT_TOPIC_HEADS = _words(
    "anxious argument arguments ask asked book books care cared certain complain complained complaint "
    "concerned curious debate debates dispute disputes doubt doubts feel felt hear heard idea ideas "
    "information inquire inquired inquiry knew know knowledge known learn learned learnt letter letters "
    "news opinion opinions question questions read remark remarks said say speak speaking spoke spoken "
    "stories story sure talk talked talking tell think thinking thought told uncertain uneasy worried "
    "worry write writing written wrote"
)

# --- adjectives, adverbs and the rest --------------------------------------------------------------------

# adjectives without degrees: "quite sure" is "completely sure", never "rather sure"
ABSOLUTE_ADJECTIVES = _words(
    "sure certain right wrong true false alone impossible possible different dead empty full clear "
    "complete ready unable able aware safe still sufficient enough unknown equal same perfect"
)

# comparatives ("much/far better")
COMPARATIVES = _words(
    "better earlier easier farther fewer further greater harder higher larger later less longer lower "
    "more nearer older poorer richer shorter smaller stronger weaker wider worse younger"
)

# numbers written as words
NUMBER_WORDS = _words(
    "billion dozen eight eighty eleven fifteen fifty five forty four half hundred million nine ninety "
    "seven seventy six sixty ten thirty thousand three twelve twenty two"
)

# adverbs between an auxiliary and its verb ("there's never been")
ADVERBS_BEFORE_VERB = _words(
    "already also always ever hardly just long never not often once only scarcely still"
)

# words after which "so" is a degree ("so many"), not "therefore"
SO_OF_DEGREE_BEFORE = _words("many much far long few little that as to too very often well")

# words after "so" that are no adjective ending a clause
SO_ADJECTIVE_STOP = _words("as far few little long many much often that too very well")

# words before the noun "while" ("a while", "worth while")
WHILE_AS_NOUN_AFTER = _words("a the little short long worth this that whole")

# "all the same", "all the more": no "all of the"
ALL_THE_IDIOM_NOUNS = _words("same more less better worse way while time rest world")

# "every other", "every day": no "each"
EVERY_IDIOM_NOUNS = _words(
    "other single one thing body where day time bit last few now so once inch man penny second minute "
    "hour week month year two three four five six seven eight nine ten twenty hundred"
)

# words before which "both"/"either" is not inserted
NO_CORRELATIVE_BEFORE = _words("among amongst between both either neither whether")

# coordinators that make "not only X but also Y" no plain pair
NOT_ONLY_STOP = _words("also and both but either nor not only or")

# words before "only" that make it the adjective or a negation ("the only man")
ONLY_ADVERB_AFTER_STOP = _words(
    "the a an his her their its my our your this that these those not n't no if one whose"
)

# words after "only" that make it no "merely" ("only if")
ONLY_ADVERB_BEFORE_STOP = _words("if when because after before then once to one")

# words before "many" that make it no plain "numerous" ("how many")
MANY_ATTRIBUTIVE_STOP = _words("how so too as a great very the not these those his her their its my our your")

# words that are no adjective after "considered (to be)"
TO_BE_ADJECTIVE_STOP = _words("a an the his her their its my our your this that these those of in")

# adjectives that take a that-clause ("sure that")
THAT_ADJECTIVES = _words("afraid aware certain confident convinced glad happy pleased proud sorry sure")

# words after "as well as" that make it a comparison ("as well as he could")
NOT_ADDITIVE_AFTER = _words("any before ever he i it possible she they we you")

# words whose "along/together with" is a particle ("came along with us")
PARTICLE_BEFORE_ALONG = _words(
    "all turn turned turns turning look looked looks looking come came comes coming go went goes going "
    "get got gets getting went brought bring take took taken"
)

# coordinators and subordinators: a clause starts after them
CLAUSE_LINKS = _words("although and because but if since so that though until when while yet")


def named(name: str) -> frozenset[str]:
    """The class called `name` (a phrase table's condition names it); KeyError for no such class."""
    value = globals().get(name)
    if not name.isupper() or not isinstance(value, frozenset):
        raise KeyError(f"no word class {name!r} in word_classes.py")
    return value
