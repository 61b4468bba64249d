"""One forward pass of a model-dir graph, with the states kept inside onnxruntime.

States stay `OrtValue`s from one step to the next: each step binds the previous step's outputs as its
inputs (IO binding), so caches never round-trip through numpy; only the logits come back. Outputs are
allocated by onnxruntime on every run and inputs are never written, so an old `States` stays valid after
it has been fed forward. That is what speculation (keep the pre-verification states), prefix reuse (bind
the cached prefix states directly, no copy) and batching (expand once) build on.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort

from native_host.engine import checks_cache
from native_host.engine.config import StateSpec
from native_host.engine.errors import ModelDirError, RuntimeUnsupportedError

# onnxruntime's own switch, for telemetry providers that ignore ORT_DISABLE_TELEMETRY (Windows builds
# log through ETW); the POSIX event queue is kept off by that variable, set in native_host/__init__.py.
ort.disable_telemetry_events()

# The ops our exporters emit beyond the standard domain, and the first onnxruntime with CPU kernels for all.
CONTRIB_OPS_MIN_VERSION = {
    "MatMulNBits": "1.17",
    "GroupQueryAttention": "1.17",
    "SkipSimplifiedLayerNormalization": "1.17",
    "GatherBlockQuantized": "1.20",
    "LinearAttention": "1.32",
    "LinearAttentionGate": "1.32",
    "CausalConvWithState": "1.32",
    "BranchwiseRMSNorm": "1.32",
}
NUMPY_DTYPES = {"float32": np.float32, "float16": np.float16}
# Constant folding materialises a Reshape of a weight as a second copy of it. Our int4 tied embedding
# (one table that GatherBlockQuantized and the lm_head MatMulNBits read through Reshape views,
# export/graph.py) then cost +143 MB of memory and ~0.25 s of load on the Qwen3.5-0.8B shape. Left
# unfolded, onnxruntime's Reshape aliases its input at run time: no copy per pass (docs/engine.md).
CONSTANT_FOLDING_MAX_BYTES = 1 << 20
# An idle intra-op worker spins at most this long for the next parallel section, then sleeps.
# onnxruntime's default spins longer; on a busy machine (2 cores, load ~25) a spinning worker
# burns the time slice the calling thread needs: decode 4.9 -> 7.7 tok/s on the Qwen3.5-0.8B shape,
# 13.7 -> 15.9 on the default model. Between the back-to-back ops of a pass the next section comes
# within microseconds, so a quiet machine keeps the spinning it gains from (docs/engine.md).
INTRA_OP_SPIN_US = 100
# What the load-time checks decide (Runner attributes), as stored in the checks cache.
CHECKS = frozenset({"shared_kv", "fixed_in_place", "pad_single_tokens", "pad_single_rows"})
# Logits buffers up to this size are kept and reused by the decode loop's passes (copied out after each).
REUSED_LOGITS_BYTES = 8 << 20


@dataclass(frozen=True)
class States:
    """Every state tensor after `length` tokens, in the order of fantasma_model.json "state".

    capacity None: key/value tensors hold exactly `length` positions and are never written again.
    capacity N: key/value tensors are preallocated [batch, heads, N, dim] buffers that the graph writes in
    place (GroupQueryAttention's shared past/present buffer mode); positions >= length are garbage, and
    running a forward pass from this object consumes it (older States over the same buffers must not be
    fed again, except to re-run from a shorter length, which overwrites the positions after it).
    conv/recurrent tensors: with capacity N and a graph that passed `check_in_place`, they too are
    overwritten by the next pass (`Runner.snapshot` keeps a copy to re-run from); otherwise every pass
    writes fresh outputs and the inputs stay valid.
    """

    values: tuple[ort.OrtValue, ...]
    length: int
    batch: int
    capacity: int | None = None


def physical_cores() -> int:
    try:
        import psutil  # optional: counts physical cores, which is what MatMulNBits scales with

        cores = psutil.cpu_count(logical=False)
        if cores:
            return int(cores)
    except ImportError:
        pass
    return max(1, (os.cpu_count() or 2) // 2) if (os.cpu_count() or 1) > 2 else (os.cpu_count() or 1)


def session_options(threads: int | None) -> ort.SessionOptions:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or physical_cores()
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3  # warnings about unused initializers etc. are noise for the user
    opts.add_session_config_entry(
        "optimization.constant_folding_max_output_size_in_bytes", str(CONSTANT_FOLDING_MAX_BYTES)
    )
    opts.add_session_config_entry("session.intra_op.spin_duration_us", str(INTRA_OP_SPIN_US))
    return opts


def check_ops(model_path: Path) -> None:
    """RuntimeUnsupportedError naming the first op the installed onnxruntime has no CPU kernel for.

    Needs the `onnx` package to read the node list; without it the session-creation error is mapped instead.
    """
    try:
        import onnx
    except ImportError:
        return
    try:
        model = onnx.load(str(model_path), load_external_data=False)
    except Exception as exc:
        raise ModelDirError(
            f"{model_path}: not a readable ONNX model ({exc}); re-export the model dir"
        ) from exc
    from onnxruntime.capi import _pybind_state

    cpu_kernels = {
        (k.domain or "ai.onnx", k.op_name)
        for k in _pybind_state.get_all_opkernel_def()
        if k.provider == "CPUExecutionProvider"
    }
    used = {(n.domain or "ai.onnx", n.op_type) for n in model.graph.node}
    for domain, op in sorted(used):
        if (domain, op) not in cpu_kernels:
            raise RuntimeUnsupportedError(_unsupported_message(op, domain))


def _unsupported_message(op: str, domain: str = "com.microsoft") -> str:
    need = CONTRIB_OPS_MIN_VERSION.get(op, "1.32")
    return (
        f"onnxruntime {ort.__version__} has no CPU kernel for {domain}::{op}, which this model uses; "
        f"install onnxruntime >= {need} (pip install -U 'onnxruntime>={need}')"
    )


def create_session(model_path: Path, threads: int | None, *, op_check: bool = True) -> ort.InferenceSession:
    if op_check:
        check_ops(model_path)
    try:
        return ort.InferenceSession(
            str(model_path), sess_options=session_options(threads), providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        message = str(exc)
        missing_op = re.search(r"implementation for (\w+)\(", message) or re.search(
            r"(?:op|Op) type .?(\w+).? .*(?:not|No) (?:registered|Schema)", message
        )
        if missing_op:
            raise RuntimeUnsupportedError(_unsupported_message(missing_op.group(1))) from exc
        raise ModelDirError(
            f"{model_path}: onnxruntime cannot load it ({message.strip()[:300]}); "
            f"check that {model_path.name}.data is next to it, or re-export the model dir"
        ) from exc


class Runner:
    """Feeds token chunks through the graph and hands back logits for the last `keep` positions."""

    def __init__(
        self, session: ort.InferenceSession, config: dict[str, Any], states: list[StateSpec]
    ) -> None:
        self.session = session
        self.specs = states
        io = config["io"]
        self.input_ids_name = io.get("input_ids", "input_ids")
        self.mask_name = io.get("attention_mask", "attention_mask")
        self.keep_name = io.get("num_logits_to_keep", "num_logits_to_keep")
        self.logits_name = io.get("logits", "logits")
        self.has_fixed_states = any(not spec.grows for spec in states)
        inputs = {i.name: i for i in session.get_inputs()}
        outputs = {o.name for o in session.get_outputs()}
        needed_in = [self.input_ids_name, self.mask_name, self.keep_name, *(s.input for s in states)]
        needed_out = [self.logits_name, *(s.output for s in states)]
        for name in needed_in:
            if name not in inputs:
                raise ModelDirError(f"model.onnx has no input {name!r} that fantasma_model.json lists")
        for name in needed_out:
            if name not in outputs:
                raise ModelDirError(f"model.onnx has no output {name!r} that fantasma_model.json lists")
        self._keep_is_scalar = len(inputs[self.keep_name].shape) == 0
        self.shared_kv = False  # set by check_shared_kv()
        self.fixed_in_place = False  # set by check_in_place(): conv/recurrent states updated in place too
        self.pad_single_tokens = False  # set by check_single_token_rows()
        self.pad_single_rows = False  # set by check_lone_rows()
        self.context_length = int(config.get("context_length") or 2048)
        logits_width = next(o.shape[-1] for o in session.get_outputs() if o.name == self.logits_name)
        self.vocab_size = logits_width if isinstance(logits_width, int) else int(config["vocab_size"])
        # (the state values bound, their binding, logits buffers by shape): see _run_in_place
        self._bound: tuple[tuple[ort.OrtValue, ...], Any, dict[tuple[int, ...], Any]] | None = None
        self.load_timings: dict[str, Any] = {"checks_cached": False}

    @classmethod
    def open(
        cls,
        model_dir: Path,
        config: dict[str, Any],
        states: list[StateSpec],
        *,
        threads: int | None = None,
        in_place: bool = True,
    ) -> Runner:
        """A session over model_dir/model.onnx; with `in_place`, states are updated in place wherever
        the load-time checks show the graph gives identical results that way.

        The op check and the load-time checks run once per model files + onnxruntime + CPU + thread
        count; later opens read their results from the per-user cache (checks_cache.py).
        `load_timings` records where the time went."""
        threads = threads or physical_cores()
        key = checks_cache.cache_key(Path(model_dir), threads)
        cached = checks_cache.load(key)
        started = time.perf_counter()
        session = create_session(Path(model_dir) / "model.onnx", threads, op_check=cached is None)
        runner = cls(session, config, states)
        runner.load_timings["session_s"] = time.perf_counter() - started
        started = time.perf_counter()
        if in_place and cached is not None and cached.keys() >= CHECKS:
            runner.shared_kv = cached["shared_kv"]
            runner.fixed_in_place = cached["fixed_in_place"]
            runner.pad_single_tokens = cached["pad_single_tokens"]
            runner.pad_single_rows = cached["pad_single_rows"]
            runner.load_timings["checks_cached"] = True
        elif in_place:
            runner.check_shared_kv()
            runner.check_in_place()
            runner.check_single_token_rows()
            runner.check_lone_rows()
            checks_cache.save(key, {name: bool(getattr(runner, name)) for name in CHECKS})
        elif cached is None:
            checks_cache.save(key, {})  # the op check passed
        runner.load_timings["checks_s"] = time.perf_counter() - started
        return runner

    def _zeros(self, spec: StateSpec, batch: int, positions: int = 0) -> np.ndarray:
        shape = list(spec.empty_shape(batch))
        if spec.grows:
            shape[2] = positions
        return np.zeros(shape, dtype=NUMPY_DTYPES.get(spec.dtype, np.float32))

    def empty_states(self, batch: int = 1, capacity: int | None = None) -> States:
        """States before the first token; with `capacity`, key/value live in in-place buffers."""
        if capacity is None or not self.shared_kv:
            values = tuple(ort.OrtValue.ortvalue_from_numpy(self._zeros(spec, batch)) for spec in self.specs)
            return States(values, 0, batch)
        return self.to_buffers(States(self.empty_states(batch).values, 0, batch), capacity, batch)

    def to_buffers(self, states: States, capacity: int, batch: int | None = None) -> States:
        """A copy of `states` (rows repeated up to `batch`) whose key/value are in-place buffers of
        `capacity` positions. Cached prefix states are never handed to the graph directly in this mode:
        it would write into them."""
        batch = batch or states.batch
        if not self.shared_kv:
            return self.expand(states, batch)
        capacity = max(capacity, states.length)
        values = []
        for spec, value in zip(self.specs, states.values, strict=True):
            current = value.numpy()
            if spec.grows:
                buffer = self._zeros(spec, batch, capacity)
                buffer[:, :, : states.length] = current[:, :, : states.length]
                values.append(ort.OrtValue.ortvalue_from_numpy(buffer))
            elif current.shape[0] != batch:
                values.append(
                    ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(np.repeat(current, batch, 0)))
                )
            elif self.fixed_in_place:
                values.append(ort.OrtValue.ortvalue_from_numpy(current.copy()))  # will be written
            else:
                values.append(value)
        return States(tuple(values), states.length, batch, capacity)

    def forward(
        self, tokens: np.ndarray, states: States, keep: int = 1, pad: bool = True
    ) -> tuple[np.ndarray, States]:
        """Run `tokens` [batch, n] after `states`; returns (logits [batch, keep, vocab], new states).
        `pad=False` keeps a single token on onnxruntime's 1-token path (batched decoding does, so a
        candidate's tokens do not depend on how many rows are left)."""
        tokens = np.ascontiguousarray(tokens, dtype=np.int64)
        if (
            pad
            and self.pad_single_tokens
            and tokens.shape == (1, 1)
            and states.capacity is not None
            and states.length + 2 <= self.context_length
        ):
            # One token runs as [token, token]: the second row's key/value land past the new length and
            # are overwritten by the next pass, its logits are dropped (see check_single_token_rows).
            logits, after = self._run(np.repeat(tokens, 2, axis=1), states, keep=2)
            return logits[:, :1], States(after.values, after.length - 1, after.batch, after.capacity)
        return self._run(tokens, states, keep)

    def _run(self, tokens: np.ndarray, states: States, keep: int) -> tuple[np.ndarray, States]:
        batch, n = tokens.shape
        if states.capacity is not None and states.length + n > states.capacity:
            states = self.to_buffers(states, max(2 * states.capacity, states.length + n))
        mask = np.ones((batch, states.length + n), dtype=np.int64)
        keep_array = np.array(keep if self._keep_is_scalar else [keep], dtype=np.int64)
        in_place = states.capacity is not None
        if in_place and (self.fixed_in_place or not self.has_fixed_states):
            return self._run_in_place(tokens, mask, keep_array, states)  # every state written in place
        written = [in_place and (spec.grows or self.fixed_in_place) for spec in self.specs]
        binding = self.session.io_binding()
        binding.bind_cpu_input(self.input_ids_name, tokens)
        binding.bind_cpu_input(self.mask_name, mask)
        binding.bind_cpu_input(self.keep_name, keep_array)
        binding.bind_output(self.logits_name, "cpu")
        for spec, value, here in zip(self.specs, states.values, written, strict=True):
            binding.bind_ortvalue_input(spec.input, value)
            if here:
                binding.bind_ortvalue_output(spec.output, value)
            else:
                binding.bind_output(spec.output, "cpu")
        self.session.run_with_iobinding(binding)
        outputs = binding.get_outputs()
        logits = np.array(outputs[0].numpy(), dtype=np.float32, copy=True)
        if in_place:
            # the bound buffers were written in place; keep the same OrtValue objects
            values = tuple(
                old if here else new
                for here, old, new in zip(written, states.values, outputs[1:], strict=True)
            )
        else:
            values = tuple(outputs[1:])
        return logits, States(values, states.length + n, batch, states.capacity)

    def _run_in_place(
        self, tokens: np.ndarray, mask: np.ndarray, keep_array: np.ndarray, states: States
    ) -> tuple[np.ndarray, States]:
        """A pass whose every state is written in place (the decode loop's case): the same buffers are
        bound step after step, so one binding of them is kept and only the token, mask and logits
        bindings change. Binding ~50 states and wrapping ~50 outputs took ~0.7 ms of Python per step
        on the Qwen3.5-0.8B shape (docs/engine.md, "Decode")."""
        batch, n = tokens.shape
        keep = int(keep_array.reshape(-1)[0])
        cached = self._bound
        if (
            cached is None
            or len(cached[0]) != len(states.values)
            or any(a is not b for a, b in zip(cached[0], states.values, strict=True))
        ):
            binding = self.session.io_binding()
            for spec, value in zip(self.specs, states.values, strict=True):
                binding.bind_ortvalue_input(spec.input, value)
                binding.bind_ortvalue_output(spec.output, value)
            cached = self._bound = (states.values, binding, {})
        values, binding, logits_buffers = cached
        # the graph keeps the last `keep` positions of the n fed (all n when keep > n)
        shape = (batch, min(keep, n), self.vocab_size)
        reused = shape in logits_buffers
        if reused:
            buffer, logits_value = logits_buffers[shape]
        else:
            buffer = np.empty(shape, dtype=np.float32)
            logits_value = ort.OrtValue.ortvalue_from_numpy(buffer)
            if buffer.nbytes <= REUSED_LOGITS_BYTES:  # decode steps: one buffer for every step
                logits_buffers.clear()
                logits_buffers[shape] = (buffer, logits_value)
                reused = True
        binding.bind_cpu_input(self.input_ids_name, tokens)
        binding.bind_cpu_input(self.mask_name, mask)
        binding.bind_cpu_input(self.keep_name, keep_array)
        binding.bind_ortvalue_output(self.logits_name, logits_value)
        self.session.run_with_iobinding(binding)
        return (buffer.copy() if reused else buffer), States(
            values, states.length + n, batch, states.capacity
        )

    def release_binding(self) -> None:
        """Drop the kept binding (it holds the last states' buffers alive); called after a generation."""
        self._bound = None

    def truncate(self, states: States, length: int) -> States:
        """Roll caches back to `length` tokens (only valid for key/value-only models): free with in-place
        buffers (later writes overwrite the tail), a slice of axis 2 otherwise."""
        if length == states.length:
            return states
        if self.has_fixed_states:
            raise ValueError("conv/recurrent states cannot be sliced back; re-run from a saved state")
        if states.capacity is not None:
            return States(states.values, length, states.batch, states.capacity)
        values = tuple(
            ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(value.numpy()[:, :, :length]))
            for value in states.values
        )
        return States(values, length, states.batch)

    def snapshot(self, states: States) -> States:
        """States that the next pass from `states` will not overwrite: the conv/recurrent tensors copied
        when they are updated in place (key/value buffers need no copy: a re-run from a shorter length
        overwrites only the positions after it)."""
        if states.capacity is None or not self.fixed_in_place:
            return states
        values = tuple(
            value if spec.grows else ort.OrtValue.ortvalue_from_numpy(value.numpy().copy())
            for spec, value in zip(self.specs, states.values, strict=True)
        )
        return States(values, states.length, states.batch, states.capacity)

    def select_rows(self, states: States, rows: list[int]) -> States:
        """The states of `rows` only (copied; in-place buffers keep their capacity)."""
        if rows == list(range(states.batch)):
            return states
        values = tuple(
            ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(value.numpy()[rows]))
            for value in states.values
        )
        return States(values, states.length, len(rows), states.capacity)

    def expand(self, states: States, batch: int) -> States:
        """Batch-1 states repeated to `batch` rows (one copy, at the start of a batched decode)."""
        if states.batch == batch:
            return states
        if states.batch != 1:
            raise ValueError("only batch-1 states can be expanded")
        if states.capacity is not None:
            return self.to_buffers(states, states.capacity, batch)
        values = tuple(
            ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(np.repeat(value.numpy(), batch, axis=0)))
            for value in states.values
        )
        return States(values, states.length, batch)

    def check_shared_kv(self) -> bool:
        """Does this graph honour in-place key/value buffers? (GroupQueryAttention switches to its shared
        buffer mode when past and present are the same memory; an op between them would break that.)
        Compares a short run both ways and keeps the mode only when the logits agree."""
        if not any(spec.grows for spec in self.specs):
            self.shared_kv = False
            return False
        chunks = [np.array([[1, 2, 3, 4]]), np.array([[5]])]
        self.shared_kv = False
        grown = self._chunk_logits(chunks, capacity=None)
        self.shared_kv = True
        try:
            buffered = self._chunk_logits(chunks, capacity=8)
            ok = all(np.allclose(a, b, atol=1e-4) for a, b in zip(grown, buffered, strict=True))
        except Exception:  # onnxruntime refused the binding: the graph cannot do it
            ok = False
        self.shared_kv = ok
        return ok

    def _chunk_logits(self, chunks: list[np.ndarray], capacity: int | None) -> list[np.ndarray]:
        """Logits after each chunk, fed one after another from empty states (the load-time checks)."""
        states, out = self.empty_states(1, capacity=capacity), []
        for chunk in chunks:
            logits, states = self.forward(chunk, states)
            out.append(logits)
        return out

    def check_single_token_rows(self) -> bool:
        """Does a 1-token pass give other logits than the same token as the first row of a longer pass?

        With int8 activations (MatMulNBits accuracy_level 4) it does, by up to ~0.5 in the logits:
        onnxruntime computes a single-token step on another path, whose ~1e-7 differences the activation
        quantization amplifies. Every multi-token pass gives each row exactly the logits of any other
        multi-token pass (row-independent, checked here too). So when the two differ, single tokens run as
        [token, token] and every pass takes the multi-token path: plain decoding, prompt-lookup
        verification and prefix reuse then produce the same tokens. Costs ~15% of a decode step on
        the default model; only for key/value-only models in buffer mode (a fixed-size state would
        absorb the extra token), batch 1 (GroupQueryAttention takes several tokens per pass only then).
        """
        self.pad_single_tokens = False
        if not self.shared_kv or self.has_fixed_states:
            return False
        # key/value only: every chunk re-runs from the same 6-token states, overwriting what the last wrote
        _, states = self._run(np.array([[1, 2, 3, 4, 5, 6]]), self.empty_states(1, capacity=16), keep=1)

        def after(chunk: list[int]) -> np.ndarray:
            logits, _ = self._run(np.array([chunk]), states, keep=len(chunk))
            return logits[0, 0]

        single, pair, other_pair = after([7]), after([7, 8]), after([7, 9])
        if not np.array_equal(pair, other_pair):
            return False  # rows of one pass depend on each other: padding would not make passes agree
        self.pad_single_tokens = not np.array_equal(single, pair)
        return self.pad_single_tokens

    def check_lone_rows(self) -> bool:
        """Does a batch of one row give other logits for a single token than a row of a larger batch?

        On some CPUs it does (an AMD EPYC with AVX2 and no AVX-512, int8 activations: 0.54 apart, where
        the Intel Xeons measured before gave the same bits): onnxruntime's MatMulNBits takes a
        matrix-vector kernel for one row and a matrix-matrix one for several. Rows of a larger batch
        do not depend on their neighbours nor on the batch size (checked here: 2 vs 3 rows). When the two
        differ, batched decoding never runs fewer than two rows (a finished row, or a copy, pads it), so a
        sampled candidate's tokens do not depend on how many candidates are left."""
        self.pad_single_rows = False
        _, states = self._run(np.array([[1, 2, 3, 4, 5, 6]]), self.empty_states(1, capacity=16), keep=1)

        def first_row(tokens: list[int]) -> np.ndarray:
            rows = self.to_buffers(states, 16, len(tokens))  # a copy where a pass writes in place
            logits, _ = self._run(np.array([[t] for t in tokens]), rows, keep=1)
            return logits[0, 0]

        lone, pair, triple = first_row([7]), first_row([7, 9]), first_row([7, 11, 13])
        if not np.array_equal(pair, triple):
            return False  # rows depend on their neighbours: padding would not make batches agree
        self.pad_single_rows = not np.array_equal(lone, pair)
        return self.pad_single_rows

    def check_in_place(self) -> bool:
        """With key/value buffers shared, can conv/recurrent states be updated in place as well (their
        output bound to the input's memory)? LinearAttention and CausalConvWithState read the whole past
        state before writing, so the result is bit-identical and a decode step allocates nothing (18 MiB
        per step at Qwen3.5-0.8B otherwise). Checked like check_shared_kv: a prompt, a multi-token chunk
        and a step both ways; kept only when the logits are identical."""
        self.fixed_in_place = False
        if not self.shared_kv or not self.has_fixed_states:
            return False
        chunks = [np.array([[1, 2, 3, 4]]), np.array([[5, 6, 7]]), np.array([[8]])]
        fresh = self._chunk_logits(chunks, capacity=16)
        self.fixed_in_place = True
        try:
            in_place = self._chunk_logits(chunks, capacity=16)
            ok = all(np.array_equal(a, b) for a, b in zip(fresh, in_place, strict=True))
        except Exception:  # onnxruntime refused the binding
            ok = False
        self.fixed_in_place = ok
        return ok
