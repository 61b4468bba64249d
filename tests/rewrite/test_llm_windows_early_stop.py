"""A window candidate stops decoding as soon as it has failed a guard it cannot pass any more
(llm_windows.abandon_when, guards.settled_protected_failure): one that writes a number, link, handle,
tag or code span the source does not have (or repeats a protected one) once it is settled, never one
that keeps them. The guard function on strings, its soundness against the real neutralizer and
`check_protected` on continuations, and the real engine on a scripted tiny Llama (tests/engine/scripted.py)
that answers "hello 1788 world again world again ...", run on two windows: one whose source says 1787
(the candidate skips it for an invented 1788) and one whose source says 1788 (the candidate keeps it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from native_host import style
from native_host.engine import Engine
from native_host.rewrite import guards, llm_windows
from native_host.rewrite.options import RewriteOptions
from native_host.rewrite.windows import Window
from tests.engine.recording import Recording
from tests.engine.scripted import export_scripted


def settled(text: str, source: str) -> guards.Verdict | None:
    required = guards.protected_tokens(source, (), style.protected_spans(source))
    return guards.settled_protected_failure(text, source, required, style.protected_spans(text))


SOURCE = "The treaty of 1787 was signed at @hall with #delegates."


@pytest.mark.parametrize(
    ("prefix", "detail"),
    [
        ("The 1788 treaty", "invented name/number/link: '1788'"),  # the source's 1787 skipped for 1788
        ("It was signed at @hallway by", "invented name/number/link: '@hallway'"),
        ("In 1787 and 1787 again", "protected token(s) added: '1787'"),
        ("See www.example.org for", "invented name/number/link: 'www.example.org'"),
    ],
)
def test_a_settled_invented_or_added_token_fails_for_good(prefix, detail):
    verdict = settled(prefix, SOURCE)
    assert verdict is not None and verdict.guard == "protected" and verdict.detail == detail


@pytest.mark.parametrize(
    "prefix",
    [
        "The 1788",  # not settled: the next token may extend it ("17880", "1788.5")
        "The 178",  # a prefix of the source's own number
        "In 1787 the treaty was signed at @hall with",  # kept
        "In May the treaty",  # names are not judged: a skipped one may come later
        "The treaty(1788) was",  # not after a space: the neutralizer may change what is before it
        "",
    ],
)
def test_what_a_continuation_can_still_mend_is_not_judged(prefix):
    assert settled(prefix, SOURCE) is None


CONTINUATIONS = ("", ".", " ok", " and 1787.", " really, really!!", "\u200b1787", " @hall #delegates")


@pytest.mark.parametrize("prefix", ["The 1788 treaty", "In 1787 and 1787 again", "Signed at @hallway by"])
def test_every_continuation_of_a_failed_prefix_fails_check_protected(prefix):
    """Soundness on the path the window's guards take: strip_wrappers, the neutralizer, check_protected."""
    assert settled(prefix, SOURCE) is not None
    required = guards.protected_tokens(SOURCE, (), style.protected_spans(SOURCE))
    for continuation in CONTINUATIONS:
        candidate = style.neutralize(guards.strip_wrappers(prefix + continuation, SOURCE))[0].strip()
        verdict = guards.check_protected(candidate, required, SOURCE, style.protected_spans(candidate))
        assert not verdict.ok, (prefix, continuation)


# Wrappers strip_wrappers removes before the guards judge (label lines, fences, quotes), holding
# numbers, links, handles and names the source does not have, around answers that keep the source's own.
ANSWER = "In 1787 the treaty was signed at @hall with #delegates."
WRAPPED = [
    f"Here is the rewritten text in 2 sentences:\n{ANSWER}",
    f"Sure! Here is the text with 3 changes:\n{ANSWER}",
    f"**Rewritten version in 1 paragraph:**\n{ANSWER}",
    f"Here is the rewritten text with www.example.org removed:\n{ANSWER}",
    f"Here is the paraphrase with @hallway as the place:\n{ANSWER}",
    f"Here is the text in Hamilton's 1788 voice:\n{ANSWER}",
    f'Here are the sentences with #tags kept:\n"{ANSWER}"',
    f"```\nHere is the revised text in 2 lines:\n{ANSWER}\n```",
    f"Okay. Here is the new text in 4 words:\nHere is the rewritten text in 5 sentences:\n{ANSWER}",
]


