"""The rewrite pipeline's first neutralize of the whole text stops between steps when the rewrite is
cancelled (issue 14: on a long text it ran to the end, seconds, before the cancel was looked at)."""

from __future__ import annotations

import threading

from native_host.eval.texts import chat_text
from native_host.rewrite import RewriteOptions, rewrite


class SetAfterQueries(threading.Event):
    """Reads as unset for the first `unset_queries` is_set() calls and as set after them; counts them."""

    def __init__(self, unset_queries: int) -> None:
        super().__init__()
        self.unset_queries = unset_queries
        self.queries = 0

    def is_set(self) -> bool:
        self.queries += 1
        return self.queries > self.unset_queries


def test_the_first_neutralize_looks_at_the_cancel_between_steps():
    never = SetAfterQueries(10**9)
    result = rewrite(chat_text(8192), RewriteOptions(strength="light"), cancel=never)
    assert not result.cancelled and result.path == "neutralizer"
    # the pipeline itself looks twice (after analyze, after neutralize); the rest are neutralize's steps
    assert never.queries > 5, never.queries


def test_a_cancel_inside_the_first_neutralize_returns_the_text_unchanged():
    text = chat_text(8192, seed=2)
    # query 1 is the pipeline's own check after analyze; the next one is inside neutralize
    cancel = SetAfterQueries(1)
    result = rewrite(text, RewriteOptions(strength="light"), cancel=cancel)
    assert result.cancelled and result.text == text and result.edits == []
