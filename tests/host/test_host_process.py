"""The real host as a subprocess, real frames over real pipes. After every fault the next request works."""

from __future__ import annotations

import json
import struct
import sys
import threading
import time
from pathlib import Path

from native_host.host.client import HEADER, SHORT_STALL_S, HostProcess, frame, host_env

SAMPLE = "Honestly, I realise the colour was off!!! Anyway... see you tomorrow :) — Jo"


def _rss_peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_hello_reports_versions_model_and_types(host):
    result = host.result("hello", {"protocol": 1, "client": "pytest"})
    assert result["app"] == "fantasma" and result["protocol"] == 1 and result["version"]
    assert result["host"] == "org.fantasma.host"
    assert isinstance(result["model"], dict) and "state" in result["model"]
    assert result["rewrite_path"] in ("llm", "neutralizer")
    assert result["limits"] == {"max_incoming_bytes": 8 * 1024 * 1024, "max_frame_bytes": 1024 * 1024}
    for kind in ("analyze", "neutralize", "rewrite", "cancel", "profile.show", "settings.set", "debug.sleep"):
        assert kind in result["types"]


def test_hello_refuses_a_protocol_it_does_not_speak(host):
    reply = host.request("hello", {"protocol": 99})
    assert reply["error"]["name"] == "unsupported_protocol" and reply["error"]["data"]["supported"] == [1]
    host.assert_alive()


def test_analyze_returns_a_report(host):
    report = host.result("analyze", {"text": SAMPLE})
    assert 0 <= report["score"] <= 100
    assert isinstance(report["findings"], list) and report["findings"]


def test_neutralize_returns_text_and_edits_that_rebuild_it(host):
    result = host.result("neutralize", {"text": SAMPLE, "target": {"spelling": "american"}})
    rebuilt, pos = [], 0
    for edit in sorted(result["edits"], key=lambda e: e["start"]):
        assert SAMPLE[edit["start"] : edit["end"]] == edit["original"]
        rebuilt += [SAMPLE[pos : edit["start"]], edit["replacement"]]
        pos = edit["end"]
    assert "".join([*rebuilt, SAMPLE[pos:]]) == result["text"]
    assert result["text"] != SAMPLE


def test_rewrite_has_the_final_shape_and_keeps_protected_terms(host):
    """ "colour" is a word the rewrite changes (a dialect spelling): without protection it is gone, with
    it the same request keeps it; so the kept term is the protection's doing."""
    options = {"strength": "light", "candidates": 1}
    unprotected = host.result("rewrite", {"text": SAMPLE, "options": options}, timeout=90)
    assert "colour" in SAMPLE and "colour" not in unprotected["text"], unprotected["text"]

    request_id = host.send(
        "rewrite", {"text": SAMPLE, "options": {**options, "protected_terms": ["colour", "Jo"]}}
    )
    reply, progress = host.final(request_id, timeout=90)
    assert reply["type"] == "result", reply
    result = reply["result"]
    for key in ("text", "edits", "markers_before", "markers_after", "path", "reason", "timings"):
        assert key in result
    assert result["path"] in ("llm", "neutralizer")
    assert result["text"].count("colour") == SAMPLE.count("colour"), result["text"]
    assert "Jo" in result["text"]
    assert result["text"] != SAMPLE  # the rest is still rewritten
    assert progress, "a rewrite streams progress"


def test_wrong_field_types_get_invalid_params(host):
    for kind, params in [
        ("analyze", {"text": 5}),
        ("analyze", {"text": "   "}),
        ("rewrite", {"text": "hi there", "options": {"strength": "max"}}),
        ("rewrite", {"text": "hi there", "options": {"candidates": 0}}),
        ("rewrite", {"text": "hi there", "options": {"protected_terms": "Acme"}}),
        ("neutralize", {"text": "hi there", "target": {"spelling": "klingon"}}),
        ("cancel", {}),
        ("settings.set", {"settings": {"candidates": "two"}}),
        ("settings.set", {"settings": {"nope": 1}}),
    ]:
        reply = host.request(kind, params)
        assert reply["type"] == "error" and reply["error"]["name"] == "invalid_params", (kind, reply)
        assert reply["error"]["code"] == 9
    host.assert_alive()


