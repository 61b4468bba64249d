"""The extension itself, installed to stay: where this install keeps a copy to load, whether each
browser already has it, and the one step that is missing. `fantasma setup` prints the steps,
`fantasma-host doctor` the state; docs/install.md says why each way is the one that lasts.

Read only from the browsers' own files (never written): Chromium-family `Preferences` and `Secure
Preferences` (`extensions.settings.<id>`), Firefox's `profiles.ini`, each profile's `extensions.json`,
`prefs.js` and `user.js`, and an installed Firefox's `defaults/pref/channel-prefs.js` (its edition).
Linux and macOS; on Windows only the steps are given.
"""

from __future__ import annotations

import configparser
import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native_host import assets, paths
from native_host.install.installer import Env, detected_browsers
from native_host.install.locations import CHROMIUM_ORIGIN, GECKO_ID, Browser

EXTENSION_ID = CHROMIUM_ORIGIN.removeprefix("chrome-extension://").rstrip("/")  # extension/IDENTITY.md
EXTENSIONS_PAGE = {
    "brave": "brave://extensions",
    "edge": "edge://extensions",
    "vivaldi": "vivaldi://extensions",
}
# Chromium's ManifestLocation numbers, as stored in Preferences.
CHROMIUM_LOCATIONS = {
    1: "from the store",
    2: "from a .crx (external extension file)",
    4: "unpacked",
    8: "loaded with --load-extension (this start only)",
}
COMMAND_LINE = 8
_MAC = "Library/Application Support"
FIREFOX_PROFILE_ROOTS = {  # where profiles.ini lives, per browser and OS (relative to HOME)
    ("firefox", "linux"): (".mozilla/firefox", ".config/mozilla/firefox"),
    ("firefox", "darwin"): (f"{_MAC}/Firefox",),
    ("librewolf", "linux"): (".librewolf", ".config/librewolf/librewolf"),
    ("librewolf", "darwin"): (f"{_MAC}/librewolf",),
}
FIREFOX_INSTALL_GLOBS = {  # installed Firefox builds (relative to the system prefix)
    "linux": ("usr/lib/firefox*", "usr/lib64/firefox*", "opt/firefox*", "usr/lib/librewolf", "opt/librewolf"),
    "darwin": (
        "Applications/Firefox*.app/Contents/Resources",
        "Applications/LibreWolf.app/Contents/Resources",
    ),
}
EDITIONS = {
    "esr": "Firefox ESR",
    "aurora": "Firefox Developer Edition",
    "nightly": "Firefox Nightly",
    "default": "Firefox (unbranded build)",
    "release": "Firefox",
    "beta": "Firefox Beta",
    "librewolf": "LibreWolf",
}
UNSIGNED_OK = {"esr", "aurora", "nightly", "default", "librewolf"}  # honour xpinstall.signatures.required
SIGNATURES_PREF = "xpinstall.signatures.required"


# --- the copy this install loads from ---------------------------------------------------------------


@dataclass(frozen=True)
class Packages:
    chromium_dir: Path | None  # a folder for "Load unpacked"
    firefox_xpi: Path | None  # the unsigned .xpi
    note: str = ""  # why one is missing


def user_copy_dir() -> Path:
    return paths.data_dir() / "extension"


def _checkout_packages(source: assets.ExtensionSource) -> Packages:
    assert source.checkout_dir is not None
    xpi = source.checkout_dir.parent / "dist" / assets.FIREFOX_PACKAGE
    note = (
        "" if xpi.is_file() else "this checkout has no .xpi yet: `make dist` builds dist/fantasma-firefox.xpi"
    )
    return Packages(source.checkout_dir, xpi if xpi.is_file() else None, note)


