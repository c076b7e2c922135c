"""BVH motion capture in: a skeleton source, a clip source on its built skeleton, and the
frame time, read from Biovision Hierarchy text.

What the reader takes, and how it reads it:

- HIERARCHY, then one or more ROOT blocks, each an OFFSET, a CHANNELS list and any number of
  JOINT blocks and End Sites; then MOTION, "Frames:" n, "Frame Time:" t and n frames of
  numbers. Tokens are split at white space; keywords are case-sensitive as written here, a
  joint's name is the one token after ROOT or JOINT.
- CHANNELS in any order and on any joint: Xposition, Yposition, Zposition, Xrotation,
  Yrotation, Zrotation, each at most once a joint. Rotations are Euler angles in degrees
  applied in the order listed (R = R1 R2 R3 on column vectors, so the last listed turns
  first), turned into quaternions in binary64 and kept on one hemisphere frame to frame.
  A position channel replaces the OFFSET along its axis (MotionBuilder's convention; the
  staged Bandai Namco files write their joints' positions equal to their offsets).
- End Sites are read and checked but do not become bones: they carry no channels, so no
  motion, and a skeleton of the file's joints has the joint count every BVH tool reports.
- The rest pose is each joint's OFFSET, unturned and unscaled; a joint without channels of a
  path has no channel of that path in the clip (it holds its rest).
- Frame k is keyed at the time the clip's grid puts its sample k (k over the rate, the last
  at the duration, both as the clip file keeps them, in binary32), so the build stores each
  frame's values themselves, not values interpolated a rounding of the rate away; sampling the
  clip at `k / clip.sample_rate` gives frame k.

Anything the reader cannot take, including what the skeleton and clip builders would refuse
(names, counts, magnitudes), is a FormatError at the first thing found wrong: `.offset` is
its byte offset in the text (UTF-8), `.line` and `.column` (both from 1, the column counted
in characters) where a text editor shows it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..clip.build import ChannelPath, ChannelSource, ClipSource
from ..clip.clip import MAX_MAGNITUDE, MAX_SAMPLES, sample_count
from ..core import names
from ..core.builder import Builder
from ..core.errors import FormatError, ManiError
from ..core.limits import MAX_BONES, NO_BONE
from ..pose.skeleton import BoneSource, Skeleton, SkeletonSource, build_skeleton

_TOKEN = re.compile(r"\S+")
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_IS_NUMBER = re.compile(_NUMBER + r"\Z")
_IS_COUNT = re.compile(r"[0-9]+\Z")
_NOT_NUMERAL = re.compile(r"[^0-9+\-.eE\s]")
_CHANNELS = {"Xposition": ("position", 0), "Yposition": ("position", 1),
             "Zposition": ("position", 2), "Xrotation": ("rotation", 0),
             "Yrotation": ("rotation", 1), "Zrotation": ("rotation", 2)}
_F32_MAX = float(np.finfo(np.float32).max)


class BvhFormatError(FormatError):
    """A FormatError in BVH text, with where an editor shows it."""

    def __init__(self, message: str, offset: int, line: int, column: int):
        self.line = line
        self.column = column
        super().__init__(f"{message} (line {line}, column {column})", offset)


@dataclass(frozen=True)
class BvhImport:
    """What a BVH file gives: the skeleton's source, a clip source over the skeleton built
    from it (`clip_source.skeleton`), ready for build_clip, and the file's timing."""

    skeleton_source: SkeletonSource
    clip_source: ClipSource
    frame_time: float
    frame_count: int
    joint_names: tuple


@dataclass
class _Joint:
    name: str
    parent: int
    at: int                                  # where its name token starts
    offset: tuple = (0.0, 0.0, 0.0)
    channels: tuple = ()                     # (kind, axis) in file order


