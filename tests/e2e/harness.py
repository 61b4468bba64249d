"""Shared e2e helpers: paths and ids, host registration, launching Chromium with the extension, the
`Browser` wrapper that acts the way the menu and the shortcut do, and the host oracle over pipes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, CDPSession, FrameLocator, Page, Playwright, Worker

ROOT = Path(__file__).resolve().parents[2]
EXTENSION_DIR = ROOT / "extension"
ARTIFACTS = ROOT / "tests" / "_artifacts"
CHROMIUM = "/usr/bin/chromium"
EXTENSION_ID = "folfajlldbfkhgchaeijigmkgemmkfnl"  # pinned by the manifest key (extension/IDENTITY.md)
GECKO_ID = "fantasma@fantasma-project.org"


def npm_ci(folder: Path, installed: str, timeout: float) -> None:
    """`npm ci` in `folder` unless `installed` (a path under its node_modules) is there already (make
    test-install normally did it)."""
    if (folder / "node_modules" / installed).exists():
        return
    npm = shutil.which("npm")
    assert npm, f"npm is needed to install {folder / 'package.json'}"
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=True, timeout=timeout
    )


def register_host(manifest_dir: Path, browser_form: str, fantasma_home: Path) -> Path:
    """Registers the real host the way `fantasma-host install` does (the installer's own launcher and
    manifest writers), with the test's FANTASMA_HOME pinned in the launcher."""
    from native_host.install.installer import write_host_manifest, write_launcher

    launcher = write_launcher(manifest_dir.parent / "launcher", sys.executable, "linux", str(fantasma_home))
    return write_host_manifest(manifest_dir, browser_form, launcher)


def home_with_models(home: Path, embedder_model_dir: Path, default_model_dir: Path | None = None) -> Path:
    """`home` as a FANTASMA_HOME whose models dir holds the meaning embedder (and, when given, the default
    model) where `fantasma setup` puts them: symlinks into the test session's exports (native_host/paths.py
    names the dirs). Without a language model, alternatives are the search's rule edits."""
    from native_host import paths

    models = home / "data" / paths.models_dir().relative_to(paths.data_dir())
    models.mkdir(parents=True)
    if default_model_dir is not None:
        (models / paths.default_model_dir().name).symlink_to(default_model_dir, target_is_directory=True)
    (models / paths.embedder_dir().name).symlink_to(embedder_model_dir, target_is_directory=True)
    return home


def chromium_args(extension: Path) -> list[str]:
    """Chromium's flags for a test: the unpacked extension only, no sandbox (root), no background traffic
    (this machine's closed network refuses it)."""
    return [
        f"--load-extension={extension}",
        f"--disable-extensions-except={extension}",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ]


def launch(
    pw: Playwright,
    user_data_dir: Path,
    headless: bool = True,
    env: dict[str, str] | None = None,
    extension: Path = EXTENSION_DIR,
) -> BrowserContext:
    """Chromium with the unpacked extension (`extension`: another build of it); headed (`headless=False`)
    on `env`'s DISPLAY for real keys."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-deps.sh (make test-install does)")
    return pw.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=CHROMIUM,
        headless=headless,
        env={**os.environ, **env} if env else None,
        args=chromium_args(extension),
        viewport={"width": 900, "height": 600},
    )


@contextlib.contextmanager
def chromium_with_host(pw: Playwright, user_data_dir: Path, fantasma_home: Path) -> Iterator[Browser]:
    """Chromium with the extension and the real host registered for `fantasma_home`; closed on exit.
    Chromium reads user-level host manifests from <user data dir>/NativeMessagingHosts."""
    register_host(user_data_dir / "NativeMessagingHosts", "chromium", fantasma_home)
    context = launch(pw, user_data_dir)
    try:
        yield Browser(context)
    finally:
        context.close()


def service_worker(context: BrowserContext) -> Worker:
    for worker in context.service_workers:
        if worker.url.startswith(f"chrome-extension://{EXTENSION_ID}/"):
            return worker
    return context.wait_for_event(
        "serviceworker", predicate=lambda w: w.url.startswith(f"chrome-extension://{EXTENSION_ID}/")
    )


class Browser:
    """One Chromium with the extension; helpers act the way the menu and the shortcut do."""

    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        self.sw = service_worker(context)

    def set_settings(self, **settings: object) -> None:
        self.sw.evaluate(
            "(s) => chrome.storage.local.clear().then(() => chrome.storage.local.set(s))", settings
        )

    def menu(self, page: Page, selector: str, item: str) -> None:
        """Right-clicks the field (the content script records it), then runs the menu's click handler."""
        page.locator(selector).click(button="right")
        self.sw.evaluate(
            """async (item) => {
              const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
              await fantasmaBackground.handleMenuClick({ menuItemId: item, frameId: 0 }, tab);
            }""",
            item,
        )

    def menu_in_frame(self, frame: FrameLocator, selector: str, item: str) -> None:
        """The menu on a field inside an iframe. Headless, the test cannot learn the frame's extension
        frameId (that needs the webNavigation permission), so the menu's message goes to every frame of
        the tab; only the frame that recorded the right-click acts (the others hold no field)."""
        frame.locator(selector).click(button="right")
        self.sw.evaluate(
            """async (item) => {
              const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
              const kind = item === "fantasma-anonymize" ? "anonymize" : "markers";
              await chrome.tabs.sendMessage(tab.id, { kind, focusedOnly: false });
            }""",
            item,
        )

    def command(self, name: str) -> None:
        """What the keyboard shortcut runs (browser-level shortcuts cannot be pressed headless)."""
        self.sw.evaluate(
            """async (name) => {
              const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
              await fantasmaBackground.handleCommand(name, tab);
            }""",
            name,
        )


