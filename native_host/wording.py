"""The words a person reads about a rewrite: the `summary` of the `rewrite` reply (PROTOCOL.md), the
markers panel's standing, the linkability levels, and the command that installs a stronger model. One
module, so a change of wording is made here and nowhere else; the code that chooses among these words
(native_host/rewrite/summary.py, native_host/style/linkability.py, the model choice) holds no sentence.

It imports nothing, so every room may read it (style/, rewrite/, the host, the model lifecycle): it sits
beside paths.py at the bottom of the import table (docs/architecture.md). Templates use str.format with
named fields; `{is_}` is "is " where the sentence speaks of being linked to you and "" where it speaks
of standing out from other writers.

No family code ("char3", "delta", "function_words", marker family names) reaches these words: every
family is said by what a reader would notice (the attackers are described in docs/anonymization.md).
"""

from __future__ import annotations

# --- models ------------------------------------------------------------------------------------------

# What the options page, `models` and the next step offer for a stronger rewriter (README "Use a stronger
# model").
INSTALL_COMMAND = "fantasma setup --model Qwen/Qwen3.5-0.8B --use"

# --- the attackers and the habits -----------------------------------------------------------------------

# The attacker families of native_host/style/identify.py (FAMILIES), by what each one reads: the words the
# after-rewrite summary and the guide use for them.
ATTACKER_WORDS = {
    "char3": "the letter patterns of your spelling",  # character 3-grams
    "delta": "your choice of common words",  # Cosine Delta over the 300 most frequent words
    "function_words": "your punctuation and small words",  # function words + punctuation marks
}
ANOTHER_ATTACKER = "another part of your style"  # a family not in ATTACKER_WORDS
SINGULAR = frozenset({ATTACKER_WORDS["delta"]})  # the phrases above that take "stands out", not "stand out"
THE_TEXT = "the text"  # the subject when no family is named; singular too
IS = "is "  # `{is_}` of the templates below, in profile mode

# The marker families of native_host/style/families/ (FAMILY), as habits a person recognises.
HABIT_WORDS = {
    "invisible": "invisible characters",
    "emoji": "emoji",
    "slang": "slang and abbreviations",
    "misspellings": "misspellings",
    "greetings": "greetings and sign-offs",
    "spelling": "British or American spelling",
    "quotes": "the style of your quotes and apostrophes",
    "punctuation": "punctuation habits",
    "capitalization": "capital letters",
    "layout": "line breaks and spacing",
    "contractions": "contractions",
    "phrases": "pet phrases",
    "vocabulary": "rare words",
    "function_words": "favourite small words",
    "rhythm": "sentence rhythm",
    "formats": "number and date formats",
}

# --- the guide's reasons (style/reasons.py) ----------------------------------------------------------------

# Each reason names a style choice a writer can change, with a direction: a small word or connective and
# what else people write, a punctuation habit with its rate, sentence length; never a name, a number or a
# word of the subject (issue 43). `{writers}` is WRITERS, or WRITERS_LIKE_YOU with samples; rates are per
# 1,000 words (words) or per 100 words (marks).
WRITERS = "writers in general"
WRITERS_LIKE_YOU = "writers like you"  # with samples: the population's writers nearest yours
REASON_WORD = "'{word}' {times} in this text: you use it more than {writers} ({yours} against {theirs} per 1,000 words); {instead}"
REASON_INSTEAD = "others write '{other}'"
REASON_FEWER = "use it less or rephrase"
TIMES = ("once", "twice", "{n} times")  # how often a word occurs in the text
REASON_HERE = (
    "{here} of its {count} uses"  # 'of' 3 of its 10 uses in this text: which uses are in this sentence
)
REASON_MARK = "{marks}: {yours} per 100 words in this text against {theirs} for {writers}; use fewer"
REASON_SHORT = (
    "short sentences: yours run {yours} words on average here, {writers} average {theirs}; join some"
)
REASON_LONG = "this sentence runs {yours} words; {writers} average {theirs}; split it"
REASON_VERSE = (
    "this reads as quoted verse or a song: rewording it would misquote it; shorten it or leave it out if "
    "you may, else reword the sentences around it first"
)
REASON_QUOTED = (
    "most of this is quoted speech: telling what was said in your own words (reported speech) hides more "
    "than changing words inside the quotes"
)
REASON_SUBJECT = (
    "what gives you away here is mostly the subject itself ({what}), which you keep; rewording how you say "
    "it will not hide that"
)
# {what} above: the kinds of kept word the sentence's most give-away words are, in this order, joined
# "its names and topic words" (writer 9d: "'names, numbers' under a line with no names or numbers")
SUBJECT_KINDS = {
    "names": "names",
    "numbers": "numbers",
    "subject": "topic words",
    "people": "who it is about",
}
# a sentence that gives something away where no small word, mark or length is the cause: its content words
# as a whole (never named one by one: which of them carry a fact only the writer knows)
REASON_WORDING = (
    "no one small word or mark stands out here: it is the words you chose for it as a whole; say it in "
    "other words of your own, keeping its facts"
)
# What the guide compared the text with (`compared_with`): no samples, one, several; then the rivals.
GUIDE_SAMPLES = ("your writing samples", "your {n} writing sample", "your {n} writing samples")
GUIDE_AND_NAMED = " and {k} {people} you named"  # PERSON / PEOPLE below
GUIDE_NO_SAMPLES_YET = " (no samples yet)"  # after WRITERS in typicality mode without samples
# a sentence changed since the text the request compares with (`previous`): what its new wording added
REASON_NEW = "your new wording brought this in: {reason}"
# Punctuation marks (native_host/style/counting.py PUNCTUATION) by name.
MARK_WORDS = {
    ".": "full stops",
    ",": "commas",
    ";": "semicolons",
    ":": "colons",
    "!": "exclamation marks",
    "?": "question marks",
    "'": "apostrophes",
    '"': "double quotes",
    "(": "brackets",
    ")": "brackets",
    "-": "hyphens (a '--' dash counts as two)",
    "—": "dashes",
    "–": "dashes",
    "…": "ellipses",
}

