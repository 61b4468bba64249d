"""The real host as a subprocess over real pipes, with a strict reader for everything it writes: how the
tests, bench/ and scripts/ drive the host (`python -m native_host`, run from the repository root)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HEADER = struct.Struct("=I")
MAX_FRAME = 1024 * 1024
REPLY_TYPES = {"progress", "result", "error", "part"}
REPO = Path(__file__).resolve().parents[2]


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return HEADER.pack(len(body)) + body


# How long the host waits for the rest of a frame it has begun. Long enough that a test process paused
# mid-write on a loaded machine is not taken for a truncated frame; the tests of truncation set a short one.
STALL_S = "10"
SHORT_STALL_S = "0.5"


def host_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"FANTASMA_HOST_DEBUG": "1", "FANTASMA_HOST_STALL_S": STALL_S, "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


class HostProcess:
    """Starts `python -m native_host`; a thread parses stdout strictly (any non-frame byte is a failure)."""

    def __init__(self, argv: list[str] | None = None, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv or [sys.executable, "-m", "native_host"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env or host_env(),
            cwd=REPO,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.violations: list[str] = []
        self.frame_sizes: list[int] = []
        self.stderr = b""
        self._out = threading.Thread(target=self._read_stdout, daemon=True)
        self._out.start()
        self._err = threading.Thread(target=self._read_stderr, daemon=True)
        self._err.start()
        self._lock = threading.Lock()
        self._counter = 0
        self.other: list[dict[str, Any]] = []  # replies for ids other than the one awaited

    def _read_stdout(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            header = stream.read(4)
            if not header:
                return
            if len(header) < 4:
                self.violations.append(f"partial header {header!r}")
                return
            (length,) = HEADER.unpack(header)
            if length > MAX_FRAME:
                self.violations.append(f"frame of {length} bytes (> 1 MiB), or non-frame bytes {header!r}")
                return
            body = stream.read(length)
            self.frame_sizes.append(length)
            try:
                message = json.loads(body.decode("utf-8"))
            except ValueError:
                self.violations.append(f"non-JSON frame {body[:80]!r}")
                return
            if not isinstance(message, dict) or message.get("type") not in REPLY_TYPES or "id" not in message:
                self.violations.append(f"not a reply envelope: {body[:80]!r}")
                return
            self.messages.put(message)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    # --- sending ---------------------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, kind: str, params: dict[str, Any] | None = None, request_id: str | None = None) -> str:
        if request_id is None:
            with self._lock:
                self._counter += 1
                request_id = f"t{self._counter}"
        message: dict[str, Any] = {"id": request_id, "type": kind}
        if params is not None:
            message["params"] = params
        self.send_raw(frame(message))
        return request_id

    # --- receiving -------------------------------------------------------------------------------------

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no reply within {timeout}s; violations={self.violations}; stderr={self.stderr[-2000:]!r}"
            ) from None

    def final(
        self, request_id: str | None, timeout: float = 60.0
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Wait for the final reply (result/error, parts reassembled) for an id; returns it and its
        progress events. Replies for other ids are stashed in `self.other`."""
        deadline = time.monotonic() + timeout
        progress: list[dict[str, Any]] = []
        parts: list[dict[str, Any]] = []
        stashed = [m for m in self.other if m.get("id") == request_id]
        self.other = [m for m in self.other if m.get("id") != request_id]
        while True:
            message = stashed.pop(0) if stashed else self.recv(max(0.1, deadline - time.monotonic()))
            if message.get("id") != request_id:
                self.other.append(message)
                continue
            if message["type"] == "progress":
                assert not parts, "progress between parts"
                progress.append(message)
            elif message["type"] == "part":
                assert message["index"] == len(parts)
                parts.append(message)
                if message["index"] == message["count"] - 1:
                    whole = json.loads("".join(p["data"] for p in parts))
                    whole["_parts"] = len(parts)
                    return whole, progress
            else:
                return message, progress

    def request(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        request_id = self.send(kind, params)
        reply, _ = self.final(request_id, timeout)
        return reply

    def result(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        reply = self.request(kind, params, timeout)
        assert reply["type"] == "result", reply
        return reply["result"]

    def error_for_null_id(self, timeout: float = 10.0) -> dict[str, Any]:
        reply, _ = self.final(None, timeout)
        assert reply["type"] == "error", reply
        return reply["error"]

    def cpu_seconds(self) -> float:
        """CPU time (user + system, all threads) the host process has used so far: a measure of work
        done that a loaded machine does not stretch, unlike wall-clock time."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def assert_alive(self) -> None:
        assert self.result("hello")["protocol"] == 1

    # --- shutdown --------------------------------------------------------------------------------------

    def close(self, timeout: float = 15.0) -> int:
        """EOF on stdin; returns the exit status."""
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"host did not exit within {timeout}s of EOF") from None
        self._out.join(5)
        self._err.join(5)
        return code

    def __enter__(self) -> HostProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
