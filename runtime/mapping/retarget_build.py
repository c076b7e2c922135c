"""maniBuildRetargetMap: bone pairs, chains of any lengths on each side, the pelvis and names
matched, checked against both skeletons and laid out as each target bone's plan, beside a
reference pose per skeleton and its model rotations, so the transfer at runtime only
composes rotations.

The file (container kind 4, format version 1):

    RHDR  u64 source identity, u64 target identity, u32 source bone count, u32 target bone
          count, u64 reserved 0
    RSRF  per source bone f32[14]: the reference local (10), its model rotation (4)
    RTRF  per target bone f32[14]: the same for the target
    RPLN  per target bone 48 bytes: u32 kind (0 keeps its reference, 1 one source bone, 2 two
          slerped at the place), u32 source bones a and b, u32 translation (own, scaled,
          absolute), u32 flags (1 the scale carries), f32 place, f32 weight, u32 reserved 0,
          f32[4] the parent turn P = conj(target parent's reference model rotation) times the
          source parent's (a's), which turns a translation between the two parents' frames.
          A word a kind does not use is 0.
    RPLV  (when the map has a pelvis) 88 bytes: u32 source and target bone, f32[3] the up
          axis, f32 the height ratio (target pelvis height over source's, in the references),
          f32 horizontal and vertical scales (the ratio times the source's factors), f32[3]
          the blend toward the unscaled change, f32[3] toward the source's position, f32
          weight, f32[3] the source and f32[3] the target pelvis's reference model positions,
          u32 reserved 0

Chains: a chain is its bones from its start down to its end (the end the start or below
it, at most MAX_IK_CHAIN_BONES). Target bone k of m takes, by the chain's mode: none, its
reference (kept, so no name maps it); interpolated, the source chain at the same fraction
k / (m - 1) of its bones (two neighbours slerped at the place between them); oneToOne,
source bone k (the last past the source's end); oneToOneReversed, the same counted from
the ends (the first before the source's start). A two-source plan takes its translation
and scale from its first source bone.

Refusals (maniBuildReason*): RetargetReference (item the bone or NO_BONE for a reference
that is not a pose or (n, 10) locals of its skeleton, other 0 the source's, 1 the
target's); RetargetPair (item the pair, other its target bone); RetargetChain (item the
chain, other the target bone mapped before, else 0; past MAX_IK_CHAIN_BONES a LimitError);
RetargetPelvis. A list that is not a list is a misuse.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ..core import args, container
from ..core.builder import Builder, enter_build, listed
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import MAX_IK_CHAIN_BONES, NO_BONE
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton
from .kernels import qconj, qmatrix, qmul

FORMAT_VERSION = 1
FORMAT_MINOR = 0
KEEP, ONE, TWO = 0, 1, 2                # a plan's kinds
SCALE_CARRIES = 1                       # a plan's flag
LENGTH_TOLERANCE = 1e-3                 # a source's rotation or up axis may be this far from 1
HEADER = struct.Struct("<QQIIQ")
PLAN = np.dtype([("kind", "<u4"), ("source", "<u4", 2), ("translation", "<u4"),
                 ("flags", "<u4"), ("place", "<f4"), ("weight", "<f4"), ("reserved", "<u4"),
                 ("parent_turn", "<f4", 4)])
PELVIS = np.dtype([("source", "<u4"), ("target", "<u4"), ("up", "<f4", 3),
                   ("height_ratio", "<f4"), ("horizontal", "<f4"), ("vertical", "<f4"),
                   ("absolute", "<f4", 3), ("to_source", "<f4", 3), ("weight", "<f4"),
                   ("source_position", "<f4", 3), ("target_position", "<f4", 3),
                   ("reserved", "<u4")])


class RetargetTranslation(IntEnum):
    """maniRetargetTranslation: where a mapped bone's translation comes from."""

    own = 0             # the target reference's
    scaled = 1          # plus the source's change from its reference, times the height ratio
    absolute = 2        # the source's own