# A text with markers the rule-based neutralizer changes (spelling dialect, "!!!", an emoticon, slang).
SAMPLE = "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. I'll send it tomorrow, innit."


def host_request(home: Path, type_: str, params: dict, timeout: float = 120.0) -> dict:
    """One request to the real host of this checkout, in FANTASMA_HOME `home`: the test's oracle."""
    env = {**os.environ, "FANTASMA_HOME": str(home)}
    return host_reply([sys.executable, "-m", "native_host"], env, ROOT, type_, params, timeout)


def host_reply(
    command: list[str], env: dict[str, str], cwd: Path, type_: str, params: dict, timeout: float = 180.0
) -> dict:
    """One request to a host started by `command`, over real pipes; the final reply. stdin stays open
    until the reply is in (EOF would cancel the job)."""
    body = json.dumps({"id": "oracle", "type": type_, "params": params}).encode()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env, cwd=cwd
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(struct.pack("=I", len(body)) + body)
            proc.stdin.flush()
            while True:
                head = proc.stdout.read(4)
                if len(head) != 4:
                    log.seek(0)
                    raise AssertionError(
                        f"the host closed its output (rc={proc.poll()}): {log.read()[-2000:]!r}"
                    )
                (n,) = struct.unpack("=I", head)
                reply = json.loads(proc.stdout.read(n))
                if reply.get("id") == "oracle" and reply["type"] in ("result", "error"):
                    return reply
        finally:
            timer.cancel()
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=30)


def extension_seconds(path: str, pattern: str) -> float:
    """A duration the extension's own code sets (milliseconds, `1_000` style allowed), in seconds."""
    source = (EXTENSION_DIR / path).read_text(encoding="utf-8")
    match = re.search(pattern, source)
    assert match, f"{pattern!r} not found in extension/{path}"
    return int(match.group(1).replace("_", "")) / 1000


# How long the extension may hold a send for its rewrite: the host request's inactivity deadline...
REWRITE_DEADLINE_S = extension_seconds(
    "native.js", r"TIMEOUTS_MS = Object\.freeze\(\{[^}]*?\brewrite:\s*([\d_]+)"
)
# ... and, once the host has answered, the most the edit may take to settle before the send is replayed
# (waiting for the editor to see the select-all, then for the field to settle), plus the replayed
# send's own trip to the server.
QUIET_S = (
    extension_seconds("content/editors/index.js", r"SELECTION_SYNC_MS\s*=\s*([\d_]+)")
    + extension_seconds("content/editors/index.js", r"SETTLE_MAX_MS\s*=\s*([\d_]+)")
    + 0.5
)


def background_work_js(background: str = "globalThis") -> str:
    """JavaScript for what the background reports: [host requests in flight, host jobs started so far]."""
    return f"[{background}.fantasmaBackground.host.pending.size, {background}.fantasmaBackground.stats.jobs]"


def wait_until_settled(background_work: Callable[[], list[int]], pause: Callable[[float], None]) -> None:
    """Waits until a wrongly released send would have reached the server, so that `posts == [...]`
    means something. A held send is replayed only after the host answered its rewrite (or the request's
    deadline, read from extension/native.js, ran out) and the edit settled; so this waits until the
    background has no host request in flight and has started no new job for QUIET_S (the settle bounds
    read from extension/content/editors/index.js), at most the rewrite deadline plus that."""
    give_up = time.monotonic() + REWRITE_DEADLINE_S + QUIET_S
    last = background_work()
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < QUIET_S:
        now = background_work()
        if now[0] or now[1] != last[1]:
            last, quiet_since = now, time.monotonic()
        assert time.monotonic() < give_up, "host work still in flight past the extension's own deadline"
        pause(0.1)