def place() -> Packages:
    """`fantasma setup`: a wheel's bundled packages put where the browsers load them from for good
    (the Chromium folder unpacked and the Firefox .xpi, replaced on every run so an upgrade is one browser
    restart); a checkout's own extension/ folder as it is. The pair is replaced together or not at all:
    both are made in a staging folder beside the copy, which is then swapped in by renames, so a full disk
    or a refused write on the way leaves the old pair (or none) as it was."""
    source = assets.extension_source()
    if source.chromium_zip is None:
        return _checkout_packages(source)
    target = user_copy_dir()
    staging = target.with_name(f".{target.name}.staging")
    retired = target.with_name(f".{target.name}.retired")
    paths.private_dir(target.parent)
    shutil.rmtree(staging, ignore_errors=True)  # what an interrupted run left
    try:
        paths.private_dir(staging)
        with zipfile.ZipFile(source.chromium_zip) as archive:
            archive.extractall(staging / "chromium")
        if source.firefox_xpi is not None:
            shutil.copyfile(source.firefox_xpi, staging / assets.FIREFOX_PACKAGE)
        shutil.rmtree(retired, ignore_errors=True)
        if target.exists():
            target.rename(retired)
        try:
            staging.rename(target)
        except BaseException:
            if retired.exists():
                retired.rename(target)
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(retired, ignore_errors=True)
    xpi = target / assets.FIREFOX_PACKAGE
    return Packages(target / "chromium", xpi if source.firefox_xpi is not None else None)


def placed() -> Packages:
    """What `place()` left (doctor): nothing is written."""
    try:
        source = assets.extension_source()
    except assets.AssetMissing as exc:
        return Packages(None, None, str(exc))
    if source.chromium_zip is None:
        return _checkout_packages(source)
    chromium = user_copy_dir() / "chromium"
    xpi = user_copy_dir() / assets.FIREFOX_PACKAGE
    ready = (chromium / "manifest.json").is_file()
    return Packages(
        chromium if ready else None,
        xpi if xpi.is_file() else None,
        "" if ready else "the extension is not unpacked yet: run `fantasma setup`",
    )


# --- Chromium family ------------------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def chromium_profiles(env: Env, browser: Browser) -> list[Path]:
    root = browser.profile_root.get(env.os_name)
    if root is None or not (env.home / root).is_dir():
        return []
    return sorted(p.parent for p in (env.home / root).glob("*/Preferences"))


def chromium_state(profile: Path) -> tuple[str, bool] | None:
    """How this profile has the extension ('unpacked from …', '…, but turned off') and whether that
    lasts (a --load-extension load does not); None when it has not."""
    for name in ("Secure Preferences", "Preferences"):
        prefs = _read_json(profile / name)
        settings = (((prefs or {}).get("extensions") or {}).get("settings") or {}).get(EXTENSION_ID)
        if not isinstance(settings, dict):
            continue
        location = settings.get("location")
        how = CHROMIUM_LOCATIONS.get(location, "installed") if isinstance(location, int) else "installed"
        if location == 4 and settings.get("path"):
            how = f"unpacked from {settings['path']}"
        if settings.get("disable_reasons") or settings.get("state") == 0:
            how = f"{how}, but turned off"
        return how, location != COMMAND_LINE
    return None


@dataclass(frozen=True)
class Status:
    browser: str
    missing: bool  # True: `text` is the step to take
    text: str

    def line(self) -> str:
        return f"extension in {self.browser}: {'missing: ' if self.missing else ''}{self.text}"


def _chromium_status(env: Env, browser: Browser, packages: Packages) -> list[Status]:
    page = EXTENSIONS_PAGE.get(browser.name, "chrome://extensions")
    found = [(p.name, chromium_state(p)) for p in chromium_profiles(env, browser)]
    have = [(name, state) for name, state in found if state is not None]
    out = [Status(browser.name, False, f"{how} in profile {name!r}") for name, (how, _) in have]
    if any(stays and "turned off" not in how for _, (how, stays) in have):
        return out
    if any(stays for _, (_, stays) in have):
        return [*out, Status(browser.name, True, f"turn Fantasma on in {page}")]
    if packages.chromium_dir is None:
        return [*out, Status(browser.name, True, packages.note)]
    step = (
        f"open {page}, turn on Developer mode, click Load unpacked and choose {packages.chromium_dir} "
        "(it stays installed across restarts)"
    )
    return [*out, Status(browser.name, True, step)]


# --- Firefox family ----------------------------------------------------------------------------------


def firefox_profiles(env: Env, browser: Browser) -> list[Path]:
    out: list[Path] = []
    for root in FIREFOX_PROFILE_ROOTS.get((browser.name, env.os_name), ()):
        ini = configparser.ConfigParser(interpolation=None)
        try:
            ini.read(env.home / root / "profiles.ini", encoding="utf-8")
        except configparser.Error:
            continue
        for section in ini.sections():
            if not section.startswith("Profile") or "Path" not in ini[section]:
                continue
            relative = ini[section].get("IsRelative", "1") == "1"
            path = env.home / root / ini[section]["Path"] if relative else Path(ini[section]["Path"])
            if path.is_dir() and path not in out:
                out.append(path)
    return out