class RetargetChainMode(IntEnum):
    """maniRetargetChainMode: how a target chain's bones take the source chain's."""

    none = 0
    interpolated = 1
    one_to_one = 2
    one_to_one_reversed = 3


@dataclass
class RetargetPair:
    """maniRetargetPair: a target bone from a source bone."""

    source: int
    target: int
    weight: float = 1.0
    translation: int = RetargetTranslation.own
    scale: bool = False


@dataclass
class RetargetChain:
    """maniRetargetChain: the target chain from target_start down to target_end from the
    source chain from source_start down to source_end."""

    source_start: int
    source_end: int
    target_start: int
    target_end: int
    mode: int = RetargetChainMode.interpolated
    translation: int = RetargetTranslation.own
    scale: bool = False
    weight: float = 1.0


@dataclass
class RetargetPelvis:
    """maniRetargetPelvis: the pelvis bones, the model up axis, the factors on the height
    ratio for the horizontal and vertical parts of the pelvis's move, the per-axis blends
    toward the unscaled move and toward the source's position, and the weight."""

    source: int
    target: int
    up: Any = (0.0, 1.0, 0.0)
    horizontal: float = 1.0
    vertical: float = 1.0
    absolute: Any = (0.0, 0.0, 0.0)
    to_source: Any = (0.0, 0.0, 0.0)
    weight: float = 1.0


@dataclass
class RetargetMapSource:
    """maniRetargetMapSource: both skeletons, a reference pose of each (a Pose or (n, 10)
    locals; None: the rest), pairs, chains, the pelvis (None: none) and whether bones left
    unmapped take the source bone of their name."""

    source_skeleton: Skeleton
    target_skeleton: Skeleton
    source_reference: Any = None
    target_reference: Any = None
    pairs: list = field(default_factory=list)
    chains: list = field(default_factory=list)
    pelvis: RetargetPelvis | None = None
    match_names: bool = False


@dataclass
class Checked:
    """A source in the build's terms (retarget_json writes sources through it)."""

    source: RetargetMapSource
    references: tuple               # ((n, 10) binary64 normalized, (n, 10) binary32 given) per side
    plans: np.ndarray               # (nt,) PLAN, parent turns still to fill
    pelvis: tuple | None            # (source, target, up, horizontal, vertical, absolute, to_source, weight)
    match_names: bool


def _reference(value, skeleton: Skeleton, side: int) -> tuple[np.ndarray, np.ndarray]:
    n = skeleton.bone_count
    refuse = lambda b, why: InvalidError(why, reason=BuildReason.RetargetReference,  # noqa: E731
                                         item=b, other=side)
    if value is None:
        given = np.array(skeleton.rests, dtype=np.float32)
    elif isinstance(value, Pose):
        if not value.of(skeleton) or value.is_difference:
            raise refuse(NO_BONE, "a reference pose of another skeleton, or a difference")
        given = value.locals.copy()
    else:
        try:
            raw = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raw = None
        if raw is None or raw.shape != (n, 10):
            raise refuse(NO_BONE, "a reference that is not (n, 10) locals of its skeleton")
        with np.errstate(all="ignore"):
            bad = ~(np.abs(raw) <= args.F32_MAX).all(axis=1)
            given = np.where(bad[:, None], 0.0, raw).astype(np.float32)
        given[bad, 3] = np.nan          # refused below as not finite
    out = given.astype(np.float64)
    with np.errstate(all="ignore"):
        length = np.sqrt(np.einsum("ij,ij->i", out[:, 3:7], out[:, 3:7]))
        bad = ~np.isfinite(out).all(axis=1) | ~(np.abs(length - 1) <= LENGTH_TOLERANCE)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise refuse(b, f"bone {b}: a reference local not finite or its rotation not of length 1")
    out[:, 3:7] /= length[:, None]
    return out, given


def _bone(value, n: int) -> int:
    """A bone index, or -1 for what is not a bone of n (refused by the caller)."""
    try:
        b = args.integer(value, "bone")
    except InvalidError:
        return -1
    return b if 0 <= b < n else -1


