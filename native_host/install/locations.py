r"""Where each browser looks for native-messaging host manifests: one table, browser × OS.

Linux/macOS entries are directories (user ones relative to HOME); Windows entries are registry keys
under HKCU (per user) or HKLM (--system) whose default value is the manifest's path.

Windows keys, checked against the browsers' sources (docs/host.md, "Windows registry"): every browser
lists the keys it reads in the order it reads them; install writes the first. Chromium's
native_process_launcher_win.cc reads `Software\Google\Chrome\NativeMessagingHosts`, and Chromium-branded
builds `Software\Chromium\...` first; Brave and Vivaldi have no key of their own there (KeePassXC's
installer registers both under Chrome's key too); Edge reads its own key, then Chromium's and Chrome's
(Microsoft's native-messaging docs); Firefox's NativeManifests hard-codes
`Software\Mozilla\NativeMessagingHosts`, which LibreWolf inherits. In each hive the browser looks in
HKCU before HKLM.
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
    windows_keys: tuple[str, ...]  # under HKCU / HKLM, in the order the browser reads them; + host name
    profile_root: dict[str, str]  # OS -> dir (relative to HOME) whose presence means "installed"
    flatpak_id: str | None = None
    snap_name: str | None = None

    @property
    def windows_key(self) -> str:
        """The key install writes: the first one this browser reads."""
        return self.windows_keys[0]


_MAC = "Library/Application Support"
_WIN_CHROME = r"Software\Google\Chrome\NativeMessagingHosts"
_WIN_CHROMIUM = r"Software\Chromium\NativeMessagingHosts"
_WIN_MOZILLA = r"Software\Mozilla\NativeMessagingHosts"

BROWSERS: tuple[Browser, ...] = (
    Browser(
        "chrome", "chromium",
        ".config/google-chrome/NativeMessagingHosts", "/etc/opt/chrome/native-messaging-hosts",
        f"{_MAC}/Google/Chrome/NativeMessagingHosts", "/Library/Google/Chrome/NativeMessagingHosts",
        (_WIN_CHROME,),
        {"linux": ".config/google-chrome", "darwin": f"{_MAC}/Google/Chrome"},
        flatpak_id="com.google.Chrome",
    ),
    Browser(
        "chromium", "chromium",
        ".config/chromium/NativeMessagingHosts", "/etc/chromium/native-messaging-hosts",
        f"{_MAC}/Chromium/NativeMessagingHosts", f"/{_MAC}/Chromium/NativeMessagingHosts",
        (_WIN_CHROMIUM, _WIN_CHROME),
        {"linux": ".config/chromium", "darwin": f"{_MAC}/Chromium"},
        flatpak_id="org.chromium.Chromium", snap_name="chromium",
    ),
    Browser(
        # Brave on Linux has no system dir of its own; it reads Chrome's.
        "brave", "chromium",
        ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts", "/etc/opt/chrome/native-messaging-hosts",
        f"{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        f"/{_MAC}/BraveSoftware/Brave-Browser/NativeMessagingHosts",
        (_WIN_CHROME,),  # Chrome's key (KeePassXC registers Brave there), not Software\BraveSoftware
        {"linux": ".config/BraveSoftware/Brave-Browser", "darwin": f"{_MAC}/BraveSoftware/Brave-Browser"},
        flatpak_id="com.brave.Browser", snap_name="brave",
    ),
    Browser(
        "edge", "chromium",
        ".config/microsoft-edge/NativeMessagingHosts", "/etc/opt/edge/native-messaging-hosts",
        f"{_MAC}/Microsoft Edge/NativeMessagingHosts", "/Library/Microsoft/Edge/NativeMessagingHosts",
        (r"Software\Microsoft\Edge\NativeMessagingHosts", _WIN_CHROMIUM, _WIN_CHROME),
        {"linux": ".config/microsoft-edge", "darwin": f"{_MAC}/Microsoft Edge"},
        flatpak_id="com.microsoft.Edge",
    ),
    Browser(
        "vivaldi", "chromium",
        ".config/vivaldi/NativeMessagingHosts", "/etc/opt/vivaldi/native-messaging-hosts",
        f"{_MAC}/Vivaldi/NativeMessagingHosts", f"/{_MAC}/Vivaldi/NativeMessagingHosts",
        (_WIN_CHROME,),  # not Software\Vivaldi\...
        {"linux": ".config/vivaldi", "darwin": f"{_MAC}/Vivaldi"},
        flatpak_id="com.vivaldi.Vivaldi", snap_name="vivaldi",
    ),
    Browser(
        "firefox", "firefox",
        ".mozilla/native-messaging-hosts", "/usr/lib/mozilla/native-messaging-hosts",
        f"{_MAC}/Mozilla/NativeMessagingHosts", f"/{_MAC}/Mozilla/NativeMessagingHosts",
        (_WIN_MOZILLA,),
        {"linux": ".mozilla", "darwin": f"{_MAC}/Firefox"},
        flatpak_id="org.mozilla.firefox", snap_name="firefox",
    ),
    Browser(
        "librewolf", "firefox",
        ".librewolf/native-messaging-hosts", "/usr/lib/librewolf/native-messaging-hosts",
        f"{_MAC}/LibreWolf/NativeMessagingHosts", f"/{_MAC}/LibreWolf/NativeMessagingHosts",
        (_WIN_MOZILLA,),  # Firefox's lookup, unchanged in LibreWolf
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