def test_envelope_faults_and_unknown_type(host):
    host.send_raw(frame([1, 2, 3]))
    assert host.error_for_null_id()["name"] == "invalid_message"
    host.send_raw(frame({"id": 7, "type": "hello"}))
    assert host.error_for_null_id()["name"] == "invalid_message"
    host.send_raw(frame({"id": "x1", "type": "hello", "params": []}))
    reply, _ = host.final("x1", 10)
    assert reply["error"]["name"] == "invalid_message"
    reply = host.request("no.such.type")
    assert reply["error"] == {
        "code": 8,
        "name": "unknown_type",
        "message": "unknown message type 'no.such.type'",
    }
    host.assert_alive()


def test_bad_utf8_bad_json_and_empty_frame(host):
    for body, name in [
        (b"\xff\xfe{}", "invalid_utf8"),
        (b'{"id": "a", ', "invalid_json"),
        (b"[" * 100_000, "invalid_json"),
    ]:
        host.send_raw(HEADER.pack(len(body)) + body)
        assert host.error_for_null_id()["name"] == name
        host.assert_alive()
    host.send_raw(HEADER.pack(0))
    assert host.error_for_null_id()["name"] == "bad_length"
    host.assert_alive()


SLEEP_S = 60  # the longest debug.sleep: a job that stops well before this was stopped by the cancel or EOF


def test_cancel_stops_a_running_job(host):
    """The running job ends `cancelled`, long before it would have ended by itself. How fast is a speed
    goal, measured by bench/bench_cancel.py; the bound here only tells a stop from the job's own end."""
    job = host.send("debug.sleep", {"seconds": SLEEP_S})
    first = host.recv(30)
    assert first["id"] == job and first["type"] == "progress"
    started = time.monotonic()
    cancel = host.send("cancel", {"target": job})
    replies = {}
    while len(replies) < 2:
        message = host.recv(SLEEP_S / 2)
        if message["type"] in ("result", "error"):
            replies[message["id"]] = message
    assert time.monotonic() - started < SLEEP_S / 2
    assert replies[cancel]["result"] == {"cancelled": True}
    assert replies[job]["error"]["name"] == "cancelled"
    assert host.result("cancel", {"target": job}) == {"cancelled": False}
    host.assert_alive()


def test_cancel_removes_a_queued_job_before_it_runs(host):
    running = host.send("debug.sleep", {"seconds": SLEEP_S})
    queued = host.send("debug.sleep", {"seconds": SLEEP_S})
    assert host.result("cancel", {"target": queued}) == {"cancelled": True}
    reply, progress = host.final(queued, 30)
    assert reply["error"]["name"] == "cancelled"
    assert {p["stage"] for p in progress} <= {"queued"}, progress  # it never started
    while (message := host.recv(30))["id"] != running:  # the running job goes on, untouched
        pass
    assert message["type"] == "progress" and message["stage"] == "sleep", message
    assert host.result("cancel", {"target": running}) == {"cancelled": True}
    reply, _ = host.final(running, 30)
    assert reply["error"]["name"] == "cancelled"


def test_duplicate_id_in_flight_is_refused(host):
    host.send("debug.sleep", {"seconds": SLEEP_S}, request_id="same")
    host.send("debug.sleep", {"seconds": 0}, request_id="same")
    first, _ = host.final("same", 30)
    assert first["error"]["name"] == "duplicate_id"
    # the first request is the one still in flight under that id: cancelling it ends it
    assert host.result("cancel", {"target": "same"}) == {"cancelled": True}
    second, _ = host.final("same", 30)
    assert second["error"]["name"] == "cancelled"


def test_an_immediate_request_sharing_a_queued_jobs_id_leaves_the_job_answered(host):
    """A `hello` under the id of a job still queued is answered at once, and the job still runs and is
    answered (found by the fuzz test's per-id count: the job was dropped without a reply)."""
    running = host.send("debug.sleep", {"seconds": SLEEP_S})
    host.send("debug.sleep", {"seconds": 0}, request_id="shared")
    hello, _ = host.final(host.send("hello", request_id="shared"), 30)
    assert hello["type"] == "result" and hello["result"]["protocol"] == 1
    # still running, so "shared" was queued when the hello came; the cancel lets it run
    assert host.result("cancel", {"target": running}) == {"cancelled": True}
    job, _ = host.final("shared", 30)
    assert job["type"] == "result" and "slept" in job["result"], job
    assert host.final(running, 30)[0]["error"]["name"] == "cancelled"