def _unit(value) -> float | None:
    """A weight, blend or place in [0, 1], or None."""
    try:
        v = args.real(value, "weight")
    except InvalidError:
        return None
    return v if 0.0 <= v <= 1.0 else None


def _translation(value) -> int | None:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or int(value) not in tuple(RetargetTranslation):
        return None
    return int(value)


def _flag(value) -> bool | None:
    return bool(value) if isinstance(value, (bool, np.bool_)) else None


def _path(skeleton: Skeleton, start: int, end: int) -> list[int] | None:
    """The bones from start down to end, or None when end is not start or below it."""
    path = [end]
    while path[-1] != start:
        p = skeleton.parent(path[-1])
        if p == NO_BONE:
            return None
        path.append(p)
    return path[::-1]


def _chain_sources(mode: int, m: int, n: int, k: int) -> tuple[int, int, int, float]:
    """Target bone k of a chain of m from a source chain of n: (kind, i, j, place) with
    source places i, j along the source chain."""
    if mode == RetargetChainMode.none:
        return KEEP, 0, 0, 0.0
    if mode == RetargetChainMode.one_to_one:
        return ONE, min(k, n - 1), 0, 0.0
    if mode == RetargetChainMode.one_to_one_reversed:
        return ONE, max(0, k - (m - n)), 0, 0.0
    x = k * (n - 1) / (m - 1) if m > 1 else 0.0
    i = math.floor(x)
    t = x - i
    if i >= n - 1:
        return ONE, n - 1, 0, 0.0
    if t == 0.0:
        return ONE, i, 0, 0.0
    return TWO, i, i + 1, t


def check(builder: Builder, source: RetargetMapSource) -> Checked:
    src, tgt = source.source_skeleton, source.target_skeleton
    pairs = listed(builder, source.pairs, "pairs")
    chains = listed(builder, source.chains, "chains")
    references = (_reference(source.source_reference, src, 0),
                  _reference(source.target_reference, tgt, 1))
    ns, nt = src.bone_count, tgt.bone_count
    plans = np.zeros(nt, dtype=PLAN)
    mapped = np.zeros(nt, dtype=bool)

    def plan(b: int, kind: int, a: int, c: int, place: float, weight: float, translation: int,
             scale: bool) -> None:
        mapped[b] = True
        if kind == KEEP:
            return
        p = plans[b]
        p["kind"], p["source"], p["place"], p["weight"] = kind, (a, c), place, weight
        p["translation"], p["flags"] = translation, SCALE_CARRIES if scale else 0

    for k, pair in enumerate(pairs):
        def refuse(why, target=NO_BONE):
            return InvalidError(f"pair {k}: {why}", reason=BuildReason.RetargetPair, item=k,
                                other=target)
        if not isinstance(pair, RetargetPair):
            raise refuse("not a RetargetPair")
        a, b = _bone(pair.source, ns), _bone(pair.target, nt)
        target = b if b >= 0 else (pair.target & 0xFFFFFFFF if isinstance(pair.target, int)
                                   and not isinstance(pair.target, bool) else NO_BONE)
        if a < 0 or b < 0:
            raise refuse("a bone out of range", target)
        if mapped[b]:
            raise refuse(f"target bone {b} mapped before", b)
        weight, translation, scale = _unit(pair.weight), _translation(pair.translation), _flag(pair.scale)
        if weight is None or translation is None or scale is None:
            raise refuse("a weight outside [0, 1], an unknown translation or a scale not a bool", b)
        plan(b, ONE, a, 0, 0.0, weight, translation, scale)

    for k, chain in enumerate(chains):
        def refuse(why, other=0):
            return InvalidError(f"chain {k}: {why}", reason=BuildReason.RetargetChain, item=k,
                                other=other)
        if not isinstance(chain, RetargetChain):
            raise refuse("not a RetargetChain")
        ends = (_bone(chain.source_start, ns), _bone(chain.source_end, ns),
                _bone(chain.target_start, nt), _bone(chain.target_end, nt))
        if min(ends) < 0:
            raise refuse("a bone out of range")
        s_path, t_path = _path(src, ends[0], ends[1]), _path(tgt, ends[2], ends[3])
        if s_path is None or t_path is None:
            raise refuse("an end not its start or below it")
        mode = chain.mode
        if isinstance(mode, (bool, np.bool_)) or not isinstance(mode, (int, np.integer)) \
                or int(mode) not in tuple(RetargetChainMode):
            raise refuse("an unknown mode")
        weight, translation, scale = _unit(chain.weight), _translation(chain.translation), _flag(chain.scale)
        if translation is None or scale is None:
            raise refuse("an unknown translation or a scale not a bool")
        if weight is None:
            raise refuse("a weight outside [0, 1]")
        if max(len(s_path), len(t_path)) > MAX_IK_CHAIN_BONES:
            raise LimitError(f"chain {k}: past MAX_IK_CHAIN_BONES bones from its start",
                             reason=BuildReason.RetargetChain, item=k, other=0)
        for b in t_path:
            if mapped[b]:
                raise refuse(f"target bone {b} mapped before", b)
        m, n = len(t_path), len(s_path)
        for j, b in enumerate(t_path):
            kind, i, i2, place = _chain_sources(int(mode), m, n, j)
            plan(b, kind, s_path[i], s_path[i2] if kind == TWO else 0, place, weight,
                 translation, scale)

    pelvis = None
    if source.pelvis is not None:
        pelvis = _pelvis(source.pelvis, src, tgt, mapped)
        plan(pelvis[1], ONE, pelvis[0], 0, 0.0, pelvis[-1], RetargetTranslation.own, False)

    match = _flag(source.match_names)
    if match is None:
        raise builder.refuse("match_names is not a bool")
    if match:
        for b in np.flatnonzero(~mapped).tolist():
            a = src.find_bone(tgt.bone_name(b))
            if a != NO_BONE:
                plan(b, ONE, a, 0, 0.0, 1.0, RetargetTranslation.own, False)
    return Checked(source, references, plans, pelvis, match)


