"""Skeletons: bones in depth-first order with parents, rests and unique names.

The skeleton file (container kind 1, format version 1) holds, beside the name table
(prefix b"B"):

    SKEL  u32 bone count, u32 reserved 0
    PRNT  u32[n]      parent of each bone, a lower index, or NO_BONE for a root
    SEND  u32[n]      end of each bone's subtree (the bone and its descendants are [b, end))
    REST  f32[n, 10]  rest transform relative to the parent, rotation of unit length

The view reads all of it in place. Composing and masking walk the bones in storage order,
which puts every parent first; check_parents() holds to that if the bytes change after the
open.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..core import args, container, names
from ..core.builder import enter_build
from ..core.container import Container, FileKind, Section
from ..core.errors import BuildReason, FormatError, InvalidError, LimitError
from ..core.limits import MAX_BONES, NO_BONE
from ..core.transform import IDENTITY

FORMAT_VERSION = 1
FORMAT_MINOR = 0
KNOWN = {b"SKEL": 0, b"PRNT": 0, b"SEND": 0, b"REST": 0, **names.tags(b"B")}
ROTATION_TOLERANCE = 1e-5      # |q| may differ from 1 by this much in a file


@dataclass
class BoneSource:
    """maniSkeletonSource's bone: a name, the source index of its parent, a rest transform."""

    name: str | bytes
    parent: int = NO_BONE
    translation: Sequence[float] = (0.0, 0.0, 0.0)
    rotation: Sequence[float] = (0.0, 0.0, 0.0, 1.0)     # x y z w, normalized at build
    scale: Sequence[float] = (1.0, 1.0, 1.0)


@dataclass
class SkeletonSource:
    """maniSkeletonSource: bones in any order that names each bone's parent."""

    bones: list[BoneSource] = field(default_factory=list)


def build(source: SkeletonSource) -> tuple[bytes, np.ndarray]:
    """Builds a skeleton file; returns it and where each source bone went.

    Refusals carry the source bone as item: Count (no bones; more than MAX_BONES is a
    LimitError), Joint (a parent out of range, the bone itself, or a loop; other the
    parent), Name, DuplicateName and NameHash (other the earlier bone), NotFinite (other 0
    translation, 1 rotation, 2 scale: a value not finite in binary32, the file's precision;
    a rotation of length 0 cannot be normalized).
    """
    bones = list(source.bones)
    n = len(bones)
    if n == 0:
        raise InvalidError("a skeleton needs a bone", reason=BuildReason.Count)
    if n > MAX_BONES:
        raise LimitError(f"{n} bones past MAX_BONES", reason=BuildReason.Count, item=n)
    raw_names = [names.name_bytes(b.name, "bone", i) for i, b in enumerate(bones)]
    hashes = names.check_unique(raw_names, "bone")
    parents = []
    for i, b in enumerate(bones):
        try:
            p = args.integer(b.parent, f"bone {i} parent") if b.parent is not None else NO_BONE
        except InvalidError as e:
            raise InvalidError(str(e.args[0]), reason=BuildReason.Joint, item=i) from None
        if p == -1:
            p = NO_BONE
        if p != NO_BONE and not (0 <= p < n and p != i):
            raise InvalidError(f"bone {i}: parent {p} out of range",
                               reason=BuildReason.Joint, item=i, other=p & 0xFFFFFFFF)
        parents.append(p)
    rests = np.zeros((n, 10), dtype=np.float64)
    for i, b in enumerate(bones):
        for part, (values, width) in enumerate(((b.translation, 3), (b.rotation, 4), (b.scale, 3))):
            try:
                args.floats(values, (width,), "rest")
            except InvalidError:
                raise InvalidError(f"bone {i}: rest not {width} numbers finite in binary32",
                                   reason=BuildReason.NotFinite, item=i, other=part) from None
        rests[i, 0:3] = b.translation
        q = np.asarray(b.rotation, dtype=np.float64)
        length = math.sqrt(float(q @ q))
        if not (length > 0 and math.isfinite(length)):
            raise InvalidError(f"bone {i}: rotation of length 0", reason=BuildReason.NotFinite,
                               item=i, other=1)
        rests[i, 3:7] = q / length
        rests[i, 7:10] = b.scale
    order = _depth_first(parents)
    where = np.empty(n, dtype=np.int64)
    where[order] = np.arange(n)
    new_parents = np.array([NO_BONE if parents[s] == NO_BONE else where[parents[s]] for s in order],
                           dtype="<u4")
    ends = _subtree_ends(new_parents)
    sorted_names = [raw_names[s] for s in order]
    sorted_hashes = [hashes[s] for s in order]
    data = container.write(FileKind.skeleton, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"SKEL", 0, struct.pack("<II", n, 0)),
        Section(b"PRNT", 0, new_parents.tobytes()),
        Section(b"SEND", 0, ends.astype("<u4").tobytes()),
        Section(b"REST", 0, rests[order].astype("<f4").tobytes()),
        *names.sections(b"B", sorted_names, sorted_hashes),
    ])
    return data, where.astype(np.uint32)


def build_skeleton(builder, source: SkeletonSource) -> bytes:
    """maniBuildSkeleton: builds the file and keeps it in the builder (with where each
    source bone went); a missing source is a misuse, a refused one is not."""
    enter_build(builder, source, SkeletonSource)
    data, order = build(source)
    builder.keep(data, "skeleton", source_order=order)
    return data


