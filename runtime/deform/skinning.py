"""Skinning: meshes following poses by linear blend, dual quaternion, blended and centers of
rotation skinning, in jobs over the caller's vertex buffers.

A job names a vertex range of one influences file and its streams: positions, normals and
directions (tangents, bitangents), each a source and a target (vertices, 3) float32 array
of any row stride, so a target can be three columns of the interleaved vertex buffer a
renderer uploads. Rows are vertex indices: a job over [first, first + count) reads and
writes those rows. A target may be its own source (skinning in place): a vertex's sources
are all read before any of its targets is written (of up to a position, a normal and two
direction streams: more streams than that go in further passes over the range).

Every method makes each vertex's affine M = [A | t], then applies it:
- linear: the weighted sum of its joints' palette matrices;
- dual quaternion, in two phases (Kavan et al. 2008): S the weighted sum of the joints'
  scale-and-shear parts, (q, d) their dual quaternions summed in the hemisphere of the first
  joint's and normalized: A = R(q) S and t the dual part's translation;
- blended (FBX): (1 - b) M_linear + b M_dual, exactly one of the two where b is 0 or 1;
- centers of rotation (Le and Hodgins 2016): A = R(q) S and t = sum w_j (R_j S c + t_j) -
  R S c, c the vertex's center, so v' = R (S v - S c) + sum w_j (R_j S c + t_j).
Positions become A v + t and directions A d; normals take A's cofactor times the sign of
its determinant (the inverse transpose's direction, without dividing by it); directions and
normals are renormalized, zero where they collapse. A vertex without weight is copied.

The work is a compiled pass over the range, vertex by vertex (skinning_kernels), after the
checks here: a vertex's bits depend on nothing else, so jobs over disjoint ranges give the
bits of one job over all, and run at once on several threads (the kernel holds no GIL).
A job of many vertices is itself cut into spans on both cores (core.threads) for the
methods whose vertices need nothing worked out first (linear, dual quaternion, blended):
the same bits on any number of threads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Sequence

import numpy as np

from . import kernels as kernels
from ..core import args, threads
from ..core.errors import InvalidError
from .influences import Influences
from ..core.scratch import Scratch, thread_scratch, vertex_range

DUAL_QUATERNION_FLOATS = kernels.DUAL_FLOATS
SPAN_VERTICES = 8192        # vertices a thread at least: a thread's start costs ~20 us
SPAN_JOINTS = 256           # joints a thread at least (~0.15 us each): fewer gain less than a handoff


class StreamKind(IntEnum):
    """What a skin stream holds, which decides how it moves."""

    position = kernels.POSITION
    normal = kernels.NORMAL
    direction = kernels.DIRECTION      # tangents, bitangents: moved by A, renormalized


@dataclass
class SkinStream:
    """One attribute of the vertices: `source` read, `target` written, each a (vertices, 3)
    float32 array with components side by side (a column view of an interleaved buffer)."""

    kind: int
    source: np.ndarray
    target: np.ndarray


@dataclass
class SkinJob:
    """maniSkinJob: a vertex range of one influences file, the palette it is skinned with
    ((joints, 3, 4) affines for linear and blended skinning; (joints, 20) dual quaternions
    from palette_to_dual_quaternions for dual quaternion, blended and centers), the streams,
    and optionally the scratch for the per-joint table a rigid file's or centers' job works
    out (else the calling thread's own).

    `count` None runs to the last vertex."""

    influences: Influences
    palette: np.ndarray | None = None
    dual_quaternions: np.ndarray | None = None
    streams: Sequence[SkinStream] = field(default_factory=list)
    first: int = 0
    count: int | None = None
    scratch: Scratch | None = None


def _scratch(job: SkinJob) -> Scratch:
    if job.scratch is None:
        return thread_scratch()
    if not isinstance(job.scratch, Scratch):
        raise InvalidError("scratch is not a Scratch")
    return job.scratch


# ---- checks ------------------------------------------------------------------------------

_FLOAT32 = np.dtype(np.float32)


def _is_float32(dtype) -> bool:
    return dtype is _FLOAT32 or dtype == _FLOAT32       # the first, cheap, is the usual


def _float32_rows(value, shape: tuple, what: str) -> np.ndarray:
    if value is None:
        raise InvalidError(f"no {what}")
    if not (isinstance(value, np.ndarray) and _is_float32(value.dtype)):
        try:
            value = np.asarray(value, dtype=np.float32)
        except (TypeError, ValueError):
            raise InvalidError(f"{what} is not numbers") from None
    if value.shape != shape:
        raise InvalidError(f"{what} of shape {value.shape}, expected {shape} "
                           "(one entry per joint of the influences)")
    return value


def _check_stream_array(a, end: int, i: int, part: str, writable: bool) -> None:
    if not isinstance(a, np.ndarray):
        raise InvalidError(f"stream {i}'s {part} is not an array")
    shape, strides = a.shape, a.strides
    if not (_is_float32(a.dtype) and len(shape) == 2 and shape[1] == 3):
        raise InvalidError(f"stream {i}'s {part} is not a (vertices, 3) float32 array")
    if strides[1] != 4 or strides[0] < 12:
        raise InvalidError(f"stream {i}'s {part} has a stride too small "
                           "(rows of 3 floats side by side)")
    if shape[0] < end:
        raise InvalidError(f"stream {i}'s {part} holds {shape[0]} vertices, the range ends "
                           f"at {end}")
    if writable and not a.flags.writeable:
        raise InvalidError(f"stream {i}'s {part} is read-only")


def _checked(job, palette: bool, dual: bool, centers: bool):
    if not isinstance(job, SkinJob):
        raise InvalidError("not a skin job")
    inf = job.influences
    if not isinstance(inf, Influences):
        raise InvalidError("the job has no opened influences")
    joints = inf.joint_count
    pal = _float32_rows(job.palette, (joints, 3, 4), "palette") if palette else None
    dq = _float32_rows(job.dual_quaternions, (joints, DUAL_QUATERNION_FLOATS),
                       "dual quaternion palette") if dual else None
    if centers and inf.centers is None:
        raise InvalidError("influences without centers (build them with build_centers)")
    n = inf.vertex_count
    first, end = vertex_range(job.first, job.count, n)
    streams = job.streams
    if streams is None:
        raise InvalidError("no streams")
    checked = []
    for i, s in enumerate(streams):
        if not isinstance(s, SkinStream):
            raise InvalidError(f"stream {i} is not a SkinStream")
        kind = s.kind
        if type(kind) is not StreamKind:
            try:
                kind = StreamKind(kind)
            except ValueError:
                raise InvalidError(f"stream {i}: unknown kind {kind!r}") from None
        _check_stream_array(s.source, end, i, "source", False)
        _check_stream_array(s.target, end, i, "target", True)
        checked.append((kind, s.source, s.target))
    return inf, pal, dq, first, end, checked, _scratch(job)


# ---- running the kernel ------------------------------------------------------------------

def _run(job, method: int, needs_palette: bool, needs_dual: bool, needs_centers: bool) -> None:
    """Checks the job, then skins its range by `method`, handing the kernel what the method
    reads (None for the rest)."""
    inf, pal, dq, first, end, streams, ws = _checked(job, needs_palette, needs_dual,
                                                     needs_centers)
    if end == first or not streams:
        return
    if method == kernels.LINEAR and inf.rigid:
        method = kernels.RIGID
    weights, palette, dual, work, centers, blend = inf.weights, None, None, None, None, None
    if method in (kernels.LINEAR, kernels.BLENDED, kernels.RIGID):
        palette = pal.reshape(-1, kernels.PALETTE_FLOATS)        # C-contiguous: a copy if not
    if method in (kernels.DUAL, kernels.BLENDED, kernels.CENTERS):
        dual = np.ascontiguousarray(dq)
    if method == kernels.RIGID:
        weights, work = None, ws.rows("skin.work", pal.shape[0], kernels.RIGID_FLOATS)
    if method == kernels.CENTERS:
        work, centers = ws.rows("skin.work", dq.shape[0], kernels.PARTS_FLOATS), inf.centers
    if method == kernels.BLENDED:
        blend = inf.dq_weights
    skin = kernels.SKIN[method]
    for (ps, pt), (ns, nt), (ds0, dt0), (ds1, dt1) in _passes(streams):
        def span(lo, hi):
            skin(lo, hi, inf.joints, weights, inf.counts, palette, dual, work, centers, blend,
                 ps, pt, ns, nt, ds0, dt0, ds1, dt1)
        if work is None:        # vertex by vertex alone: the same bits on any thread count
            rows = [a for a in (ps, pt, ns, nt, ds0, dt0, ds1, dt1) if a is not None]
            threads.run_spans(span, first, end, SPAN_VERTICES, rows[1::2], rows)
        else:                   # the call's table is worked out by the kernel, once
            span(first, end)


_NONE = (None, None)


def _passes(streams) -> list:
    """The streams as the kernel's passes take them: a position, a normal and two
    directions a pass, each a (source, target), or (None, None) where there is none."""
    kinds = ([], [], [])
    for kind, source, target in streams:
        kinds[kind].append((source, target))
    positions, normals, directions = kinds
    passes = []
    while positions or normals or directions:
        passes.append((positions.pop(0) if positions else _NONE,
                       normals.pop(0) if normals else _NONE,
                       directions.pop(0) if directions else _NONE,
                       directions.pop(0) if directions else _NONE))
    return passes


def skin_linear(job: SkinJob) -> None:
    """maniSkinLinear: each vertex moved by the weighted sum of its joints' palette matrices."""
    _run(job, kernels.LINEAR, True, False, False)


def skin_dual_quaternion(job: SkinJob) -> None:
    """maniSkinDualQuaternion: scale and shear blended and applied first, then the joints'
    dual quaternions blended in the first's hemisphere and normalized."""
    _run(job, kernels.DUAL, False, True, False)


def skin_blended(job: SkinJob) -> None:
    """maniSkinBlended: FBX's per-vertex mix of linear and dual quaternion skinning; needs
    both the palette and the dual quaternion palette. Without blend weights (every b 0),
    linear skinning."""
    blended = (isinstance(job, SkinJob) and isinstance(job.influences, Influences)
               and job.influences.dq_weights is not None)
    _run(job, kernels.BLENDED if blended else kernels.LINEAR, True, True, False)


def skin_centers(job: SkinJob) -> None:
    """maniSkinCenters: optimized centers of rotation (Le and Hodgins 2016)."""
    _run(job, kernels.CENTERS, False, True, True)


# ---- palettes for shaders ----------------------------------------------------------------

def _palette64(palette) -> np.ndarray:
    """The palette in binary64, C-contiguous: a float32 or float64 array of (joints, 3, 4),
    the per-frame case, converted directly (it holds every value), anything else checked by
    args.floats (its checks there cost more than the conversion of 80 joints)."""
    if (type(palette) is np.ndarray and palette.dtype in _DIRECT and palette.ndim == 3
            and palette.shape[1:] == (3, 4)):
        return palette.astype(np.float64)
    return args.floats(palette, (-1, 3, 4), "palette", dtype=np.float64, allow_nonfinite=True)


_DIRECT = (np.dtype(np.float32), np.dtype(np.float64))


def _out(out, shape: tuple) -> np.ndarray:
    if out is None:
        return np.empty(shape, dtype=np.float32)
    if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == shape):
        raise InvalidError(f"the output is not a {shape} float32 array")
    if not out.flags.writeable:
        raise InvalidError("the output is read-only")
    return out


