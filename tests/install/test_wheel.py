"""What a person gets from the wheel and nothing else: the models and the extension inside it, none of the
data packages' heavy dependencies, `fantasma setup` exporting the embedded models offline and registering
the host, a real rewrite on the embedded model, and both browser packages as `make dist` writes them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from native_host import assets

from .conftest import Installed, unzip

pytestmark = pytest.mark.slow
HEAVY = ("llm", "llama-cpp-python", "sentence-transformers", "torch", "transformers", "tiktoken")
SAMPLE = "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. I'll send it tomorrow, innit."


def test_the_wheel_carries_the_models_and_the_extension_and_no_heavy_dependency(installed: Installed) -> None:
    print(f"build {installed.build_s:.1f} s, install {installed.install_s:.1f} s")
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read("fantasma-0.1.0.dist-info/METADATA").decode()
    for name in assets.MODEL_FILES:
        assert f"native_host/bundled/models/{name}" in names
    assert "native_host/bundled/extension/fantasma-chromium.zip" in names
    assert "native_host/bundled/NOTICE.md" in names and "native_host/commands/try_page.html" in names
    required = [  # what a plain install pulls in (the extras' lines name `extra ==`)
        line.split()[1]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert "onnx>=1.17" in required and not [r for r in required if r.split("=")[0].split(">")[0] in HEAVY]

    listed = installed.run(  # the venv has no pip (as pipx makes them): its own importlib lists it
        installed.bin("python"),
        "-c",
        "import importlib.metadata as m, json; print(json.dumps([d.metadata['Name'] for d in m.distributions()]))",
    )
    present = {name.lower().replace("_", "-") for name in json.loads(listed.stdout)}
    assert "fantasma" in present and not present & set(HEAVY), sorted(present & set(HEAVY))
    where = installed.run(installed.bin("python"), "-c", "import native_host; print(native_host.__file__)")
    assert where.stdout.startswith(str(installed.venv)), where.stdout  # the wheel's copy, not the checkout


def test_setup_exports_the_models_registers_chromium_and_says_what_is_next(installed: Installed) -> None:
    setup = installed.setup
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert setup.stdout.count("exported to") == 2, setup.stdout
    manifest = installed.home / ".config/chromium/NativeMessagingHosts/org.fantasma.host.json"
    assert json.loads(manifest.read_text())["allowed_origins"] == [
        "chrome-extension://folfajlldbfkhgchaeijigmkgemmkfnl/"
    ]
    unpacked = installed.fantasma_home / "data" / "extension" / "chromium"
    assert json.loads((unpacked / "manifest.json").read_text())["key"].startswith("MIIB")
    assert (installed.fantasma_home / "data" / "extension" / "fantasma-firefox.xpi").is_file()
    assert (
        f"chromium: open chrome://extensions, turn on Developer mode, click Load unpacked and choose {unpacked}"
        in (setup.stdout)
    )
    again = installed.run(installed.bin("fantasma"), "setup", "--no-register")
    assert again.returncode == 0 and again.stdout.count("already set up") == 2, again.stdout


def test_a_real_rewrite_on_the_embedded_model(installed: Installed) -> None:
    done = installed.run(installed.bin("fantasma"), "rewrite", "--json", "--quiet", stdin=SAMPLE)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["path"] == "llm", result["reason"]
    assert result["text"] != SAMPLE and "colour" not in result["text"]


def test_doctor_from_the_wheel_finds_the_host_and_says_the_extension_is_missing(installed: Installed) -> None:
    doctor = installed.run(installed.bin("fantasma-host"), "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert " chromium: ok (" in doctor.stdout and "rewrite path llm" in doctor.stdout, doctor.stdout
    assert "extension in chromium: missing: open chrome://extensions" in doctor.stdout, doctor.stdout


def test_sha256sums_and_the_per_browser_manifests(installed: Installed, tmp_path: Path) -> None:
    lines = (installed.dist / "SHA256SUMS").read_text().splitlines()
    sums = {name: digest for digest, name in (line.split("  ") for line in lines)}
    assert set(sums) == {installed.wheel.name, "fantasma-chromium.zip", "fantasma-firefox.xpi"}
    for name, digest in sums.items():
        assert hashlib.sha256((installed.dist / name).read_bytes()).hexdigest() == digest, name
    chromium = json.loads(
        unzip(installed.dist / "fantasma-chromium.zip", tmp_path / "c").joinpath("manifest.json").read_text()
    )
    firefox = json.loads(
        unzip(installed.dist / "fantasma-firefox.xpi", tmp_path / "f").joinpath("manifest.json").read_text()
    )
    assert "key" in chromium and "browser_specific_settings" not in chromium
    assert chromium["background"] == {"service_worker": "background.js", "type": "module"}
    assert "key" not in firefox and "minimum_chrome_version" not in firefox
    assert firefox["browser_specific_settings"]["gecko"]["id"] == "fantasma@fantasma-project.org"
    assert firefox["background"] == {"scripts": ["background.js"], "type": "module"}
    assert not list((tmp_path / "c").rglob("*.md"))


def test_the_xpi_passes_web_ext_lint_without_a_warning(installed: Installed, tmp_path: Path) -> None:
    """The per-browser manifest removes the one warning the shared source manifest has
    (BACKGROUND_SERVICE_WORKER_IGNORED, tests/e2e/test_webext_lint.py)."""
    from tests.e2e.harness import ROOT, npm_ci

    webext = ROOT / "tests" / "e2e" / "webext"
    npm_ci(webext, ".bin/web-ext", timeout=300)
    source = unzip(installed.dist / "fantasma-firefox.xpi", tmp_path / "xpi")
    proc = subprocess.run(
        [
            str(webext / "node_modules" / ".bin" / "web-ext"),
            "lint",
            "--source-dir",
            str(source),
            "--output",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(proc.stdout)
    assert (report["errors"], report["warnings"], report["notices"]) == ([], [], [])