# --- the linkability levels (style/linkability.py) ------------------------------------------------------

LEVEL_WORDS_PROFILE = {
    "likely": "likely to be linked to you",
    "possibly": "possibly linked to you",
    "unlikely": "unlikely to be linked to you",
}
LEVEL_WORDS_TYPICALITY = {
    "likely": "stands out from other writers",
    "possibly": "stands out a little from other writers",
    "unlikely": "reads like many other writers",
}
# How a typicality level read before the rewrite (LEVEL_WORDS_TYPICALITY says the present one).
TYPICALITY_BEFORE = {
    "likely": "it stood out",
    "possibly": "it stood out a little",
    "unlikely": "it read like many others",
}

# --- the headline -----------------------------------------------------------------------------------------

CANCELLED_UNCHANGED = "Cancelled before anything was rewritten; the text is unchanged."
STOPPED_PART_WAY = "Stopped part-way. "  # before the headline of a rewrite cancelled after some edits
NOT_MEASURED = "; how easy the text is to link to you could not be measured here."
# How many habits were removed and which are left ('14 habits removed, 2 left: sentence rhythm, ...').
HABITS_NONE = "No habits to remove"
HABITS_ALL_REMOVED = "{removed} removed, none left"
HABITS_SOME_REMOVED = "{removed} removed, {after} left: {named}"
HABITS_NONE_REMOVED = "No habit removed, {after} left: {named}"
HABITS_MORE = "{more} than before ({before} → {after}): {named}"
HABITS_OTHERS = " and {others}"  # after the habits named, for the rest
HABIT, MORE_HABIT, OTHER_KIND = "habit", "more habit", "other kind"  # nouns counted ("3 habits")
# The level in words, no number (the card shows the number on demand); BUT joins it to the habits when
# habits were removed and the level did not fall.
HEADLINE_AND, HEADLINE_BUT = ";", "; but"
LINK_STILL = "the text {is_}still {now}"
LINK_MOVED = " ({how}{which} than before)"  # which: LESS or MORE
LESS, MORE = "less", "more"
LINK_NOW = "the text {is_}now {now} (before: {was})"
STANDING = "This text {is_}{now}."  # the markers panel's headline (summary.standing)

# --- the figure ----------------------------------------------------------------------------------------------

# How much the score moved: below summary.A_LITTLE, below summary.PLAIN, else.
HOW_MUCH = ("a little ", "", "much ")
FIGURE_TYPICALITY = {
    "same": "stands out from other writers about as much as before",
    "lower": "stands out {how}less from other writers",
    "higher": "stands out {how}more from other writers than before",
}
FIGURE_PROFILE = {
    "same": "is about as easy to link to you as before",
    "lower": "is {how}harder to link to you",
    "higher": "is {how}easier to link to you than before",
}
FIGURE_TEXT = "identifiability {before} → {after}"
FIGURE_LINE = "{text} · {words}"
FIGURE_NO_SAMPLES = " (no writing samples)"
FIGURE_RIVALS = " · compared with {people} you named"
PERSON, PEOPLE = "person", "people"

# --- the details -------------------------------------------------------------------------------------------

