"""Every key of the settings table (PROTOCOL.md `settings.set`) takes effect for the jobs that do not say
otherwise in their own params, through the real host over real pipes: the settings are set with
`settings.set`, as the options page sets them, and the next job is run as the extension runs it.

Each test fails when its key is ignored (the host stored settings and never read them until issue 31).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from native_host import paths
from native_host.host.client import REPO, HostProcess
from native_host.style.population import default_population_path
from native_host.style.samples import default_rivals_path, default_samples_path

# Markers the light rewrite (the neutralizer) changes: British spelling, "!!!", "...", an emoticon.
SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo"
# What the reply says when the setting turned the profile off (native_host.settings.PROFILE_OFF).
PROFILE_OFF = "the profile is off (use_profile)"
# Pet phrases the neutralizer leaves alone, so the sentences still carry markers for the model's windows.
WINDOW_TEXT = (
    "To be fair, I reckon at the end of the day it's grand, innit. "
    "To be fair, I reckon we should just go early and set up the chairs before everyone arrives."
)


def set_settings(host: HostProcess, **changes: object) -> dict:
    stored = host.result("settings.set", {"settings": changes})["settings"]
    assert {k: stored[k] for k in changes} == changes
    return stored


def rewrite(host: HostProcess, text: str, timeout: float = 300, **options: object) -> tuple[dict, list[str]]:
    """The result and the progress stages of one rewrite."""
    request = host.send("rewrite", {"text": text, "options": options} if options else {"text": text})
    reply, progress = host.final(request, timeout)
    assert reply["type"] == "result", reply
    return reply["result"], [p["stage"] for p in progress]


# -- default_strength --------------------------------------------------------------------------------


def test_default_strength_is_the_strength_of_a_rewrite_that_names_none(host):
    set_settings(host, default_strength="light")
    result, stages = rewrite(host, SAMPLE)
    assert result["strength"] == "light", result["reason"]
    assert result["reason"] == "light strength: surface markers only, no model"
    assert "load_model" not in stages  # light never asks for the model

    set_settings(host, default_strength="strong")
    result, stages = rewrite(host, SAMPLE)
    assert result["strength"] == "strong" and "load_model" in stages  # (no model here: it says so)

    # The request's own strength wins over the setting.
    result, _ = rewrite(host, SAMPLE, strength="light")
    assert result["strength"] == "light"


# -- protected_terms -----------------------------------------------------------------------------------


def test_protected_terms_of_the_settings_are_merged_with_the_requests(host):
    # Without protection the light rewrite changes both words (British to American spelling).
    plain, _ = rewrite(host, SAMPLE, strength="light")
    assert "colour" not in plain["text"] and "realise" not in plain["text"], plain["text"]
    assert "colour" not in host.result("neutralize", {"text": SAMPLE})["text"]

    set_settings(host, protected_terms=["colour"])
    alone, _ = rewrite(host, SAMPLE, strength="light")  # no terms in the request: the setting's
    assert "colour" in alone["text"] and "realise" not in alone["text"], alone["text"]
    neutral = host.result("neutralize", {"text": SAMPLE})["text"]  # the rule-based rewrite too
    assert "colour" in neutral and "realise" not in neutral, neutral

    both, _ = rewrite(host, SAMPLE, strength="light", protected_terms=["realise"])
    assert "colour" in both["text"] and "realise" in both["text"], both["text"]  # merged, not replaced

    set_settings(host, protected_terms=[])
    again, _ = rewrite(host, SAMPLE, strength="light")
    assert again["text"] == plain["text"]


# -- use_profile ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def federalist() -> dict[str, list[str]]:
    """Real writing of two authors (~250-word Federalist chunks): the user is Hamilton, Madison a rival."""
    from native_host.eval.corpora import find_corpus, load_manifest, split_corpus

    split = split_corpus(find_corpus("federalist", load_manifest()), 2, 1, 4)
    by_author: dict[str, list[str]] = {}
    for chunk in [*split.train, *split.test]:
        by_author.setdefault(chunk.author, []).append(chunk.text)
    return by_author


def strace_path() -> str:
    path = shutil.which("strace")
    if path is None:
        pytest.fail("strace is not installed: run scripts/install-system-deps.sh")
    return path


def traced_host(trace: Path) -> HostProcess:
    """The real host under `strace -e trace=open,openat,openat2`: every file it opens, by any thread."""
    argv = [strace_path(), "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", str(trace)]
    return HostProcess(argv=[*argv, sys.executable, "-m", "native_host"])


def opened(trace: Path, path: Path) -> list[str]:
    """The open calls of `path` that succeeded (an open that found no file read nothing either)."""
    lines = trace.read_text(encoding="utf-8", errors="replace").splitlines()
    return [line for line in lines if f'"{path}"' in line and not re.search(r"= -1 E\w+", line)]


def yours() -> list[Path]:
    """Everything the host keeps of the user's own writing and of their rivals'."""
    return [paths.profile_path(), default_samples_path(), default_rivals_path()]


def store_profile_and_rival(host: HostProcess, federalist: dict[str, list[str]]) -> None:
    host.result("profile.add", {"text": "\n\n".join(federalist["Hamilton"][:3])}, timeout=120)
    host.result(
        "profile.add", {"text": "\n\n".join(federalist["Madison"][:2]), "rival": "Madison"}, timeout=120
    )
    assert all(p.exists() for p in yours())


def test_use_profile_off_scores_by_typicality_and_never_opens_the_profile(host, federalist, tmp_path):
    text = federalist["Hamilton"][3]
    store_profile_and_rival(host, federalist)

    # On (the default): the profile and the rival are used, and the trace sees the files opened.
    trace_on = tmp_path / "on.strace"
    with traced_host(trace_on) as traced:
        report = traced.result("analyze", {"text": text}, timeout=120)["identifiability"]
        assert report["mode"] == "profile" and report["rivals"] == ["Madison"], report
        result, _ = rewrite(traced, text, strength="light")
        assert result["identifiability_before"]["mode"] == "profile"
        assert traced.close() == 0
    for path in yours():
        assert opened(trace_on, path), f"the detector must see {path} opened"

    set_settings(host, use_profile=False)
    trace_off = tmp_path / "off.strace"
    with traced_host(trace_off) as traced:
        analysis = traced.result("analyze", {"text": text}, timeout=120)
        assert analysis["profile_used"] is False
        report = analysis["identifiability"]
        assert report["mode"] == "typicality" and report["rivals"] == [], report
        assert report["message"].startswith(PROFILE_OFF), report  # the reply says why
        light, _ = rewrite(traced, text, strength="light")
        medium, _ = rewrite(traced, text)  # no model here: the neutralizer, scored by the handler
        for result in (light, medium):
            for key in ("identifiability_before", "identifiability_after"):
                assert result[key]["mode"] == "typicality" and result[key]["message"].startswith(
                    PROFILE_OFF
                ), result
        # The request's own use_profile wins over the setting (and then nothing needs explaining).
        asked = traced.result("analyze", {"text": text, "use_profile": False}, timeout=120)["identifiability"]
        assert asked["mode"] == "typicality" and asked["message"] == ""
        assert traced.close() == 0
    assert opened(trace_off, paths.settings_path()), "the trace covers the jobs (each one reads the settings)"
    for path in yours():
        assert opened(trace_off, path) == [], f"{path} was opened with use_profile off"

    back_on = host.result("analyze", {"text": text, "use_profile": True}, timeout=120)["identifiability"]
    assert back_on["mode"] == "profile"  # the request's true wins over the setting's false


@pytest.mark.slow
def test_use_profile_off_reaches_the_search(host, federalist, tmp_path, models_installed):
    """medium on the real model: the identifiability search itself minimizes typicality."""
    text = federalist["Hamilton"][3]
    store_profile_and_rival(host, federalist)
    set_settings(host, use_profile=False)
    trace = tmp_path / "search.strace"
    with traced_host(trace) as traced:
        result, stages = rewrite(traced, text, strength="medium")
        assert "load_model" in stages and result["search"] is not None, result["reason"]
        assert result["search"]["rivals"] == []
        for key in ("identifiability_before", "identifiability_after"):
            assert result[key]["mode"] == "typicality" and result[key]["message"].startswith(PROFILE_OFF), (
                result
            )
        assert PROFILE_OFF in result["reason"]
        assert traced.close() == 0
    for path in yours():
        assert opened(trace, path) == [], f"{path} was opened with use_profile off"


# -- candidates ------------------------------------------------------------------------------------------


def package_without_population(root: Path) -> Path:
    """native_host as a tree of links to the real files, less the shipped population data: a broken
    install, on which a medium rewrite takes the pipeline's pre-search path (the language model's
    candidates per window), the one path that generates candidates without asking for LLM windows."""
    missing = default_population_path().resolve()
    source = REPO / "native_host"

    def mirror(src: Path, dst: Path) -> None:
        dst.mkdir(parents=True)
        for entry in src.iterdir():
            if entry.name == "__pycache__" or entry.resolve() == missing:
                continue
            if entry.is_dir() and missing.is_relative_to(entry.resolve()):
                mirror(entry, dst / entry.name)
            else:
                (dst / entry.name).symlink_to(entry.resolve())

    mirror(source, root / "native_host")
    return root


def host_from(package_root: Path) -> HostProcess:
    code = (
        f"import runpy, sys; sys.path.insert(0, {str(package_root)!r}); "
        "runpy.run_module('native_host', run_name='__main__', alter_sys=True)"
    )
    return HostProcess(argv=[sys.executable, "-c", code])


@pytest.mark.slow
def test_candidates_is_how_many_the_model_generates_per_window(tmp_path, models_installed):
    with host_from(package_without_population(tmp_path / "pkg")) as host:
        probe, _ = rewrite(host, WINDOW_TEXT, strength="light")
        assert probe["identifiability_before"] is None, "this host must have no population data"

        set_settings(host, candidates=1)
        result, _ = rewrite(host, WINDOW_TEXT, strength="medium")
        assert "identifiability unavailable" in result["reason"], result["reason"]
        assert result["windows"], result["reason"]
        assert [w["candidates"] for w in result["windows"]] == [1] * len(result["windows"]), result["windows"]

        set_settings(host, candidates=2)
        result, _ = rewrite(host, WINDOW_TEXT, strength="medium")
        assert [w["candidates"] for w in result["windows"]] == [2] * len(result["windows"]), result["windows"]

        # The request's own count wins over the setting.
        result, _ = rewrite(host, WINDOW_TEXT, strength="medium", candidates=1)
        assert [w["candidates"] for w in result["windows"]] == [1] * len(result["windows"]), result["windows"]
        assert host.close() == 0
        assert host.violations == []


# -- threads ---------------------------------------------------------------------------------------------


def os_threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


@pytest.mark.slow
def test_threads_reach_the_model_session_and_a_change_reloads_it(host, models_installed):
    """The session's own intra-op count (read back from onnxruntime, in `hello`), and onnxruntime's pool
    threads in the host process: each session runs threads - 1 workers beside the calling thread."""
    assert "threads" not in host.result("hello")["model"]  # nothing loaded yet

    set_settings(host, threads=1)
    rewrite(host, SAMPLE, strength="medium")
    model = host.result("hello")["model"]
    assert model["state"] == "ready" and model["threads"] == 1, model
    one = os_threads(host.proc.pid)

    set_settings(host, threads=3)
    _, stages = rewrite(host, SAMPLE, strength="medium")
    assert "load_model" in stages
    model = host.result("hello")["model"]
    assert model["state"] == "ready" and model["threads"] == 3, model  # a new session, loaded again
    three = os_threads(host.proc.pid)
    assert three >= one + 2, (one, three)

    set_settings(host, threads=None)  # automatic: one per physical core, again a new session
    rewrite(host, SAMPLE, strength="medium")
    from native_host.engine.runner import physical_cores

    assert host.result("hello")["model"]["threads"] == physical_cores()


# -- the command line reads them too ---------------------------------------------------------------------


def test_fantasma_rewrite_takes_what_its_flags_leave_out_from_the_settings(host):
    """`fantasma rewrite` (a real subprocess) with the settings the host set: the same defaults."""
    import json
    import os
    import subprocess

    set_settings(host, default_strength="light", protected_terms=["colour"], use_profile=False)

    def cli(*args: str) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "native_host.cli", "rewrite", "--json", *args],
            input=SAMPLE.encode(),
            capture_output=True,
            env=dict(os.environ),
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        return json.loads(proc.stdout)

    result = cli("--keep", "realise")
    assert result["strength"] == "light"
    assert "colour" in result["text"] and "realise" in result["text"], result["text"]
    assert result["identifiability_after"]["message"].startswith(PROFILE_OFF)
    assert cli("--strength", "medium")["strength"] == "medium"  # a flag wins over the setting


def test_protocol_says_how_each_setting_applies():
    from native_host.settings import SETTINGS

    text = (REPO / "PROTOCOL.md").read_text(encoding="utf-8")
    section = text.split("**How the settings apply.**", 1)[1].split("###", 1)[0]
    explained = re.findall(r"^\* `(\w+)` →", section, flags=re.MULTILINE)
    assert explained == list(SETTINGS)
