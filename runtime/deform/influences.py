"""Influences: the joints that move each vertex of a mesh primitive, and by how much.

The influences file (container kind 5, format version 1):

    INFL  u32 vertex count n, u32 influences a vertex k (groups of 4), u32 joint count of
          the skin, u32 reserved 0, u64 identity of the skin
    ICNT  u8[n]        weighted influences of each vertex (0: a vertex left as it is)
    JVTX  u32[joints]  how many vertices each joint moves
    JSPN  u32[joints, 2]  the first vertex each joint moves and one past its last (0, 0: none)
    JNTS  u16[k, n]    the joint of slot s of every vertex, slot by slot
    WGHT  f32[k, n]    their weights: per vertex decreasing, summing to 1 or all 0; past a
                       vertex's count, joint 0 at weight 0
    DQWT  f32[n]       optional: each vertex's blend from linear (0) to dual quaternion (1)
    CNTR  f32[n, 3]    optional: each vertex's center of rotation (maniBuildCenters)

Slot-major order puts one slot's joints and weights for a range of vertices side by side,
which is what the skinning kernels read. ICNT, JVTX and JSPN repeat what the slots say (a
renderer can skip the joints no vertex of a range uses); being sized by the vertex and
joint counts, they let a wrong count in INFL be told apart from a wrong section size.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import args, container
from ..core.builder import Builder, enter_build
from ..core.container import Container, FileKind, Section
from ..core.errors import BuildReason, FormatError, InvalidError, LimitError
from ..core.limits import MAX_BONES
from .skin import Skin

FORMAT_VERSION = 1
FORMAT_MINOR = 0
KNOWN = {b"INFL": 0, b"ICNT": 0, b"JVTX": 0, b"JSPN": 0, b"JNTS": 0, b"WGHT": 0, b"DQWT": 0,
         b"CNTR": 0}
REQUIRED = (b"INFL", b"ICNT", b"JVTX", b"JSPN", b"JNTS", b"WGHT")
HEAD = struct.Struct("<IIIIQ")
GROUP = 4
MAX_INFLUENCES = 16          # MANI_MAX_INFLUENCES: weighted influences a vertex may have
SUM_TOLERANCE = 1e-5         # a stored vertex's weights sum to 1 within this
DEFAULT_SIGMA = 0.1          # Le and Hodgins' similarity width


@dataclass
class InfluenceSource:
    """maniInfluenceSource: each vertex's influences as a span of flat joint and weight
    lists (vertex v owns offsets[v] to offsets[v + 1]), joints indexing the skin's joints,
    and optionally each vertex's dual quaternion blend weight (FBX's blended method)."""

    skin: Skin
    offsets: Sequence[int]
    joints: Sequence[int]
    weights: Sequence[float]
    dual_quaternion_weights: Sequence[float] | None = None

    @classmethod
    def from_dense(cls, skin: Skin, joints, weights, dual_quaternion_weights=None):
        """From (vertices, m) joint and weight arrays, as glTF's JOINTS_n and WEIGHTS_n give
        them (zero weights and their joints are dropped at build)."""
        joints = np.asarray(joints)
        weights = np.asarray(weights)
        if joints.ndim != 2 or joints.shape != weights.shape:
            raise InvalidError("dense joints and weights must be (vertices, m) arrays alike",
                               reason=BuildReason.Count)
        n, m = joints.shape
        return cls(skin, np.arange(n + 1) * m, joints.reshape(-1), weights.reshape(-1),
                   dual_quaternion_weights)


@dataclass
class CenterSource:
    """maniCenterSource: opened influences, the mesh's bind positions ((vertices, c) with
    c >= 3: the first three columns, so a vertex buffer's rows serve), its triangles
    ((t, 3) vertex indices) and the similarity width sigma."""

    influences: "Influences"
    positions: object
    triangles: object
    sigma: float = DEFAULT_SIGMA


def _ints(values, what: str, reason: BuildReason) -> np.ndarray:
    """A flat int64 array of indices; refuses what is not whole numbers (item its place)."""
    try:
        a = np.asarray(values).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidError(f"{what} are not integers", reason=reason) from None
    if a.size == 0:
        return np.zeros(0, dtype=np.int64)
    if a.dtype.kind not in "iuf":
        raise InvalidError(f"{what} are not integers", reason=reason)
    if a.dtype.kind == "f":
        whole = np.isfinite(a) & (a == np.round(a)) & (np.abs(a) < 2.0 ** 62)
        if not whole.all():
            i = int(np.flatnonzero(~whole)[0])
            raise InvalidError(f"{what}: entry {i} is not an integer", reason=reason, item=i)
    elif a.dtype.kind == "u" and a.dtype.itemsize == 8:
        a = np.minimum(a, np.uint64(2 ** 62))
    return a.astype(np.int64)


def _floats(values, what: str) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise InvalidError(f"{what} are not numbers", reason=BuildReason.NotFinite) from None


def build(source: InfluenceSource) -> bytes:
    """Builds an influences file bound to the source's skin.

    Zero weights are dropped; each vertex's influences sorted by decreasing weight, then
    joint; padded to groups of four with joint 0 at weight 0; renormalized to sum 1 in
    binary64 and rounded (a vertex with no weight keeps all 0). Refusals, item the vertex
    and other the influence's place in it, checked in this order: Count (no vertices,
    offsets not increasing from 0 or not ending at the lists' length), then the first
    influence that is NotFinite, Weight (below 0) or Joint (a weighted joint past the
    skin's), then RepeatedJoint (other the later), then a LimitError with Count for more
    than MAX_INFLUENCES weighted influences (other the first past the bound), then the
    dual quaternion weights (NotFinite, Weight outside 0 to 1; other 0).
    """
    skin = source.skin
    offsets = _ints(source.offsets, "offsets", BuildReason.Count)
    joints = _ints(source.joints, "joints", BuildReason.Joint)
    weights = _floats(source.weights, "weights")
    n, steps = _check_offsets(offsets, joints, weights)
    v, j, w = _weighted(offsets, steps, joints, weights, n, skin.joint_count)
    blend = None
    if source.dual_quaternion_weights is not None:
        blend = _dual_quaternion_weights(source.dual_quaternion_weights, n)
    slot_joints, slot_weights, counts = _slots(v, j, w, n)
    return write(skin.identity, skin.joint_count, slot_joints, slot_weights, counts,
                 None if blend is None else blend.astype("<f4"), None)


def _check_offsets(offsets: np.ndarray, joints: np.ndarray, weights: np.ndarray):
    """The vertex count and each vertex's influence count, the offsets checked (Count)."""
    n = offsets.size - 1
    if n < 1:
        raise InvalidError("influences need a vertex", reason=BuildReason.Count)
    steps = np.diff(offsets)
    if offsets[0] != 0:
        raise InvalidError("offsets do not start at 0", reason=BuildReason.Count)
    bad = np.flatnonzero(steps < 0)
    if bad.size:
        raise InvalidError(f"vertex {int(bad[0])}: offsets decrease", reason=BuildReason.Count,
                           item=int(bad[0]))
    total = min(joints.size, weights.size)
    if offsets[-1] > total:
        v = int(np.searchsorted(offsets[1:], total, side="right"))
        raise InvalidError(f"vertex {v}: influences past the lists", reason=BuildReason.Count,
                           item=v)
    if joints.size != weights.size or offsets[-1] != joints.size:
        raise InvalidError("the joint and weight lists do not end with the offsets",
                           reason=BuildReason.Count, item=n - 1)
    return n, steps


def _weighted(offsets, steps, joints, weights, n: int, joint_count: int):
    """The influences of weight above 0 as (vertex, joint, weight), each checked: NotFinite,
    Weight, Joint, then RepeatedJoint, then MAX_INFLUENCES."""
    vertex = np.repeat(np.arange(n), steps)
    place = np.arange(weights.size) - offsets[vertex]
    live = weights > 0
    problem = ~np.isfinite(weights) | (weights < 0) | \
        (live & ((joints < 0) | (joints >= joint_count)))
    if problem.any():
        i = int(np.flatnonzero(problem)[0])
        w = weights[i]
        reason = BuildReason.NotFinite if not np.isfinite(w) else \
            BuildReason.Weight if w < 0 else BuildReason.Joint
        raise InvalidError(f"vertex {int(vertex[i])}: influence {int(place[i])} refused",
                           reason=reason, item=int(vertex[i]), other=int(place[i]))
    v, j, w, p = vertex[live], joints[live], weights[live], place[live]
    order = np.lexsort((p, j, v))
    same = (v[order][1:] == v[order][:-1]) & (j[order][1:] == j[order][:-1])
    if same.any():
        later = order[1:][same]
        first = later[np.lexsort((p[later], v[later]))[0]]
        raise InvalidError(f"vertex {int(v[first])}: joint {int(j[first])} given twice",
                           reason=BuildReason.RepeatedJoint, item=int(v[first]),
                           other=int(p[first]))
    counts = np.bincount(v, minlength=n)
    over = np.flatnonzero(counts > MAX_INFLUENCES)
    if over.size:
        vo = int(over[0])
        past = np.sort(p[v == vo])[MAX_INFLUENCES]
        raise LimitError(f"vertex {vo}: {int(counts[vo])} influences past MAX_INFLUENCES",
                         reason=BuildReason.Count, item=vo, other=int(past))
    return v, j, w


def _dual_quaternion_weights(values, n: int) -> np.ndarray:
    blend = _floats(values, "dual quaternion weights")
    if blend.size != n:
        raise InvalidError(f"{blend.size} dual quaternion weights for {n} vertices",
                           reason=BuildReason.Count, item=min(blend.size, n))
    bad = np.flatnonzero(~np.isfinite(blend) | (blend < 0) | (blend > 1))
    if bad.size:
        b = int(bad[0])
        reason = BuildReason.NotFinite if not np.isfinite(blend[b]) else BuildReason.Weight
        raise InvalidError(f"vertex {b}: dual quaternion weight refused", reason=reason,
                           item=b)
    return blend


def _slots(v, j, w, n: int):
    """(k, n) slot joints and weights, k a multiple of GROUP: each vertex's influences by
    decreasing weight, then joint, renormalized in binary64 and rounded; the counts kept."""
    order = np.lexsort((j, -w, v))
    v, j, w = v[order], j[order], w[order]
    sums = np.bincount(v, weights=w, minlength=n)
    if not np.isfinite(sums).all():
        bad_v = int(np.flatnonzero(~np.isfinite(sums))[0])
        raise InvalidError(f"vertex {bad_v}: weights too large to sum", reason=BuildReason.Weight,
                           item=bad_v)
    stored = (w / sums[v]).astype(np.float32)
    keep = stored > 0          # a weight below binary32's range of its sum rounds away
    v, j, stored = v[keep], j[keep], stored[keep]
    counts = np.bincount(v, minlength=n)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(v.size) - starts[v]
    k = max(GROUP, -(-int(counts.max(initial=0)) // GROUP) * GROUP)
    slot_joints = np.zeros((k, n), dtype="<u2")
    slot_weights = np.zeros((k, n), dtype="<f4")
    slot_joints[rank, v] = j
    slot_weights[rank, v] = stored
    return slot_joints, slot_weights, counts


def write(skin_identity: int, joint_count: int, slot_joints: np.ndarray, slot_weights: np.ndarray,
          counts: np.ndarray, blend, centers) -> bytes:
    k, n = slot_joints.shape
    per_joint, spans = _joint_facts(slot_joints, counts, joint_count)
    sections = [
        Section(b"INFL", 0, HEAD.pack(n, k, joint_count, 0, skin_identity)),
        Section(b"ICNT", 0, counts.astype("u1").tobytes()),
        Section(b"JVTX", 0, per_joint.astype("<u4").tobytes()),
        Section(b"JSPN", 0, spans.astype("<u4").tobytes()),
        Section(b"JNTS", 0, np.ascontiguousarray(slot_joints, dtype="<u2").tobytes()),
        Section(b"WGHT", 0, np.ascontiguousarray(slot_weights, dtype="<f4").tobytes()),
    ]
    if blend is not None:
        sections.append(Section(b"DQWT", 0, np.asarray(blend, dtype="<f4").tobytes()))
    if centers is not None:
        sections.append(Section(b"CNTR", 0, np.asarray(centers, dtype="<f4").tobytes()))
    return container.write(FileKind.influences, FORMAT_VERSION, FORMAT_MINOR, sections)


def _joint_facts(slot_joints: np.ndarray, counts: np.ndarray, joint_count: int):
    """How many vertices each joint moves, and the span of vertices from its first to its last."""
    k, n = slot_joints.shape
    slot, vertex = np.nonzero(np.arange(k)[:, None] < counts[None, :])
    joint = slot_joints[slot, vertex].astype(np.int64)
    per_joint = np.bincount(joint, minlength=joint_count)
    spans = np.zeros((joint_count, 2), dtype=np.int64)
    first = np.full(joint_count, n, dtype=np.int64)
    np.minimum.at(first, joint, vertex)
    last = np.full(joint_count, -1, dtype=np.int64)
    np.maximum.at(last, joint, vertex)
    used = per_joint > 0
    spans[used, 0] = first[used]
    spans[used, 1] = last[used] + 1
    return per_joint, spans


def build_influences(builder: Builder, source: InfluenceSource) -> bytes:
    """maniBuildInfluences: builds the influences and keeps them in the builder in place of
    any file before. A missing builder, source, skin or list is a misuse; a refused source
    is not."""
    enter_build(builder, source, InfluenceSource, skin=Skin, offsets=None, joints=None,
                weights=None)
    data = build(source)
    builder.keep(data, "influences")
    return data


def build_centers(builder: Builder, source: CenterSource) -> bytes:
    """maniBuildCenters: the influences again with their centers, kept in the builder in
    place of any file before. A missing builder, source, influences, positions or triangles
    is a misuse; a refused source is not."""
    enter_build(builder, source, CenterSource, influences=Influences, positions=None,
                triangles=None)
    data = build_with_centers(source)
    builder.keep(data, "influences")
    return data


def build_with_centers(source: CenterSource) -> bytes:
    """The influences again, with each vertex's center of rotation (Le and Hodgins 2016,
    Eq. 4) in binary64: the triangles' centroids weighted by their areas and by the
    similarity of their average weights to the vertex's; a vertex similar to no triangle
    takes its rest position.

    Refusals: Count (positions not (vertices, 3 or more), the stride under 12 bytes of a C
    source), NotFinite (a position; item the vertex), Triangle (item the triangle, other the
    corner), Option (sigma below 0 or not finite).
    """
    from .centers import centers_of_rotation
    infl = source.influences
    n = infl.vertex_count
    try:
        positions = np.asarray(source.positions, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidError("positions are not numbers", reason=BuildReason.NotFinite) from None
    if positions.ndim != 2 or positions.shape[1] < 3 or positions.shape[0] != n:
        raise InvalidError(f"positions of shape {positions.shape} for {n} vertices",
                           reason=BuildReason.Count)
    positions = positions[:, :3]
    finite = (np.abs(positions) <= args.F32_MAX).all(axis=1)     # finite in binary32, as stored
    if not finite.all():
        v = int(np.flatnonzero(~finite)[0])
        raise InvalidError(f"vertex {v}: position not finite in binary32", reason=BuildReason.NotFinite,
                           item=v)
    triangles = _ints(source.triangles, "triangles", BuildReason.Triangle)
    if triangles.size % 3:
        raise InvalidError("triangles are not triples", reason=BuildReason.Triangle,
                           item=triangles.size // 3)
    triangles = triangles.reshape(-1, 3)
    bad = np.flatnonzero(((triangles < 0) | (triangles >= n)).reshape(-1))
    if bad.size:
        t, corner = divmod(int(bad[0]), 3)
        raise InvalidError(f"triangle {t}: corner {corner} past the vertices",
                           reason=BuildReason.Triangle, item=t, other=corner)
    try:
        sigma = args.real(source.sigma, "sigma")
    except InvalidError as e:
        raise InvalidError(str(e.args[0]), reason=BuildReason.Option) from None
    if not (np.isfinite(sigma) and sigma >= 0):
        raise InvalidError(f"sigma {sigma} below 0 or not finite", reason=BuildReason.Option)
    joints = np.array(infl.joints, dtype=np.int64)
    weights = np.array(infl.weights, dtype=np.float64)
    counts = np.array(infl.counts, dtype=np.int64)
    weights[np.arange(infl.per_vertex)[:, None] >= counts[None, :]] = 0.0
    centers = centers_of_rotation(positions, triangles, joints, weights, infl.joint_count, sigma)
    return write(infl.skin_identity, infl.joint_count, np.array(infl.joints),
                 np.array(infl.weights), counts,
                 None if infl.dq_weights is None else np.array(infl.dq_weights),
                 centers.astype("<f4"))


class Influences:
    """An influences file opened in place (maniInfluences)."""

    def __init__(self, data):
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.influences, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=REQUIRED)
        at = c.offset_of(b"INFL")
        n, k, joints, reserved, skin_identity = HEAD.unpack(c.array(b"INFL", "u1", (HEAD.size,))
                                                            .tobytes())
        if n < 1:
            raise FormatError("no vertices", at)
        if k < GROUP or k % GROUP or k > -(-MAX_INFLUENCES // GROUP) * GROUP:
            raise FormatError(f"{k} influences a vertex", at + 4)
        if not 1 <= joints <= MAX_BONES:
            raise FormatError(f"joint count {joints} out of range", at + 8)
        if reserved:
            raise FormatError("reserved field set", at + 12)
        c.check_count(n, at, {b"ICNT": (1, 0), b"JNTS": (2 * k, 0), b"WGHT": (4 * k, 0),
                              b"DQWT": (4, 0), b"CNTR": (12, 0)})
        c.check_count(k, at + 4, {b"JNTS": (2 * n, 0), b"WGHT": (4 * n, 0)})
        c.check_count(joints, at + 8, {b"JVTX": (4, 0), b"JSPN": (8, 0)})
        self.counts = c.array(b"ICNT", "u1", (n,))
        self.joint_vertices = c.array(b"JVTX", "<u4", (joints,))
        self.joint_spans = c.array(b"JSPN", "<u4", (joints, 2))
        self.joints = c.array(b"JNTS", "<u2", (k, n))
        self.weights = c.array(b"WGHT", "<f4", (k, n))
        self.dq_weights = c.array(b"DQWT", "<f4", (n,)) if c.has(b"DQWT") else None
        self.centers = c.array(b"CNTR", "<f4", (n, 3)) if c.has(b"CNTR") else None
        _check_slots(c, self.counts, self.joints, self.weights, joints)
        per_joint, spans = _joint_facts(self.joints, self.counts, joints)
        bad = np.flatnonzero(per_joint != self.joint_vertices)
        if bad.size:
            raise FormatError("a joint's vertex count wrong", c.offset_of(b"JVTX", 4 * int(bad[0])))
        bad = np.flatnonzero((spans != self.joint_spans).reshape(-1))
        if bad.size:
            raise FormatError("a joint's span wrong", c.offset_of(b"JSPN", 4 * int(bad[0])))
        if self.dq_weights is not None:
            b = self.dq_weights
            bad = np.flatnonzero(~(np.isfinite(b) & (b >= 0) & (b <= 1)))
            if bad.size:
                raise FormatError("dual quaternion weight not from 0 to 1",
                                  c.offset_of(b"DQWT", 4 * int(bad[0])))
        if self.centers is not None:
            bad = np.flatnonzero(~np.isfinite(self.centers).reshape(-1))
            if bad.size:
                raise FormatError("center not finite", c.offset_of(b"CNTR", 4 * int(bad[0])))
        c.finish()
        self.vertex_count = n
        self.per_vertex = k
        self.joint_count = joints
        self.skin_identity = skin_identity
        self.identity = c.identity
        self.data = buf
        # every weighted vertex on one joint at weight 1: linear skinning then works each
        # joint's normal matrix out once a call, not once a vertex (the bits are the same)
        self.rigid = bool(self.counts.max() <= 1 and (self.weights[0][self.counts == 1] == 1).all())

    @classmethod
    def open(cls, data) -> "Influences":
        return cls(data)

    def is_skin_fit(self, skin) -> bool:
        """Whether these are the skin's: its identity and joint count are the ones recorded."""
        return (isinstance(skin, Skin) and skin.identity == self.skin_identity
                and skin.joint_count == self.joint_count)

    def influence(self, vertex: int, slot: int) -> tuple[int, float]:
        """(joint, weight) of one slot; (0, 0.0) past the counts, joint 0 for one changed
        after the open past the skin's joints."""
        vertex, slot = args.integer(vertex, "vertex"), args.integer(slot, "slot")
        if not (0 <= vertex < self.vertex_count and 0 <= slot < self.per_vertex):
            return 0, 0.0
        joint = int(self.joints[slot, vertex])
        return (joint if joint < self.joint_count else 0), float(self.weights[slot, vertex])

    def dual_quaternion_weight(self, vertex: int) -> float:
        vertex = args.integer(vertex, "vertex")
        if self.dq_weights is None or not 0 <= vertex < self.vertex_count:
            return 0.0
        return float(self.dq_weights[vertex])

    def center(self, vertex: int) -> np.ndarray | None:
        """A vertex's center of rotation, or None without centers or past the count."""
        vertex = args.integer(vertex, "vertex")
        if self.centers is None or not 0 <= vertex < self.vertex_count:
            return None
        return self.centers[vertex].copy()


def _check_slots(c: Container, counts, joints, weights, joint_count: int) -> None:
    """Each vertex's slots: joints within the skin, weights finite, from 0 to 1, decreasing
    and summing to 1 (or all 0), weighted exactly as far as its count, no joint twice, pads
    joint 0."""
    k, n = weights.shape
    w_at, j_at = c.offset_of(b"WGHT"), c.offset_of(b"JNTS")

    def first(mask, base, itemsize):
        flat = np.flatnonzero(mask.reshape(-1))
        return None if not flat.size else base + itemsize * int(flat[0])

    bad = first(~(np.isfinite(weights) & (weights >= 0) & (weights <= 1)), w_at, 4)
    if bad is not None:
        raise FormatError("weight not finite or not from 0 to 1", bad)
    bad = first(np.vstack([np.zeros((1, n), bool), weights[1:] > weights[:-1]]), w_at, 4)
    if bad is not None:
        raise FormatError("weights not decreasing", bad)
    total = weights.astype(np.float64).sum(axis=0)
    live = weights[0] > 0
    bad = np.flatnonzero(live & (np.abs(total - 1) > SUM_TOLERANCE))
    if bad.size:
        raise FormatError("weights do not sum to 1", w_at + 4 * int(bad[0]))
    bad = first(joints >= joint_count, j_at, 2)
    if bad is not None:
        raise FormatError("joint past the skin's joints", bad)
    weighted = (weights > 0).sum(axis=0)
    bad = np.flatnonzero(weighted != counts)
    if bad.size:
        raise FormatError("vertex count of influences wrong", c.offset_of(b"ICNT", int(bad[0])))
    pads = np.arange(k)[:, None] >= counts[None, :]
    bad = first(pads & (joints != 0), j_at, 2)
    if bad is not None:
        raise FormatError("a pad's joint is not 0", bad)
    order = np.sort(np.where(pads, -1 - np.arange(k)[:, None], joints.astype(np.int64)), axis=0)
    twice = (order[1:] == order[:-1]) & (order[1:] >= 0)
    if twice.any():
        v = int(np.flatnonzero(twice.any(axis=0))[0])
        seen = joints[:counts[v], v]
        s = int(np.flatnonzero([x in seen[:i] for i, x in enumerate(seen.tolist())])[0])
        raise FormatError("a joint twice in a vertex", j_at + 2 * (s * n + v))