def firefox_editions(env: Env, browser: Browser) -> list[str]:
    """Channels of the Firefox builds installed on this machine ('esr', 'release', …, 'librewolf')."""
    found: list[str] = []
    for pattern in FIREFOX_INSTALL_GLOBS.get(env.os_name, ()):
        for install in sorted(env.prefix.glob(pattern)):
            if ("librewolf" in install.as_posix().lower()) != (browser.name == "librewolf"):
                continue
            channel = "librewolf" if browser.name == "librewolf" else _channel(install)
            if channel and channel not in found:
                found.append(channel)
    return found


def _channel(install: Path) -> str | None:
    try:
        text = (install / "defaults" / "pref" / "channel-prefs.js").read_text(encoding="utf-8")
    except OSError:
        return None
    match = re.search(r'pref\("app\.update\.channel",\s*"([^"]+)"\)', text)
    return match.group(1) if match else None


def signatures_off(profile: Path) -> bool:
    """The profile sets xpinstall.signatures.required to false (user.js wins over prefs.js)."""
    value = None
    for name in ("prefs.js", "user.js"):
        try:
            text = (profile / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in re.finditer(rf'user_pref\("{re.escape(SIGNATURES_PREF)}",\s*(true|false)\)', text):
            value = match.group(1)
    return value == "false"


def firefox_state(profile: Path) -> str | None:
    data = _read_json(profile / "extensions.json") or {}
    for addon in data.get("addons") or []:
        if not isinstance(addon, dict) or addon.get("id") != GECKO_ID:
            continue
        if addon.get("location") == "app-temporary":
            return "loaded temporarily: gone at the next start"
        if addon.get("appDisabled"):
            return "installed, but disabled by Firefox (it is not signed)"
        if addon.get("userDisabled"):
            return "installed, but turned off"
        return "installed"
    return None


def _firefox_status(env: Env, browser: Browser, packages: Packages) -> list[Status]:
    editions = firefox_editions(env, browser)
    if browser.name == "librewolf" and not editions:
        editions = ["librewolf"]
    named = ", ".join(EDITIONS.get(e, e) for e in editions) or "no installed build found"
    out = [Status(browser.name, False, f"editions installed here: {named}")]
    profiles = firefox_profiles(env, browser)
    states = [(p.name, firefox_state(p)) for p in profiles]
    out += [Status(browser.name, False, f"{state} in profile {name!r}") for name, state in states if state]
    if any(state == "installed" for _, state in states):
        return out
    if packages.firefox_xpi is None:
        return [*out, Status(browser.name, True, packages.note or "this install has no .xpi")]
    xpi = packages.firefox_xpi
    unsigned_ok = [e for e in editions if e in UNSIGNED_OK]
    if unsigned_ok:
        pref_set = bool(profiles) and all(signatures_off(p) for p in profiles)
        pref_step = "" if pref_set else f"in about:config set {SIGNATURES_PREF} to false, then "
        step = (
            f"in {EDITIONS[unsigned_ok[0]]}, {pref_step}open about:addons, click the gear, Install Add-on "
            f"From File, and choose {xpi} (it stays installed)"
        )
    else:
        step = (
            f"Firefox release and beta install only add-ons signed by Mozilla, and {xpi} is not signed yet. "
            "Use Firefox ESR, Developer Edition, Nightly or LibreWolf, or load it until the next restart: "
            f"about:debugging#/runtime/this-firefox, Load Temporary Add-on, {xpi}"
        )
    return [*out, Status(browser.name, True, step)]


def status(env: Env, packages: Packages | None = None) -> list[Status]:
    """For each browser with a profile here: what it has, and the step that is missing."""
    packages = packages or placed()
    if env.os_name == "windows":
        step = (
            f"in the browser's extensions page turn on Developer mode, Load unpacked: {packages.chromium_dir}"
        )
        return [Status("chromium-family browsers", True, step)]
    out: list[Status] = []
    for browser in detected_browsers(env):
        if browser.form == "chromium":
            out += _chromium_status(env, browser, packages)
        else:
            out += _firefox_status(env, browser, packages)
    return out


def report(env: Env, packages: Packages | None = None) -> list[str]:
    return [s.line() for s in status(env, packages)]
