"""Skins: the bones a mesh is bound to, in the mesh's order, and the palettes it skins with.

The skin file (container kind 3, format version 1):

    SKIN  u32 joint count, u32 bone count of the skeleton, u64 identity of the skeleton
    JNTS  u32[n]         the skeleton bone of each joint, in the mesh's order
    IBND  f32[n, 3, 4]   each joint's inverse bind matrix (the mesh's space to the bone's)
    BONE  u32[bones]     the first joint bound to each bone, or NO_BONE (the reverse lookup)
    BCNT  u16[bones]     how many joints each bone binds

BONE and BCNT repeat what JNTS says; being sized by the skeleton's bone count, they let a
wrong count in SKIN be told apart from a wrong section size or joint.

A skin is bound to its skeleton by identity; influences record the skin's own identity (the
container's) in turn. Palette entry j is the model matrix of joint j's bone times its
inverse bind: what moves a vertex from the mesh's bind space to the posed model space.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..core import args, container
from ..core.builder import Builder, enter_build
from ..core.container import Container, FileKind, Section
from ..core.errors import BuildReason, CapacityError, FormatError, InvalidError, LimitError
from ..core.limits import MAX_BONES, NO_BONE
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton, opened
from ..core.transform import IDENTITY_AFFINE

FORMAT_VERSION = 1
FORMAT_MINOR = 0
KNOWN = {b"SKIN": 0, b"JNTS": 0, b"IBND": 0, b"BONE": 0, b"BCNT": 0}
HEAD = struct.Struct("<IIQ")


@dataclass
class SkinSource:
    """maniSkinSource: a skeleton's bones as joints in the mesh's order, with inverse binds
    ((n, 3, 4) affines; None means every joint's is the identity)."""

    skeleton: Skeleton
    joints: Sequence[int]
    inverse_binds: object = None


def build(source: SkinSource) -> bytes:
    """Builds a skin file.

    Refusals carry the joint as item: Count (no joints, or inverse binds of another count:
    item the first joint without one; more than MAX_BONES joints is a LimitError), Joint (a
    bone past the skeleton's; other the bone), NotFinite (a matrix not finite or not 3 x 4).
    """
    skeleton = source.skeleton
    try:
        bones = [int(b) for b in source.joints]
    except (TypeError, ValueError):
        raise InvalidError("joints are not bone indices", reason=BuildReason.Joint) from None
    n = len(bones)
    if n == 0:
        raise InvalidError("a skin needs a joint", reason=BuildReason.Count)
    if n > MAX_BONES:
        raise LimitError(f"{n} joints past MAX_BONES", reason=BuildReason.Count, item=n)
    if source.inverse_binds is None:
        binds = np.broadcast_to(IDENTITY_AFFINE.astype(np.float64), (n, 3, 4))
    else:
        try:
            binds = np.asarray(source.inverse_binds, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidError("inverse binds are not matrices", reason=BuildReason.NotFinite) \
                from None
        if binds.ndim != 3 or binds.shape[1:] != (3, 4):
            raise InvalidError(f"inverse binds of shape {binds.shape}, not (n, 3, 4)",
                               reason=BuildReason.NotFinite)
        if binds.shape[0] != n:
            raise InvalidError(f"{binds.shape[0]} inverse binds for {n} joints",
                               reason=BuildReason.Count, item=min(n, binds.shape[0]))
    bone_count = skeleton.bone_count
    finite = (np.abs(binds) <= args.F32_MAX).all(axis=(1, 2))     # finite in binary32, as stored
    for j, b in enumerate(bones):
        if not 0 <= b < bone_count:
            raise InvalidError(f"joint {j}: bone {b} past the skeleton's {bone_count}",
                               reason=BuildReason.Joint, item=j, other=b & 0xFFFFFFFF)
        if not finite[j]:
            raise InvalidError(f"joint {j}: inverse bind not finite in binary32",
                               reason=BuildReason.NotFinite, item=j)
    joints = np.array(bones, dtype="<u4")
    first, count = _bone_joints(joints, bone_count)
    return container.write(FileKind.skin, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"SKIN", 0, HEAD.pack(n, bone_count, skeleton.identity)),
        Section(b"JNTS", 0, joints.tobytes()),
        Section(b"IBND", 0, binds.astype("<f4").tobytes()),
        Section(b"BONE", 0, first.astype("<u4").tobytes()),
        Section(b"BCNT", 0, count.astype("<u2").tobytes()),
    ])


def _bone_joints(joints: np.ndarray, bone_count: int):
    """Each bone's first joint (or NO_BONE) and how many joints bind it."""
    first = np.full(bone_count, NO_BONE, dtype=np.uint32)
    first[joints[::-1]] = np.arange(joints.size - 1, -1, -1, dtype=np.uint32)
    return first, np.bincount(joints, minlength=bone_count)


def build_skin(builder: Builder, source: SkinSource) -> bytes:
    """maniBuildSkin: builds the skin and keeps it in the builder in place of any file before.
    A missing builder, source, skeleton or joint list is a misuse; a refused source is not."""
    enter_build(builder, source, SkinSource, skeleton=Skeleton, joints=None)
    data = build(source)
    builder.keep(data, "skin")
    return data


