"""Saving and restoring an instance's state (maniGraphInstance_Save / _Restore).

A saved state is a container file (kind saved_state, STATE_FORMAT_VERSION) that holds no
pointer and can be restored into any instance of the same graph:

    GSAV  48 bytes: u32 ABI_VERSION, u32 reserved 0, u64 identity of the graph, u64 identity
          of its skeleton, u32 bones, u32 nodes, u32 parameters, u32 scalars, u32 poses,
          u32 reserved 0
    SCAL  f64[scalars]: the instance's scalars (graph/layout.py)
    POSE  f32[poses, bones, 10]: the instance's poses

A restore reads the bytes as external ones: the container, the version, the graph's
identity, the counts, then every scalar within its range (whole where it must be), every
quaternion parameter of unit length, every pose finite with rotations of unit length within
a thousandth; only then does it copy them in, so a refusal leaves the instance as it was.
"""
from __future__ import annotations

import struct

import numpy as np

from ..core import container
from ..core.base import ABI_VERSION
from ..core.container import Container, FileKind, Section
from ..core.errors import CapacityError, FormatError, InvalidError, VersionError
from .source import InertializeMethod, NodeKind, ParameterType
from .springs import spring_values
from ..physics.spring import _check_values as check_spring_values

STATE_FORMAT_VERSION = 1
STATE_FORMAT_MINOR = 0
HEAD = struct.Struct("<IIQQIIIIII")
KNOWN = {b"GSAV": 0, b"SCAL": 0, b"POSE": 0}
ROTATION_TOLERANCE = 1e-3


def save(inst, out=None):
    """The state as bytes; or, into `out`, its size (CapacityError with .size when short,
    nothing written)."""
    b = inst.binding
    g = b.graph
    head = HEAD.pack(ABI_VERSION, 0, g.identity, g.skeleton_identity, g.bone_count, len(g.nodes),
                     len(g.parameters), b.layout.size, b.layout.pose_count, 0)
    data = container.write(FileKind.saved_state, STATE_FORMAT_VERSION, STATE_FORMAT_MINOR, [
        Section(b"GSAV", 0, head),
        Section(b"SCAL", 0, inst.scalars.astype("<f8").tobytes()),
        Section(b"POSE", 0, inst.poses.astype("<f4").tobytes()),
    ])
    if out is None:
        return data
    try:
        view = memoryview(out).cast("B")
    except TypeError:
        raise InvalidError("out is not a writable buffer") from None
    if view.readonly:
        raise InvalidError("out is read-only")
    if view.nbytes < len(data):
        raise CapacityError(f"{view.nbytes} bytes for a state of {len(data)}", size=len(data))
    view[:len(data)] = data
    return len(data)


def restore(inst, data) -> None:
    if data is None:
        raise InvalidError("no bytes")
    try:
        raw = bytes(memoryview(data).cast("B"))
    except TypeError:
        raise InvalidError("not a bytes-like object") from None
    buf = np.frombuffer(raw, dtype=np.uint8)      # a copy, so aligned whatever the caller's
    c = Container(buf, FileKind.saved_state, STATE_FORMAT_VERSION, STATE_FORMAT_MINOR, KNOWN,
                  required=tuple(KNOWN))
    b = inst.binding
    g = b.graph
    L = b.layout
    c.array(b"GSAV", "<u1", (HEAD.size,))
    at = c.offset_of(b"GSAV")
    abi, r0, graph_id, skel_id, bones, nodes, params, scalars, poses, r1 = HEAD.unpack_from(buf, at)
    if abi != ABI_VERSION:
        raise VersionError(f"a state saved by ABI version {abi}; this library is {ABI_VERSION}")
    for value, want, where in ((r0, 0, 4), (graph_id, g.identity, 8), (skel_id, g.skeleton_identity, 16),
                               (bones, g.bone_count, 24), (nodes, len(g.nodes), 28),
                               (params, len(g.parameters), 32), (scalars, L.size, 36),
                               (poses, L.pose_count, 40), (r1, 0, 44)):
        if value != want:
            raise FormatError("a state of another graph or layout", at + where)
    S = c.array(b"SCAL", "<f8", (L.size,))
    A = c.array(b"POSE", "<f4", (L.pose_count, g.bone_count, 10))
    s_at = c.offset_of(b"SCAL")
    bad = ~np.isfinite(S)           # first, on the bits: no arithmetic meets a NaN or an infinity
    if not bad.any():
        bad = ~((S >= b.lo) & (S <= b.hi) & (~b.whole | (S == np.floor(S))))
    if bad.any():
        raise FormatError("a scalar out of range", s_at + 8 * int(np.flatnonzero(bad)[0]))
    _check_relations(b, S, s_at)
    _check_poses(b, A, c.offset_of(b"POSE"))
    c.finish()
    inst.scalars[:] = S
    inst.poses[...] = A


def _check_relations(b, S: np.ndarray, at: int) -> None:
    """What ranges alone cannot say: quaternion parameters of unit length, a machine without
    transitions not under way."""
    g, L = b.graph, b.layout
    for k, p in enumerate(g.parameters):
        if p.type == ParameterType.quaternion:
            i = L.parameters + 4 * k
            if abs(float(np.sqrt(np.square(S[i:i + 4]).sum())) - 1.0) > ROTATION_TOLERANCE:
                raise FormatError("a quaternion parameter not of unit length", at + 8 * i)
    for k, node in enumerate(g.nodes):
        if node.kind == NodeKind.springs:
            s = b.spring_sets[node.data.slot]
            first = L.nodes[k] + 3
            with np.errstate(all="ignore"):
                check_spring_values(S[first:first + spring_values(s)], s.bone_count, s.joint_count, s,
                                    at + 8 * first)
    for m in b.machines:
        if not m.transitions and S[m.at["length"]] != 0:
            raise FormatError("a machine without transitions under way", at + 8 * m.at["length"])


def _check_poses(b, A: np.ndarray, at: int) -> None:
    n = b.graph.bone_count
    bad = np.flatnonzero(~np.isfinite(A).reshape(-1))
    if bad.size:
        raise FormatError("a pose value not finite", at + 4 * int(bad[0]))
    unit = list(b.layout.pose_parameters.values())
    for k, first in b.layout.inertial_poses.items():
        unit += [first, first + 1]
        if b.graph.nodes[k].data.method == InertializeMethod.dead_blending:
            unit.append(first + 2)
    unit += list(b.layout.learned_poses.values())
    for p in sorted(unit):
        q = A[p, :, 3:7].astype(np.float64)
        length = np.sqrt(np.einsum("ij,ij->i", q, q))
        wrong = np.flatnonzero(np.abs(length - 1.0) > ROTATION_TOLERANCE)
        if wrong.size:
            raise FormatError("a rotation not of unit length", at + 4 * (10 * (p * n + int(wrong[0])) + 3))
