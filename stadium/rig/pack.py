"""Species packs: one binary file per species, holding everything the rig reads.

A pack is compact and little-endian. Every field has an explicit dtype and is read
with ``numpy.frombuffer``. ``load`` checks every field before it returns. Bad data
raises one ``PackError`` that names the file, the field and the problem, so a
model is never half-loaded. ``save`` writes only what ``load`` would accept.

Layout, in file order (``u2`` = little-endian uint16, ``i2`` int16, ``u4`` uint32,
``f4`` float32):

    header (24 bytes)
        4s  magic b"STPK"
        u2  format version (1)
        u2  bone count n (1..1024)
        u2  primitive count, u2 animation count, u2 texture stream set count,
        u2  image count
        f4  root scale (> 0): raw vertex units to world units
        f4  height (> 0): world units, measured after the root scale
    name
        u1  byte length (1..255), then the UTF-8 name
    bones
        i2[n]     parent of each bone: -1 for a root, otherwise an earlier bone
        f4[n, 3]  rest translation (raw units)
        i2[n, 3]  rest rotation, binary angles (32768 = pi), Euler x y z
        f4[n, 3]  rest scale
    context
        u2[6]     animation per slot STANDBY ENTRANCE ATTACK1 ATTACK2 HIT FAINT,
                  0xFFFF where the species has none
    primitive, repeated: the triangles that share one texture
        u4  vertex count V (1..65535), u4 index count I (a multiple of 3)
        u2  texture (image index), i2 texture-animation channel (-1 = none)
        u1  additive (0 or 1), u1 reserved (0), u2 texture-map entry count m
        f4[V, 3] positions, f4[V, 3] unit normals (bone space)
        u2[V]    the one bone each vertex is rigidly bound to
        f4[V, 2] uv: u across, v down the image, (0, 0) the top-left corner
        u2[I]    triangle list, counter-clockwise seen from outside
        u2[m, 2] texture map: (stream value, image index) pairs
    animation, repeated: one value a frame at FPS (30 Hz)
        u2  frame count F (>= 1), u2 loop start (< F)
        u2[n]  track mask per bone. Bit 15 set: the bone is animated; clear: it keeps
               its rest transform and no other bit may be set. Bit c (0..8) set:
               component c (tx ty tz rx ry rz sx sy sz) carries F values; clear:
               it holds one constant for the whole animation.
        f4[]   translation and scale values of the animated bones, bone by bone,
               components tx ty tz sx sy sz, each F values or 1
        i2[]   rotation values (binary angles) the same way, components rx ry rz
    texture stream set, repeated: set i rides with animation i
        u2  channel count C, u2[C] channel lengths, then u2 entries of every channel
    image, repeated
        u2  width, u2 height (1..1024), then u1[height, width, 4] RGBA, row 0 = top

The file ends right after the last image.

A stream set pairs with an animation by index: while the battle plays animation i, it
plays stream set i if the species has one. A pack may carry fewer sets than
animations, never more. A primitive with a channel takes its texture each frame from
``tex_map[stream[frame]]``. The stream is read at the skeletal frame and clamped at
its last entry (see ``stadium.rig.StadiumRig.textures``).
"""
from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import BadInput

MAGIC = b"STPK"
VERSION = 1
FPS = 30

STANDBY, ENTRANCE, ATTACK1, ATTACK2, HIT, FAINT = range(6)
CONTEXT_SLOTS = ("STANDBY", "ENTRANCE", "ATTACK1", "ATTACK2", "HIT", "FAINT")
NO_ANIM = 0xFFFF

REACH_LIMIT = 2.0 ** 40      # a bone's composed scale and offset, raw units: far past any creature
COMPONENTS = ("tx", "ty", "tz", "rx", "ry", "rz", "sx", "sy", "sz")
ROTATION = (3, 4, 5)
LINEAR = (0, 1, 2, 6, 7, 8)
ANIMATED = 0x8000

MAX_BONES = 1024
MAX_VERTICES = 0xFFFF
MAX_IMAGE_SIDE = 1024
NORMAL_TOLERANCE = 1e-3