class Skin:
    """A skin file opened in place (maniSkin)."""

    def __init__(self, data):
        buf = container.as_buffer(data)
        c = Container(buf, FileKind.skin, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=tuple(KNOWN))
        head = c.array(b"SKIN", "u1", (HEAD.size,))
        at = c.offset_of(b"SKIN")
        n, bones, skeleton_identity = HEAD.unpack(head.tobytes())
        if not 1 <= n <= MAX_BONES:
            raise FormatError(f"joint count {n} out of range", at)
        if not 1 <= bones <= MAX_BONES:
            raise FormatError(f"skeleton bone count {bones} out of range", at + 4)
        c.check_count(n, at, {b"JNTS": (4, 0), b"IBND": (48, 0)})
        c.check_count(bones, at + 4, {b"BONE": (4, 0), b"BCNT": (2, 0)})
        self.joints = c.array(b"JNTS", "<u4", (n,))
        self.inverse_binds = c.array(b"IBND", "<f4", (n, 3, 4))
        self.bone_joints = c.array(b"BONE", "<u4", (bones,))
        self.bone_joint_counts = c.array(b"BCNT", "<u2", (bones,))
        bad = np.flatnonzero(self.joints >= bones)
        if bad.size:
            raise FormatError("a joint's bone past the skeleton",
                              c.offset_of(b"JNTS", 4 * int(bad[0])))
        finite = np.isfinite(self.inverse_binds).reshape(-1)
        if not finite.all():
            raise FormatError("inverse bind not finite",
                              c.offset_of(b"IBND", 4 * int(np.flatnonzero(~finite)[0])))
        first, count = _bone_joints(self.joints, bones)
        bad = np.flatnonzero(first != self.bone_joints)
        if bad.size:
            raise FormatError("a bone's first joint wrong", c.offset_of(b"BONE", 4 * int(bad[0])))
        bad = np.flatnonzero(count != self.bone_joint_counts)
        if bad.size:
            raise FormatError("a bone's joint count wrong", c.offset_of(b"BCNT", 2 * int(bad[0])))
        c.finish()
        self.joint_count = n
        self.skeleton_bone_count = bones
        self.skeleton_identity = skeleton_identity
        self.identity = c.identity
        self.data = buf
        self._mutable = buf.flags.writeable

    @classmethod
    def open(cls, data) -> "Skin":
        return cls(data)

    def joint(self, joint: int) -> int:
        """The skeleton bone of a joint; NO_BONE past the count (or for a bone changed after
        the open past the skeleton's)."""
        joint = args.integer(joint, "joint")
        if not 0 <= joint < self.joint_count:
            return NO_BONE
        bone = int(self.joints[joint])
        return bone if bone < self.skeleton_bone_count else NO_BONE

    def joint_of(self, bone: int) -> int:
        """The first joint bound to a skeleton bone, or NO_BONE."""
        bone = args.integer(bone, "bone")
        if not 0 <= bone < self.skeleton_bone_count:
            return NO_BONE
        joint = int(self.bone_joints[bone])
        return joint if joint < self.joint_count else NO_BONE

    def inverse_bind(self, joint: int) -> np.ndarray:
        joint = args.integer(joint, "joint")
        if not 0 <= joint < self.joint_count:
            return IDENTITY_AFFINE.copy()
        return self.inverse_binds[joint].copy()

    def of(self, skeleton: Skeleton) -> bool:
        """Whether the skin is bound to that skeleton."""
        return (isinstance(skeleton, Skeleton) and skeleton.identity == self.skeleton_identity
                and skeleton.bone_count == self.skeleton_bone_count)

    def compute_palette(self, pose: Pose, skeleton: Skeleton, out=None) -> np.ndarray:
        return compute_palette(pose, skeleton, self, out)


def compute_palette(pose: Pose, skeleton: Skeleton, skin: Skin, out=None) -> np.ndarray:
    """maniPose_ComputePalette: entry j is joint j's bone's model matrix times its inverse
    bind, (joints, 3, 4) float32; into `out` when given (CapacityError with `.count`, the
    joint count, when it is shorter; nothing written). Binds and models finite in binary32
    can multiply past it: those entries come out infinite, the IEEE result, and the
    dual-quaternion conversion refuses such a palette."""
    if not isinstance(skin, Skin):
        raise InvalidError("not an opened skin")
    opened(skeleton)
    if not isinstance(pose, Pose):
        raise InvalidError("not a pose")
    if not skin.of(skeleton):
        raise InvalidError("a skeleton that is not the skin's")
    if not pose.of(skeleton):
        raise InvalidError("a pose of another skeleton")
    if pose.is_difference:
        raise InvalidError("a difference has no model")
    if not pose.is_model_current:
        raise InvalidError("the pose's model is stale (compute it first)")
    n = skin.joint_count
    if out is not None:
        if not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.ndim == 3
                and out.shape[1:] == (3, 4)):
            raise InvalidError("the palette is not a (joints, 3, 4) float32 array")
        if not out.flags.writeable:
            raise InvalidError("the palette is read-only")
        if out.shape[0] < n:
            raise CapacityError(f"{out.shape[0]} entries for {n} joints", count=n)
    bones = skin.joints
    if skin._mutable:
        bones = np.where(bones < skeleton.bone_count, bones, 0)
    model = np.take(pose.model, bones, axis=0)
    with np.errstate(all="ignore"):
        result = np.matmul(model[:, :, :3], skin.inverse_binds)
        result[:, :, 3] += model[:, :, 3]
    if out is None:
        return result
    out[:n] = result
    return out