@pytest.mark.parametrize("candidate", WRAPPED)
def test_no_prefix_of_a_wrapped_candidate_that_passes_is_stopped(candidate):
    """The early stop is sound with the wrappers: where the whole candidate passes `check_protected` after
    `strip_wrappers` and the neutralizer, no prefix of it, cut at any character, was judged failed."""
    required = guards.protected_tokens(SOURCE, (), style.protected_spans(SOURCE))
    final = style.neutralize(guards.strip_wrappers(candidate, SOURCE))[0].strip()
    assert guards.check_protected(final, required, SOURCE, style.protected_spans(final)).ok, final
    for end in range(len(candidate) + 1):
        assert settled(candidate[:end], SOURCE) is None, candidate[:end]


@pytest.mark.parametrize(
    ("prefix", "detail"),
    [
        ("Here is the rewritten text in 2 sentences:\nThe 1788 treaty", "invented name/number/link: '1788'"),
        (
            'Sure, here is the text:\n"The treaty of 1787 at @hallway was',
            "invented name/number/link: '@hallway'",
        ),
        (
            "The text in 2 parts: The 1788 treaty",
            "invented name/number/link: '1788', '2'",
        ),  # one line: no label
    ],
)
def test_past_a_label_line_an_invented_token_still_stops(prefix, detail):
    verdict = settled(prefix, SOURCE)
    assert verdict is not None and verdict.detail == detail


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Here is the rewritten text in 2", None),  # may still become a label line
        ("Here is the rewritten text in 2 sentences:\nThe", None),  # "The rewritten text:" may follow
        ("Here is the rewritten text in 2 sentences:\nIn", 43),
        ("The treaty of 1788", 0),  # can never become a label line
        ('"Here is the text:\nIn', 19),
        (
            "Here is the text:\nHere is the text:\nHere is the text:\nHere is",
            54,
        ),  # three levels, as strip_wrappers
    ],
)
def test_the_answer_starts_past_the_label_lines(text, start):
    assert guards.answer_start(text) == start


SCRIPT = {"</think>": "hello", "hello": "1788", "1788": "world", "world": "again", "again": "world"}


@pytest.fixture(scope="module")
def scripted_dir(tmp_path_factory) -> Path:
    return export_scripted(tmp_path_factory.mktemp("early_stop"), SCRIPT, context=512)


def run_window(engine, embedder, source: str):
    options = RewriteOptions(strength="medium", candidates=3, use_profile=False)
    timings = {"generate_s": 0.0, "guards_s": 0.0}
    return llm_windows.rewrite_window(
        0, Window(first=0, last=0, text=source), engine, embedder, options, None, timings
    )


def test_a_candidate_that_skips_a_protected_number_stops_and_one_that_keeps_it_does_not(
    scripted_dir, embedder_model_dir
):
    from native_host.engine.embedder import Embedder

    embedder = Embedder(embedder_model_dir)
    engine = Recording(Engine.load(scripted_dir))
    skips = "The treaty of 1787 was signed in the hall again."
    budget = llm_windows.token_budget(engine, skips, RewriteOptions().max_new_tokens)
    outcome = run_window(engine, embedder, skips)
    assert len(engine.results) == 3
    for result in engine.results:
        # stopped at the first token after "1788": "hello 1788 world"
        assert result.finish_reason == "abandoned" and result.text == "hello 1788 world"
        assert len(result.token_ids) == 3 < budget
    assert outcome.path == "neutralizer"
    assert outcome.rejected == [
        f"candidate {n} [protected]: invented name/number/link: '1788' (stopped after 3 tokens)"
        for n in range(3)
    ]

    keeps = "The treaty of 1788 was signed in the hall again."
    engine = Recording(Engine.load(scripted_dir))
    run_window(engine, embedder, keeps)
    budget = llm_windows.token_budget(engine, keeps, RewriteOptions().max_new_tokens)
    assert len(engine.results) == 3
    for result in engine.results:
        assert result.finish_reason == "length" and len(result.token_ids) == budget
        assert result.text.startswith("hello 1788 world again world")


def test_without_the_early_stop_the_same_candidates_fail_the_guards(
    scripted_dir, embedder_model_dir, monkeypatch
):
    """What the stop saves was refused anyway: decoded to its end, each candidate fails a guard, and the
    window's outcome is the same but for the rejection lines."""
    from native_host.engine.embedder import Embedder

    embedder = Embedder(embedder_model_dir)
    source = "The treaty of 1787 was signed in the hall again."
    stopped = run_window(Recording(Engine.load(scripted_dir)), embedder, source)
    monkeypatch.setattr(llm_windows, "abandon_when", lambda source, required: None)
    engine = Recording(Engine.load(scripted_dir))
    whole = run_window(engine, embedder, source)
    assert {r.finish_reason for r in engine.results} == {"length"}
    assert len(whole.rejected) == 3
    assert (whole.text, whole.path, whole.passing, whole.candidates) == (
        stopped.text,
        stopped.path,
        stopped.passing,
        stopped.candidates,
    )
