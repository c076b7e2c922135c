"""Retargeting maps opened in place (maniRetargetMap), and what they do: poses of the source
skeleton made poses of the target, and root motion scaled for it.

Model rotations are the products of the root paths' local rotations. A mapped target bone's
model rotation is the source bone's turn from its reference, S_a Sref_a^-1 (two source
bones' turns slerped at the plan's place), slerped from no turn by the weight, times the
target's reference model rotation; its local is taken against its parent's as just made. An
unmapped bone keeps its reference local. A mapped bone's translation is the target
reference's (own), that plus the source's change from its reference times the height ratio
(scaled), or the source's (absolute), the last two turned by the plan's parent turn; its
scale the reference's, times the source's over the source reference's where it carries.
The pelvis's position follows the pelvis rule (retarget_kernels.py).
"""
from __future__ import annotations

import threading

import numpy as np

from ..core import args, container
from ..core.container import Container, FileKind
from ..core.errors import FormatError, InvalidError
from ..core.limits import MAX_BONES
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton
from .retarget_build import (FORMAT_MINOR, FORMAT_VERSION, HEADER, KEEP, ONE, PELVIS, PLAN,
                             SCALE_CARRIES, TWO, RetargetTranslation)
from .retarget_kernels import retarget_batch, retarget_locals

KNOWN = {b"RHDR": 0, b"RSRF": 0, b"RTRF": 0, b"RPLN": 0, b"RPLV": 0}
LENGTH_TOLERANCE = 1e-5        # a file's rotations and up axis may differ from 1 by this much


def _unit_rows(q: np.ndarray) -> np.ndarray:
    """Rows of q (k, 4) that are not finite or not of length 1 within the tolerance."""
    length = np.sqrt(np.einsum("ij,ij->i", q, q))
    return ~np.isfinite(q).all(axis=1) | ~(np.abs(length - 1) <= LENGTH_TOLERANCE)


def _check_reference(c: Container, tag: bytes, n: int) -> np.ndarray:
    ref = c.array(tag, "<f4", (n, 14)).astype(np.float64)
    at = c.offset_of(tag)
    bad = ~np.isfinite(ref)
    if bad.any():
        b, k = np.argwhere(bad)[0]
        raise FormatError("a reference not finite", at + 56 * int(b) + 4 * int(k))
    for first in (3, 10):
        bad = np.flatnonzero(_unit_rows(ref[:, first:first + 4]))
        if bad.size:
            raise FormatError("a reference rotation not of length 1", at + 56 * int(bad[0]) + 4 * first)
    return ref


