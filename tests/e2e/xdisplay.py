"""A private X display (Xvfb) and real input on it (xdotool, through the XTEST extension): key presses and
mouse clicks that the X server delivers to the focused window exactly as a keyboard's and a mouse's, so
browser-level shortcuts and native context menus see them. BiDi and the DevTools protocol only reach the
page, never the browser's own key handling."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

# WebExtension key names (manifest `commands`) → X keysym names.
KEYSYMS = {
    "Ctrl": "ctrl",
    "Alt": "alt",
    "Shift": "shift",
    "Comma": "comma",
    "Period": "period",
    "Space": "space",
    "Home": "Home",
    "End": "End",
    "PageUp": "Prior",
    "PageDown": "Next",
    "Insert": "Insert",
    "Delete": "Delete",
    "Up": "Up",
    "Down": "Down",
    "Left": "Left",
    "Right": "Right",
}


def xdotool_keys(shortcut: str) -> str:
    """The manifest's "Ctrl+Shift+F" as xdotool's "ctrl+shift+f" (Linux bindings: no mac-only modifiers)."""
    parts = shortcut.split("+")
    assert parts and not {"MacCtrl", "Command"} & set(parts), f"not a Linux shortcut: {shortcut!r}"
    return "+".join(KEYSYMS.get(p, p.lower() if len(p) == 1 else p) for p in parts)


class XDisplay:
    """Xvfb on a free display number (the server picks it: -displayfd), without a window manager."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        for tool in ("Xvfb", "xdotool"):
            if not shutil.which(tool):
                pytest.fail(f"{tool} is missing: run scripts/install-system-deps.sh (make test-install does)")
        read, write = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        number = b""
        with os.fdopen(read, "rb") as pipe:
            while not number.endswith(b"\n"):
                char = pipe.read(1)
                if not char:
                    self.proc.kill()
                    raise RuntimeError("Xvfb exited before it named its display")
                number += char
        self.display = f":{number.decode().strip()}"
        self.env = {"DISPLAY": self.display}

    def xdotool(self, *args: str, timeout: float = 30.0) -> str:
        env = {**os.environ, **self.env}
        done = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"xdotool {' '.join(args)}: {done.stderr.strip()}"
        return done.stdout

    def windows(self, timeout: float = 60.0) -> list[str]:
        """The visible windows with a title: the browser's top-level windows (one browser per display)."""
        deadline = time.monotonic() + timeout
        while True:
            env = {**os.environ, **self.env}
            found = subprocess.run(
                ["xdotool", "search", "--onlyvisible", "--name", "."], env=env, capture_output=True, text=True
            ).stdout.split()
            if found:
                return found
            assert time.monotonic() < deadline, "no browser window appeared on the X display"
            time.sleep(0.2)

    def focus(self, window: str) -> None:
        """X input focus to the window (what clicking into it does under a window manager)."""
        self.xdotool("windowfocus", "--sync", window)

    def key(self, keys: str) -> None:
        """One real key press and release of the combination, e.g. "ctrl+shift+f"."""
        self.xdotool("key", "--clearmodifiers", keys)

    def click(self, x: float, y: float, button: int = 1) -> None:
        """A real mouse click at screen point (x, y); button 3 is the right one."""
        self.xdotool("mousemove", "--sync", str(round(x)), str(round(y)))
        self.xdotool("click", str(button))

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
