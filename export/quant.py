"""Block-wise int4 quantization in the layouts onnxruntime's contrib ops read.

MatMulNBits B: uint8 [N, n_blocks, block_size/2], element k of a block in byte k//2, low nibble first;
scales float [N, n_blocks]; zero_points uint8 [N, ceil(n_blocks/2)], two 4-bit zero points per byte.
GatherBlockQuantized (uint8 data, quantize_axis=last) uses the same bytes viewed as [rows, K/2].
Asymmetric min/max quantization: q = round(w/scale) + zp, dequant = (q - zp) * scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Int4Weight:
    packed: np.ndarray  # uint8 [N, n_blocks, block_size // 2]
    scales: np.ndarray  # float32 [N, n_blocks]
    zero_points: np.ndarray  # uint8 [N, ceil(n_blocks / 2)]
    k: int  # logical input size (before padding)
    block_size: int


def _pack_nibbles(q: np.ndarray) -> np.ndarray:
    """Pairs of 4-bit values along the last axis -> one byte, first value in the low nibble."""
    if q.shape[-1] % 2:
        q = np.concatenate([q, np.zeros((*q.shape[:-1], 1), dtype=q.dtype)], axis=-1)
    return (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)


def quantize_int4(weight: np.ndarray, block_size: int = 32) -> Int4Weight:
    """Quantize rows of `weight` [N, K] (each row is one output channel) in blocks along K."""
    if block_size < 16 or block_size & (block_size - 1):
        raise ValueError(f"block_size must be a power of two >= 16, got {block_size}")
    w = np.asarray(weight, dtype=np.float32)
    n, k = w.shape
    n_blocks = -(-k // block_size)
    pad = n_blocks * block_size - k
    if pad:
        w = np.pad(w, ((0, 0), (0, pad)))
    blocks = w.reshape(n, n_blocks, block_size)
    lo = np.minimum(blocks.min(axis=-1), 0.0)
    hi = np.maximum(blocks.max(axis=-1), 0.0)
    scales = (hi - lo) / 15.0
    scales = np.where(scales == 0.0, 1.0, scales).astype(np.float32)
    zp = np.clip(np.round(-lo / scales), 0, 15).astype(np.uint8)
    q = np.clip(np.round(blocks / scales[..., None]) + zp[..., None], 0, 15).astype(np.uint8)
    return Int4Weight(
        packed=_pack_nibbles(q),
        scales=scales,
        zero_points=_pack_nibbles(zp),
        k=k,
        block_size=block_size,
    )


def dequantize_int4(qw: Int4Weight) -> np.ndarray:
    """Inverse of `quantize_int4` (for tests and error reports)."""
    n, n_blocks, half = qw.packed.shape
    q = np.empty((n, n_blocks, half * 2), dtype=np.float32)
    q[..., 0::2] = qw.packed & 0x0F
    q[..., 1::2] = qw.packed >> 4
    zp = np.empty((n, qw.zero_points.shape[1] * 2), dtype=np.float32)
    zp[:, 0::2] = qw.zero_points & 0x0F
    zp[:, 1::2] = qw.zero_points >> 4
    w = (q - zp[:, :n_blocks, None]) * qw.scales[..., None]
    return w.reshape(n, -1)[:, : qw.k]