_HEADER = np.dtype([
    ("magic", "S4"), ("version", "<u2"), ("bones", "<u2"), ("prims", "<u2"),
    ("anims", "<u2"), ("aux", "<u2"), ("images", "<u2"),
    ("root_scale", "<f4"), ("height", "<f4"),
])
_PRIM = np.dtype([
    ("vertices", "<u4"), ("indices", "<u4"), ("texture", "<u2"), ("channel", "<i2"),
    ("additive", "u1"), ("reserved", "u1"), ("map_entries", "<u2"),
])
_ANIM = np.dtype([("frames", "<u2"), ("loop_start", "<u2")])
_IMAGE = np.dtype([("width", "<u2"), ("height", "<u2")])


class PackError(BadInput, ValueError):
    """A pack that cannot be used, with the file, the field and the problem."""

    def __init__(self, path, field: str, problem: str):
        self.path = str(path)
        self.field = field
        self.problem = problem
        super().__init__(f"{self.path}: {field}: {problem}")


@dataclass(eq=False)
class Primitive:
    """Triangles sharing one texture: one draw call's worth of geometry."""

    positions: np.ndarray          # float32 (V, 3), bone space, raw units
    normals: np.ndarray            # float32 (V, 3), unit, bone space
    bones: np.ndarray              # int32 (V,), one bone per vertex
    uv: np.ndarray                 # float32 (V, 2)
    indices: np.ndarray            # uint16 (I,), flat triangle list
    texture: int                   # image index worn when no stream says otherwise
    tex_channel: int = -1          # texture-animation channel, -1 for none
    tex_map: dict[int, int] = field(default_factory=dict)  # stream value -> image
    additive: bool = False         # drawn in the additive pass, casts no shadow


@dataclass(eq=False)
class Animation:
    """Per-bone tracks sampled once a frame at FPS.

    ``tracks[b]`` is None for a bone the animation never touches (it keeps its rest
    transform). Otherwise it holds nine components in COMPONENTS order, each either one
    constant or an array with a value per frame. Rotations are binary angles.
    """

    frames: int
    loop_start: int
    tracks: list


@dataclass(eq=False)
class TextureStreams:
    """One stream set: per channel, one texture-table value a frame."""

    channels: list[np.ndarray]     # uint16 arrays


@dataclass(eq=False)
class Species:
    """A shared, read-only model. Equality is identity: rigs cache per-species tables."""

    name: str
    parents: np.ndarray            # int32 (n,), -1 for a root, parents before children
    rest_t: np.ndarray             # float32 (n, 3)
    rest_r: np.ndarray             # int32 (n, 3) binary angles
    rest_s: np.ndarray             # float32 (n, 3)
    root_scale: float
    height: float                  # world units, after root_scale
    prims: list[Primitive]
    anims: list[Animation]
    ctx: list[int]                 # CONTEXT_SLOTS order: animation index or NO_ANIM
    aux_anims: list[TextureStreams]
    images: list[np.ndarray]       # uint8 (h, w, 4) RGBA, row 0 = top
    digest: str = ""               # sha256 of the bytes it was read from ("" if built in code)


# ---------------------------------------------------------------- reading


class _Reader:
    """A cursor over the pack bytes that refuses to read past the end."""

    def __init__(self, data: bytes, path):
        self.data = data
        self.path = path
        self.at = 0

    def fail(self, field: str, problem: str):
        raise PackError(self.path, field, problem)

    def take(self, dtype, count: int, field: str) -> np.ndarray:
        dtype = np.dtype(dtype)
        size = dtype.itemsize * count
        if self.at + size > len(self.data):
            self.fail(field, f"truncated: needs {size} bytes at offset {self.at} "
                             f"but the file ends at {len(self.data)}")
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += size
        return out

    def record(self, dtype, field: str):
        return self.take(dtype, 1, field)[0]


def _finite(reader, values, field):
    bad = ~np.isfinite(values)
    if bad.any():
        reader.fail(field, f"is not finite at entry {int(np.flatnonzero(bad.reshape(-1))[0])}")


def _positive(reader, value, field):
    if not (math.isfinite(value) and value > 0):
        reader.fail(field, f"must be a positive finite number, got {value!r}")