def _depth_first(parents: list[int]) -> list[int]:
    """Source indices in depth-first order, roots and children in source order; refuses loops."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    roots = []
    for i, p in enumerate(parents):
        (roots if p == NO_BONE else children[p]).append(i)
    order: list[int] = []
    stack = list(reversed(roots))
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    if len(order) != n:
        placed = set(order)
        first = min(i for i in range(n) if i not in placed)
        raise InvalidError(f"bone {first}: its parents form a loop", reason=BuildReason.Joint,
                           item=first, other=parents[first])
    return order


def _subtree_ends(parents: np.ndarray) -> np.ndarray:
    """End of each bone's subtree, for bones whose parents are lower indices."""
    n = parents.size
    ends = np.arange(1, n + 1, dtype=np.int64)
    for b in range(n - 1, -1, -1):
        p = int(parents[b])
        if p != NO_BONE and ends[b] > ends[p]:
            ends[p] = ends[b]
    return ends


def _read_only(a: np.ndarray) -> np.ndarray:
    """A view of the skeleton's bytes read-only, whether they are or not: one array type
    for the kernels that read it, and no writes through the skeleton."""
    a.flags.writeable = False
    return a


class Skeleton:
    """A skeleton file opened in place (maniSkeleton). A view no open wrote has no bones: its
    getters answer as past the count, and the calls that need a skeleton refuse it."""

    bone_count = 0
    identity = 0

    def __init__(self, data):
        with np.errstate(all="ignore"):     # the checks below judge what the bytes hold
            self._open(container.as_buffer(data))

    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.skeleton, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        head = c.array(b"SKEL", "<u4", (2,))
        n = int(head[0])
        count_at = c.offset_of(b"SKEL")
        if not 1 <= n <= MAX_BONES:
            raise FormatError(f"bone count {n} out of range", count_at)
        if head[1]:
            raise FormatError("reserved field set", count_at + 4)
        c.check_count(n, count_at, {b"PRNT": (4, 0), b"SEND": (4, 0), b"REST": (40, 0),
                                    **names.count_items(b"B")})
        self.parents = _read_only(c.array(b"PRNT", "<u4", (n,)))
        self.ends = _read_only(c.array(b"SEND", "<u4", (n,)))
        self.rests = _read_only(c.array(b"REST", "<f4", (n, 10)))
        _check_depth_first(self.parents, c.offset_of(b"PRNT"))
        want_ends = _subtree_ends(self.parents)
        bad = np.flatnonzero(want_ends != self.ends)
        if bad.size:
            raise FormatError("subtree end wrong", c.offset_of(b"SEND", 4 * int(bad[0])))
        _check_rests(self.rests, c.offset_of(b"REST"))
        self.names = names.NameTable(c, b"B", n)
        c.finish()
        self.bone_count = n
        self.identity = c.identity
        self.data = buf
        self._parents_seen = self.parents.copy()
        self._parents_at = c.offset_of(b"PRNT")
        self._mutable = buf.flags.writeable

    @classmethod
    def open(cls, data) -> "Skeleton":
        return cls(data)

    def check_parents(self) -> None:
        """FormatError when the parents' bytes changed after the open to a parent that is not
        a lower index, which walks in storage order rely on."""
        if self._mutable and not np.array_equal(self.parents, self._parents_seen):
            parents = self.parents.copy()
            bad = np.flatnonzero((parents != NO_BONE) & (parents >= np.arange(parents.size)))
            if bad.size:
                raise FormatError("a parent is not a lower index (bytes changed after the open)",
                                  self._parents_at + 4 * int(bad[0]))
            self._parents_seen = parents

    def parent(self, bone: int) -> int:
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return NO_BONE
        p = int(self.parents[bone])
        return p if p < bone else NO_BONE

    def subtree_end(self, bone: int) -> int:
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return bone
        end = int(self.ends[bone])
        return end if bone < end <= self.bone_count else bone

    def rest(self, bone: int) -> np.ndarray:
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.bone_count:
            return IDENTITY.copy()
        return self.rests[bone].copy()

    def bone_name(self, bone: int) -> str | None:
        bone = args.integer(bone, "bone")
        return self.names.name(bone, "bone") if self.bone_count else None

    def find_bone(self, name) -> int:
        raw = args.name(name)
        return self.names.find(raw) if self.bone_count else NO_BONE

    @property
    def is_open(self) -> bool:
        """Whether an open wrote this view (a view made any other way has no bones)."""
        return self.bone_count > 0


def opened(skeleton, what: str = "skeleton") -> Skeleton:
    """The skeleton itself when an open wrote it; InvalidError otherwise."""
    if not isinstance(skeleton, Skeleton) or not skeleton.is_open:
        raise InvalidError(f"{what} is not an opened skeleton")
    return skeleton


def _check_depth_first(parents: np.ndarray, at: int) -> None:
    """Each parent is the previous bone or one of its ancestors (or none): depth-first order."""
    chain: list[int] = []
    for i, p in enumerate(parents.tolist()):
        while chain and chain[-1] != p:
            chain.pop()
        if p != NO_BONE and not chain:
            raise FormatError(f"bone {i}: parent {p} breaks depth-first order", at + 4 * i)
        chain.append(i)


def _check_rests(rests: np.ndarray, at: int) -> None:
    finite = np.isfinite(rests)
    if not finite.all():
        bone, comp = np.argwhere(~finite)[0]
        raise FormatError("rest not finite", at + 4 * (10 * int(bone) + int(comp)))
    length = np.sqrt(np.einsum("ij,ij->i", rests[:, 3:7].astype(np.float64),
                               rests[:, 3:7].astype(np.float64)))
    bad = np.flatnonzero(np.abs(length - 1) > ROTATION_TOLERANCE)
    if bad.size:
        raise FormatError("rest rotation not of unit length", at + 40 * int(bad[0]) + 12)
