"""`fantasma try [--browser PATH] [--headless] [--timeout S]`: see Fantasma work in a minute, nothing kept.

Opens Chromium or Chrome (whichever is installed) with a throw-away profile, the extension loaded, the
host registered for that profile only, and a demo page (a text box and a Send button) served on
127.0.0.1 with "Rewrite before posting" on for it. When the window closes (or after --timeout), the
browser is stopped, the page server too, and the profile dir with the registration in it is removed.
The embedded models are set up first if they are not yet (`fantasma setup`'s steps; they stay, as
after `fantasma setup`).

The extension is loaded, and its setting turned on, over Chromium's DevTools protocol on a pipe
(`--remote-debugging-pipe`, `Extensions.loadUnpacked`): Chrome 137 and later ignore `--load-extension`,
and the pipe is private to this process (no port is opened). Linux and macOS.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import html
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

PAGE = Path(__file__).with_name("try_page.html")
CANDIDATES = {  # the first one found is used: Chromium, then Chrome
    "linux": ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"),
    "darwin": (
        "/Applications/Chromium.app/Contents/MacOS/Chromium",
        "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    ),
}
FLAGS = (
    "--remote-debugging-pipe",
    "--enable-unsafe-extension-debugging",  # lets the pipe load an unpacked extension
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
)
DEMO_SITE = "127.0.0.1"
# Runs in a fresh interpreter between fork and the browser: the pipe's two ends become fds 3 and 4,
# where --remote-debugging-pipe expects them.
TRAMPOLINE = "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); os.execv(sys.argv[3], sys.argv[3:])"


class TryError(RuntimeError):
    pass


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "try",
        help="open a throw-away browser window with Fantasma and a demo page (nothing is kept)",
        description=(
            "Open Chromium or Chrome with a throw-away profile, the extension loaded and the host "
            "registered for it only, on a local demo page. Close the window to end; nothing is left behind."
        ),
    )
    parser.add_argument("--browser", type=Path, default=None, help="Chromium or Chrome executable to use")
    parser.add_argument("--headless", action="store_true", help="no window (tests)")
    parser.add_argument(
        "--timeout", type=float, default=None, metavar="S", help="close the browser after S seconds"
    )
    parser.set_defaults(func=run)


def find_browser(explicit: Path | None) -> Path:
    if explicit is not None:
        if not explicit.is_file():
            raise TryError(f"{explicit} does not exist")
        return explicit
    for name in CANDIDATES.get(sys.platform if sys.platform == "darwin" else "linux", ()):
        found = shutil.which(name) if "/" not in name else (name if Path(name).is_file() else None)
        if found:
            return Path(found)
    raise TryError(
        "no Chromium or Chrome found; install one (e.g. apt install chromium), or pass --browser PATH. "
        "For Firefox see docs/install.md"
    )


# --- the demo page ---------------------------------------------------------------------------------


class DemoServer:
    """The demo page on 127.0.0.1 (a free port); POST /post shows what the "site" received."""

    def __init__(self) -> None:
        page = PAGE.read_bytes()
        self.received: list[str] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path in ("/", "/index.html"):
                    self._reply(200, page)
                else:
                    self._reply(404, b"not here")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode(
                    "utf-8", "replace"
                )
                message = parse_qs(body, keep_blank_values=True).get("message", [""])[0]
                received.append(message)
                self._reply(
                    200,
                    (
                        "<!doctype html><meta charset=utf-8><title>Fantasma: sent</title>"
                        "<body style='font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto'>"
                        "<h1>The site received</h1><blockquote id=received>"
                        f"{html.escape(message)}</blockquote><p><a href='/'>Back</a></p>"
                    ).encode(),
                )

            def _reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((DEMO_SITE, 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{DEMO_SITE}:{self.httpd.server_address[1]}/"

    def __enter__(self) -> DemoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- the browser over its DevTools pipe --------------------------------------------------------------


class DevTools:
    """Chromium's DevTools protocol on --remote-debugging-pipe: NUL-terminated JSON messages, commands
    on the browser's fd 3, replies and events on its fd 4. Events are not needed here and are skipped."""

    def __init__(self, to_browser: int, from_browser: int) -> None:
        self.to_browser = to_browser
        self.from_browser = from_browser
        self.buffer = b""
        self.next_id = 0

    def call(
        self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 30.0
    ) -> Any:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") != self.next_id:
                continue
            if "error" in reply:
                raise TryError(f"the browser refused {method}: {reply['error'].get('message')}")
            return reply.get("result", {})

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise TryError("the browser did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise EOFError("the browser closed")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def targets(self) -> list[dict]:
        return list(self.call("Target.getTargets")["targetInfos"])

    def close(self) -> None:
        for fd in (self.to_browser, self.from_browser):
            with contextlib.suppress(OSError):
                os.close(fd)


def _high_fd(fd: int) -> int:
    """A copy of `fd` numbered 5 or more (so moving the two ends to 3 and 4 cannot overwrite either)."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(fd)
    return copy


def launch(executable: Path, profile: Path, headless: bool) -> tuple[subprocess.Popen, DevTools]:
    commands_read, commands_write = os.pipe()
    replies_read, replies_write = os.pipe()
    child_in, child_out = _high_fd(commands_read), _high_fd(replies_write)
    flags = [*FLAGS, f"--user-data-dir={profile}"]
    if headless:
        flags.append("--headless=new")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags.append("--no-sandbox")  # Chromium will not start as root with its sandbox
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            TRAMPOLINE,
            str(child_in),
            str(child_out),
            str(executable),
            *flags,
            "about:blank",
        ],
        pass_fds=(child_in, child_out),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: stopped as a whole
    )
    os.close(child_in)
    os.close(child_out)
    return proc, DevTools(commands_write, replies_read)


def wait_for_worker(devtools: DevTools, extension_id: str, timeout: float = 20.0) -> str:
    prefix = f"chrome-extension://{extension_id}/"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for target in devtools.targets():
            if target["type"] == "service_worker" and target["url"].startswith(prefix):
                return str(target["targetId"])
        time.sleep(0.1)
    raise TryError("the extension's background worker did not start")


def open_demo(devtools: DevTools, extension_dir: Path, url: str) -> str:
    """Load the extension, turn "Rewrite before posting" on for the demo site, open the page; returns
    the extension id."""
    from native_host.install.extension import EXTENSION_ID

    devtools.call("Browser.getVersion", timeout=60)  # answers once the browser is up
    extension_id = devtools.call("Extensions.loadUnpacked", {"path": str(extension_dir)})["id"]
    if extension_id != EXTENSION_ID:
        raise TryError(
            f"the extension loaded as {extension_id}, not {EXTENSION_ID}: the host would refuse it"
        )
    worker = wait_for_worker(devtools, extension_id)
    session = devtools.call("Target.attachToTarget", {"targetId": worker, "flatten": True})["sessionId"]
    values = {"sites": {DEMO_SITE: True}}
    devtools.call(
        "Extensions.setStorageItems", {"id": extension_id, "storageArea": "local", "values": values}, session
    )
    blank = [t["targetId"] for t in devtools.targets() if t["type"] == "page"]
    devtools.call("Target.createTarget", {"url": url})
    for target_id in blank:
        devtools.call("Target.closeTarget", {"targetId": target_id})
    return str(extension_id)


def wait_closed(proc: subprocess.Popen, devtools: DevTools, timeout: float | None) -> str:
    """Until the last window is closed, the browser exits, or `timeout` passes; says which."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while proc.poll() is None:
        if deadline is not None and time.monotonic() > deadline:
            return "timeout"
        try:
            if not [t for t in devtools.targets() if t["type"] == "page"]:
                return "window closed"
        except (EOFError, TryError, OSError):
            return "browser exited"
        time.sleep(0.5)
    return "browser exited"


def stop(proc: subprocess.Popen, devtools: DevTools) -> None:
    if proc.poll() is None:
        with contextlib.suppress(EOFError, TryError, OSError):
            devtools.call("Browser.close", timeout=5)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait(timeout=10)
    devtools.close()
    with contextlib.suppress(ProcessLookupError, PermissionError):  # helpers left in its group
        os.killpg(proc.pid, 9)


# --- the command ------------------------------------------------------------------------------------


def extension_dir(scratch: Path) -> Path:
    from native_host import assets

    source = assets.extension_source()
    if source.chromium_zip is None:
        assert source.checkout_dir is not None
        return source.checkout_dir
    target = scratch / "extension"
    with zipfile.ZipFile(source.chromium_zip) as archive:
        archive.extractall(target)
    return target


def register_host(scratch: Path, profile: Path) -> Path:
    """The host for this profile only: Chromium reads <user-data-dir>/NativeMessagingHosts."""
    from native_host.install.installer import write_host_manifest, write_launcher
    from native_host.install.locations import current_os

    launcher = write_launcher(scratch / "host", sys.executable, current_os(), os.environ.get("FANTASMA_HOME"))
    return write_host_manifest(profile / "NativeMessagingHosts", "chromium", launcher)


def run(args: argparse.Namespace) -> int:
    from native_host.assets import AssetMissing
    from native_host.commands.setup import prepare_models
    from native_host.models.embedded import choose_chat_model

    if os.name != "posix":
        print("fantasma try: Linux and macOS only for now; see docs/install.md", file=sys.stderr)
        return 2
    try:
        executable = find_browser(args.browser)
    except TryError as exc:
        print(f"fantasma try: {exc}", file=sys.stderr)
        return 2
    choice = choose_chat_model(use_base=False)
    if not prepare_models(choice, force=False):
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="fantasma-try-"))
    try:
        return _run_in(scratch, executable, args)
    except (TryError, AssetMissing, OSError) as exc:
        print(f"fantasma try: {exc}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if scratch.exists():  # a helper still wrote into the profile as it ended
            time.sleep(1)
            shutil.rmtree(scratch, ignore_errors=True)
        print(f"removed {scratch}" if not scratch.exists() else f"could not remove {scratch}", flush=True)


def _run_in(scratch: Path, executable: Path, args: argparse.Namespace) -> int:
    profile = scratch / "profile"
    manifest = register_host(scratch, profile)
    unpacked = extension_dir(scratch)
    with DemoServer() as server:
        proc, devtools = launch(executable, profile, args.headless)
        try:
            extension_id = open_demo(devtools, unpacked, server.url)
            print(f"browser: {executable}, throw-away profile {profile}", flush=True)
            print(f"extension: {extension_id} from {unpacked}; host registered in {manifest}", flush=True)
            print(f"demo page: {server.url}", flush=True)
            print("close the browser window to end; the profile and the registration go with it", flush=True)
            why = wait_closed(proc, devtools, args.timeout)
        finally:
            stop(proc, devtools)
    print(f"ended ({why}); page server stopped, {len(server.received)} message(s) received", flush=True)
    return 0