# Runs on a UI shadow root: records the text of every text node added under it from now on (a box's
# texts, a label's new text) and every text edited in place; returns the array it fills.
RECORD_TEXTS_JS = """function () {
  const seen = [];
  const textsOf = (node) => {
    if (node.nodeType === Node.TEXT_NODE) return [node.data];
    if (node.nodeType !== Node.ELEMENT_NODE || ["STYLE", "SCRIPT"].includes(node.nodeName)) return [];
    return [...node.childNodes].flatMap(textsOf);
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "characterData") seen.push(record.target.data);
      for (const node of record.addedNodes) seen.push(...textsOf(node));
    }
  });
  observer.observe(this, { childList: true, subtree: true, characterData: true });
  seen.observer = observer; // lives as long as the array the test holds
  return seen;
}"""


class RecordedTexts(Iterable[str]):
    """The texts recorded in the page so far, read on each use (after what the page did before it)."""

    def __init__(self, cdp: CDPSession, arrays: list[str]) -> None:
        self.cdp = cdp
        self.arrays = arrays  # remote object ids of the page-side arrays, one per UI root

    def _now(self) -> list[str]:
        texts: list[str] = []
        for array in self.arrays:
            reply = self.cdp.send(
                "Runtime.callFunctionOn",
                {
                    "objectId": array,
                    "functionDeclaration": "function () { return [...this]; }",
                    "returnByValue": True,
                },
            )
            texts += reply["result"]["value"]
        return texts

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __repr__(self) -> str:
        return repr(self._now())


