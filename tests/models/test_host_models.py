"""The real host over real pipes runs the chosen model: `hello` names it, `models` lists and switches,
a rewrite is answered by it (the random weights' nonsense refused by the guards, never pasted),
switching back frees its memory, and a model that cannot be used falls back to the embedded default
with the reason shown."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from native_host.host.client import HostProcess, host_env
from tests.host.test_settings_applied import host_from, package_without_population
from tests.models.checkpoints import LLAMA_NAME, QWEN_NAME

pytestmark = pytest.mark.slow

EMBEDDED = "smollm2-135m-instruct-int4"
TEXT = (
    "To be fair, I reckon at the end of the day it's grand, innit. "
    "The meeting on Friday was moved to the small room because the projector in the main hall is broken. "
    "To be fair, I reckon we should just go early and set up the chairs before everyone arrives."
)
QWEN_MODEL = {
    "name": QWEN_NAME,
    "architecture": "qwen3_5",
    "hybrid": True,
    "layers": "hybrid: 6 Gated DeltaNet + 2 attention",
    "embedded": False,
}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def mapped(pid: int, directory: Path) -> int:
    """How many of the process's memory mappings are files of `directory` (onnxruntime maps the weights)."""
    where = str(directory.resolve())
    return sum(where in line for line in Path(f"/proc/{pid}/maps").read_text().splitlines())


def rewrite(host: HostProcess, text: str = TEXT, strength: str = "medium") -> dict:
    return host.result("rewrite", {"text": text, "options": {"strength": strength}}, timeout=300)


def test_the_chosen_hybrid_answers_and_switching_back_frees_it(models_home):
    from native_host import paths

    qwen_dir = paths.models_dir() / QWEN_NAME
    with HostProcess() as host:
        before = host.result("hello")["model"]
        assert before["name"] == EMBEDDED and before["embedded"] and before["fallback"] is None
        assert "models" in host.result("hello")["types"]

        listing = host.result("models", {"use": QWEN_NAME})
        assert [m["name"] for m in listing["models"] if m["active"]] == [QWEN_NAME]
        assert listing["install_command"] == "fantasma setup --model Qwen/Qwen3.5-0.8B --use"
        hello = host.result("hello")["model"]
        assert {k: hello[k] for k in QWEN_MODEL} == QWEN_MODEL and hello["chosen"] == QWEN_NAME
        assert hello["state"] == "available" and hello["dir"] == str(qwen_dir)

        result = rewrite(host)
        assert result["model"] == QWEN_MODEL  # answered by the hybrid
        assert host.result("hello")["model"]["state"] == "ready"
        loaded_rss, loaded_maps = rss_mb(host.proc.pid), mapped(host.proc.pid, qwen_dir)
        assert loaded_maps > 0, "the hybrid's weights are not mapped: is it loaded at all?"

        host.result("models", {"use": None})  # back to the embedded default
        assert mapped(host.proc.pid, qwen_dir) == 0, "the hybrid's files are still mapped after the switch"
        freed = loaded_rss - rss_mb(host.proc.pid)
        print(f"host RSS with the hybrid loaded {loaded_rss:.0f} MB; freed by the switch {freed:.0f} MB")
        assert freed > 100, f"switching back freed only {freed:.0f} MB"
        hello = host.result("hello")["model"]
        assert hello["name"] == EMBEDDED and hello["chosen"] is None and hello["state"] == "available"
        assert rewrite(host)["model"]["name"] == EMBEDDED
        assert host.close() == 0
        assert host.violations == []


def test_the_hybrids_own_windows_are_refused_by_the_guards_and_never_pasted(models_home, tmp_path):
    """Where the model writes whole sentences (the host has no population data, so the pre-search path
    asks it for each window): random weights write nonsense, every candidate fails a guard, the reply
    says so and carries the neutralizer's text, as a light rewrite gives it."""
    from native_host.models.registry import use

    use(QWEN_NAME)
    with host_from(package_without_population(tmp_path / "pkg")) as host:
        light = rewrite(host, strength="light")
        result = rewrite(host, strength="medium")
        assert result["model"] == QWEN_MODEL
        assert result["windows"] and all(w["candidates"] >= 1 for w in result["windows"])
        assert all(w["path"] == "neutralizer" and w["rejected"] for w in result["windows"]), result["windows"]
        assert result["path"] == "neutralizer"
        assert "no candidate passed the guards" in result["reason"], result["reason"]
        assert result["text"] == light["text"]
        assert host.close() == 0
        assert host.violations == []