def _pelvis(p, src: Skeleton, tgt: Skeleton, mapped: np.ndarray) -> tuple:
    def refuse(why):
        return InvalidError(f"the pelvis: {why}", reason=BuildReason.RetargetPelvis)
    if not isinstance(p, RetargetPelvis):
        raise refuse("not a RetargetPelvis")
    a, b = _bone(p.source, src.bone_count), _bone(p.target, tgt.bone_count)
    if a < 0 or b < 0 or mapped[b]:
        raise refuse("a bone out of range, or the target mapped before")
    try:       # binary32, as the file and the JSON form keep them, so both build the same file
        up = args.floats(p.up, (3,), "up").astype(np.float64)
        absolute, to_source = (args.floats(v, (3,), what, allow_nonfinite=True).astype(np.float64)
                               for v, what in ((p.absolute, "absolute"), (p.to_source, "to source")))
        with np.errstate(over="ignore"):     # past binary32: infinite, refused below
            factors = [float(np.float32(args.real(p.horizontal, "horizontal"))),
                       float(np.float32(args.real(p.vertical, "vertical")))]
    except InvalidError as exc:
        raise refuse(str(exc)) from None
    length = float(np.sqrt(up @ up))
    if not abs(length - 1) <= LENGTH_TOLERANCE:
        raise refuse("an up axis not of length 1")
    if not all(math.isfinite(f) and 0 <= f <= args.F32_MAX for f in factors):
        raise refuse("a factor negative or not finite")
    weight = _unit(p.weight)
    weight = None if weight is None else float(np.float32(weight))
    if weight is None or not ((absolute >= 0) & (absolute <= 1) & (to_source >= 0) & (to_source <= 1)).all():
        raise refuse("a blend or weight outside [0, 1]")
    return (a, b, up / length, factors[0], factors[1], absolute, to_source, weight)