MODEL_NOT_INSTALLED = "The language model is not installed, so only surface habits were fixed."
MODEL_NOT_LOADED = "The language model could not be loaded ({why}), so only surface habits were fixed."
WORDS_CHANGED = "{words} changed to hide your style."
WORD = "word"
KEPT_MARKS = (
    "Your {kept} were kept on purpose: a text stripped of them is easier to spot as rewritten "
    "(light strength turns them plain)."
)
DASHES, CURLY_QUOTES = "dashes", "curly quotes"
# Which parts still link the text (profile) or still stand out (typicality).
NOTHING_STANDS_OUT = "Nothing in it stands out from other writers any more."
NOTHING_POINTS = "Nothing in it points to you any more."
STILL = "{named} still {verb}"
STANDS_OUT, POINTS_TO_YOU = "stands out", "points to you"  # singular; summary._verb makes them plural
STANDS_OUT_MORE, POINTS_TO_YOU_MORE = "stands out more", "points to you more"
# After that line when the text after is "unlikely" to be linked to you (profile mode): what the level
# does not read and that it is no promise. At "unlikely" Cosine Delta is near chance, but one attacker
# reading letter patterns still names the writer about half the time, a third with the words the writer
# keeps hidden (docs/results.md, "The meter's calibration"). The composer says the same beside its meter
# (extension/_locales/en/messages.json, composerUnlikelyCaveat).
UNLIKELY_CAVEAT = (
    "Only how you write was measured, against the people you named, and that is no guarantee: someone you "
    "did not name, names, places, numbers and what the text is about can still point to you."
)
# Where a profile meter without rivals holds a score below the lowest boundary at "possibly"
# (style/linkability.py `held`): measured, "unlikely" kept its promise only with rivals.
NEEDS_SUSPECTS = (
    'The meter goes no lower than "possibly" until you name the people a reader might suspect and add '
    "samples of their writing: without them it cannot tell whether a reader would pick you out from among them."
)
# Why the figure rose.
WORSE = "Worse than before: {named} now {verb}, because {why}."
WORSE_BECAUSE = {
    "light": "light strength only fixes surface habits and does not watch this figure",
    "no_model": "without the language model only surface habits were fixed, and nothing watched this figure",
    "none_applied": (
        "fixing the surface habits moved it, and no edit that keeps your meaning brought it back down"
    ),
    "searched": "fixing the surface habits moved it more than the edits that keep your meaning could undo",
    "wording": "the new wording moved it",
}
# What the figure compared the text with, when that is not simply your samples.
COMPARED_WITH_RIVALS = "Compared with your own writing and that of {people} you named ({names})."
RIVALS_UNREADABLE = "The writing of the people you named could not be read, so only yours was used."
TYPICALITY_BECAUSE = {
    "profile_off": "Your writing profile is switched off (“use my writing profile”)",
    "no_samples": "Fantasma has no samples of your writing yet",
    "one_sample": "Fantasma has only one piece of your writing",
    "unreadable": "Your writing samples could not be read",
}
COMPARED_WITH_WRITERS = "{why}, so the text was compared with writers in general, not with you."

# --- the next step -------------------------------------------------------------------------------------------

# The one step that would help most, for someone at a terminal (`next_step`); `{install_command}` is
# INSTALL_COMMAND.
NEXT_STEPS = {
    "reinstall": "Reinstall Fantasma: the data it compares writing with is missing or damaged.",
    "install_model": "Install the language model with `fantasma setup`: without it only surface habits are fixed.",
    "add_samples": (
        "Add a few pages of your own writing (options page, “Your writing profile”, or `fantasma profile add "
        "FILE`), so the rewrite aims at what gives you away."
    ),
    "strong": (
        "Rewrite at strong strength (options page, or `fantasma rewrite --strength strong`): it changes up to "
        "a quarter of the words to hide your style."
    ),
    "stronger_model": (
        "Install a stronger rewriting model: `{install_command}` (the options page's Model section lists "
        "what is installed)."
    ),
    "add_rivals": (
        "Add some writing of the people a reader might suspect (options page, or `fantasma profile add "
        "--rival NAME FILE`): the rewrite then aims at what tells you apart from them."
    ),
    "by_hand": (
        "Reword by hand the sentences that still sound like you: “Write privately…” shades the ones that give "
        "you away most and offers other wordings."
    ),
}
# The same steps for someone in the browser (the card, the popup): the options page, where it can do the
# step; a terminal command only where the browser cannot (installing software). Same keys as NEXT_STEPS.
NEXT_STEPS_IN_BROWSER = {
    **NEXT_STEPS,
    "add_samples": (
        "Add a few pages of your own writing on the options page, under “Your writing profile”, so the "
        "rewrite aims at what gives you away."
    ),
    "strong": (
        "Choose “strong” as the strength on the options page and rewrite again: it changes up to a quarter "
        "of the words to hide your style."
    ),
    "stronger_model": (
        "Install a stronger rewriting model (in a terminal: `{install_command}`); the options page's Model "
        "section then lets you choose it."
    ),
    "add_rivals": (
        "On the options page, add some writing of the people a reader might suspect: the rewrite then aims "
        "at what tells you apart from them."
    ),
}
