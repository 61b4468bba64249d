"""Process setup for serving one browser port over stdin/stdout.

stdout belongs to the protocol: its descriptor is duplicated for frames, then fd 1 and sys.stdout are
pointed at stderr, so a stray print (ours or a library's, Python or C) can never corrupt the channel.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
import sys
import threading

from native_host import __version__, paths
from native_host.host import framing
from native_host.host.server import Host

LOG_BYTES = 1_000_000
LOG_BACKUPS = 3


def claim_stdout() -> int:
    """A private descriptor for frames; fd 1 and sys.stdout now go to stderr."""
    sys.stdout.flush()
    frames_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if sys.platform == "win32":  # pipes must not translate \n
        import msvcrt

        msvcrt.setmode(0, os.O_BINARY)
        msvcrt.setmode(frames_fd, os.O_BINARY)
    return frames_fd


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """host.log and each file it rotates to: 0600 (an existing 0644 one is tightened)."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, paths.PRIVATE_FILE_MODE)
        if os.name == "posix":
            os.fchmod(fd, paths.PRIVATE_FILE_MODE)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)


class OneLineFormatter(logging.Formatter):
    """For stderr (the browser's log): an exception is one line, `Type: first line of its message`;
    the traceback goes to host.log only, so no engine or handler failure prints one there."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None}))
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            line += f" ({type(exc).__name__}: {first}; traceback in host.log)"
        return line


def setup_logging() -> None:
    """stderr (the browser shows it in its own log) and a rotating host.log; never stdout."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(OneLineFormatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    stderr.setLevel(logging.WARNING)
    root.addHandler(stderr)
    try:
        log_dir = paths.private_dir(paths.log_dir())
        file_handler = PrivateRotatingFileHandler(
            log_dir / "host.log", maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
    except OSError as exc:  # a read-only home must not stop the host
        logging.getLogger(__name__).warning("no log file: %s", exc)
        return
    file_handler.setFormatter(fmt)
    root.addHandler(file_handler)


def preload() -> None:
    """Imports what both threads use before either runs: an import is not atomic across threads, so the
    reader (profile.show) and the worker (the first job) importing the same modules at once could see
    them half-initialized (issue 14). ~50 ms (noisy 2-core VM); a failure here is left to the handlers."""
    try:
        import native_host.style
        import native_host.style.profile  # noqa: F401
    except Exception:
        logging.getLogger("native_host.host").exception("preloading native_host.style failed")


def preload_model() -> None:
    """The chosen model and the embedder, loaded in the background from the start (models.choice.preload).
    Their modules are imported here first, in this thread, for the reason `preload` gives."""
    try:
        from native_host import settings
        from native_host.models import choice as model_choice
        from native_host.models import registry as model_registry

        if model_registry.active().model.embedded:
            return
        import native_host.engine
        import native_host.engine.embedder  # noqa: F401

        threads = settings.load_settings()["threads"]
    except Exception:  # a broken registry or settings file is the first request's to report
        logging.getLogger("native_host.host").exception("preloading the chosen model failed")
        return
    threading.Thread(target=model_choice.preload, args=(threads,), name="model-preload", daemon=True).start()


def serve_stdio() -> int:
    frames_fd = claim_stdout()
    setup_logging()
    preload()
    preload_model()
    logging.getLogger("native_host.host").info("fantasma-host %s starting (pid %d)", __version__, os.getpid())
    host = Host(framing.FrameReader(framing.PipeSource(0)), framing.FrameWriter(frames_fd))
    return host.serve()
