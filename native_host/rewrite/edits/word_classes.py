"""The word classes every edit family reads: one vocabulary (data/word_classes.tsv), each class named for
what it is.

    from native_host.rewrite.edits import word_classes as wc
    if prev in wc.DEFINITE_DETERMINERS: ...      # a frozenset of lower-case words
    wc.named("DEFINITE_DETERMINERS")             # the same, by name (a phrase table's condition names it)

Where two families need different sets (the prepositions before "whom", the ones an adjective takes as its
complement), they are two classes with two names, never one set bent to both: an edit stays what it was.
"""

from __future__ import annotations

from native_host.rewrite.edits.lexicon_data import DataError, table_rows


def _read() -> dict[str, frozenset[str]]:
    classes = {}
    for name, words, _what in table_rows("word_classes.tsv", 3):
        if name in classes:
            raise DataError(f"edit table word_classes.tsv: the class {name} twice")
        # a class with a phrase in it ("as soon as") separates its members by "|"
        classes[name] = frozenset(words.split("|") if "|" in words else words.split())
    return classes


_CLASSES = _read()
globals().update(_CLASSES)


def named(name: str) -> frozenset[str]:
    """The class called `name`; KeyError for no such class."""
    if name not in _CLASSES:
        raise KeyError(f"no word class {name!r} in data/word_classes.tsv")
    return _CLASSES[name]


def __getattr__(name: str) -> frozenset[str]:
    """Every class is a module attribute (set above); this only answers a name the table lacks (and tells
    type checkers what a class is)."""
    raise AttributeError(f"no word class {name!r} in data/word_classes.tsv")
