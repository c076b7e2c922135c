"""What the glTF and FBX importers share (import.h): the import result's reasons and the
error that carries them, the clip settings every imported clip takes, and the bone-name rule.

One home so the two readers refuse, name and time things the same way: a user who moves an
asset from FBX to glTF gets the same bone names and the same clip settings."""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from ..clip import AdditiveBasis, LoopPolicy, RootMotionSource
from ..clip.rootmotion import RootAxes, RootRotation
from ..core.errors import FormatError, InvalidError
from ..pose import Skeleton

__all__ = ["ImportReason", "ImportFormatError", "ImportClipOptions",
           "default_import_clip_options", "bone_names"]


class ImportReason(IntEnum):
    """maniImportReason: what an importer found wrong. Append new reasons at the end."""

    None_ = 0
    Container = 1       # the file's framing: magic, chunk or record lengths
    Version = 2         # an asset or file version this reader does not take
    Syntax = 3          # JSON or ASCII tokens that do not parse
    Extension = 4       # a required extension this reader does not take
    Buffer = 5          # a buffer missing, too short, or its URI refused
    View = 6            # a buffer view out of its buffer or refused
    Accessor = 7        # an accessor out of its view, of a refused type or count
    Data = 8            # numbers or a compressed stream refused
    Pending = 9         # data whose external buffer has not been supplied
    Property = 10       # a property or attribute missing, of the wrong type or count
    Index = 11          # an index past what it indexes
    Influence = 12      # a weight below 0 or a blend weight outside [0, 1]
    Bone = 13           # a joint the skeleton lacks
    Matrix = 14         # a matrix not affine, not invertible or not decomposable
    Name = 15           # a repeated or refused name
    Unsupported = 16    # what the target (a profile, a format) cannot hold
    Build = 17          # the runtime's builder refused what was read (item: its BuildReason)


class ImportFormatError(FormatError):
    """mani_errorFormat from an importer: `.import_reason`, `.offset` (the first byte found
    wrong, where there is one) and `.item` (the object the reason is about, or the builder's
    reason for Build)."""

    def __init__(self, message: str, import_reason: ImportReason, *, offset: int = 0,
                 item: int = 0):
        self.import_reason = ImportReason(import_reason)
        super().__init__(f"{message} ({self.import_reason.name.rstrip('_')}, item {item})",
                         offset)
        self.item = int(item)


@dataclass
class ImportClipOptions:
    """maniImportClipOptions: the settings of a clip an importer builds, as a ClipSource
    takes them. A sample rate of 0 keeps the file's own key times' rate where it has one."""

    sample_rate: float = 30.0
    loop: LoopPolicy = LoopPolicy.clamp
    additive: AdditiveBasis = AdditiveBasis.none
    root_motion: RootMotionSource | None = None

    def checked(self, skeleton: Skeleton, what: str = "clip_options") -> "ImportClipOptions":
        """The options, refused with InvalidError naming the field when out of range for
        `skeleton` (a rate not finite or negative, a loop, basis or root-motion field out of
        range, a root-motion bone past the skeleton)."""
        rate = self.sample_rate
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) \
                or not math.isfinite(rate) or rate < 0:
            raise InvalidError(f"{what}.sample_rate must be finite and at least 0, not {rate!r}")
        loop = _member(LoopPolicy, self.loop, f"{what}.loop")
        basis = _member(AdditiveBasis, self.additive, f"{what}.additive")
        root = self.root_motion
        if root is not None:
            if not isinstance(root, RootMotionSource):
                raise InvalidError(f"{what}.root_motion must be a RootMotionSource or None")
            bone = root.bone
            if isinstance(bone, bool) or not isinstance(bone, int) \
                    or not 0 <= bone < skeleton.bone_count:
                raise InvalidError(f"{what}.root_motion.bone {bone!r} is past the skeleton's "
                                   f"{skeleton.bone_count} bones")
            axes = root.axes
            if isinstance(axes, bool) or not isinstance(axes, int) \
                    or axes & ~int(RootAxes.x | RootAxes.y | RootAxes.z):
                raise InvalidError(f"{what}.root_motion.axes {axes!r} out of range")
            root = RootMotionSource(bone, int(axes),
                                    _member(RootRotation, root.rotation,
                                            f"{what}.root_motion.rotation"))
        return ImportClipOptions(float(rate), loop, basis, root)


def _member(enum, value, what: str):
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidError(f"{what} must be one of {[m.name for m in enum]}, not {value!r}")
    try:
        return enum(value)
    except ValueError:
        raise InvalidError(f"{what} {value!r} out of range") from None


def default_import_clip_options() -> ImportClipOptions:
    """maniDefaultImportClipOptions."""
    return ImportClipOptions()


def bone_names(names: list[bytes | None]) -> tuple[list[bytes], list[int]]:
    """The bone name of each node or model (glTF's nodes, FBX's models, in file order): its
    name, or, when it has none or an earlier one has the same, that name followed by `#` and
    its index; and the indices so renamed, increasing. A made name may itself equal a later
    plain name, which that later one then yields to."""
    taken: set[bytes] = set()
    out: list[bytes] = []
    renamed: list[int] = []
    for index, name in enumerate(names):
        plain = name or b""
        if not plain or plain in taken:
            plain = plain + b"#%d" % index
            renamed.append(index)
        taken.add(plain)
        out.append(plain)
    return out, renamed
