"""Browser registration for the native-messaging host: `install`, `uninstall`, `doctor`.

For tests and custom browser profiles: `write_host_manifest(dir, "chromium"|"firefox", launcher)` and
`write_launcher(dir, interpreter, os_name)`.
"""

from native_host.install.doctor import doctor, hello_roundtrip
from native_host.install.installer import (
    Env,
    InstallError,
    install,
    manifest_for,
    uninstall,
    write_host_manifest,
    write_launcher,
)

__all__ = [
    "Env",
    "InstallError",
    "doctor",
    "hello_roundtrip",
    "install",
    "manifest_for",
    "uninstall",
    "write_host_manifest",
    "write_launcher",
]
