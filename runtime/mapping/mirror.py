"""Mirror maps opened in place (maniMirrorMap), and what they do: mirror poses, root motion
moves and names.

Each bone takes its partner's local (its own when unpaired) carried through the reference
pose's model turns (mirror_build.py lays the file out): the translation's normal component
negated and turned by the parent correction E, the rotation E m(q) C, the scale's axes
permuted as C permutes them. So the reference mirrors to itself, and on a mirror-symmetric
hierarchy each bone's model position is its partner's reflected.
"""
from __future__ import annotations

import numpy as np

from ..core import args, container, names
from ..core.container import Container, FileKind
from ..core.errors import FormatError, InvalidError
from ..core.limits import MAX_BONES, NO_BONE
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton
from .kernels import mirror_locals
from .mirror_build import (BONE, BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, FORMAT_MINOR,
                           FORMAT_VERSION, HEADER, SCALE_SHIFT, MirrorAxis)

KNOWN = {b"MHDR": 0, b"MBON": 0, b"MNPR": 0, **names.tags(b"N")}
LENGTH_TOLERANCE = 1e-5        # |correction| may differ from 1 by this much in a file
_FLAG_BITS = BONE_UNMATCHED | BONE_SCALE_APPROXIMATE | (0x3F << SCALE_SHIFT)