def palette_to_dual_quaternions(palette, out=None) -> np.ndarray:
    """maniConvertPaletteToDualQuaternions: each A = R S (R the rotation of its polar
    decomposition, S = R^T A carrying scale, shear and mirror) as 20 floats: R's quaternion
    x y z w with w >= 0, the dual part (half the translation times it), then S as three rows
    of four (the fourth 0). (joints, 20) float32; `out` unchanged on failure. A compiled
    loop over the joints (kernels.dual_quaternions), in binary64."""
    p = _palette64(palette)
    if not np.isfinite(p).all():
        raise InvalidError("a palette matrix not finite")
    result = _out(out, (p.shape[0], DUAL_QUATERNION_FLOATS))

    def span(lo, hi):           # each joint on its own: the same bits on any thread count
        kernels.dual_quaternions(p[lo:hi], result[lo:hi])
    threads.run_spans(span, 0, p.shape[0], SPAN_JOINTS)
    return result


def palette_to_rows(palette, out=None) -> np.ndarray:
    """maniConvertPaletteToRows: each matrix as three rows of four floats, (joints, 12)."""
    p = _palette64(palette)
    result = _out(out, (p.shape[0], 12))
    with np.errstate(all="ignore"):
        result[...] = p.reshape(p.shape[0], 12)
    return result