def test_a_result_above_1_mib_arrives_in_parts_and_reassembles(host):
    size = 2 * 1024 * 1024 + 123
    host.frame_sizes.clear()
    reply = host.request("debug.sleep", {"seconds": 0, "result_bytes": size})
    assert reply["type"] == "result" and reply["result"]["payload"] == "x" * size
    assert reply["_parts"] >= 3
    assert max(host.frame_sizes) <= 1024 * 1024
    host.assert_alive()


def test_a_large_real_result_round_trips_through_parts(host):
    # ~150 KB of text whose neutralization (text + one edit per marker) encodes to ~1.5 MB.
    line = 'Naïve café — “quoted” 😀 text\twith\\slashes and "quotes". Honestly I realise the colour was off!!!\n'
    text = line * 1500
    reply = host.request("neutralize", {"text": text}, timeout=60)
    assert reply["type"] == "result", reply
    assert reply["_parts"] >= 2
    result = reply["result"]
    rebuilt, pos = [], 0
    for edit in result["edits"]:
        rebuilt += [text[pos : edit["start"]], edit["replacement"]]
        pos = edit["end"]
    assert "".join([*rebuilt, text[pos:]]) == result["text"]
    host.assert_alive()


def test_oversized_incoming_frame_is_refused_without_being_buffered(host):
    host.assert_alive()
    baseline = _rss_peak_kib(host.proc.pid)
    size = 60 * 1024 * 1024  # above the 8 MiB cap, below the 64 MiB plausibility limit
    writer = threading.Thread(target=host.send_raw, args=(HEADER.pack(size) + b" " * size,))
    writer.start()
    error = host.error_for_null_id(timeout=60)
    writer.join()
    assert error["name"] == "frame_too_large" and error["code"] == 3
    assert error["data"] == {"length": size, "limit": 8 * 1024 * 1024}
    assert _rss_peak_kib(host.proc.pid) - baseline < 16 * 1024, "the frame was held in memory"
    host.assert_alive()


def test_garbage_bytes_are_reported_and_the_stream_recovers(host):
    host.send_raw(b"GARBAGE\x00\xff not a frame at all " * 50)
    assert host.error_for_null_id()["name"] == "bad_length"
    host.assert_alive()


def test_truncated_frame_times_out_and_the_stream_recovers():
    with HostProcess(env=host_env(FANTASMA_HOST_STALL_S=SHORT_STALL_S)) as host:
        host.send_raw(HEADER.pack(100) + b'{"id": "cut')
        error = host.error_for_null_id(timeout=30)
        assert error["name"] == "truncated_frame" and error["data"] == {"received": 11, "expected": 100}
        host.send_raw(b"\x05\x00")  # half a header, then silence
        assert host.error_for_null_id(timeout=30)["name"] == "truncated_frame"
        host.assert_alive()
        assert host.close() == 0
        assert host.violations == []


def test_truncated_frame_at_eof_is_reported_then_clean_exit():
    with HostProcess() as proc:
        proc.send_raw(HEADER.pack(50) + b"{")
        proc.proc.stdin.close()
        assert proc.error_for_null_id()["name"] == "truncated_frame"
        assert proc.close() == 0


def test_interleaved_requests_keep_order_and_immediate_types_answer_during_a_job(host):
    slow = host.send("debug.sleep", {"seconds": SLEEP_S})
    analyze = host.send("analyze", {"text": SAMPLE})
    hello = host.send("hello")
    settings = host.send("settings.get")
    finals: list[str] = []
    while len(finals) < 2:  # answered while the slow job still runs (it ends only when cancelled below)
        message = host.recv(30)
        if message["type"] in ("result", "error"):
            assert message["type"] == "result", message
            finals.append(message["id"])
    assert sorted(finals) == sorted([hello, settings])
    host.send("cancel", {"target": slow})
    while len(finals) < 5:
        message = host.recv(30)
        if message["type"] in ("result", "error"):
            finals.append(message["id"])
            if message["id"] == slow:
                assert message["error"]["name"] == "cancelled", message
            else:
                assert message["type"] == "result", message
    assert finals.index(slow) < finals.index(analyze)  # jobs run in arrival order


