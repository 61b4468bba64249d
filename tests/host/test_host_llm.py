"""The real host with the real default model: an LLM rewrite end to end, and cancel between tokens."""

from __future__ import annotations

import time

import pytest

from tests.host.hostproc import HostProcess

# Pet phrases the neutralizer leaves alone, so the pipeline has to use the language model. Three
# sentences in two windows: a 135M model fails the guards on some windows, and which ones depends on the
# CPU's int8 kernels; the test needs one window to get through, not a particular one.
LLM_TEXT = (
    "To be fair, I reckon at the end of the day it's grand, innit. "
    "The meeting on Friday was moved to the small room because the projector in the main hall is broken. "
    "To be fair, I reckon we should just go early and set up the chairs before everyone arrives."
)
PRE_GENERATION_STAGES = ("queued", "analyze", "neutralize", "load_model")


@pytest.mark.slow
def test_llm_rewrite_then_cancel_between_tokens(models_installed):
    with HostProcess() as host:
        hello = host.result("hello")
        assert hello["rewrite_path"] == "llm" and hello["model"]["state"] == "available", hello["model"]

        first = host.send("rewrite", {"text": LLM_TEXT, "options": {"strength": "strong"}})
        reply, progress = host.final(first, 120)
        result = reply["result"]
        assert result["path"] == "llm", result["windows"]  # at least one window rewritten by the model
        stages = [p["stage"] for p in progress]
        assert "load_model" in stages and "rewrite" in stages, stages
        assert host.result("hello")["model"]["state"] == "ready"  # loaded once, kept warm

        job = host.send("rewrite", {"text": LLM_TEXT * 4, "options": {"strength": "strong"}})
        while True:  # wait until generation is streaming
            message = host.recv(60)
            assert message["id"] == job and message["type"] == "progress", message
            if message["stage"] not in PRE_GENERATION_STAGES:
                break
        sent = time.monotonic()
        cancel = host.send("cancel", {"target": job})
        reply, _ = host.final(job, 30)
        elapsed = time.monotonic() - sent
        assert reply["type"] == "error" and reply["error"]["name"] == "cancelled", reply
        assert elapsed < 3.0, f"cancel took {elapsed:.2f}s"
        cancel_reply, _ = host.final(cancel, 5)
        assert cancel_reply["result"] == {"cancelled": True}
        host.assert_alive()
        assert host.close() == 0
        assert host.violations == []