class _Text:
    """The text's tokens with their places, and errors placed in it."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _TOKEN.finditer(text)
        self.at = self.end = 0      # the last token's place

    def fail(self, message: str, at: int) -> BvhFormatError:
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        offset = len(self.text[:at].encode("utf-8", "surrogatepass"))
        return BvhFormatError(message, offset, line, column)

    def next(self, what: str) -> tuple[str, int]:
        m = next(self.tokens, None)
        if m is None:
            raise self.fail(f"text ends where {what} should be", len(self.text))
        self.at, self.end = m.start(), m.end()
        return m.group(0), m.start()

    def expect(self, word: str) -> int:
        token, at = self.next(repr(word))
        if token != word:
            raise self.fail(f"{token!r} where {word!r} should be", at)
        return at

    def number(self, what: str) -> float:
        token, at = self.next(what)
        if not _IS_NUMBER.match(token):
            raise self.fail(f"{token!r} is not a number ({what})", at)
        x = float(token)
        if not abs(x) < MAX_MAGNITUDE:
            raise self.fail(f"{token} is past the range a clip keeps ({what})", at)
        return x

    def count(self, what: str, most: int) -> int:
        token, at = self.next(what)
        if not _IS_COUNT.match(token) or int(token) > most:
            raise self.fail(f"{token!r} is not a count from 0 to {most} ({what})", at)
        return int(token)


def _hierarchy(t: _Text) -> list[_Joint]:
    t.expect("HIERARCHY")
    joints: list[_Joint] = []
    token, at = t.next("ROOT")
    if token != "ROOT":
        raise t.fail(f"{token!r} where 'ROOT' should be", at)
    while token == "ROOT":
        _block(t, joints, NO_BONE)
        token, at = t.next("ROOT or MOTION")
    if token != "MOTION":
        raise t.fail(f"{token!r} where 'ROOT' or 'MOTION' should be", at)
    return joints


def _block(t: _Text, joints: list[_Joint], parent: int) -> None:
    """A ROOT or JOINT block after its keyword, its children walked with a stack (no
    recursion, so nesting depth is bounded by MAX_BONES, not Python's stack)."""
    stack = [parent]
    pending_keyword = True
    while stack:
        if pending_keyword:
            name, at = t.next("a joint name")
            if name == "{":
                raise t.fail("a joint without a name", at)
            if len(joints) == MAX_BONES:
                raise t.fail(f"more than {MAX_BONES} joints", at)
            joint = _Joint(name, stack[-1], at)
            joints.append(joint)
            t.expect("{")
            t.expect("OFFSET")
            joint.offset = tuple(t.number(f"{name}'s offset") for _ in range(3))
            t.expect("CHANNELS")
            count = t.count("a channel count", 6)
            channels = []
            for _ in range(count):
                token, at = t.next("a channel")
                if token not in _CHANNELS:
                    raise t.fail(f"{token!r} is not a channel", at)
                if _CHANNELS[token] in channels:
                    raise t.fail(f"{token} given twice on {name}", at)
                channels.append(_CHANNELS[token])
            joint.channels = tuple(channels)
            stack.append(len(joints) - 1)
            pending_keyword = False
        token, at = t.next("JOINT, End Site or '}'")
        if token == "JOINT":
            pending_keyword = True
        elif token == "End":
            t.expect("Site")
            t.expect("{")
            t.expect("OFFSET")
            for _ in range(3):
                t.number("an End Site's offset")
            t.expect("}")
        elif token == "}":
            stack.pop()
            if len(stack) == 1:
                return
        else:
            raise t.fail(f"{token!r} where JOINT, End Site or '}}' should be", at)


def _motion(t: _Text, width: int) -> tuple[float, int, np.ndarray]:
    t.expect("Frames:")
    frames = t.count("the frame count", MAX_SAMPLES)
    if frames == 0:
        raise t.fail("no frames", t.at)
    t.expect("Frame")
    t.expect("Time:")
    frame_time = t.number("the frame time")
    time_at = t.at
    if not (frame_time > 0 and math.isfinite(1.0 / frame_time) and 1.0 / frame_time < _F32_MAX):
        raise t.fail("a frame time not above 0", time_at)
    if sample_count((frames - 1) * frame_time, 1.0 / frame_time) > MAX_SAMPLES:
        raise t.fail(f"more than {MAX_SAMPLES} samples", time_at)
    start = t.end
    body = t.text[start:]
    tokens = body.split()
    try:        # only digits, signs, points and exponents, so float() reads decimals alone
        if _NOT_NUMERAL.search(body):
            raise ValueError
        values = np.array(tokens, dtype=np.float64)
    except ValueError:
        for m in _TOKEN.finditer(body):
            if not _IS_NUMBER.match(m.group(0)):
                raise t.fail(f"{m.group(0)!r} is not a number", start + m.start()) from None
        raise
    if len(tokens) != frames * width:
        if len(tokens) < frames * width:
            raise t.fail(f"{len(tokens)} numbers for {frames} frames of {width} channels",
                         len(t.text))
        extra = list(_TOKEN.finditer(body))[frames * width]
        raise t.fail(f"numbers past {frames} frames of {width} channels", start + extra.start())
    values = values.reshape(frames, width)
    bad = ~(np.abs(values) < MAX_MAGNITUDE)
    if bad.any():
        k = int(np.flatnonzero(bad.reshape(-1))[0])
        at = list(_TOKEN.finditer(body))[k].start()
        raise t.fail("a value past the range a clip keeps", start + at)
    return frame_time, frames, values


def euler_quaternions(angles: np.ndarray, axes) -> np.ndarray:
    """(frames, 4) x y z w quaternions of Euler angles in degrees, (frames, len(axes)), turned
    about `axes` (0 x, 1 y, 2 z) in the order listed: q = q1 q2 q3. Binary64, one
    hemisphere frame to frame (a sign flip where consecutive ones would be opposite)."""
    q = np.zeros((angles.shape[0], 4))
    q[:, 3] = 1.0
    half = np.radians(angles) * 0.5
    for k, axis in enumerate(axes):
        s, c = np.sin(half[:, k]), np.cos(half[:, k])
        v = q[:, :3].copy()
        w = q[:, 3].copy()
        # q * (s e_axis, c): vector part w s e + c v + v x (s e), scalar c w - s v_axis
        cross = np.zeros_like(v)
        a1, a2 = (axis + 1) % 3, (axis + 2) % 3
        cross[:, a1] = v[:, a2] * s
        cross[:, a2] = -v[:, a1] * s
        q[:, :3] = c[:, None] * v + cross
        q[:, axis] += w * s
        q[:, 3] = c * w - s * v[:, axis]
    flips = np.einsum("ij,ij->i", q[1:], q[:-1]) < 0
    sign = np.concatenate(([1.0], np.where(np.cumsum(flips) % 2, -1.0, 1.0)))
    return q * sign[:, None]


def read_bvh(text: str | bytes, name: str = "bvh") -> BvhImport:
    """Reads BVH text (str, or UTF-8 bytes) into a BvhImport; `name` names the text in errors."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        raw = bytes(text)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            head = raw[:exc.start].decode("utf-8")
            line = head.count("\n") + 1
            raise BvhFormatError(f"{name}: text not UTF-8", exc.start, line,
                                 len(head) - (head.rfind("\n") + 1) + 1) from None
    elif not isinstance(text, str):
        raise BvhFormatError(f"{name}: not text but {type(text).__name__}", 0, 1, 1)
    t = _Text(text)
    try:
        joints = _hierarchy(t)
        width = sum(len(j.channels) for j in joints)
        frame_time, frames, values = _motion(t, width)
        skeleton_source, skeleton = _skeleton(t, joints)
    except BvhFormatError as exc:
        exc.args = (f"{name}: {exc.args[0]}",)
        raise
    rate = float(np.float32(1.0 / frame_time))
    duration = float(np.float32((frames - 1) * frame_time))
    times = np.arange(frames) / rate
    times[-1] = duration
    clip_source = ClipSource(skeleton=skeleton, channels=_channels(joints, values, times),
                             sample_rate=rate, duration=duration)
    return BvhImport(skeleton_source, clip_source, frame_time, frames,
                     tuple(j.name for j in joints))


def load_bvh(path) -> BvhImport:
    """Reads a BVH file (its bytes as UTF-8)."""
    path = Path(path)
    return read_bvh(path.read_bytes(), path.name)


def _skeleton(t: _Text, joints: list[_Joint]) -> tuple[SkeletonSource, Skeleton]:
    """The joints as bones (in file order, which is depth-first) and the skeleton built from
    them; what the builder refuses is placed at the joint's name."""
    for i, j in enumerate(joints):
        try:
            raw = names.name_bytes(j.name, "joint", i)
        except ManiError:
            raise t.fail(f"joint name {j.name!r} is not a name the runtime takes", j.at) from None
        j.name = raw.decode("utf-8")
    source = SkeletonSource([BoneSource(j.name, j.parent, j.offset) for j in joints])
    try:
        skeleton = Skeleton.open(build_skeleton(Builder(), source))
    except ManiError as exc:
        item = exc.item if 0 <= exc.item < len(joints) else 0
        raise t.fail(f"the skeleton refuses joint {joints[item].name!r}: {exc}",
                     joints[item].at) from None
    return source, skeleton


def _channels(joints: list[_Joint], values: np.ndarray, times: np.ndarray) -> list:
    """A translation and a rotation channel per joint that has channels of each, keyed at
    every frame's time."""
    frames = values.shape[0]
    out = []
    column = 0
    for b, j in enumerate(joints):
        cols = np.arange(column, column + len(j.channels))
        column += len(j.channels)
        positions = [(axis, c) for (kind, axis), c in zip(j.channels, cols) if kind == "position"]
        rotations = [(axis, c) for (kind, axis), c in zip(j.channels, cols) if kind == "rotation"]
        if positions:
            t = np.tile(np.asarray(j.offset, dtype=np.float64), (frames, 1))
            for axis, c in positions:
                t[:, axis] = values[:, c]
            out.append(ChannelSource(b, ChannelPath.translation, times, t))
        if rotations:
            q = euler_quaternions(values[:, [c for _, c in rotations]], [a for a, _ in rotations])
            out.append(ChannelSource(b, ChannelPath.rotation, times, q))
    return out


__all__ = ["BvhFormatError", "BvhImport", "euler_quaternions", "load_bvh", "read_bvh"]
