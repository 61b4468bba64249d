"""Fantasma's on-device half: authorship-marker analysis, rewriting, and the native-messaging host.

Importing this package turns third-party telemetry off before anything can load onnxruntime: every
entry point (`fantasma`, `fantasma-host`, `python -m native_host...`, and `export`, which imports this
package first) passes through here. onnxruntime >= 1.32 on Linux/macOS otherwise creates an event
queue under `<cache>/Microsoft/DeveloperTools/.onnxruntime/` (device id, model file names, the
interpreter path) at import and uploads it; only `ORT_DISABLE_TELEMETRY=1` set *before* the import
prevents that (its `disable_telemetry_events()` called afterwards does not remove the queue). The
value is forced, not defaulted: PROTOCOL.md promises no network connection, ever. See docs/host.md.
"""

import os as _os
import sys as _sys

__version__ = "0.1.1"

# Read by onnxruntime when its library loads. Hub variables only matter to `fantasma-export`
# (the host never imports huggingface_hub) but keep its usage pings off there too.
NO_TELEMETRY_ENV = {
    "ORT_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
}


def disable_telemetry() -> None:
    """Sets NO_TELEMETRY_ENV; if onnxruntime was imported first anyway, also stops its event logging."""
    _os.environ.update(NO_TELEMETRY_ENV)
    ort = _sys.modules.get("onnxruntime")
    disable_events = getattr(ort, "disable_telemetry_events", None)
    if callable(disable_events):
        disable_events()


disable_telemetry()
