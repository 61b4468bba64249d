"""Process-wide, thread-safe cache of the generation engine and the embedder, kept warm.

Loading is lazy (first rewrite that needs a model) and happens once per model dir and thread count (the
`threads` setting): asked for with another count, the model is loaded again and the old session dropped.
A failed load is remembered with its reason (so every later request falls back quickly) until the files
or the thread count change. `model_status()` reports the state for the host's `hello` without loading
anything.

One language model is held at a time: loading another model dir (the user chose another model, see
registry.py and choice.py) first drops the warm one, and `release_engines()` drops it on request (the
host calls it when the active model changes). Dropping means the session, its tokenizer and its cached
prefix states lose their last reference here; a job still running with it holds its own and frees it when
it ends. The freed heap is then handed back to the OS (glibc's malloc_trim), so the process shrinks.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from native_host import paths

if TYPE_CHECKING:
    from native_host.engine import Engine
    from native_host.engine.embedder import Embedder

NOT_INSTALLED, AVAILABLE, LOADING, READY, ERROR = "not_installed", "available", "loading", "ready", "error"


class ModelUnavailable(RuntimeError):
    """The model cannot be used; the message is the reason shown to the user."""


def unusable_model_errors() -> tuple[type[Exception], ...]:
    """What a model that cannot be used raises when loaded or run: ModelUnavailable and the engine's
    ModelDirError, EngineError. Imported when asked (after a failure), not at start: importing
    native_host.engine loads onnxruntime (and it is loaded by then if one of its errors was raised)."""
    from native_host.engine.errors import EngineError, ModelDirError

    return (ModelUnavailable, ModelDirError, EngineError)


@dataclass
class _Slot:
    state: str = AVAILABLE
    reason: str = ""
    value: Any = None
    files_stamp: tuple = ()
    threads: int | None = None  # what the value was loaded with (None = automatic)
    lock: threading.Lock = field(default_factory=threading.Lock)


_slots: dict[tuple[str, str], _Slot] = {}
_slots_lock = threading.Lock()


def _slot(kind: str, directory: Path) -> _Slot:
    key = (kind, str(Path(directory).resolve()))
    with _slots_lock:
        return _slots.setdefault(key, _Slot())


def _required_files(kind: str) -> tuple[str, ...]:
    if kind == "engine":
        return ("fantasma_model.json", "model.onnx", "tokenizer.json")
    return ("embedder.onnx", "embedder.json", "tokenizer.json")


def _stamp(kind: str, directory: Path) -> tuple:
    out: list[tuple[str, int | None, int | None]] = []
    for name in _required_files(kind):
        path = directory / name
        try:
            st = path.stat()
            out.append((name, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((name, None, None))
    return tuple(out)


def _installed(kind: str, directory: Path) -> bool:
    return all((directory / name).exists() for name in _required_files(kind))


def _load(kind: str, directory: Path, threads: int | None) -> Any:
    if kind == "engine":
        from native_host.engine import Engine

        return Engine.load(directory, threads=threads)
    from native_host.engine.embedder import Embedder

    return Embedder(directory, threads=threads)


def _get(kind: str, directory: Path, threads: int | None = None) -> Any:
    directory = Path(directory)
    slot = _slot(kind, directory)
    with slot.lock:  # one loader per dir; others wait, then share the result
        stamp = _stamp(kind, directory)
        same = slot.files_stamp == stamp and slot.threads == threads
        if slot.state == READY and same:
            return slot.value
        if slot.state == ERROR and same:
            raise ModelUnavailable(slot.reason)
        slot.value, slot.threads = None, threads  # the old session goes before the new one is built
        if kind == "engine":
            _drop_engines(keep=directory)  # so does the one of another model dir
        if not _installed(kind, directory):
            slot.state, slot.value = NOT_INSTALLED, None
            what = "language model" if kind == "engine" else "meaning embedder"
            slot.reason = f"{what} not installed in {directory}; run: fantasma setup"
            slot.files_stamp = ()
            raise ModelUnavailable(slot.reason)
        slot.state, slot.reason = LOADING, ""
        try:
            slot.value = _load(kind, directory, threads)
        except Exception as exc:  # any load failure is a reason to fall back, never a crash
            slot.state, slot.value = ERROR, None
            slot.reason = f"cannot load {kind} from {directory}: {type(exc).__name__}: {exc}"
            slot.files_stamp = stamp
            raise ModelUnavailable(slot.reason) from exc
        slot.state, slot.files_stamp = READY, stamp
        _debug_event(f"load {kind} {directory}")
        return slot.value


def _drop_engines(keep: Path | None) -> int:
    """Drop the warm engines of every model dir but `keep`; a remembered load failure stays remembered.
    A slot that is loading right now (its lock held) is left alone: its loader is about to use it."""
    keep_key = str(Path(keep).resolve()) if keep is not None else None
    with _slots_lock:
        slots = [s for (kind, key), s in _slots.items() if kind == "engine" and key != keep_key]
    dropped = 0
    for slot in slots:
        if slot.value is None or not slot.lock.acquire(blocking=False):
            continue
        try:
            if slot.value is not None:
                slot.value, slot.state, slot.files_stamp = None, AVAILABLE, ()
                dropped += 1
        finally:
            slot.lock.release()
    if dropped:
        _return_memory()
    return dropped


def _return_memory() -> None:
    """Collect what the dropped sessions left (reference cycles included) and give the freed heap pages
    back to the OS, where the C library can (glibc); elsewhere the allocator keeps them for reuse."""
    gc.collect()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc (musl): nothing to trim with
            ctypes.CDLL("libc.so.6").malloc_trim(0)


def release_engines(keep: Path | None = None) -> int:
    """Drop every warm language model except the one for `keep` (None: all of them); returns how many
    were dropped. The host calls it when the active model changes."""
    return _drop_engines(keep)


def load_failure(model_dir: Path) -> str:
    """The remembered reason the engine of `model_dir` failed to load ("" when it did not, or when its
    files or thread count changed since: the next request tries again)."""
    slot = _slot("engine", Path(model_dir))
    if slot.state == ERROR and slot.files_stamp == _stamp("engine", Path(model_dir)):
        return slot.reason
    return ""


def get_engine(model_dir: Path | None = None, threads: int | None = None) -> Engine:
    """The warm `native_host.engine.Engine` for model_dir (default model when None), its session on
    `threads` intra-op threads (None = one per physical core); reloaded when `threads` changes."""
    engine = _get("engine", Path(model_dir) if model_dir else paths.default_model_dir(), threads)
    return cast("Engine", _debug_throttle(engine))  # the debug throttle stands in for the engine it wraps


# Tests only: with FANTASMA_HOST_DEBUG=1 (native_host/host/handlers/context.py), FANTASMA_DEBUG_TOKEN_DELAY_S=0.05
# makes every generated token take that much longer, so a browser test can watch a long rewrite's
# progress and cancel it, and FANTASMA_DEBUG_EVENTS_FILE=PATH appends a line to PATH per generated token
# (`token`) and per model loaded (`load engine DIR`, `load embedder DIR`), so a test can watch the
# model's work start and stop and see what was loaded when (PROTOCOL.md, `debug.sleep` and the rewrite's
# debug switches).
DEBUG_TOKEN_DELAY_ENV = "FANTASMA_DEBUG_TOKEN_DELAY_S"
DEBUG_EVENTS_ENV = "FANTASMA_DEBUG_EVENTS_FILE"


def _debug_events_file() -> str | None:
    if os.environ.get("FANTASMA_HOST_DEBUG") != "1":
        return None
    return os.environ.get(DEBUG_EVENTS_ENV) or None


def _debug_event(line: str) -> None:
    if where := _debug_events_file():
        with open(where, "a", encoding="utf-8") as events:
            events.write(line + "\n")


def _debug_throttle(engine: Any) -> Any:
    if os.environ.get("FANTASMA_HOST_DEBUG") != "1":
        return engine
    try:
        delay = float(os.environ.get(DEBUG_TOKEN_DELAY_ENV) or 0)
    except ValueError:
        delay = 0.0
    return _SlowEngine(engine, min(delay, 5.0)) if delay > 0 or _debug_events_file() else engine


class _SlowEngine:
    """The engine with a sleep before each generated token reaches its stream (and the token written to
    the debug events file, where one is named); everything else is the engine's own (the cancel check
    after each token included)."""

    def __init__(self, engine: Any, delay: float) -> None:
        self._engine, self._delay = engine, delay

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    @staticmethod
    def _token(delay: float) -> None:
        if delay > 0:
            time.sleep(delay)
        _debug_event("token")

    def generate(self, prompt_ids, options=None, on_token=None, cancel=None):  # type: ignore[no-untyped-def]
        def slow(token: int, piece: str) -> None:
            self._token(self._delay)
            if on_token is not None:
                on_token(token, piece)

        return self._engine.generate(prompt_ids, options, on_token=slow, cancel=cancel)

    def generate_batch(self, prompt_ids, options_list, *, on_token=None, cancel=None):  # type: ignore[no-untyped-def]
        def slow(row: int, token: int, piece: str) -> None:
            self._token(self._delay / max(1, len(options_list)))  # one delay per step of the batch
            if on_token is not None:
                on_token(row, token, piece)

        return self._engine.generate_batch(prompt_ids, options_list, on_token=slow, cancel=cancel)


def get_embedder(embedder_dir: Path | None = None, threads: int | None = None) -> Embedder:
    """The warm `Embedder` for embedder_dir (default embedder when None), on `threads` intra-op threads
    (None = onnxruntime's default); reloaded when `threads` changes."""
    embedder: Embedder = _get(
        "embedder", Path(embedder_dir) if embedder_dir else paths.embedder_dir(), threads
    )
    return embedder


def _status(kind: str, directory: Path) -> dict:
    slot = _slot(kind, directory)
    state, reason = slot.state, slot.reason
    if state in (READY, ERROR) and slot.files_stamp != _stamp(kind, directory):
        state, reason = AVAILABLE, ""  # files changed since: the next request reloads
    if state in (AVAILABLE, NOT_INSTALLED) and not slot.lock.locked():
        state = AVAILABLE if _installed(kind, directory) else NOT_INSTALLED
        if state == NOT_INSTALLED:
            reason = "not installed; run: fantasma setup"
    out: dict[str, Any] = {"state": state, "dir": str(directory)}
    if reason:
        out["reason"] = reason
    threads = getattr(slot.value, "threads", None) if state == READY else None
    if isinstance(threads, int):
        out["threads"] = threads  # as the loaded session reports it
    return out


def model_status(model_dir: Path | None = None, embedder_dir: Path | None = None) -> dict:
    """{state: not_installed|available|loading|ready|error, reason?, dir, threads?, embedder: {...}}.

    The top-level state is the language model's; the rewrite needs both, so an unusable embedder
    turns an otherwise usable model into `error` with the embedder's reason.
    """
    engine = _status("engine", Path(model_dir) if model_dir else paths.default_model_dir())
    embedder = _status("embedder", Path(embedder_dir) if embedder_dir else paths.embedder_dir())
    out = dict(engine)
    out["embedder"] = embedder
    if embedder["state"] in (NOT_INSTALLED, ERROR) and engine["state"] in (AVAILABLE, READY):
        out["state"] = embedder["state"]
        out["reason"] = f"meaning embedder: {embedder.get('reason', embedder['state'])}"
    return out


def forget() -> None:
    """Drop every cached model (tests; freeing memory)."""
    with _slots_lock:
        _slots.clear()