class PageUi:
    """The extension's in-page UI lives in a closed shadow root: page scripts, and Playwright's selectors
    (which run as page script), cannot see into it. The tests read it through the DevTools protocol, the
    way the browser's own inspector does, and press its buttons with the real mouse (trusted clicks)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.seen_texts: list[str] = []

    def _boxes(self) -> list[dict]:
        """Every element with a data-fantasma attribute inside a closed shadow root, in every frame."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        boxes: list[dict] = []

        def text_of(node: dict) -> str:
            if node.get("nodeType") == 3:
                return node.get("nodeValue", "")
            if node.get("localName") in ("style", "script"):
                return ""
            return "".join(text_of(c) for c in node.get("children", []))

        def buttons_of(node: dict, out: list[tuple[str, int]]) -> list[tuple[str, int]]:
            if node.get("localName") == "button":
                out.append((text_of(node).strip(), node["backendNodeId"]))
            for child in node.get("children", []):
                buttons_of(child, out)
            return out

        def tags_of(node: dict, out: dict[str, int]) -> dict[str, int]:
            if node.get("nodeType") == 1:
                out[node["localName"]] = out.get(node["localName"], 0) + 1
            for child in node.get("children", []):
                tags_of(child, out)
            return out

        def elements_of(node: dict, out: list[dict]) -> list[dict]:
            """Every element under `node`, in document order: tag, text and attributes."""
            for child in node.get("children", []):
                if child.get("nodeType") == 1:
                    attrs = child.get("attributes", [])
                    named = dict(zip(attrs[::2], attrs[1::2], strict=False))
                    out.append({"tag": child["localName"], "text": text_of(child), "attrs": named})
                elements_of(child, out)
            return out

        def walk(node: dict, closed: bool) -> None:
            attrs = node.get("attributes", [])
            named = dict(zip(attrs[::2], attrs[1::2], strict=False))
            if closed and "data-fantasma" in named:
                boxes.append(
                    {
                        "kind": named["data-fantasma"],
                        "text": text_of(node),
                        "buttons": buttons_of(node, []),
                        "tags": tags_of(node, {}),
                        "elements": elements_of(node, []),
                    }
                )
            for shadow in node.get("shadowRoots", []):
                walk(shadow, closed or shadow.get("shadowRootType") == "closed")
            for child in node.get("children", []):
                walk(child, closed)
            if "contentDocument" in node:
                walk(node["contentDocument"], closed)

        walk(root, False)
        return boxes

    def boxes(self, kind: str) -> list[dict]:
        return [box for box in self._boxes() if box["kind"] == kind]

    def record_texts(self) -> RecordedTexts:
        """From now on, every text the UI shows (also boxes that come and go between two polls) is in the
        returned sequence. A MutationObserver on each of the UI's closed shadow roots, handed over by the
        inspector, copies each text as it is added, in the page. (The inspector's own DOM events cannot:
        a node it inserts comes without its children, and asking for them is a round trip that a box
        gone by then, like a fast job's progress pill, never answers.) The roots must exist already
        (show a box first); a root made later, for a new host, is not watched."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]
        roots: list[int] = []  # backend node ids of the UI's shadow roots

        def walk(node: dict) -> None:
            attrs = node.get("attributes", [])
            if "data-fantasma-ui" in attrs[::2]:
                roots.extend(
                    s["backendNodeId"]
                    for s in node.get("shadowRoots", [])
                    if s.get("shadowRootType") == "closed"
                )
            for child in node.get("children", []) + node.get("shadowRoots", []):
                walk(child)
            if "contentDocument" in node:
                walk(node["contentDocument"])

        walk(root)
        assert roots, "no UI root in the page yet: show a box before recording"
        arrays: list[str] = []
        for backend_id in roots:
            shadow = self.cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})["object"]
            arrays.append(
                self.cdp.send(
                    "Runtime.callFunctionOn",
                    {"objectId": shadow["objectId"], "functionDeclaration": RECORD_TEXTS_JS},
                )["result"]["objectId"]
            )
        return RecordedTexts(self.cdp, arrays)

    def texts(self, kind: str) -> list[str]:
        found = [box["text"] for box in self._boxes() if box["kind"] == kind]
        self.seen_texts += found
        return found

    def wait_for(self, kind: str, contains: str = "", timeout: float = 15.0) -> str:
        """Waits until a box of this kind shows `contains`; returns its text."""
        deadline = time.monotonic() + timeout
        while True:
            for text in self.texts(kind):
                if contains in text:
                    return text
            if time.monotonic() > deadline:
                raise AssertionError(f"no {kind!r} box containing {contains!r}; seen: {self.texts(kind)}")
            self.page.wait_for_timeout(50)

    def wait_gone(self, kind: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.texts(kind):
            if time.monotonic() > deadline:
                raise AssertionError(f"the {kind!r} box is still shown")
            self.page.wait_for_timeout(50)

    def click(self, kind: str, label: str) -> None:
        """Clicks the button labelled `label` in the box of this kind, with the real mouse."""
        for box in self._boxes():
            if box["kind"] != kind:
                continue
            for text, backend_id in box["buttons"]:
                if text == label:
                    quad = self.cdp.send("DOM.getContentQuads", {"backendNodeId": backend_id})["quads"][0]
                    x = sum(quad[0::2]) / 4
                    y = sum(quad[1::2]) / 4
                    self.page.mouse.click(x, y)
                    return
        raise AssertionError(f"no button {label!r} in a {kind!r} box: {self._boxes()}")

    def click_inside(self, kind: str) -> None:
        """A real click inside the box of this kind, near its top-left corner (its text, not a button)."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]

        def find(node: dict, closed: bool) -> int | None:
            attrs = node.get("attributes", [])
            if closed and dict(zip(attrs[::2], attrs[1::2], strict=False)).get("data-fantasma") == kind:
                return node["backendNodeId"]
            for shadow in node.get("shadowRoots", []):
                if (found := find(shadow, closed or shadow.get("shadowRootType") == "closed")) is not None:
                    return found
            for child in node.get("children", []) + (
                [node["contentDocument"]] if "contentDocument" in node else []
            ):
                if (found := find(child, closed)) is not None:
                    return found
            return None

        backend_id = find(root, False)
        assert backend_id is not None, f"no {kind!r} box shown"
        quad = self.cdp.send("DOM.getContentQuads", {"backendNodeId": backend_id})["quads"][0]
        self.page.mouse.click(quad[0] + 12, quad[1] + 12)

    def click_tag(self, kind: str, tag: str, starts: str) -> None:
        """A real click on the first `tag` element (e.g. a disclosure's `summary`) in the box of this kind
        whose text starts with `starts`."""
        root = self.cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"]

        def text_of(node: dict) -> str:
            if node.get("nodeType") == 3:
                return node.get("nodeValue", "")
            return "".join(text_of(c) for c in node.get("children", []))

        def find(node: dict, closed: bool, inside: bool) -> int | None:
            attrs = dict(zip(node.get("attributes", [])[::2], node.get("attributes", [])[1::2], strict=False))
            inside = inside or (closed and attrs.get("data-fantasma") == kind)
            if inside and node.get("localName") == tag and text_of(node).strip().startswith(starts):
                return node["backendNodeId"]
            for shadow in node.get("shadowRoots", []):
                found = find(shadow, closed or shadow.get("shadowRootType") == "closed", inside)
                if found is not None:
                    return found
            for child in node.get("children", []) + (
                [node["contentDocument"]] if "contentDocument" in node else []
            ):
                if (found := find(child, closed, inside)) is not None:
                    return found
            return None

        backend_id = find(root, False, False)
        assert backend_id is not None, f"no <{tag}> {starts!r} in a {kind!r} box: {self._boxes()}"
        quad = self.cdp.send("DOM.getContentQuads", {"backendNodeId": backend_id})["quads"][0]
        self.page.mouse.click(sum(quad[0::2]) / 4, sum(quad[1::2]) / 4)