def _read_header(r: _Reader):
    head = r.record(_HEADER, "header")
    if head["magic"] != MAGIC:
        r.fail("magic", f"is {bytes(head['magic'])!r}, not a species pack ({MAGIC!r})")
    if head["version"] != VERSION:
        r.fail("version", f"is {int(head['version'])}; this reader knows version {VERSION}")
    if not 1 <= head["bones"] <= MAX_BONES:
        r.fail("bone count", f"is {int(head['bones'])}; must be 1..{MAX_BONES}")
    _positive(r, float(head["root_scale"]), "root scale")
    _positive(r, float(head["height"]), "height")
    length = int(r.record("u1", "name length"))
    if length == 0:
        r.fail("name", "is empty")
    try:
        name = r.take("u1", length, "name").tobytes().decode("utf-8")
    except UnicodeDecodeError:
        r.fail("name", "is not valid UTF-8")
    return head, name


def _read_bones(r: _Reader, n: int):
    parents = r.take("<i2", n, "parents").astype(np.int32)
    for b, p in enumerate(parents.tolist()):
        if not -1 <= p < b:
            r.fail(f"parents[{b}]", f"is {p}; a parent must be an earlier bone (-1 for a root)")
    rest_t = r.take("<f4", n * 3, "rest translation").reshape(n, 3).copy()
    _finite(r, rest_t, "rest translation")
    rest_r = r.take("<i2", n * 3, "rest rotation").reshape(n, 3).astype(np.int32)
    rest_s = r.take("<f4", n * 3, "rest scale").reshape(n, 3).copy()
    _finite(r, rest_s, "rest scale")
    return parents, rest_t, rest_r, rest_s


def _read_prim(r: _Reader, i: int, n: int, images: int) -> Primitive:
    f = f"prims[{i}]"
    head = r.record(_PRIM, f"{f} header")
    count, nindex = int(head["vertices"]), int(head["indices"])
    if not 1 <= count <= MAX_VERTICES:
        r.fail(f"{f}.vertex count", f"is {count}; must be 1..{MAX_VERTICES}")
    if nindex == 0 or nindex % 3:
        r.fail(f"{f}.index count", f"is {nindex}; must be a positive multiple of 3")
    if int(head["texture"]) >= images:
        r.fail(f"{f}.texture", f"is image {int(head['texture'])} but the pack has {images}")
    if head["additive"] > 1:
        r.fail(f"{f}.additive", f"is {int(head['additive'])}; must be 0 or 1")
    if head["reserved"] != 0:
        r.fail(f"{f}.reserved", f"is {int(head['reserved'])}; must be 0")
    if head["channel"] < -1:
        r.fail(f"{f}.channel", f"is {int(head['channel'])}; must be -1 (none) or a channel")
    positions = r.take("<f4", count * 3, f"{f}.positions").reshape(count, 3).copy()
    _finite(r, positions, f"{f}.positions")
    normals = r.take("<f4", count * 3, f"{f}.normals").reshape(count, 3).copy()
    _finite(r, normals, f"{f}.normals")
    length = np.linalg.norm(normals.astype(np.float64), axis=1)
    off = np.abs(length - 1.0) > NORMAL_TOLERANCE
    if off.any():
        k = int(np.flatnonzero(off)[0])
        r.fail(f"{f}.normals", f"vertex {k} has length {length[k]:.4f}; normals must be unit")
    bones = r.take("<u2", count, f"{f}.bones").astype(np.int32)
    if bones.max() >= n:
        k = int(np.argmax(bones))
        r.fail(f"{f}.bones", f"vertex {k} is on bone {int(bones[k])} but there are {n}")
    uv = r.take("<f4", count * 2, f"{f}.uv").reshape(count, 2).copy()
    _finite(r, uv, f"{f}.uv")
    indices = r.take("<u2", nindex, f"{f}.indices").copy()
    if indices.max() >= count:
        r.fail(f"{f}.indices", f"index {int(indices.max())} is past the {count} vertices")
    pairs = r.take("<u2", int(head["map_entries"]) * 2, f"{f}.texture map").reshape(-1, 2)
    if len(pairs) and pairs[:, 1].max() >= images:
        r.fail(f"{f}.texture map", f"maps to image {int(pairs[:, 1].max())} "
                                   f"but the pack has {images}")
    if len(np.unique(pairs[:, 0])) != len(pairs):
        r.fail(f"{f}.texture map", "maps one stream value twice")
    return Primitive(positions, normals, bones, uv, indices, int(head["texture"]),
                     int(head["channel"]), {int(a): int(b) for a, b in pairs.tolist()},
                     bool(head["additive"]))


