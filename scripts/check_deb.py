"""`make test-deb`: the Debian package in a clean Debian 12 root, with the network off.

    python scripts/check_deb.py [--deb dist/fantasma_<version>_amd64.deb] [--keep]

Needs root, debootstrap and unshare. The root is made once by `debootstrap --variant=minbase
--include=python3.11` from the mirror in /etc/apt/sources.list* (build/deb/bookworm-root, reused by later
runs) and copied afresh for each run. In the copy, everything runs in a new network namespace (no
interface but a downed loopback) with its own /proc:

1. the file list (`find / -xdev`) before;
2. `apt-get install ./fantasma_*.deb` (its dependencies are in the root already: nothing is fetched);
3. the host manifests for Chromium (/etc/chromium/native-messaging-hosts) and Firefox ESR
   (/usr/lib/mozilla/native-messaging-hosts) name an executable launcher and the extension's id;
4. as an unprivileged user with an empty home: `fantasma rewrite --json` on a text, answered by the
   embedded model from /usr/share/fantasma/models, and `fantasma setup`, which finds the models set up;
   then one `hello` and one `rewrite` frame to the launcher the Chromium manifest names, as Chromium
   starts it;
5. `apt-get remove`, then `dpkg --purge` (the package has no conffiles and no postrm, so remove purges
   it and apt no longer knows it; dpkg --purge is what `apt-get purge` runs): after each, the file list
   equals the one before, but for the files apt and dpkg keep about their own work (`APT_OWN`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "deb"
BASE = WORK / "bookworm-root"  # the pristine debootstrap root, made once
SUITE = "bookworm"
INCLUDE = "python3.11"  # the package's interpreter, so that installing it fetches nothing
CHROMIUM_MANIFEST = "/etc/chromium/native-messaging-hosts/org.fantasma.host.json"
CHROME_MANIFEST = "/etc/opt/chrome/native-messaging-hosts/org.fantasma.host.json"  # Chrome and Brave
FIREFOX_MANIFEST = "/usr/lib/mozilla/native-messaging-hosts/org.fantasma.host.json"
EXTENSION_ORIGIN = "chrome-extension://folfajlldbfkhgchaeijigmkgemmkfnl/"
TEXT = (
    "Honestly, I think the new bus schedule is a mess. Basically, nobody checked whether the early "
    "buses still meet the trains, and honestly the council should fix it before winter."
)
# What apt and dpkg write about their own work; present after install and removal, never the package's.
APT_OWN = (
    r"/var/cache/apt/(pkgcache|srcpkgcache)\.bin",
    r"/var/cache/debconf/(config|templates)\.dat-old",
    r"/var/lib/apt/extended_states",
    r"/var/lib/dpkg/(status|diversions|statoverride)-old",
    r"/var/lib/dpkg/triggers/Lock",
    r"/var/lib/dpkg/lock(-frontend)?",
    r"/var/log/apt(/(eipp\.log\.xz|history\.log|term\.log))?",
    r"/var/log/(dpkg|alternatives)\.log",
)

HOST_CHECK = r"""
import json, struct, subprocess, sys
manifest = json.load(open(sys.argv[1]))
proc = subprocess.Popen([manifest["path"], sys.argv[2]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(message):
    data = json.dumps(message).encode()
    proc.stdin.write(struct.pack("=I", len(data)) + data)
    proc.stdin.flush()
def answer(request_id):
    while True:
        size = struct.unpack("=I", proc.stdout.read(4))[0]
        reply = json.loads(proc.stdout.read(size))
        if reply.get("id") == request_id and reply["type"] in ("result", "error"):
            return reply
send({"id": "h1", "type": "hello", "params": {"protocol": 1}})
hello = answer("h1")
send({"id": "r1", "type": "rewrite", "params": {"text": sys.argv[3], "options": {"strength": "medium"}}})
rewrite = answer("r1")
proc.stdin.close()
print(json.dumps({"hello": hello, "rewrite": rewrite, "exit": proc.wait(timeout=60)}))
"""


def log(message: str) -> None:
    print(f"check_deb: {message}", file=sys.stderr, flush=True)


def mirror() -> str:
    """The Debian mirror this machine's apt uses (deb822 URIs: or one-line `deb URL bookworm`)."""
    sources = [*sorted(Path("/etc/apt").glob("sources.list.d/*.sources")), Path("/etc/apt/sources.list")]
    sources += sorted(Path("/etc/apt").glob("sources.list.d/*.list"))
    for source in sources:
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        for match in re.finditer(r"^URIs:\s*(\S+)|^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+bookworm\b", text, re.M):
            url = match.group(1) or match.group(2)
            if "security" not in url:
                return url
    return "http://deb.debian.org/debian"


def base_root() -> Path:
    if (BASE / "usr/bin/python3.11").exists():
        return BASE
    staging = BASE.with_name(BASE.name + ".staging")
    shutil.rmtree(staging, ignore_errors=True)
    url = mirror()
    log(f"debootstrap {SUITE} from {url} (once; kept in {BASE})")
    subprocess.run(
        ["debootstrap", "--variant=minbase", f"--include={INCLUDE}", SUITE, str(staging), url],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(["chroot", str(staging), "apt-get", "clean"], check=True)
    staging.rename(BASE)
    return BASE


def offline(root: Path, script: str, check: bool = True) -> subprocess.CompletedProcess:
    """`script` (sh) in the chroot, in a new network and mount namespace with its own /proc and /dev/pts."""
    inner = (
        f"mount -t proc proc {root}/proc && mount -t devpts -o newinstance devpts {root}/dev/pts && "
        f"exec chroot {root} /bin/sh -ec {_quote(script)}"
    )
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}
    proc = subprocess.run(
        ["unshare", "--net", "--mount", "--pid", "--fork", "sh", "-ec", inner],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    if check and proc.returncode != 0:
        raise SystemExit(
            f"check_deb: failed ({proc.returncode}): {script}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def file_list(root: Path) -> set[str]:
    out = offline(root, "find / -xdev -path /proc -prune -o -print").stdout
    return {line for line in out.splitlines() if line and line != "/proc"}


def apt_own(path: str) -> bool:
    return any(re.fullmatch(pattern, path) for pattern in APT_OWN)


def check(deb: Path, keep: bool) -> dict:
    started = time.monotonic()
    base = base_root()
    root = WORK / "check-root"
    shutil.rmtree(root, ignore_errors=True)
    log(f"a fresh copy of {base}")
    subprocess.run(["cp", "-a", str(base), str(root)], check=True)
    try:
        shutil.copyfile(deb, root / "root" / deb.name)
        offline(root, "test \"$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ')\" = lo")  # no network
        before = file_list(root)
        log(f"apt-get install ./{deb.name} (offline)")
        offline(root, f"apt-get install -y /root/{deb.name}")
        manifests = {}
        for name, path in (("chromium", CHROMIUM_MANIFEST), ("firefox-esr", FIREFOX_MANIFEST)):
            text = offline(root, f"cat {path}").stdout
            manifests[name] = json.loads(text)
            offline(root, f"test -x {manifests[name]['path']}")
        chrome = json.loads(offline(root, f"cat {CHROME_MANIFEST}").stdout)  # postinst's link
        assert chrome == manifests["chromium"], chrome
        assert manifests["chromium"]["allowed_origins"] == [EXTENSION_ORIGIN], manifests["chromium"]
        assert manifests["firefox-esr"]["allowed_extensions"] == ["fantasma@fantasma-project.org"]
        (root / "tmp" / "text.txt").write_text(TEXT, encoding="utf-8")
        (root / "tmp" / "host_check.py").write_text(HOST_CHECK, encoding="utf-8")
        user = "setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/user"
        log("fantasma rewrite, as nobody, offline")
        cli = offline(
            root,
            f"mkdir /tmp/user && chown 65534:65534 /tmp/user && {user} fantasma rewrite --json --quiet /tmp/text.txt",
        )
        rewrite = json.loads(cli.stdout)
        setup = offline(root, f"{user} fantasma setup --no-register").stdout  # a user's own setup: no export
        log("the host, started as Chromium starts it")
        host = json.loads(
            offline(
                root,
                f'{user} python3.11 /tmp/host_check.py {CHROMIUM_MANIFEST} {EXTENSION_ORIGIN} "$(cat /tmp/text.txt)"',
            ).stdout
        )
        offline(root, "rm -rf /tmp/user /tmp/text.txt /tmp/host_check.py")
        log("apt-get remove, dpkg --purge")
        offline(root, "apt-get remove -y fantasma")
        after_remove = file_list(root)
        # no conffiles and no postrm: dpkg purged it on remove, so apt no longer knows the name and
        # `apt-get purge` would fail; dpkg --purge is what it would run, and accepts a purged package
        status = offline(root, "dpkg-query -W -f='${db:Status-Status}' fantasma 2>/dev/null || true").stdout
        offline(root, "dpkg --purge fantasma")
        after_purge = file_list(root)
        result = {
            "rewrite_cli": rewrite,
            "setup": setup,
            "host": host,
            "manifests": manifests,
            "status_after_remove": status or "unknown (purged)",
            "left_after_remove": sorted(p for p in after_remove - before if not apt_own(p)),
            "left_after_purge": sorted(p for p in after_purge - before if not apt_own(p)),
            "apt_own": sorted(p for p in after_purge - before if apt_own(p)),
            "gone_after_purge": sorted(before - after_purge),
            "seconds": round(time.monotonic() - started, 1),
        }
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deb", type=Path, default=None, help="the package (default: the one in dist/)")
    parser.add_argument("--keep", action="store_true", help="keep build/deb/check-root afterwards")
    args = parser.parse_args(argv)
    deb = args.deb or max((ROOT / "dist").glob("fantasma_*.deb"), key=lambda p: p.stat().st_mtime)
    result = check(deb.resolve(), args.keep)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
