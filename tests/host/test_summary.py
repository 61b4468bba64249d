"""The `rewrite` reply's `summary` (PROTOCOL.md) over real pipes, and the one figure the page and the CLI
show: the real host and the real `fantasma rewrite`, in the same FANTASMA_HOME, for the same text and
strength, report the same scores and the same words — also when the user has chosen another model (the
host rewrote with it while the CLI used the embedded one) and has writing samples."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from native_host import wording
from native_host.eval.corpora import find_corpus, load_manifest, split_corpus
from native_host.host.client import REPO, HostProcess, host_env
from native_host.rewrite import summary
from tests.checkpoints import save_tiny_llama
from tests.summary.test_words import assert_no_code, assert_plain

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo. Gonna be gr8 tbh."
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def fantasma(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real CLI as a user runs it, in this test's FANTASMA_HOME (set by the autouse fixture)."""
    return subprocess.run(
        [sys.executable, "-m", "native_host.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ),
        timeout=timeout,
    )


def without_summary(reply: dict) -> dict:
    return {k: v for k, v in reply.items() if k != "summary"}


def test_the_rewrite_reply_carries_the_summary_in_plain_words(host):
    """No model in this home: light is the neutralizer, medium falls back to it and says what to do."""
    for strength in ("light", "medium"):
        result = host.result("rewrite", {"text": SAMPLE, "options": {"strength": strength}}, timeout=120)
        built = result["summary"]
        assert built == summary.build(without_summary(result))  # built from the reply's own fields
        before, after = result["identifiability_before"], result["identifiability_after"]
        assert built["identifiability"]["shown"] == [f"{before['score']:.2f}", f"{after['score']:.2f}"]
        assert built["identifiability"]["level_words"][1] in built["headline"]  # words, the number on demand
        assert built["markers"]["before"] == result["markers_before"]["count"]
        assert built["markers"]["after"] == result["markers_after"]["count"]
        assert_plain(built)
    assert built["next"] == "install_model", built  # medium without a model: the step that helps most


@pytest.fixture
def chosen_model(models_installed, tmp_path) -> str:
    """A second model installed with the real `fantasma setup --model DIR --use` (a tiny random Llama: its
    fluency scores differ from the embedded model's, so the search keeps other edits)."""
    checkpoint = save_tiny_llama(tmp_path / "tiny-llama")
    (checkpoint / "tokenizer_config.json").write_text(json.dumps({"chat_template": CHATML}), encoding="utf-8")
    done = fantasma("setup", "--model", str(checkpoint), "--name", "tiny-llama", "--use", "--no-register")
    assert done.returncode == 0, (done.stdout, done.stderr)
    return "tiny-llama"


@pytest.fixture
def samples(tmp_path) -> str:
    """The user's writing samples (Hamilton's training chunks, added with the real CLI); returns a held-out
    chunk of his to rewrite."""
    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 2, 4)
    train = [c.text for c in split.train if c.author == "Hamilton"]
    files = []
    for k in range(0, len(train), 2):
        path = tmp_path / f"sample{k}.txt"
        path.write_text("\n\n".join(train[k : k + 2]), encoding="utf-8")
        files.append(str(path))
    assert fantasma("profile", "add", *files).returncode == 0
    return next(c.text for c in split.test if c.author == "Hamilton")


def test_the_page_and_the_cli_show_the_same_figure_for_the_same_text_and_strength(chosen_model, samples):
    text = samples
    with HostProcess(env=host_env()) as host:
        for strength in ("medium", "light"):
            page = host.result("rewrite", {"text": text, "options": {"strength": strength}}, timeout=300)
            done = fantasma("rewrite", "-", "--json", "--strength", strength, stdin=text)
            assert done.returncode == 0, done.stderr
            cli = json.loads(done.stdout)
            for key in ("identifiability_before", "identifiability_after"):
                assert page[key]["mode"] == cli[key]["mode"] == "profile", key
                assert page[key]["score"] == cli[key]["score"], (strength, key, page[key], cli[key])
            assert cli["text"] == page["text"], strength
            assert cli.get("model") == page["model"], strength  # the model the user chose, in both
            if strength == "medium":
                assert page["model"]["name"] == chosen_model
            assert cli["summary"] == page["summary"], strength

            # What each surface prints: the CLI's terminal lines and the page's card are the same words.
            shown = fantasma("rewrite", "-", "--strength", strength, stdin=text)
            assert shown.returncode == 0 and shown.stdout.strip() == page["text"].strip()
            words = page["summary"]
            assert words["headline"] in shown.stderr.splitlines()
            assert words["identifiability"]["level_words"][1] in words["headline"]
            for detail in words["details"]:
                assert f"  {detail}" in shown.stderr.splitlines()
            if words["next_step"]:
                assert f"Next: {words['next_step']}" in shown.stderr.splitlines()
            assert_no_code(shown.stderr)
        assert host.close() == 0
    assert not host.violations


def test_protocol_documents_the_summary_fields_the_host_sends():
    text = (REPO / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("### `rewrite`", 1)[1].split("### ", 1)[0].split("`summary` is", 1)[1]
    documented = re.findall(r"^\|\s*`(\w+)`\s*\|", section, flags=re.MULTILINE)
    assert documented == list(summary.build({"text": "", "identifiability_before": None}))
    keys = re.findall(r"`(\w+)`", section.split("| `next` |", 1)[1].split("\n", 1)[0])
    assert set(keys) == set(wording.NEXT_STEPS)  # every next step the code can choose is named