class MirrorMap:
    """A mirror map file opened in place. A view no open wrote has no bones: its getters
    answer as for NULL, and the calls that need a map refuse it."""

    bone_count = 0
    name_count = 0
    identity = 0
    skeleton_identity = 0
    axis = MirrorAxis.x
    _axis = 0
    unmatched_bone = NO_BONE

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @classmethod
    def open(cls, data) -> "MirrorMap":
        return cls(data)

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.mirror_map, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        at = c.offset_of(b"MHDR")
        if c.sections[b"MHDR"][1] != HEADER.size:
            raise FormatError("header section of the wrong size", c.size_field(b"MHDR"))
        skeleton, n, axis, count, first, reserved = HEADER.unpack_from(buf, at)
        if not 1 <= n <= MAX_BONES:
            raise FormatError(f"bone count {n} out of range", at + 8)
        if axis > 2:
            raise FormatError(f"axis {axis} not x, y or z", at + 12)
        if reserved:
            raise FormatError("reserved field set", at + 24)
        c.check_count(n, at + 8, {b"MBON": (BONE.itemsize, 0)})
        c.check_count(count, at + 16, {b"MNPR": (4, 0), **names.count_items(b"N")})
        bones = c.array(b"MBON", BONE, (n,))
        bones_at = c.offset_of(b"MBON")
        partners = bones["partner"].astype(np.int64)
        bad = np.flatnonzero((partners >= n) | (partners[np.minimum(partners, n - 1)] != np.arange(n)))
        if bad.size:
            raise FormatError("a partner past the bones or not pairing back",
                              bones_at + BONE.itemsize * int(bad[0]))
        flags = bones["flags"].astype(np.int64)
        axes = (flags[:, None] >> (SCALE_SHIFT + 2 * np.arange(3))) & 3
        permutes = (np.sort(axes, axis=1) == np.arange(3)).all(axis=1)
        bad = np.flatnonzero((flags & ~_FLAG_BITS) | (axes > 2).any(axis=1)
                             | (~permutes & ~(flags & BONE_SCALE_APPROXIMATE).astype(bool)))
        if bad.size:
            raise FormatError("bone flags neither a scale permutation nor approximate",
                              bones_at + BONE.itemsize * int(bad[0]) + 4)
        unmatched = np.flatnonzero(flags & BONE_UNMATCHED)
        if first != (int(unmatched[0]) if unmatched.size else NO_BONE):
            raise FormatError("the first unmatched bone is not the flags' first", at + 20)
        for field, place in (("correction", 8), ("parent_correction", 24)):
            q = bones[field].astype(np.float64)
            length = np.sqrt(np.einsum("ij,ij->i", q, q))
            bad = np.flatnonzero(~np.isfinite(q).all(axis=1) | ~(np.abs(length - 1) <= LENGTH_TOLERANCE))
            if bad.size:
                raise FormatError(f"a {field.replace('_', ' ')} not finite or not of length 1",
                                  bones_at + BONE.itemsize * int(bad[0]) + place)
        self.names = names.NameTable(c, b"N", count)
        hashes = self.names.hashes.astype(np.uint64)
        if count > 1:
            bad = np.flatnonzero(hashes[1:] <= hashes[:-1])
            if bad.size:
                raise FormatError("names not in increasing hash order",
                                  c.offset_of(b"NHSH", 8 * (int(bad[0]) + 1)))
        name_partners = c.array(b"MNPR", "<u4", (count,)).astype(np.int64)
        pairs_at = c.offset_of(b"MNPR")
        safe = np.minimum(name_partners, max(count - 1, 0))
        bad = np.flatnonzero((name_partners >= count) | (name_partners == np.arange(count))
                             | (name_partners[safe] != np.arange(count)) if count else np.zeros(0, bool))
        if bad.size:
            raise FormatError("a name's partner past the names, itself, or not pairing back",
                              pairs_at + 4 * int(bad[0]))
        c.finish()
        # private copies: what mirroring reads cannot change under it
        self.partners = partners
        self.flags = flags.astype(np.uint32)
        self._bones = np.ascontiguousarray(np.column_stack([partners, axes]), dtype=np.int64)
        self._turns = np.ascontiguousarray(np.column_stack([bones["correction"],
                                                            bones["parent_correction"]]),
                                           dtype=np.float64)
        self._axis = int(axis)
        self._hashes = hashes.copy()
        self._name_partners = name_partners
        self._name_bytes = [self.names.data[int(self.names.offsets[i]):int(self.names.offsets[i + 1])].tobytes()
                            for i in range(count)]
        self.bone_count = n
        self.name_count = count
        self.axis = MirrorAxis(axis)
        self.skeleton_identity = skeleton
        self.unmatched_bone = first
        self.identity = c.identity
        self.data = buf

    @property
    def is_open(self) -> bool:
        return self.bone_count > 0

    # ---- queries
    def partner(self, bone) -> int:
        bone = args.integer(bone, "bone")
        return int(self.partners[bone]) if 0 <= bone < self.bone_count else NO_BONE

    def bone_flags(self, bone) -> int:
        bone = args.integer(bone, "bone")
        return int(self.flags[bone]) & (BONE_UNMATCHED | BONE_SCALE_APPROXIMATE) \
            if 0 <= bone < self.bone_count else 0

    def mirror_name(self, name):
        """The name the map pairs `name` with, or `name` itself (str for str, bytes for
        bytes)."""
        raw = args.name(name)
        i = self.names.find(raw) if self.name_count else NO_BONE
        if i == NO_BONE:
            return name
        partner = self._name_bytes[self._name_partners[i]]
        return partner.decode("utf-8") if isinstance(name, str) else partner

    def mirror_name_hash(self, hash_) -> int:
        """The hash of the name the map pairs a name of this hash with, or the hash itself."""
        h = args.integer(hash_, "hash")
        if not 0 <= h < 1 << 64:
            raise InvalidError("hash must be a uint64")
        if not self.name_count:
            return h
        i = int(np.searchsorted(self._hashes, np.uint64(h)))
        if i < self.name_count and int(self._hashes[i]) == h:
            return int(self._hashes[self._name_partners[i]])
        return h

    # ---- mirroring
    def mirror_pose(self, skeleton: Skeleton, pose_in: Pose, pose_out: Pose) -> None:
        """maniMirrorMap_MirrorPose: every local of pose_out written, its model stale."""
        if not self.is_open:
            raise InvalidError("not an opened mirror map")
        if not isinstance(skeleton, Skeleton) or skeleton.identity != self.skeleton_identity \
                or skeleton.bone_count != self.bone_count:
            raise InvalidError("a skeleton that is not the map's")
        if not isinstance(pose_in, Pose) or not pose_in.of(skeleton):
            raise InvalidError("an input pose of another skeleton")
        if not isinstance(pose_out, Pose) or not pose_out.of(skeleton):
            raise InvalidError("an output pose of another skeleton")
        if pose_in.is_difference:
            raise InvalidError("a difference is not mirrored")
        src = pose_in.locals
        if pose_in.buffer is pose_out.buffer or np.may_share_memory(src, pose_out.locals):
            src = src.copy()            # in place (or overlapping): read a copy
        mirror_locals(self._bones, self._turns, self._axis, src, pose_out.locals)
        pose_out.mark_kind(False)

    def mirror_root_motion(self, move) -> np.ndarray:
        """maniMirrorMap_MirrorRootMotion: the translation's normal component negated, the
        rotation mirrored."""
        m = args.floats(move, (7,), "move", dtype=np.float32, allow_nonfinite=True).copy()
        a = self._axis
        m[a] = -m[a]
        m[3:6] = -m[3:6]
        m[3 + a] = -m[3 + a]
        return m


def opened(mirror_map, what: str = "mirror map") -> MirrorMap:
    if not isinstance(mirror_map, MirrorMap) or not mirror_map.is_open:
        raise InvalidError(f"{what} is not an opened mirror map")
    return mirror_map