# ---- layout ------------------------------------------------------------------------------
def model_rotations(skeleton: Skeleton, locals_: np.ndarray) -> np.ndarray:
    """(n, 4) binary64 model rotations: each the product of its root path's local rotations."""
    out = np.zeros((skeleton.bone_count, 4))
    for b in range(skeleton.bone_count):
        p = skeleton.parent(b)
        q = locals_[b, 3:7]
        out[b] = q if p == NO_BONE else qmul(out[p], q)
    return out


def model_position(skeleton: Skeleton, locals_: np.ndarray, bone: int) -> np.ndarray:
    """A bone's model position, its root path's local transforms (scale too) composed in
    binary64."""
    point = np.zeros(3)
    b = bone
    while b != NO_BONE:
        t, q, s = locals_[b, 0:3], locals_[b, 3:7], locals_[b, 7:10]
        point = qmatrix(q) @ (s * point) + t
        b = skeleton.parent(b)
    return point


def _parent_turns(ch: Checked, model_s: np.ndarray, model_t: np.ndarray) -> np.ndarray:
    src, tgt = ch.source.source_skeleton, ch.source.target_skeleton
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    out = np.zeros((tgt.bone_count, 4))
    for b in np.flatnonzero(ch.plans["kind"] != KEEP).tolist():
        pt, ps = tgt.parent(b), src.parent(int(ch.plans["source"][b, 0]))
        t = identity if pt == NO_BONE else model_t[pt]
        s = identity if ps == NO_BONE else model_s[ps]
        q = qmul(qconj(t), s)
        out[b] = q / np.linalg.norm(q)
    return out


def layout(ch: Checked) -> bytes:
    """The file of a checked source; the pelvis's heights refused here."""
    src, tgt = ch.source.source_skeleton, ch.source.target_skeleton
    (ref_s, given_s), (ref_t, given_t) = ch.references
    model_s, model_t = model_rotations(src, ref_s), model_rotations(tgt, ref_t)
    plans = ch.plans.copy()
    plans["parent_turn"] = _parent_turns(ch, model_s, model_t)
    sections = [
        Section(b"RHDR", 0, HEADER.pack(src.identity, tgt.identity, src.bone_count,
                                        tgt.bone_count, 0)),
        Section(b"RSRF", 0, np.hstack([ref_s, model_s]).astype("<f4").tobytes()),
        Section(b"RTRF", 0, np.hstack([ref_t, model_t]).astype("<f4").tobytes()),
        Section(b"RPLN", 0, plans.tobytes()),
    ]
    if ch.pelvis is not None:
        a, b, up, horizontal, vertical, absolute, to_source, weight = ch.pelvis
        ps, pt = model_position(src, ref_s, a), model_position(tgt, ref_t, b)
        hs, ht = float(ps @ up), float(pt @ up)
        if not (hs > 0 and ht > 0):
            raise InvalidError("the pelvis: a reference pelvis at or below height 0",
                               reason=BuildReason.RetargetPelvis)
        ratio = ht / hs
        scales = np.array([ratio, ratio * horizontal, ratio * vertical])
        if not (np.abs(scales) <= args.F32_MAX).all() or not np.isfinite(np.float32(scales)).all():
            raise InvalidError("the pelvis: a factor past the binary32 range",
                               reason=BuildReason.RetargetPelvis)
        rec = np.zeros(1, dtype=PELVIS)
        rec["source"], rec["target"], rec["up"] = a, b, up
        rec["height_ratio"], rec["horizontal"], rec["vertical"] = scales
        rec["absolute"], rec["to_source"], rec["weight"] = absolute, to_source, weight
        rec["source_position"], rec["target_position"] = ps, pt
        sections.append(Section(b"RPLV", 0, rec.tobytes()))
    return container.write(FileKind.retarget_map, FORMAT_VERSION, FORMAT_MINOR, sections)


def build_retarget_map(builder: Builder, source: RetargetMapSource) -> bytes:
    """maniBuildRetargetMap: builds the file and keeps it in the builder."""
    enter_build(builder, source, RetargetMapSource, source_skeleton=Skeleton,
                target_skeleton=Skeleton)
    data = layout(check(builder, source))
    builder.keep(data, "retarget map")
    return data
