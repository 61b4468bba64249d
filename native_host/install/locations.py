"""Where each browser looks for native-messaging host manifests: one table, browser × OS.

Linux/macOS entries are directories (user ones relative to HOME); Windows entries are registry keys
under HKCU (per user) or HKLM (--system) whose default value is the manifest's path.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

HOST_NAME = "org.fantasma.host"
CHROMIUM_ORIGIN = "chrome-extension://folfajlldbfkhgchaeijigmkgemmkfnl/"
GECKO_ID = "fantasma@fantasma-project.org"

Form = Literal["chromium", "firefox"]
OSName = Literal["linux", "darwin", "windows"]


@dataclass(frozen=True)
class Browser:
    name: str
    form: Form
    linux_user: str  # relative to HOME
    linux_system: str
    darwin_user: str  # relative to HOME
    darwin_system: str
    windows_key: str  # under HKCU / HKLM; the host name is appended
    profile_root: dict[str, str]  # OS -> dir (relative to HOME) whose presence means "installed"
    flatpak_id: str | None = None
    snap_name: str | None = None


_MAC = "Library/Application Support"

BROWSERS: tuple[Browser, ...] = (
    Browser(
        "chrome", "chromium",
        ".config/google-chrome/NativeMessagingHosts", "/etc/opt/chrome/native-messaging-hosts",
        f"{_MAC}/Google/Chrome/NativeMessagingHosts", "/Library/Google/Chrome/NativeMessagingHosts",
        r"Software\Google\Chrome\NativeMessagingHosts",
        {"linux": ".config/google-chrome", "darwin": f"{_MAC}/Google/Chrome"},
        flatpak_id="com.google.Chrome",
    ),
    Browser(
        "chromium", "chromium",
        ".config/chromium/NativeMessagingHosts", "/etc/chromium/native-messaging-hosts",
        f"{_MAC}/Chromium/NativeMessagingHosts", f"/{_MAC}/Chromium/NativeMessagingHosts",
        r"Software\Chromium\NativeMessagingHosts",
        {"linux": ".config/chromium", "darwin": f"{_MAC}/Chromium"},
        flatpak_id="org.chromium.Chromium", snap_name="chromium",
    ),
    Browser(
        # Brave on Linux has no system dir of its own; it reads Chrome's.
        "brave", "chromium",
        ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts", "/etc/opt/chrome/native-messaging-hosts",
        f"{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        f"/{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
        {"linux": ".config/BraveSoftware/Brave-Browser", "darwin": f"{_MAC}/BraveSoftware/Brave-Browser"},
        flatpak_id="com.brave.Browser", snap_name="brave",
    ),
    Browser(
        "edge", "chromium",
        ".config/microsoft-edge/NativeMessagingHosts", "/etc/opt/edge/native-messaging-hosts",
        f"{_MAC}/Microsoft Edge/NativeMessagingHosts", "/Library/Microsoft/Edge/NativeMessagingHosts",
        r"Software\Microsoft\Edge\NativeMessagingHosts",
        {"linux": ".config/microsoft-edge", "darwin": f"{_MAC}/Microsoft Edge"},
        flatpak_id="com.microsoft.Edge",
    ),
    Browser(
        "vivaldi", "chromium",
        ".config/vivaldi/NativeMessagingHosts", "/etc/opt/vivaldi/native-messaging-hosts",
        f"{_MAC}/Vivaldi/NativeMessagingHosts", f"/{_MAC}/Vivaldi/NativeMessagingHosts",
        r"Software\Vivaldi\NativeMessagingHosts",
        {"linux": ".config/vivaldi", "darwin": f"{_MAC}/Vivaldi"},
        flatpak_id="com.vivaldi.Vivaldi", snap_name="vivaldi",
    ),
    Browser(
        "firefox", "firefox",
        ".mozilla/native-messaging-hosts", "/usr/lib/mozilla/native-messaging-hosts",
        f"{_MAC}/Mozilla/NativeMessagingHosts", f"/{_MAC}/Mozilla/NativeMessagingHosts",
        r"Software\Mozilla\NativeMessagingHosts",
        {"linux": ".mozilla", "darwin": f"{_MAC}/Firefox"},
        flatpak_id="org.mozilla.firefox", snap_name="firefox",
    ),
    Browser(
        "librewolf", "firefox",
        ".librewolf/native-messaging-hosts", "/usr/lib/librewolf/native-messaging-hosts",
        f"{_MAC}/LibreWolf/NativeMessagingHosts", f"/{_MAC}/LibreWolf/NativeMessagingHosts",
        r"Software\LibreWolf\NativeMessagingHosts",
        {"linux": ".librewolf", "darwin": f"{_MAC}/librewolf"},
        flatpak_id="io.gitlab.librewolf-community",
    ),
)  # fmt: skip

BY_NAME = {browser.name: browser for browser in BROWSERS}


def current_os() -> OSName:
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def manifest_dir(browser: Browser, os_name: OSName, system: bool) -> str:
    """The directory (POSIX; user dirs relative to HOME) for this browser, OS and scope."""
    column = {
        ("linux", False): browser.linux_user,
        ("linux", True): browser.linux_system,
        ("darwin", False): browser.darwin_user,
        ("darwin", True): browser.darwin_system,
    }
    return column[(os_name, system)]