def test_the_chosen_model_and_the_embedder_load_when_the_host_starts(models_home, tmp_path):
    """Preload (issue 39): no request but `hello`, and the chosen model is loaded and its weights mapped;
    the first rewrite then loads nothing: it finds both warm (the host's loads, written to the debug
    events file: each model once, before the rewrite)."""
    from native_host import paths
    from native_host.models.registry import use

    use(QWEN_NAME)
    events = tmp_path / "events"

    def loads() -> list[str]:
        return [line for line in events.read_text().splitlines() if line.startswith("load ")]

    with HostProcess(env=host_env(FANTASMA_DEBUG_EVENTS_FILE=str(events))) as host:
        deadline = time.monotonic() + 120
        while (model := host.result("hello")["model"])["embedder"]["state"] != "ready":
            assert model["embedder"]["state"] in ("available", "loading"), model
            assert time.monotonic() < deadline, model
            time.sleep(0.1)
        assert model["name"] == QWEN_NAME and model["state"] == "ready", model  # the model loads first
        assert mapped(host.proc.pid, paths.models_dir() / QWEN_NAME) > 0
        preloaded = loads()
        assert sorted(line.split()[1] for line in preloaded) == ["embedder", "engine"], preloaded
        assert f"load engine {paths.models_dir() / QWEN_NAME}" in preloaded, preloaded
        result = rewrite(host)
        assert result["model"] == QWEN_MODEL
        assert loads() == preloaded  # found warm, not loaded again
        assert host.close() == 0
        assert host.violations == []


def test_a_model_that_fails_to_load_falls_back_to_the_embedded_with_the_reason(models_home):
    from native_host import paths
    from native_host.models.registry import use

    broken = paths.models_dir() / LLAMA_NAME
    (broken / "model.onnx").write_bytes(b"not an onnx graph")
    use(LLAMA_NAME)  # it still looks like a model dir: only loading can tell
    with HostProcess() as host:
        # not tried yet, or already tried by the preload at start (and then the fallback is said at once)
        assert host.result("hello")["model"]["name"] in (LLAMA_NAME, EMBEDDED)
        result = rewrite(host)
        assert result["model"]["name"] == EMBEDDED and result["model"]["embedded"]
        assert result["reason"].startswith(f"the chosen model '{LLAMA_NAME}' failed to load ("), result[
            "reason"
        ]
        hello = host.result("hello")["model"]
        assert hello["name"] == EMBEDDED and hello["chosen"] == LLAMA_NAME
        assert hello["fallback"].startswith(f"the chosen model '{LLAMA_NAME}' failed to load")
        entries = {m["name"]: m for m in host.result("models")["models"]}
        assert entries[EMBEDDED]["active"] and not entries[LLAMA_NAME]["active"]

        # removed by hand while chosen: the embedded default answers, and says why
        shutil.rmtree(broken)
        hello = host.result("hello")["model"]
        assert hello["name"] == EMBEDDED
        assert "is not installed" in hello["fallback"], hello["fallback"]
        assert host.close() == 0


def test_settings_set_model_is_checked_like_models_use(models_home):
    with HostProcess() as host:
        for request, params in (
            ("models", {"use": "nope"}),
            ("settings.set", {"settings": {"model": "nope"}}),
        ):
            reply = host.request(request, params)
            assert reply["type"] == "error" and reply["error"]["name"] == "unknown_model", reply
            assert reply["error"]["code"] == 15
        for request, params in (("settings.set", {"settings": {"model": "../x"}}), ("models", {"use": 5})):
            reply = host.request(request, params)
            assert reply["type"] == "error" and reply["error"]["name"] == "invalid_params", reply
        assert host.result("settings.get")["settings"]["model"] is None  # nothing was written

        held = host.result("settings.set", {"settings": {"model": LLAMA_NAME}})["settings"]
        assert held["model"] == LLAMA_NAME
        assert host.result("hello")["model"]["name"] == LLAMA_NAME
        assert host.close() == 0