def _read_anim(r: _Reader, i: int, n: int) -> Animation:
    f = f"anims[{i}]"
    head = r.record(_ANIM, f"{f} header")
    frames, loop = int(head["frames"]), int(head["loop_start"])
    if frames == 0:
        r.fail(f"{f}.frames", "is 0; an animation needs at least one frame")
    if loop >= frames:
        r.fail(f"{f}.loop start", f"is {loop}, not before the end of its {frames} frames")
    masks = r.take("<u2", n, f"{f}.track masks").astype(np.int64)
    for b, m in enumerate(masks.tolist()):
        if m & ~(ANIMATED | 0x1FF) or (m and not m & ANIMATED):
            r.fail(f"{f}.track masks[{b}]", f"is {m:#06x}; only bit 15 and bits 0..8 "
                                            "are defined, and bit 15 must be set to use them")
    def width(mask, comps):
        return sum(frames if mask >> c & 1 else 1 for c in comps)
    animated = [b for b in range(n) if masks[b] & ANIMATED]
    nlin = sum(width(masks[b], LINEAR) for b in animated)
    nrot = sum(width(masks[b], ROTATION) for b in animated)
    linear = r.take("<f4", nlin, f"{f}.translation and scale values")
    _finite(r, linear, f"{f}.translation and scale values")
    rotation = r.take("<i2", nrot, f"{f}.rotation values").astype(np.int32)
    tracks = [None] * n
    lin_at = rot_at = 0
    for b in animated:
        comps = [None] * 9
        for c in LINEAR:
            per_frame = masks[b] >> c & 1
            k = frames if per_frame else 1
            comps[c] = linear[lin_at:lin_at + k].copy() if per_frame else float(linear[lin_at])
            lin_at += k
        for c in ROTATION:
            per_frame = masks[b] >> c & 1
            k = frames if per_frame else 1
            comps[c] = rotation[rot_at:rot_at + k] if per_frame else int(rotation[rot_at])
            rot_at += k
        tracks[b] = tuple(comps)
    return Animation(frames, loop, tracks)


def _read_streams(r: _Reader, i: int) -> TextureStreams:
    f = f"texture streams[{i}]"
    count = int(r.record("<u2", f"{f}.channel count"))
    lengths = r.take("<u2", count, f"{f}.channel lengths").astype(np.int64)
    entries = r.take("<u2", int(lengths.sum()), f"{f}.entries")
    ends = np.cumsum(lengths)
    return TextureStreams([entries[e - k:e].copy() for e, k in zip(ends.tolist(), lengths.tolist())])


def _read_image(r: _Reader, i: int) -> np.ndarray:
    f = f"images[{i}]"
    head = r.record(_IMAGE, f"{f} size")
    w, h = int(head["width"]), int(head["height"])
    if not (1 <= w <= MAX_IMAGE_SIDE and 1 <= h <= MAX_IMAGE_SIDE):
        r.fail(f"{f} size", f"is {w}x{h}; each side must be 1..{MAX_IMAGE_SIDE}")
    return r.take("u1", w * h * 4, f"{f}.pixels").reshape(h, w, 4).copy()


def loads(data: bytes, path="<bytes>") -> Species:
    """Decode and check a whole pack; ``path`` only names it in errors."""
    r = _Reader(bytes(data), path)
    head, name = _read_header(r)
    n = int(head["bones"])
    parents, rest_t, rest_r, rest_s = _read_bones(r, n)
    nanims, nimages = int(head["anims"]), int(head["images"])
    ctx = r.take("<u2", len(CONTEXT_SLOTS), "context").astype(int).tolist()
    for slot, value in zip(CONTEXT_SLOTS, ctx):
        if value != NO_ANIM and value >= nanims:
            r.fail(f"context[{slot}]", f"names animation {value} but the pack has {nanims}")
    prims = [_read_prim(r, i, n, nimages) for i in range(int(head["prims"]))]
    anims = [_read_anim(r, i, n) for i in range(nanims)]
    if int(head["aux"]) > nanims:
        r.fail("texture stream set count", f"is {int(head['aux'])} but there are only "
                                           f"{nanims} animations to pair them with")
    aux = [_read_streams(r, i) for i in range(int(head["aux"]))]
    images = [_read_image(r, i) for i in range(nimages)]
    if r.at != len(r.data):
        r.fail("end", f"{len(r.data) - r.at} unexpected bytes after the last image")
    _check_reach(r, parents, rest_t, rest_s, anims, float(head["root_scale"]))
    return Species(name, parents, rest_t, rest_r, rest_s, float(head["root_scale"]),
                   float(head["height"]), prims, anims, ctx, aux, images,
                   hashlib.sha256(r.data).hexdigest())