def test_settings_round_trip_and_persist(host, isolated_home):
    assert host.result("settings.get")["settings"]["default_strength"] == "medium"
    updated = host.result("settings.set", {"settings": {"default_strength": "strong", "candidates": 3}})
    assert updated["settings"]["default_strength"] == "strong" and updated["settings"]["candidates"] == 3
    stored = json.loads((isolated_home / "config" / "settings.json").read_text())
    assert stored["candidates"] == 3


def test_stray_output_never_reaches_the_frame_stream(host):
    assert host.result("debug.sleep", {"seconds": 0, "stray_output": True})["slept"] >= 0
    host.assert_alive()
    assert host.close() == 0
    assert host.violations == []
    assert b"stray print from a job" in host.stderr and b"stray bytes written to fd 1" in host.stderr


def test_eof_while_a_job_runs_exits_cleanly():
    """EOF cancels the running job: the host exits cleanly without waiting for it to end (the time it
    takes is in bench/bench_cancel.py)."""
    with HostProcess() as proc:
        proc.send("debug.sleep", {"seconds": SLEEP_S})
        assert proc.recv(30)["type"] == "progress"
        started = time.monotonic()
        assert proc.close(timeout=SLEEP_S / 2) == 0
        assert time.monotonic() - started < SLEEP_S / 2


def test_logs_go_to_the_rotating_log_file(host, isolated_home):
    host.assert_alive()
    assert host.close() == 0
    log = (isolated_home / "log" / "host.log").read_text()
    assert "starting" in log and "request t1 hello" in log


AUDIT_WRAPPER = """
import os, sys
def hook(event, args):
    if event in ("socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto"):
        os.write(2, ("NETWORK: " + event + "\\n").encode())
        os._exit(97)
sys.addaudithook(hook)
if sys.argv[1] == "probe":
    import socket
    socket.socket().connect(("127.0.0.1", 9))
from native_host.host import main
sys.exit(main([]))
"""


def test_the_host_opens_no_network_connection(tmp_path):
    wrapper = tmp_path / "audited_host.py"
    wrapper.write_text(AUDIT_WRAPPER)
    # The hook itself works: a connect attempt ends the process with 97.
    with HostProcess([sys.executable, str(wrapper), "probe"]) as probe:
        assert probe.close() == 97
    with HostProcess([sys.executable, str(wrapper), "serve"], env=host_env()) as proc:
        proc.assert_alive()
        proc.result("analyze", {"text": SAMPLE})
        proc.result("neutralize", {"text": SAMPLE})
        proc.result("rewrite", {"text": SAMPLE, "options": {"strength": "medium"}}, timeout=90)
        proc.result("profile.show")
        proc.result("settings.get")
        assert proc.close() == 0, proc.stderr
        assert b"NETWORK" not in proc.stderr


def test_native_byte_order_is_used_for_lengths():
    assert HEADER.pack(1) == struct.pack("=I", 1) == (1).to_bytes(4, sys.byteorder)


def test_profile_add_show_clear(host, isolated_home):
    assert host.result("profile.show") == {"profile": None, "rivals": []}
    added = host.result("profile.add", {"text": SAMPLE + " Honestly, I realise it!!! :)"})["profile"]
    assert added["documents"] == 1 and added["words"] > 0 and isinstance(added["habits"], list)
    assert (isolated_home / "data" / "profile.msgpack").exists()
    assert host.result("profile.show")["profile"]["documents"] == 1
    assert host.result("profile.clear") == {"cleared": True}
    assert host.result("profile.show") == {"profile": None, "rivals": []}


def test_corrupt_profile_is_reported_and_not_overwritten(host, isolated_home):
    stored = isolated_home / "data" / "profile.msgpack"
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(b"\xc1 not msgpack")
    assert host.request("profile.show")["error"]["name"] == "storage_error"
    assert host.request("profile.add", {"text": SAMPLE})["error"]["name"] == "storage_error"
    assert stored.read_bytes() == b"\xc1 not msgpack"
    assert host.result("analyze", {"text": SAMPLE})["profile_used"] is False  # analysis still works
