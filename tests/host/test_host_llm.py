"""The real host with the real default model: an LLM rewrite end to end, and a cancel that stops it midway."""

from __future__ import annotations

import pytest

from native_host.host.client import HostProcess
from tests.host.test_rewrite_reply import assert_marker_summary

# Pet phrases the neutralizer leaves alone, so the pipeline has to use the language model. A 135M model
# fails the guards on many windows, and which ones depends on the CPU's int8 kernels and on every
# neutralizer rule: the test needs one text of several to come back rewritten by the model, not a
# particular one.
LLM_TEXTS = (
    "To be fair, I reckon at the end of the day it's grand, innit. "
    "The meeting on Friday was moved to the small room because the projector in the main hall is broken. "
    "To be fair, I reckon we should just go early and set up the chairs before everyone arrives.",
    "To be fair, the new bus timetable is a right mess. The number 12 bus now leaves the station every "
    "forty minutes instead of every twenty. At the end of the day, most people will just drive to work.",
    "At the end of the day, the library closes early on Sundays. Members who want to borrow books "
    "should come in the morning. The staff will be happy to help anyone who needs it.",
    "To be honest, the garden looks lovely this spring. The roses by the fence are finally blooming, "
    "and the old apple tree is covered in white flowers.",
)
LLM_TEXT = LLM_TEXTS[0]
PRE_GENERATION_STAGES = ("queued", "analyze", "neutralize", "load", "load_model")


@pytest.mark.slow
def test_llm_rewrite_then_a_cancel_stops_the_model_path_midway(models_installed):
    with HostProcess() as host:
        hello = host.result("hello")
        assert hello["rewrite_path"] == "llm" and hello["model"]["state"] == "available", hello["model"]

        results = []
        for text in LLM_TEXTS:
            request = host.send("rewrite", {"text": text, "options": {"strength": "strong"}})
            reply, progress = host.final(request, 120)
            results.append(reply["result"])
            stages = [p["stage"] for p in progress]
            assert "rewrite" in stages, stages
            if len(results) == 1:
                assert "load_model" in stages, stages
            if reply["result"]["path"] == "llm":
                break
        # at least one window of one text rewritten by the model; the fallbacks say why
        assert results[-1]["path"] == "llm", [r["windows"] for r in results]
        for key in ("markers_before", "markers_after"):  # the same type as on the neutralizer path
            assert_marker_summary(results[-1][key])
        assert all(r["reason"] for r in results[:-1])
        assert host.result("hello")["model"]["state"] == "ready"  # loaded once, kept warm

        # A cancel once the model's part runs (the windows it writes, or the search scoring edits with
        # it: most of the job) stops it within a step, not at the end: measured in host CPU time, which
        # a loaded machine does not stretch; the wall-clock latency is a speed goal (bench/bench_cancel.py).
        params = {"text": LLM_TEXT * 4, "options": {"strength": "strong"}}
        cpu_before = host.cpu_seconds()
        whole, _ = host.final(host.send("rewrite", params), 120)
        whole_cpu = host.cpu_seconds() - cpu_before
        assert whole["type"] == "result", whole
        job = host.send("rewrite", params)
        while True:  # wait until the model's part runs
            message = host.recv(60)
            assert message["id"] == job and message["type"] == "progress", message
            if message["stage"] not in PRE_GENERATION_STAGES:
                break
        cpu_at_cancel = host.cpu_seconds()
        cancel = host.send("cancel", {"target": job})
        reply, _ = host.final(job, 60)
        cancel_cpu = host.cpu_seconds() - cpu_at_cancel
        assert reply["type"] == "error" and reply["error"]["name"] == "cancelled", reply
        print(f"host CPU from the cancel to its reply {cancel_cpu:.2f} s, whole job {whole_cpu:.2f} s")
        assert cancel_cpu < whole_cpu / 2, (cancel_cpu, whole_cpu, message["stage"])
        cancel_reply, _ = host.final(cancel, 30)
        assert cancel_reply["result"] == {"cancelled": True}
        host.assert_alive()
        assert host.close() == 0
        assert host.violations == []