def _check_reach(r: _Reader, parents, rest_t, rest_s, anims, root_scale: float) -> None:
    """Every value finite is not enough: scales multiply down a chain and translations add
    up, and a pack the rig would compose past binary32 must not open. Each bone's largest
    scale and offset, over its rest and every frame of every animation, bounds how far its
    draw matrix can reach; past REACH_LIMIT the pack is refused at that bone."""
    n = len(parents)
    biggest_s = np.abs(rest_s).max(axis=1).astype(np.float64)
    biggest_t = np.abs(rest_t).max(axis=1).astype(np.float64)
    for anim in anims:
        for b, track in enumerate(anim.tracks):
            if track is not None:
                biggest_t[b] = max(biggest_t[b], *(float(np.max(np.abs(track[c]))) for c in LINEAR[:3]))
                biggest_s[b] = max(biggest_s[b], *(float(np.max(np.abs(track[c]))) for c in LINEAR[3:]))
    scale = np.empty(n)
    reach = np.empty(n)
    for b in range(n):
        p = int(parents[b])
        above_scale, above_reach = (abs(root_scale), 0.0) if p < 0 else (scale[p], reach[p])
        scale[b] = above_scale * biggest_s[b]
        reach[b] = above_reach + 2.0 * above_scale * biggest_t[b]
        if not (scale[b] <= REACH_LIMIT and reach[b] <= REACH_LIMIT):
            r.fail(f"bone {b}", f"scales and offsets down its chain reach past {REACH_LIMIT:g}, "
                                "which the rig cannot compose in binary32")


