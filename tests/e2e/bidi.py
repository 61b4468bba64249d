"""A minimal WebDriver BiDi client (stdlib only) for driving Debian's stock firefox-esr.

Playwright's Firefox needs its own patched build, and its BiDi mode ("moz-firefox") needs commands that
Firefox ESR 153 does not have yet (emulation.setMediaFeaturesOverride), so the Firefox test speaks BiDi
itself: a WebSocket client (RFC 6455, text frames only) and a request/response loop."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse


class BiDiError(Exception):
    pass


class WebSocket:
    def __init__(self, url: str, timeout: float = 30.0) -> None:
        parts = urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise BiDiError("websocket handshake: connection closed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise BiDiError(f"websocket handshake failed: {head[:200]!r}")

    def _read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise BiDiError("websocket closed")
            data += chunk
        return data

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def recv(self) -> str:
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", self._read(8))
            payload = self._read(n)
            if opcode == 0x8:
                raise BiDiError("websocket closed by the browser")
            if opcode == 0x9:  # ping → pong
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()

    def close(self) -> None:
        self.sock.close()


class BiDi:
    """Commands are sent one at a time; events that arrive meanwhile are ignored."""

    def __init__(self, url: str) -> None:
        self.ws = WebSocket(url)
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> dict:
        self.next_id += 1
        self.ws.sock.settimeout(timeout)
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") != self.next_id:
                continue
            if message.get("type") == "error":
                raise BiDiError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def evaluate(self, context: str, expression: str, timeout: float = 30.0) -> Any:
        """Evaluates an expression (awaiting promises) in a page; returns its JSON value."""
        result = self.send(
            "script.evaluate",
            {
                "expression": f"(async () => JSON.stringify(await ({expression})))()",
                "target": {"context": context},
                "awaitPromise": True,
            },
            timeout,
        )
        if result.get("type") == "exception":
            raise BiDiError(result["exceptionDetails"].get("text", "exception"))
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def navigate(self, context: str, url: str) -> None:
        self.send("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"})

    def wait_for(self, context: str, expression: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(context, expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BiDiError(f"timed out waiting for {expression}")
            time.sleep(0.1)


PREFS = {
    "xpinstall.signatures.required": False,  # honoured by ESR: the unpacked add-on is unsigned
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.normandy.enabled": False,
    "extensions.update.enabled": False,
    "network.proxy.type": 0,
}


class Firefox:
    """firefox-esr --headless with a fresh profile; `bidi` is a session on its BiDi endpoint. With
    `headless=False` it opens a real window on `env`'s DISPLAY (the real-key tests run it under Xvfb)."""

    def __init__(
        self,
        executable: str,
        profile: Path,
        home: Path,
        prefs: dict[str, Any],
        headless: bool = True,
        env: dict[str, str] | None = None,
    ) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        lines = [f"user_pref({json.dumps(k)}, {json.dumps(v)});" for k, v in {**PREFS, **prefs}.items()]
        (profile / "user.js").write_text("\n".join(lines) + "\n")
        env = {**os.environ, **(env or {}), "HOME": str(home), "MOZ_CRASHREPORTER_DISABLE": "1"}
        self.proc = subprocess.Popen(
            [
                executable,
                *(["--headless"] if headless else []),
                "--remote-debugging-port=0",
                "--remote-allow-system-access",
                "--no-remote",
                "--profile",
                str(profile),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.url = self._endpoint(timeout=60)
        self.bidi = BiDi(self.url + "/session")
        self.bidi.send("session.new", {"capabilities": {}})

    def _endpoint(self, timeout: float) -> str:
        found: list[str] = []
        done = threading.Event()

        def pump() -> None:
            assert self.proc.stderr is not None
            for raw in self.proc.stderr:
                match = re.search(rb"WebDriver BiDi listening on (ws://\S+)", raw)
                if match and not found:
                    found.append(match.group(1).decode())
                    done.set()
            done.set()

        threading.Thread(target=pump, daemon=True).start()  # keeps draining stderr afterwards
        if not done.wait(timeout) or not found:
            self.close()
            raise BiDiError("firefox did not open its WebDriver BiDi endpoint")
        return found[0]

    def close(self) -> None:
        try:
            if hasattr(self, "bidi"):
                self.bidi.send("browser.close", timeout=10)
        except (BiDiError, OSError):
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
