"""The request loop: the reader (this thread) parses frames and answers the READER lane's requests at once;
two worker threads run the queued ones, each lane in arrival order: the job worker the JOBS lane (one
at a time: models, rewrites, writes), the light worker the LIGHT lane (`guide`, `analyze`: quick, no
model), so a guide is answered while a long job runs. `cancel` sets a job's event; generation checks it
between tokens. Per id the contract holds whatever the lane: progress, then exactly one result or error.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from native_host.host import framing, handlers, schema
from native_host.host.errors import ErrorCode, ProtocolError

log = logging.getLogger("native_host.host")

PROGRESS_MESSAGE_CHARS = 500
WORKER_JOIN_S = 10.0  # at EOF, for all the workers together


@dataclass
class Job:
    request_id: str
    kind: str
    params: dict[str, Any]
    route: handlers.Route
    cancel: threading.Event = field(default_factory=threading.Event)
    started: bool = False


class Host:
    def __init__(self, reader: framing.FrameReader, writer: framing.FrameWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.routes = handlers.routes()
        self._queues: dict[str, queue.Queue[Job | None]] = {
            lane: queue.Queue() for lane in handlers.WORKER_LANES
        }
        self._active: dict[str, Job] = {}  # queued or running, by id, whatever the lane
        self._lock = threading.Lock()

    # --- public ---------------------------------------------------------------------------------------

    def serve(self) -> int:
        workers = [
            threading.Thread(target=self._work, args=(lane,), name=f"{lane}-worker", daemon=True)
            for lane in handlers.WORKER_LANES
        ]
        for worker in workers:
            worker.start()
        for item in self.reader:
            if isinstance(item, ProtocolError):
                log.info("bad frame: %s", item.code.name)
                self._send_error(None, item)
            else:
                self._on_message(item)
        log.info("stdin closed; exiting")
        with self._lock:
            for job in self._active.values():
                job.cancel.set()
        for lane_queue in self._queues.values():
            lane_queue.put(None)
        deadline = time.monotonic() + WORKER_JOIN_S
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))
        return 0

    def types(self) -> list[str]:
        """The request types this host answers (`hello.types`)."""
        return sorted(self.routes)

    def cancel(self, target: str) -> bool:
        with self._lock:
            job = self._active.get(target)
            if job is None:
                return False
            job.cancel.set()
            if job.started:
                return True  # the worker replies `cancelled` when the handler stops
            del self._active[target]  # still queued: the worker will skip it
        self._send_error(target, ProtocolError(ErrorCode.cancelled, "cancelled before it started"))
        return True

    # --- reader side --------------------------------------------------------------------------------

    def _on_message(self, message: Any) -> None:
        try:
            request_id, kind, params = schema.envelope(message)
        except ProtocolError as exc:
            echoed = message.get("id") if isinstance(message, dict) else None
            self._send_error(echoed if _valid_id(echoed) else None, exc)
            return
        route = self.routes.get(kind)
        if route is None:
            self._send_error(
                request_id, ProtocolError(ErrorCode.unknown_type, f"unknown message type {kind!r}")
            )
            return
        log.info("request %s %s", _short(request_id), kind)
        job = Job(request_id, kind, params, route)
        if route.immediate:
            self._run(job)
            return
        with self._lock:
            if request_id in self._active:
                duplicate = True
            else:
                duplicate = False
                waiting = sum(1 for other in self._active.values() if other.route.lane == route.lane)
                self._active[request_id] = job
        if duplicate:
            self._send_error(
                request_id,
                ProtocolError(ErrorCode.duplicate_id, f"request {request_id!r} is still in flight"),
            )
            return
        if waiting:
            self._progress(request_id, "queued", None, f"waiting for {waiting} earlier job(s)")
        self._queues[route.lane].put(job)

    # --- worker side --------------------------------------------------------------------------------

    def _work(self, lane: str) -> None:
        while (job := self._queues[lane].get()) is not None:
            with self._lock:
                if self._active.get(job.request_id) is not job:
                    continue  # cancelled while queued; already answered
                job.started = True
            self._run(job)

    def _run(self, job: Job) -> None:
        ctx = handlers.Context(
            request_id=job.request_id,
            cancel=job.cancel,
            progress=lambda stage, fraction, message, detail=None: self._progress(
                job.request_id, stage, fraction, message, detail
            ),
            host=self,
        )
        reply: dict[str, Any] | None = None
        error: ProtocolError | None = None
        try:
            ctx.check_cancelled()
            reply = job.route.handler(job.params, ctx)
        except handlers.Cancelled:
            pass
        except ProtocolError as exc:
            error = exc
        except Exception as exc:
            log.exception("handler %s failed", job.kind)
            error = ProtocolError(
                ErrorCode.internal_error, f"{job.kind} failed: {type(exc).__name__}; see host.log"
            )
        with self._lock:
            # Decided under the lock that `cancel` also takes, so a `cancelled: true` answer always
            # means this job ends with error `cancelled`.
            cancelled = job.cancel.is_set()
            if self._active.get(job.request_id) is job:  # an immediate request may share a queued job's id
                del self._active[job.request_id]
        if cancelled and not job.route.immediate:
            self._send_error(job.request_id, ProtocolError(ErrorCode.cancelled, "cancelled"))
        elif error is not None:
            self._send_error(job.request_id, error)
        else:
            self.writer.send({"id": job.request_id, "type": "result", "result": reply})

    # --- output -------------------------------------------------------------------------------------

    def _progress(
        self,
        request_id: str,
        stage: str,
        fraction: float | None,
        message: str,
        detail: dict[str, Any] | None = None,
    ) -> None:
        if fraction is not None:
            fraction = min(1.0, max(0.0, float(fraction)))
        event: dict[str, Any] = {
            "id": request_id,
            "type": "progress",
            "stage": stage[:64],
            "fraction": fraction,
            "message": message[:PROGRESS_MESSAGE_CHARS],
        }
        event.update(progress_detail(detail))
        self.writer.send(event)

    def _send_error(self, request_id: str | None, error: ProtocolError) -> None:
        self.writer.send({"id": request_id, "type": "error", "error": error.to_json()})


def progress_detail(detail: dict[str, Any] | None) -> dict[str, Any]:
    """The optional fields of a progress event (PROTOCOL.md §2): `done` and `total` (whole numbers, the
    parts of the job finished and in all) and `eta_s` (seconds left, >= 0, or null when unknown); any
    other key, or a value of the wrong kind, is dropped."""
    out: dict[str, Any] = {}
    if not detail:
        return out
    done, total = detail.get("done"), detail.get("total")
    if (
        isinstance(done, int)
        and isinstance(total, int)
        and _whole(done)
        and _whole(total)
        and 0 <= done <= total
    ):
        out["done"], out["total"] = done, total
    if "eta_s" in detail:
        eta = detail["eta_s"]
        number = isinstance(eta, int | float) and not isinstance(eta, bool) and math.isfinite(eta)
        out["eta_s"] = round(max(0.0, float(eta)), 1) if number else None
    return out


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= schema.MAX_ID_CHARS


def _short(request_id: str) -> str:
    return request_id[:32]
