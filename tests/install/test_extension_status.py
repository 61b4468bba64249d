"""What doctor and setup say about the extension, from the browsers' own files in a temporary HOME and
system prefix: Chromium's Preferences, Firefox's profiles.ini / extensions.json / prefs, and an installed
Firefox's channel. The files are written the way the browsers write them (the real ones are read in
tests/install/test_browsers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from native_host.install import Env
from native_host.install.extension import EXTENSION_ID, Packages, status

PACKAGES = Packages(Path("/opt/fantasma/chromium"), Path("/opt/fantasma/fantasma-firefox.xpi"))


def env_for(tmp_path: Path) -> Env:
    return Env(os_name="linux", home=tmp_path / "home", prefix=tmp_path / "root")


def chromium_profile(env: Env, settings: dict | None) -> None:
    profile = env.home / ".config/chromium/Default"
    profile.mkdir(parents=True)
    extensions = {"settings": {EXTENSION_ID: settings}} if settings else {}
    (profile / "Preferences").write_text(json.dumps({"extensions": extensions}))


def lines(env: Env, browser: str) -> list[tuple[bool, str]]:
    return [(s.missing, s.text) for s in status(env, PACKAGES) if s.browser == browser]


@pytest.mark.parametrize(
    ("settings", "shown", "step"),
    [
        ({"location": 4, "path": "/x/ext", "disable_reasons": []}, "unpacked from /x/ext", None),
        ({"location": 4, "path": "/x/ext", "disable_reasons": [1]}, "but turned off", "turn Fantasma on"),
        ({"location": 8, "path": "/tmp/e"}, "loaded with --load-extension", "Load unpacked"),
        ({"location": 2, "disable_reasons": []}, "from a .crx", None),
        (None, None, "Load unpacked and choose /opt/fantasma/chromium"),
    ],
)
def test_chromium_states(tmp_path: Path, settings: dict | None, shown: str | None, step: str | None) -> None:
    env = env_for(tmp_path)
    chromium_profile(env, settings)
    said = lines(env, "chromium")
    if shown:
        assert any(not missing and shown in text for missing, text in said), said
    steps = [text for missing, text in said if missing]
    assert (step is None and not steps) or (step is not None and len(steps) == 1 and step in steps[0]), said


def firefox(env: Env, channel: str, addon: dict | None = None, pref: bool | None = None) -> Path:
    install = env.prefix / f"usr/lib/firefox-{channel}/defaults/pref"
    install.mkdir(parents=True)
    (install / "channel-prefs.js").write_text(f'pref("app.update.channel", "{channel}");\n')
    root = env.home / ".mozilla/firefox"
    profile = root / "abc.default"
    profile.mkdir(parents=True, exist_ok=True)
    (root / "profiles.ini").write_text("[Profile0]\nName=default\nIsRelative=1\nPath=abc.default\n")
    if addon is not None:
        (profile / "extensions.json").write_text(json.dumps({"addons": [{"id": "other"}, addon]}))
    if pref is not None:
        (profile / "prefs.js").write_text(
            f'user_pref("xpinstall.signatures.required", {str(pref).lower()});\n'
        )
    return profile


def test_firefox_esr_without_the_add_on_gets_the_pref_and_the_file(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    firefox(env, "esr")
    said = lines(env, "firefox")
    assert (False, "editions installed here: Firefox ESR") in said
    step = [text for missing, text in said if missing]
    assert step == [
        "in Firefox ESR, in about:config set xpinstall.signatures.required to false, then open about:addons, "
        "click the gear, Install Add-on From File, and choose /opt/fantasma/fantasma-firefox.xpi "
        "(it stays installed)"
    ]


def test_firefox_with_the_pref_set_skips_that_step(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    firefox(env, "aurora", pref=False)
    (step,) = [text for missing, text in lines(env, "firefox") if missing]
    assert step.startswith("in Firefox Developer Edition, open about:addons")


def test_firefox_release_needs_a_signed_add_on_and_a_temporary_one_does_not_count(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    firefox(env, "release", addon={"id": "fantasma@fantasma-project.org", "location": "app-temporary"})
    said = lines(env, "firefox")
    assert (False, "loaded temporarily: gone at the next start in profile 'abc.default'") in said
    (step,) = [text for missing, text in said if missing]
    assert "install only add-ons signed by Mozilla" in step and "Load Temporary Add-on" in step


def test_firefox_with_the_add_on_installed_has_nothing_missing(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    addon = {"id": "fantasma@fantasma-project.org", "location": "app-profile", "active": True}
    firefox(env, "nightly", addon=addon, pref=False)
    said = lines(env, "firefox")
    assert (False, "installed in profile 'abc.default'") in said and not [t for m, t in said if m]


def test_firefox_disabled_for_its_signature(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    addon = {"id": "fantasma@fantasma-project.org", "location": "app-profile", "appDisabled": True}
    firefox(env, "esr", addon=addon, pref=True)
    said = lines(env, "firefox")
    assert (False, "installed, but disabled by Firefox (it is not signed) in profile 'abc.default'") in said
    assert any(m and "xpinstall.signatures.required to false" in t for m, t in said), said


def test_no_browser_profile_no_lines(tmp_path: Path) -> None:
    assert status(env_for(tmp_path), PACKAGES) == []