def load(path) -> Species:
    """Read one species pack; any problem is a PackError naming the field."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PackError(path, "file", f"cannot be read ({exc.strerror or exc})") from None
    return loads(data, path)


# ---------------------------------------------------------------- writing


class _Writer:
    """Collects little-endian chunks; refuses values the format cannot hold."""

    def __init__(self, label: str):
        self.label = label
        self.chunks: list[bytes] = []

    def fail(self, field: str, problem: str):
        raise PackError(self.label, field, problem)

    def encodable(self, values, dtype, field: str, shape=None) -> np.ndarray:
        """``values`` as ``dtype``, or PackError when they would not survive it."""
        dtype = np.dtype(dtype)
        try:
            array = np.asarray(values)
        except (TypeError, ValueError) as exc:
            self.fail(field, f"is not an array of numbers ({exc})")
        if shape is not None and array.shape != shape:
            self.fail(field, f"has shape {array.shape}, expected {shape}")
        if dtype.kind in "iu" and array.size:
            if array.dtype.kind not in "iub":
                if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
                    self.fail(field, "must hold whole numbers")
            info = np.iinfo(dtype)
            if array.min() < info.min or array.max() > info.max:
                self.fail(field, f"must fit {dtype.name} ({info.min}..{info.max})")
        return np.ascontiguousarray(array, dtype=dtype)

    def put(self, values, dtype, field: str, shape=None):
        self.chunks.append(self.encodable(values, dtype, field, shape).tobytes())

    def record(self, dtype, **values):
        rec = np.zeros(1, dtype)
        for key, value in values.items():
            rec[key] = self.encodable(value, dtype.fields[key][0], key)
        self.chunks.append(rec.tobytes())


def _folded(component, frames: int, field: str, w: _Writer):
    """A component as one constant when its frames all agree, else its values."""
    values = np.asarray(component)
    if values.ndim == 0:
        return values.reshape(1), False
    if values.shape != (frames,):
        w.fail(field, f"has {values.size} values for {frames} frames")
    if np.all(values == values[0]):
        return values[:1], False
    return values, True


def _write_anim(w: _Writer, i: int, anim: Animation, n: int):
    f = f"anims[{i}]"
    if len(anim.tracks) != n:
        w.fail(f"{f}.tracks", f"has {len(anim.tracks)} entries for {n} bones")
    w.record(_ANIM, frames=anim.frames, loop_start=anim.loop_start)
    masks = np.zeros(n, np.uint16)
    linear, rotation = [], []
    for b, track in enumerate(anim.tracks):
        if track is None:
            continue
        if len(track) != 9:
            w.fail(f"{f}.tracks[{b}]", f"has {len(track)} components, expected 9")
        masks[b] = ANIMATED
        for c in range(9):
            values, per_frame = _folded(track[c], anim.frames, f"{f}.tracks[{b}].{COMPONENTS[c]}", w)
            masks[b] |= per_frame << c
            (rotation if c in ROTATION else linear).append((c, b, values))
    order = {c: k for k, c in enumerate(LINEAR)}
    w.put(masks, "<u2", f"{f}.track masks")
    linear.sort(key=lambda e: (e[1], order[e[0]]))
    rotation.sort(key=lambda e: (e[1], e[0]))
    w.put(np.concatenate([v for _, _, v in linear]) if linear else [], "<f4",
          f"{f}.translation and scale values")
    w.put(np.concatenate([v for _, _, v in rotation]) if rotation else [], "<i2",
          f"{f}.rotation values")


def dumps(species: Species) -> bytes:
    """Encode a species as given. Values that cannot be encoded raise PackError.

    Nothing else is checked here; ``save`` decodes the result with every check
    before it writes anything.
    """
    w = _Writer(f"<species {species.name!r}>")
    n = len(species.parents)
    w.record(_HEADER, magic=MAGIC, version=VERSION, bones=n, prims=len(species.prims),
             anims=len(species.anims), aux=len(species.aux_anims),
             images=len(species.images), root_scale=species.root_scale,
             height=species.height)
    name = species.name.encode("utf-8")
    w.put(len(name), "u1", "name length")
    w.chunks.append(name)
    w.put(species.parents, "<i2", "parents", (n,))
    w.put(species.rest_t, "<f4", "rest translation", (n, 3))
    w.put(species.rest_r, "<i2", "rest rotation", (n, 3))
    w.put(species.rest_s, "<f4", "rest scale", (n, 3))
    w.put(species.ctx, "<u2", "context", (len(CONTEXT_SLOTS),))
    for i, p in enumerate(species.prims):
        f = f"prims[{i}]"
        count, nindex = len(p.positions), len(p.indices)
        w.record(_PRIM, vertices=count, indices=nindex, texture=p.texture,
                 channel=p.tex_channel, additive=int(p.additive), reserved=0,
                 map_entries=len(p.tex_map))
        w.put(p.positions, "<f4", f"{f}.positions", (count, 3))
        w.put(p.normals, "<f4", f"{f}.normals", (count, 3))
        w.put(p.bones, "<u2", f"{f}.bones", (count,))
        w.put(p.uv, "<f4", f"{f}.uv", (count, 2))
        w.put(p.indices, "<u2", f"{f}.indices", (nindex,))
        w.put(sorted(p.tex_map.items()) or np.zeros((0, 2)), "<u2", f"{f}.texture map")
    for i, anim in enumerate(species.anims):
        _write_anim(w, i, anim, n)
    for i, streams in enumerate(species.aux_anims):
        f = f"texture streams[{i}]"
        w.put(len(streams.channels), "<u2", f"{f}.channel count")
        w.put([len(c) for c in streams.channels], "<u2", f"{f}.channel lengths")
        w.put(np.concatenate([np.asarray(c).reshape(-1) for c in streams.channels])
              if streams.channels else [], "<u2", f"{f}.entries")
    for i, image in enumerate(species.images):
        f = f"images[{i}]"
        image = np.asarray(image)
        if image.ndim != 3 or image.shape[2] != 4:
            w.fail(f"{f}.pixels", f"has shape {image.shape}, expected (height, width, 4)")
        w.record(_IMAGE, width=image.shape[1], height=image.shape[0])
        w.put(image, "u1", f"{f}.pixels")
    return b"".join(w.chunks)


def save(species: Species, path) -> None:
    """Write a pack, after checking that ``load`` will accept it.

    The bytes are written to a sibling temporary file and moved into place, so a
    failure never leaves a half-written pack behind.
    """
    data = dumps(species)
    loads(data, path)
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