class RetargetMap:
    """A retargeting map file opened in place. A view no open wrote has no bones: its
    getters answer as for NULL, and the calls that need a map refuse it."""

    source_bone_count = 0
    target_bone_count = 0
    identity = 0
    source_identity = 0
    target_identity = 0
    has_pelvis = False

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @classmethod
    def open(cls, data) -> "RetargetMap":
        return cls(data)

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.retarget_map, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=(b"RHDR", b"RSRF", b"RTRF", b"RPLN"))
        at = c.offset_of(b"RHDR")
        if c.sections[b"RHDR"][1] != HEADER.size:
            raise FormatError("header section of the wrong size", c.size_field(b"RHDR"))
        source_id, target_id, ns, nt, reserved = HEADER.unpack_from(buf, at)
        if not 1 <= ns <= MAX_BONES:
            raise FormatError(f"source bone count {ns} out of range", at + 16)
        if not 1 <= nt <= MAX_BONES:
            raise FormatError(f"target bone count {nt} out of range", at + 20)
        if reserved:
            raise FormatError("reserved field set", at + 24)
        c.check_count(ns, at + 16, {b"RSRF": (56, 0)})
        c.check_count(nt, at + 20, {b"RTRF": (56, 0), b"RPLN": (PLAN.itemsize, 0)})
        s_ref = _check_reference(c, b"RSRF", ns)
        t_ref = _check_reference(c, b"RTRF", nt)
        plans = c.array(b"RPLN", PLAN, (nt,))
        self._check_plans(plans, c.offset_of(b"RPLN"), ns)
        pelvis_i = np.array([-1, -1], dtype=np.int64)
        pelvis_f = np.zeros(19)
        if c.has(b"RPLV"):
            rec = c.array(b"RPLV", PELVIS, (1,))[0]
            self._check_pelvis(rec, c.offset_of(b"RPLV"), ns, nt, plans)
            pelvis_i[:] = rec["source"], rec["target"]
            pelvis_f[:] = np.concatenate([rec["up"], [rec["height_ratio"], rec["horizontal"],
                                          rec["vertical"]], rec["absolute"], rec["to_source"],
                                          [rec["weight"]], rec["source_position"],
                                          rec["target_position"]]).astype(np.float64)
        c.finish()
        # private copies, packed for the kernel: what retargeting reads cannot change under it
        self._ints = np.zeros((nt + 1, 5), dtype=np.int64)
        self._ints[:nt] = np.column_stack([plans["kind"], plans["source"], plans["translation"],
                                           plans["flags"]])
        self._ints[nt, 0:2] = pelvis_i
        self._reals = np.zeros((ns + nt + 1, 20))
        self._reals[:ns, :14] = s_ref
        self._reals[ns:ns + nt, :14] = t_ref
        self._reals[ns:ns + nt, 14:20] = np.column_stack([plans["place"], plans["weight"],
                                                          plans["parent_turn"]])
        self._reals[ns + nt, :19] = pelvis_f
        self._s_ref, self._t_ref, self._pelvis_f = self._reals[:ns, :14], self._reals[ns:ns + nt, :14], pelvis_f
        self._plan_i, self._plan_f = self._ints[:nt], self._reals[ns:ns + nt, 14:20]
        self._pelvis_i = pelvis_i
        self.has_pelvis = bool(pelvis_i[0] >= 0)
        self.source_bone_count, self.target_bone_count = ns, nt
        self.source_identity, self.target_identity = source_id, target_id
        self.identity = c.identity
        self.data = buf

    @staticmethod
    def _check_plans(plans: np.ndarray, at: int, ns: int) -> None:
        size = PLAN.itemsize
        kind = plans["kind"].astype(np.int64)
        sources = plans["source"].astype(np.int64)
        translation = plans["translation"].astype(np.int64)
        flags = plans["flags"].astype(np.int64)
        place = plans["place"].astype(np.float64)
        weight = plans["weight"].astype(np.float64)
        turn = plans["parent_turn"].astype(np.float64)
        keep, two = kind == KEEP, kind == TWO
        checks = [  # (bad rows, byte within the record)
            (kind > TWO, 0),
            ((sources[:, 0] >= ns) | (keep & (sources[:, 0] != 0)), 4),
            ((sources[:, 1] >= ns) | (~two & (sources[:, 1] != 0)), 8),
            ((translation > max(RetargetTranslation)) | (keep & (translation != 0)), 12),
            ((flags & ~SCALE_CARRIES).astype(bool) | (keep & (flags != 0)), 16),
            (~((place >= 0) & (place <= 1)) | (~two & (place != 0)), 20),
            (~((weight >= 0) & (weight <= 1)) | (keep & (weight != 0)), 24),
            (plans["reserved"] != 0, 28),
            (np.where(keep, (plans["parent_turn"].view("<u4") != 0).any(axis=1), _unit_rows(turn)), 32),
        ]
        first = None
        for bad, byte in checks:
            rows = np.flatnonzero(bad)
            if rows.size:
                where = at + size * int(rows[0]) + byte
                first = where if first is None else min(first, where)
        if first is not None:
            raise FormatError("a plan's kind, sources, place, weight, settings, turn or an "
                              "unused word wrong", first)

    @staticmethod
    def _check_pelvis(rec, at: int, ns: int, nt: int, plans: np.ndarray) -> None:
        fields = PELVIS.fields
        where = lambda name, k=0: at + fields[name][1] + 4 * k  # noqa: E731
        if rec["source"] >= ns:
            raise FormatError("the pelvis's source bone past the source's", where("source"))
        b = int(rec["target"])
        if b >= nt or plans[b]["kind"] != ONE or plans[b]["source"][0] != rec["source"] \
                or plans[b]["weight"] != rec["weight"]:
            raise FormatError("the pelvis's target bone past the target's, or its plan not "
                              "the pelvis's", where("target"))
        for name in ("up", "height_ratio", "horizontal", "vertical", "absolute", "to_source",
                     "weight", "source_position", "target_position"):
            v = np.atleast_1d(rec[name]).astype(np.float64)
            bad = np.flatnonzero(~np.isfinite(v))
            if bad.size:
                raise FormatError(f"the pelvis's {name} not finite", where(name, int(bad[0])))
        up = rec["up"].astype(np.float64)
        if not abs(np.sqrt(up @ up) - 1) <= LENGTH_TOLERANCE:
            raise FormatError("the pelvis's up axis not of length 1", where("up"))
        if not rec["height_ratio"] > 0:
            raise FormatError("the pelvis's height ratio not positive", where("height_ratio"))
        for name in ("horizontal", "vertical"):
            if not rec[name] >= 0:
                raise FormatError(f"the pelvis's {name} scale negative", where(name))
        for name in ("absolute", "to_source", "weight"):
            v = np.atleast_1d(rec[name]).astype(np.float64)
            bad = np.flatnonzero(~((v >= 0) & (v <= 1)))
            if bad.size:
                raise FormatError(f"the pelvis's {name} outside [0, 1]", where(name, int(bad[0])))
        for name in ("source_position", "target_position"):
            if not rec[name].astype(np.float64) @ up > 0:
                raise FormatError(f"the pelvis's {name} at or below height 0", where(name))
        if rec["reserved"]:
            raise FormatError("reserved field set", where("reserved"))

    @property
    def is_open(self) -> bool:
        return self.target_bone_count > 0

    # ---- queries
    @property
    def scratch_size(self) -> int:
        """maniRetargetMap_GetScratchSize: a binary64 rotation for every bone of both
        skeletons."""
        return 32 * (self.source_bone_count + self.target_bone_count)

    @property
    def height_ratio(self) -> float:
        return float(self._pelvis_f[3]) if self.has_pelvis else 1.0

    def plan(self, bone: int) -> tuple[int, int, int, float, float, int, bool] | None:
        """A target bone's plan: (kind, source a, source b, place, weight, translation,
        scale carries); None past the bones."""
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.target_bone_count:
            return None
        i, f = self._plan_i[bone], self._plan_f[bone]
        return (int(i[0]), int(i[1]), int(i[2]), float(f[0]), float(f[1]), int(i[3]),
                bool(i[4] & SCALE_CARRIES))

    def follower(self, source_bone: int) -> int:
        """The first target bone that takes its rotation from `source_bone` alone, or -1."""
        hits = np.flatnonzero((self._plan_i[:, 0] == ONE) & (self._plan_i[:, 1] == source_bone))
        return int(hits[0]) if hits.size else -1

    # ---- retargeting
    def _scratch(self, scratch) -> np.ndarray:
        n = self.source_bone_count + self.target_bone_count
        if scratch is None:
            return _thread_scratch(n)
        try:
            buf = np.frombuffer(scratch, dtype=np.uint8)
        except (TypeError, ValueError) as exc:
            raise InvalidError(f"scratch not a writable buffer: {exc}") from None
        if not buf.flags.writeable:
            raise InvalidError("scratch is read-only")
        if buf.size < 32 * n:
            raise InvalidError(f"{buf.size} bytes of scratch for {32 * n}")
        work = buf[:32 * n].view(np.float64)
        if not work.flags.aligned:          # numpy's own test: the address a multiple of 8
            raise InvalidError("scratch not aligned to 8")
        return work.reshape(n, 4)

    def retarget_pose(self, source: Skeleton, source_pose: Pose, target: Skeleton,
                      target_pose: Pose, scratch=None) -> None:
        """maniRetargetMap_RetargetPose: every local of target_pose written, its model stale.
        `scratch` (scratch_size bytes, aligned to 8) is the caller's working memory; None
        uses this thread's own, kept from call to call."""
        if not self.target_bone_count:
            raise InvalidError("not an opened retarget map")
        if not (isinstance(source, Skeleton) and source.identity == self.source_identity
                and source.bone_count == self.source_bone_count):
            raise InvalidError("a source skeleton that is not the map's")
        if not (isinstance(target, Skeleton) and target.identity == self.target_identity
                and target.bone_count == self.target_bone_count):
            raise InvalidError("a target skeleton that is not the map's")
        if not isinstance(source_pose, Pose) or not source_pose.of(source):
            raise InvalidError("a source pose of another skeleton")
        if not isinstance(target_pose, Pose) or not target_pose.of(target):
            raise InvalidError("a target pose of another skeleton")
        if source_pose.is_difference:
            raise InvalidError("a source pose of differences")
        if np.may_share_memory(source_pose.buffer, target_pose.buffer):
            raise InvalidError("targetPoseOut's memory overlaps sourcePose's")
        work = self._scratch(scratch)
        source.check_parents()
        target.check_parents()
        retarget_locals(source.parents, target.parents, self._ints, self._reals,
                        source_pose.locals, target_pose.locals, work)
        target_pose.mark_kind(False)

    def retarget_samples(self, source: Skeleton, target: Skeleton, src: np.ndarray) -> np.ndarray:
        """(S, nt, 10) binary32: RetargetPose of each of (S, ns, 10) source locals (the
        skeletons already checked as the map's), bit for bit as one call each."""
        out = np.empty((src.shape[0], self.target_bone_count, 10), dtype=np.float32)
        source.check_parents()
        target.check_parents()
        retarget_batch(source.parents, target.parents, self._ints, self._reals,
                       np.ascontiguousarray(src, dtype=np.float32), out, np.empty((len(self._reals) - 1, 4)))
        return out

    def retarget_root_motion(self, delta) -> np.ndarray:
        """maniRetargetMap_RetargetRootMotion: the part along the up axis times the vertical
        scale, the rest times the horizontal scale (both 1 without a pelvis)."""
        d = args.floats(delta, (3,), "delta", dtype=np.float64, allow_nonfinite=True)
        if not self.has_pelvis:
            return d.astype(np.float32)
        return scale_move(self._pelvis_f, d[None])[0].astype(np.float32)


_local = threading.local()


def _thread_scratch(n: int) -> np.ndarray:
    """This thread's (n, 4) binary64 scratch, the same memory from call to call while n fits."""
    work = getattr(_local, "work", None)
    if work is None or work.shape[0] < n:
        work = _local.work = np.empty((max(n, 64), 4))
        _local.views = {}
    view = _local.views.get(n)
    if view is None:
        view = _local.views[n] = work[:n]
    return view


def scale_move(pelvis_f: np.ndarray, d: np.ndarray) -> np.ndarray:
    """(k, 3) model-space moves scaled: along the up axis by the vertical scale, the rest by
    the horizontal (binary64)."""
    up = pelvis_f[0:3]
    with np.errstate(all="ignore"):
        vertical = (d @ up)[:, None] * up
        return pelvis_f[4] * (d - vertical) + pelvis_f[5] * vertical


def opened(retarget_map, what: str = "retarget map") -> RetargetMap:
    if not isinstance(retarget_map, RetargetMap) or not retarget_map.is_open:
        raise InvalidError(f"{what} is not an opened retarget map")
    return retarget_map
