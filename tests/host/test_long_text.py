"""A long chat-like text through the real host: `neutralize` answers (in parts), and a cancel stops it
between steps instead of after the whole job (issue 14: no final reply 32 s after the cancel).

Work is measured in the host's CPU time, which a loaded machine does not stretch; how soon the reply
comes in wall-clock time is a speed goal, measured by bench/bench_cancel.py."""

from __future__ import annotations

import time

from native_host.eval.texts import chat_text
from native_host.host.client import HostProcess

SIZE = 512 * 1024


def test_cancel_stops_a_long_neutralize(isolated_home):
    text = chat_text(SIZE, seed=5)
    with HostProcess() as host:
        cpu_before = host.cpu_seconds()
        started = time.monotonic()
        reply, _ = host.final(host.send("neutralize", {"text": text}), timeout=600)
        whole_s = time.monotonic() - started
        whole_cpu = host.cpu_seconds() - cpu_before
        assert reply["type"] == "result" and reply["_parts"] > 1, reply.keys()
        assert len(reply["result"]["text"]) > 0.8 * SIZE

        job = host.send("neutralize", {"text": text})
        message = host.recv(120)
        assert message["id"] == job and message["type"] == "progress", message
        time.sleep(min(0.5, whole_s / 4))  # inside the passes
        cpu_at_cancel = host.cpu_seconds()
        assert host.result("cancel", {"target": job})["cancelled"] is True
        reply, _ = host.final(job, timeout=600)
        cancel_cpu = host.cpu_seconds() - cpu_at_cancel
        assert reply["type"] == "error" and reply["error"]["name"] == "cancelled", reply
        # Stopped within a step, not after the rest of the job: the cancel came at most a quarter of the
        # way in, so running to the end would cost the host about three quarters of the whole job's work.
        print(f"host CPU after the cancel {cancel_cpu:.2f} s, whole job {whole_cpu:.2f} s")
        assert cancel_cpu < whole_cpu / 2, (cancel_cpu, whole_cpu)
        host.assert_alive()
        assert host.close() == 0
    assert not host.violations
