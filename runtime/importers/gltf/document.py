"""A glTF 2.0 document opened from JSON or GLB bytes (maniOpenGltf): the container, the
asset version, the required extensions, buffers, buffer views and accessors checked at the
open; data: buffers decoded, external ones waiting for `supply_buffer`; accessors read as
numpy arrays (strides, normalized integers, sparse substitution, KHR_mesh_quantization's
integer attributes).

Every refusal is an ImportFormatError: `.import_reason`, `.offset` (the byte offset in the
file of the JSON object at fault, or of the GLB field, or of the byte in a buffer), `.item`
(the index of the object in its list: the buffer, view, accessor, node...)."""
from __future__ import annotations

import base64
import functools
import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

from ...core.builder import Builder
from ...core.errors import BusyError, CapacityError, InvalidError
from ..common import ImportFormatError, ImportReason, bone_names
from . import codecs
from .jsontext import JsonObject, JsonSyntaxError, parse

R = ImportReason
GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942
COMPONENTS = {5120: np.dtype("i1"), 5121: np.dtype("u1"), 5122: np.dtype("<i2"),
              5123: np.dtype("<u2"), 5125: np.dtype("<u4"), 5126: np.dtype("<f4")}
NORMALIZE = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
COLUMNS = {"MAT2": 2, "MAT3": 3, "MAT4": 4}
# Required extensions this reader takes: the ones that change what it reads, and the ones
# about looks alone (materials, textures, lights), which a skeleton, skin or clip never needs.
TAKEN_EXTENSIONS = {"KHR_mesh_quantization", "KHR_animation_pointer",
                    *codecs.MESHOPT_EXTENSIONS, codecs.DRACO_EXTENSION, "KHR_lights_punctual"}
TAKEN_PREFIXES = ("KHR_materials_", "KHR_texture_", "EXT_texture_")
MAX_ELEMENTS = 1 << 26          # an accessor's count: past what any mesh or clip holds
MAX_ZEROS = 1 << 24             # numbers an accessor without a view (all zeros, or sparse) holds
_VERSION = re.compile(r"([0-9]+)\.([0-9]+)\Z")


def quiet(fn):
    """Numbers from a file may overflow on the way: no numpy warnings inside `fn`, whose
    results are checked for finiteness where they are used (by us or by the builders)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return run


def fail(message: str, reason: ImportReason, at: int = 0, item: int = 0) -> ImportFormatError:
    return ImportFormatError(message, reason, offset=at, item=item)


def where(value, default: int) -> int:
    return getattr(value, "at", default)


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


@dataclass
class _View:
    buffer: int
    offset: int
    length: int
    stride: int
    at: int
    meshopt: dict | None = None     # the compressed stream, decoded into `decoded`
    decoded: np.ndarray | None = None


@dataclass
class _Accessor:
    view: int | None
    offset: int
    component: int
    kind: str
    count: int
    normalized: bool
    sparse: dict | None
    at: int


@dataclass
class GltfOptions:
    """maniGltfOptions: the basis change into the output, and whether the skeleton's
    placement (the nodes above its root) is folded into its root.

    `axes` is a signed axis permutation of determinant +1: output axis i is glTF axis
    |axes[i]| - 1 times its sign (1 x, 2 y, 3 z), so (1, 2, 3) keeps glTF's Y-up right-handed
    frame and (1, -3, 2) makes it Z-up. `unit` scales lengths (0.01 from metres to
    centimetres is 100). Positions and translations map by `unit` times the turn, rotations
    and directions by the turn alone."""

    axes: tuple = (1, 2, 3)
    unit: float = 1.0
    fold_placement: bool = False

    def checked(self, what: str = "options") -> "GltfOptions":
        axes = self.axes
        if not isinstance(axes, (tuple, list)) or len(axes) != 3 \
                or not all(is_int(a) for a in axes) \
                or sorted(abs(a) for a in axes) != [1, 2, 3]:
            raise InvalidError(f"{what}.axes must be a signed permutation of (1, 2, 3)")
        if round(np.linalg.det(_turn(axes))) != 1:
            raise InvalidError(f"{what}.axes must keep handedness (determinant +1)")
        unit = self.unit
        if not is_number(unit) or not 0 < unit < 1e30:
            raise InvalidError(f"{what}.unit must be finite and above 0, not {unit!r}")
        if not isinstance(self.fold_placement, bool):
            raise InvalidError(f"{what}.fold_placement must be a bool")
        return GltfOptions(tuple(int(a) for a in axes), float(unit), self.fold_placement)

    @property
    def turn(self) -> np.ndarray:
        return _turn(self.axes)


def _turn(axes) -> np.ndarray:
    m = np.zeros((3, 3))
    for i, a in enumerate(axes):
        m[i, abs(a) - 1] = 1.0 if a > 0 else -1.0
    return m


def default_gltf_options() -> GltfOptions:
    """maniDefaultGltfOptions: glTF's own basis and unit, placement kept apart."""
    return GltfOptions()


@dataclass
class Node:
    name: bytes | None
    children: list = field(default_factory=list)
    parent: int = -1
    matrix: np.ndarray | None = None            # 4x4 column-major read into rows
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rotation: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    mesh: int = -1
    skin: int = -1
    weights: object = None
    at: int = 0


class Gltf:
    """An opened glTF document (maniGltf). Its data is the caller's bytes and the buffers
    supplied, kept alive by the caller; data: buffers and decoded meshopt views are its own.
    After close() it reads as empty."""

    def __init__(self, builder: Builder, data, *, _open=True):
        self.builder = builder
        self.closed = False
        self.json: dict = {}
        self.buffers: list = []          # memoryview or None (external, not yet supplied)
        self.buffer_lengths: list[int] = []
        self.uris: list = []             # external buffers' URIs (str) or None
        self.views: list[_View] = []
        self.accessors: list[_Accessor] = []
        self.nodes: list[Node] = []
        self.names: list[bytes] = []
        self.renamed: list[int] = []
        self.block = None
        self.springs_read = None
        self.ragdoll_read = None
        self.ragdoll_block = None        # the ragdoll source's arrays, from the allocator
        self._draco_cache: dict = {}
        self.skin_joints: list[list[int]] = []
        self.skin_skeleton: list[int] = []
        self.skeletons: list[tuple[list[int], int]] = []   # (nodes increasing, common root or -1)
        _read(self, data)

    # ---- lists of the JSON
    def list(self, key: str) -> list:
        value = self.json.get(key, [])
        return value if isinstance(value, list) else []

    def obj(self, key: str, index: int) -> dict:
        items = self.list(key)
        return items[index] if 0 <= index < len(items) else {}

    @property
    def meshes(self) -> list:
        return self.list("meshes")

    @property
    def skins(self) -> list:
        return self.list("skins")

    @property
    def animations(self) -> list:
        return self.list("animations")

    # ---- buffers
    def buffer_uri(self, buffer: int):
        if self.closed or not 0 <= buffer < len(self.uris):
            return None
        return self.uris[buffer]

    def supply_buffer(self, buffer: int, data) -> None:
        """maniGltf_SupplyBuffer: an external buffer's bytes, checked, its meshopt streams
        decoded (when one is refused the buffer is left unsupplied)."""
        if self.builder._state == "hook":
            self.builder.misuse += 1
            raise BusyError("a document call from the builder's allocator")
        if self.closed or not 0 <= buffer < len(self.uris) or self.uris[buffer] is None:
            raise InvalidError(f"buffer {buffer} is not an external buffer")
        try:
            view = memoryview(data).cast("B")
        except TypeError:
            raise InvalidError("bytes must be bytes-like") from None
        need = self.buffer_lengths[buffer]
        if view.nbytes < need:
            raise fail(f"buffer {buffer}: {view.nbytes} bytes of its byteLength {need}",
                       R.Buffer, view.nbytes, buffer)
        before = self.buffers[buffer]
        pending = [v for v in self.views if v.meshopt is not None and v.decoded is None]
        self.buffers[buffer] = view[:need]
        try:
            self._decode_views()
        except BaseException:       # left unsupplied: nothing of it decoded either
            self.buffers[buffer] = before
            for v in pending:
                v.decoded = None
            raise

    def _decode_views(self) -> None:
        for v, view in enumerate(self.views):
            if view.meshopt is None or view.decoded is not None:
                continue
            stream = view.meshopt
            data = self.buffers[stream["buffer"]]
            if data is None:
                continue
            view.decoded = codecs.decode_meshopt(data, stream, v, view.length)

    def view_bytes(self, v: int, item: int, what: str) -> np.ndarray:
        """A view's bytes, (length,) uint8: Pending when its buffer is not supplied."""
        view = self.views[v]
        if view.meshopt is not None:
            if view.decoded is None:
                raise fail(f"{what}: view {v}'s compressed stream waits for its buffer",
                           R.Pending, view.at, view.meshopt["buffer"])
            return view.decoded
        data = self.buffers[view.buffer]
        if data is None:
            raise fail(f"{what}: buffer {view.buffer} is not supplied", R.Pending, view.at,
                       view.buffer)
        return np.frombuffer(data, np.uint8, view.length, view.offset)

    # ---- accessors
    def accessor(self, index, what: str, item: int, at: int) -> _Accessor:
        if not is_int(index) or not 0 <= index < len(self.accessors):
            raise fail(f"{what}: accessor {index!r} past the {len(self.accessors)} accessors",
                       R.Index, at, item)
        return self.accessors[index]

    @quiet
    def read(self, index, what: str, item: int, at: int, *, kinds=None, count=None,
             components=None, integer=False) -> np.ndarray:
        """Accessor `index` as a (count, width) array: float64 for float, normalized or
        (unless `integer`) any integer components; int64 when `integer` (which refuses float
        and normalized ones). Property for a type not in `kinds`, another count or component
        type; `item`/`at` name what asked for it."""
        a = self.accessor(index, what, item, at)
        if kinds is not None and a.kind not in kinds:
            raise fail(f"{what}: accessor {index} is {a.kind}, not {' or '.join(kinds)}",
                       R.Property, a.at, item)
        if count is not None and a.count != count:
            raise fail(f"{what}: accessor {index} has {a.count} elements, not {count}",
                       R.Property, a.at, item)
        if components is not None and a.component not in components:
            raise fail(f"{what}: accessor {index}'s component type {a.component} refused",
                       R.Property, a.at, item)
        if integer and (a.component == 5126 or a.normalized):
            raise fail(f"{what}: accessor {index} is not of whole numbers", R.Property, a.at,
                       item)
        raw = self._elements(a, index)
        if integer:
            return raw.astype(np.int64)
        out = raw.astype(np.float64)
        if a.normalized:
            out = np.maximum(out / NORMALIZE[a.component], -1.0)
        if not np.isfinite(out).all():
            raise fail(f"{what}: accessor {index} holds a number not finite", R.Data, a.at,
                       index)
        return out

    def _elements(self, a: _Accessor, index: int) -> np.ndarray:
        width = WIDTHS[a.kind]
        dtype = COMPONENTS[a.component]
        if a.view is None:
            try:
                out = np.zeros((a.count, width), dtype)
            except MemoryError:
                raise CapacityError(f"accessor {index}: no memory for {a.count} zeros") from None
        else:
            out = _strided(self.view_bytes(a.view, index, f"accessor {index}"),
                           self.views[a.view].stride, a, dtype).copy()
        if a.sparse is not None:
            s = a.sparse
            idx = _strided(self.view_bytes(s["iview"], index, f"accessor {index}'s sparse"),
                           0, _Accessor(s["iview"], s["ioffset"], s["icomponent"], "SCALAR",
                                        s["count"], False, None, a.at), COMPONENTS[s["icomponent"]])
            idx = idx.reshape(-1).astype(np.int64)
            if idx.size > 1 and not (np.diff(idx) > 0).all():
                raise fail(f"accessor {index}: sparse indices not increasing", R.Data, a.at, index)
            if idx.size and idx[-1] >= a.count:
                raise fail(f"accessor {index}: a sparse index past its {a.count} elements",
                           R.Index, a.at, index)
            vals = _strided(self.view_bytes(s["vview"], index, f"accessor {index}'s sparse"),
                            0, _Accessor(s["vview"], s["voffset"], a.component, a.kind,
                                         s["count"], a.normalized, None, a.at), dtype)
            out[idx] = vals
        return out

    # ---- the skeleton's nodes
    def node_bone_name(self, node: int):
        if self.closed or not 0 <= node < len(self.names):
            return None
        return self.names[node]

    def close(self) -> None:
        """maniCloseGltf: empty from the start, then the document's block freed through the
        builder's hooks; from the hooks themselves, nothing closed, one misuse counted."""
        if self.builder._state == "hook":
            self.builder.misuse += 1
            return
        if self.closed:
            return
        self.closed = True
        for name in ("buffers", "buffer_lengths", "uris", "views", "accessors", "nodes",
                     "names", "renamed", "skin_joints", "skin_skeleton", "skeletons"):
            setattr(self, name, [])
        self.json = {}
        self.springs_read = None
        self.ragdoll_read = None
        self._draco_cache = {}
        for name in ("block", "ragdoll_block"):
            block = getattr(self, name)
            setattr(self, name, None)
            if block is not None:
                self.builder._call_free(block)


def _strided(data: np.ndarray, stride: int, a: _Accessor, dtype: np.dtype) -> np.ndarray:
    """The accessor's elements out of a view's bytes: (count, width), matrices' columns
    padded to 4 bytes as glTF lays them."""
    width = WIDTHS[a.kind]
    size = dtype.itemsize
    columns = COLUMNS.get(a.kind)
    rows = width // columns if columns else width
    column_bytes = rows * size
    padded = -(-column_bytes // 4) * 4 if columns and size < 4 else column_bytes
    element = padded * (columns or 1)
    step = stride or element
    start = a.offset
    span = data[start:start + step * (a.count - 1) + element]
    if span.size < step * (a.count - 1) + element:       # checked at the open; a guard
        raise fail("accessor past its view", R.Accessor, a.at, 0)
    rows_view = np.lib.stride_tricks.as_strided(span, (a.count, element), (step, 1))
    if padded != column_bytes:
        rows_view = rows_view.reshape(a.count, columns, padded)[:, :, :column_bytes]
    return np.ascontiguousarray(rows_view).view(dtype).reshape(a.count, width)


# ---- the open ---------------------------------------------------------------------------
def open_gltf(builder, data) -> Gltf:
    """maniOpenGltf: a document from JSON or GLB bytes. InvalidError for no builder or bytes
    that are not bytes-like; BusyError from the builder's hooks."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    try:
        view = memoryview(data).cast("B")
    except (TypeError, ValueError):
        raise InvalidError("bytes must be contiguous bytes-like") from None
    return Gltf(builder, view)


def _read(doc: Gltf, data: memoryview) -> None:
    size = data.nbytes
    binary = None
    base = 0
    if size >= 4 and bytes(data[:4]) == GLB_MAGIC:
        text_bytes, binary, base = _glb(data)
    else:
        text_bytes = data
    try:
        root = parse(bytes(text_bytes), base)
    except UnicodeDecodeError as e:
        raise fail("JSON text not UTF-8", R.Syntax, base + e.start) from None
    except JsonSyntaxError as e:
        raise fail(f"JSON: {e}", R.Syntax, e.at) from None
    if not isinstance(root, JsonObject):
        raise fail("the JSON is not an object", R.Syntax, base)
    doc.json = root
    _asset(root, base)
    _extensions(root)
    for key in ("nodes", "meshes", "skins", "animations", "accessors", "bufferViews",
                "buffers", "scenes"):
        value = root.get(key, [])
        if not isinstance(value, list):
            raise fail(f"{key} is not an array", R.Property, where(value, root.at))
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise fail(f"{key}[{i}] is not an object", R.Property, value.at, i)
    _buffers(doc, root, binary)
    _views(doc, root)
    _accessors(doc, root)
    _nodes(doc, root)
    _skins(doc, root)
    held = sum(len(b) for b in doc.buffers if isinstance(b, (bytes, bytearray)))
    block = doc.builder._call_alloc(max(held, 1))
    if block is None:
        raise CapacityError("the allocator failed")
    doc.block = block
    doc.buffers = [memoryview(b) if isinstance(b, (bytes, bytearray)) else b
                   for b in doc.buffers]
    doc._decode_views()


def _glb(data: memoryview):
    size = data.nbytes
    if size < 12:
        raise fail("a GLB header of 12 bytes", R.Container, size)
    _, version, length = struct.unpack_from("<4sII", data, 0)
    if version != 2:
        raise fail(f"GLB version {version}", R.Version, 4)
    if length != size:
        raise fail(f"GLB length {length} for {size} bytes", R.Container, 8)
    if size < 20:
        raise fail("no JSON chunk", R.Container, 12)
    json_length, kind = struct.unpack_from("<II", data, 12)
    if kind != CHUNK_JSON:
        raise fail("the first chunk is not JSON", R.Container, 16)
    if json_length > size - 20:
        raise fail("the JSON chunk runs past the file", R.Container, 12)
    text = data[20:20 + json_length]
    at = 20 + json_length
    binary = None
    while at < size:        # chunks after the JSON: the first may be BIN, others skipped
        if size - at < 8:
            raise fail("a chunk header cut short", R.Container, at)
        length, kind = struct.unpack_from("<II", data, at)
        if length > size - at - 8:
            raise fail("a chunk runs past the file", R.Container, at)
        if kind == CHUNK_BIN:
            if at != 20 + json_length:
                raise fail("a BIN chunk not right after the JSON", R.Container, at + 4)
            binary = data[at + 8:at + 8 + length]
        at += 8 + length
    return text, binary, 20


def _asset(root: JsonObject, base: int) -> None:
    asset = root.get("asset")
    if not isinstance(asset, dict):
        raise fail("no asset object", R.Version, root.at)
    for key in ("version", "minVersion"):
        if key not in asset and key == "minVersion":
            continue
        value = asset.get(key)
        m = _VERSION.match(value) if isinstance(value, str) else None
        if m is None:
            raise fail(f"asset.{key} {value!r} is not a version", R.Version, asset.at)
        major, minor = int(m.group(1)), int(m.group(2))
        if (key == "version" and major != 2) or (key == "minVersion" and (major, minor) > (2, 0)):
            raise fail(f"asset.{key} {value} is not one this reader takes", R.Version, asset.at)


def _extensions(root: JsonObject) -> None:
    required = root.get("extensionsRequired", [])
    if not isinstance(required, list):
        raise fail("extensionsRequired is not an array", R.Property, where(required, root.at))
    for i, name in enumerate(required):
        if not isinstance(name, str):
            raise fail(f"extensionsRequired[{i}] is not a string", R.Property, required.at, i)
        if name not in TAKEN_EXTENSIONS and not name.startswith(TAKEN_PREFIXES):
            raise fail(f"required extension {name} is not one this reader takes",
                       R.Extension, required.at, i)


def _count(obj: dict, key: str, reason, item: int, *, least: int = 0, default=None) -> int:
    value = obj.get(key, default)
    if not is_int(value) or value < least or value > 2 ** 53:
        raise fail(f"{key} {value!r} is not a whole number from {least}", reason, obj.at, item)
    return value


def _buffers(doc: Gltf, root, binary) -> None:
    buffers = root.get("buffers", [])
    fallbacks = codecs.fallback_buffers(root)
    for i, b in enumerate(buffers):
        length = _count(b, "byteLength", R.Buffer, i, least=1)
        uri = b.get("uri")
        doc.buffer_lengths.append(length)
        if uri is None:
            if i == 0 and binary is not None:
                if binary.nbytes < length:
                    raise fail(f"buffer 0: the BIN chunk holds {binary.nbytes} of {length} bytes",
                               R.Buffer, b.at, i)
                doc.buffers.append(binary[:length])
            else:
                doc.buffers.append(None)
            doc.uris.append(None)
            continue
        if not isinstance(uri, str):
            raise fail(f"buffer {i}: uri is not a string", R.Buffer, b.at, i)
        if uri.startswith("data:"):
            head, comma, body = uri.partition(",")
            if not comma or not head.endswith(";base64"):
                raise fail(f"buffer {i}: a data: URI not base64", R.Buffer, b.at, i)
            try:
                decoded = base64.b64decode(body, validate=True)
            except (ValueError, TypeError):
                raise fail(f"buffer {i}: base64 refused", R.Buffer, b.at, i) from None
            if len(decoded) < length:
                raise fail(f"buffer {i}: data: holds {len(decoded)} of {length} bytes",
                           R.Buffer, b.at, i)
            doc.buffers.append(decoded[:length])
            doc.uris.append(None)
        elif i in fallbacks:
            doc.buffers.append(None)
            doc.uris.append(None)
        else:
            doc.buffers.append(None)
            doc.uris.append(uri)


def _views(doc: Gltf, root) -> None:
    nbuf = len(doc.buffer_lengths)
    for v, view in enumerate(root.get("bufferViews", [])):
        b = view.get("buffer")
        if not is_int(b) or not 0 <= b < nbuf:
            raise fail(f"view {v}: buffer {b!r} past the {nbuf} buffers", R.View, view.at, v)
        offset = _count(view, "byteOffset", R.View, v, default=0)
        length = _count(view, "byteLength", R.View, v, least=1)
        stride = _count(view, "byteStride", R.View, v, default=0)
        if stride and not (4 <= stride <= 252 and stride % 4 == 0):
            raise fail(f"view {v}: byteStride {stride}", R.View, view.at, v)
        if offset + length > doc.buffer_lengths[b]:
            raise fail(f"view {v} runs past buffer {b}", R.View, view.at, v)
        stream = codecs.meshopt_stream(view, v, nbuf, doc.buffer_lengths, length)
        if stream is None and doc.buffers[b] is None and doc.uris[b] is None:
            raise fail(f"view {v}: buffer {b} has no data", R.Buffer, view.at, b)
        doc.views.append(_View(b, offset, length, stride, view.at, stream))


def _accessors(doc: Gltf, root) -> None:
    nview = len(doc.views)
    for i, a in enumerate(root.get("accessors", [])):
        component = a.get("componentType")
        kind = a.get("type")
        if not is_int(component) or component not in COMPONENTS:
            raise fail(f"accessor {i}: componentType {component!r}", R.Accessor, a.at, i)
        if not isinstance(kind, str) or kind not in WIDTHS:
            raise fail(f"accessor {i}: type {kind!r}", R.Accessor, a.at, i)
        count = _count(a, "count", R.Accessor, i, least=1)
        if count > MAX_ELEMENTS:
            raise fail(f"accessor {i}: count {count} past {MAX_ELEMENTS}", R.Accessor, a.at, i)
        normalized = a.get("normalized", False)
        if not isinstance(normalized, bool) or (normalized and component in (5125, 5126)):
            raise fail(f"accessor {i}: normalized {normalized!r}", R.Accessor, a.at, i)
        offset = _count(a, "byteOffset", R.Accessor, i, default=0)
        v = a.get("bufferView")
        dtype = COMPONENTS[component]
        if v is not None:
            if not is_int(v) or not 0 <= v < nview:
                raise fail(f"accessor {i}: bufferView {v!r} past the {nview} views",
                           R.Accessor, a.at, i)
            _fits(doc.views[v], offset, count, kind, dtype, a.at, i)
        elif "byteOffset" in a:
            raise fail(f"accessor {i}: byteOffset without a bufferView", R.Accessor, a.at, i)
        elif count * WIDTHS[kind] > MAX_ZEROS:
            raise fail(f"accessor {i}: {count} zero elements without a view", R.Accessor, a.at, i)
        sparse = _sparse(doc, a, i, count, kind, dtype)
        doc.accessors.append(_Accessor(v, offset, component, kind, count, normalized,
                                       sparse, a.at))


def _element_bytes(kind: str, dtype: np.dtype) -> int:
    columns = COLUMNS.get(kind)
    if not columns:
        return WIDTHS[kind] * dtype.itemsize
    column = (WIDTHS[kind] // columns) * dtype.itemsize
    return (-(-column // 4) * 4 if dtype.itemsize < 4 else column) * columns


def _fits(view: _View, offset: int, count: int, kind: str, dtype, at: int, i: int,
          stride: int | None = None) -> None:
    element = _element_bytes(kind, dtype)
    step = view.stride if stride is None else stride
    step = step or element
    if step < element and view.stride:
        raise fail(f"accessor {i}: stride {step} below its element's {element} bytes",
                   R.Accessor, at, i)
    if offset % dtype.itemsize or (view.offset + offset) % dtype.itemsize:
        raise fail(f"accessor {i}: offset not aligned to its components", R.Accessor, at, i)
    if offset + step * (count - 1) + element > view.length:
        raise fail(f"accessor {i} runs past its view", R.Accessor, at, i)


def _sparse(doc: Gltf, a: dict, i: int, count: int, kind: str, dtype):
    s = a.get("sparse")
    if s is None:
        return None
    if not isinstance(s, dict):
        raise fail(f"accessor {i}: sparse is not an object", R.Accessor, a.at, i)
    n = _count(s, "count", R.Accessor, i, least=1)
    if n > count:
        raise fail(f"accessor {i}: {n} sparse elements of {count}", R.Accessor, s.at, i)
    ind, val = s.get("indices"), s.get("values")
    if not isinstance(ind, dict) or not isinstance(val, dict):
        raise fail(f"accessor {i}: sparse without indices and values", R.Accessor, s.at, i)
    out = {"count": n}
    for part, obj, comp in (("i", ind, ind.get("componentType")), ("v", val, None)):
        v = obj.get("bufferView")
        if not is_int(v) or not 0 <= v < len(doc.views):
            raise fail(f"accessor {i}: sparse bufferView {v!r}", R.Accessor, obj.at, i)
        offset = _count(obj, "byteOffset", R.Accessor, i, default=0)
        if part == "i":
            if comp not in (5121, 5123, 5125) or isinstance(comp, bool):
                raise fail(f"accessor {i}: sparse index type {comp!r}", R.Accessor, obj.at, i)
            _fits(doc.views[v], offset, n, "SCALAR", COMPONENTS[comp], obj.at, i, stride=0)
            out["icomponent"] = comp
        else:
            _fits(doc.views[v], offset, n, kind, dtype, obj.at, i, stride=0)
        out[part + "view"] = v
        out[part + "offset"] = offset
    return out


def _nodes(doc: Gltf, root) -> None:
    items = root.get("nodes", [])
    n = len(items)
    nodes = []
    nmesh, nskin = len(root.get("meshes", [])), len(root.get("skins", []))
    for i, obj in enumerate(items):
        name = obj.get("name")
        node = Node(name.encode("utf-8", "surrogatepass") if isinstance(name, str) and name
                    else None, at=obj.at)
        children = obj.get("children", [])
        if not isinstance(children, list) or not all(is_int(c) for c in children):
            raise fail(f"node {i}: children not an array of indices", R.Property, obj.at, i)
        for c in children:
            if not 0 <= c < n or c == i:
                raise fail(f"node {i}: child {c} past the {n} nodes", R.Index, obj.at, i)
        node.children = list(children)
        for key, count in (("mesh", nmesh), ("skin", nskin)):
            value = obj.get(key)
            if value is not None:
                if not is_int(value) or not 0 <= value < count:
                    raise fail(f"node {i}: {key} {value!r} past the {count}", R.Index, obj.at, i)
                setattr(node, key, value)
        node.weights = obj.get("weights")
        if "matrix" in obj:
            m = obj["matrix"]
            if not isinstance(m, list) or len(m) != 16 or not all(is_number(x) for x in m):
                raise fail(f"node {i}: matrix not 16 numbers", R.Property, obj.at, i)
            node.matrix = np.array(m, dtype=np.float64).reshape(4, 4).T
        for key, width in (("translation", 3), ("rotation", 4), ("scale", 3)):
            if key in obj:
                value = obj[key]
                if not isinstance(value, list) or len(value) != width \
                        or not all(is_number(x) for x in value):
                    raise fail(f"node {i}: {key} not {width} numbers", R.Property, obj.at, i)
                setattr(node, key, np.array(value, dtype=np.float64))
        q = node.rotation
        if not 0.5 < float(q @ q) < 2.0:
            raise fail(f"node {i}: rotation not of unit length", R.Property, obj.at, i)
        node.rotation = q / math.sqrt(float(q @ q))
        nodes.append(node)
    for i, node in enumerate(nodes):
        for c in node.children:
            if nodes[c].parent != -1:
                raise fail(f"node {c} has two parents", R.Property, nodes[c].at, c)
            nodes[c].parent = i
    reached = [False] * n       # a loop is nodes no root reaches
    stack = [i for i in range(n) if nodes[i].parent == -1]
    while stack:
        i = stack.pop()
        reached[i] = True
        stack.extend(nodes[i].children)
    if not all(reached):
        i = reached.index(False)
        raise fail(f"node {i} is its own ancestor", R.Property, nodes[i].at, i)
    doc.nodes = nodes
    doc.names, doc.renamed = bone_names([nd.name for nd in nodes])


def _ancestors(nodes: list[Node], i: int) -> list[int]:
    out = []
    while i != -1:
        out.append(i)
        i = nodes[i].parent
    return out


def _closure(nodes: list[Node], joints) -> tuple[set[int], int]:
    """Joints, their common root and the nodes between (with no common root, every node
    above each joint), and that root (or -1)."""
    paths = [_ancestors(nodes, j) for j in joints]
    common = set(paths[0])
    for path in paths[1:]:
        common &= set(path)
    root = next((n for n in paths[0] if n in common), -1)
    out: set[int] = set()
    for path in paths:
        for n in path:
            out.add(n)
            if n == root:
                break
    return out, root


def _skins(doc: Gltf, root) -> None:
    """Each skin's joints checked, and the skeletons they make: skins whose node sets meet
    share one, numbered by their lowest skin."""
    sets = []
    for k, skin in enumerate(root.get("skins", [])):
        joints = skin.get("joints")
        if not isinstance(joints, list) or not joints or not all(is_int(j) for j in joints):
            raise fail(f"skin {k}: joints not an array of node indices", R.Property, skin.at, k)
        for j in joints:
            if not 0 <= j < len(doc.nodes):
                raise fail(f"skin {k}: joint {j} past the {len(doc.nodes)} nodes", R.Index,
                           skin.at, k)
        if len(set(joints)) != len(joints):
            raise fail(f"skin {k}: a joint given twice", R.Property, skin.at, k)
        doc.skin_joints.append(list(joints))
        sets.append(_closure(doc.nodes, joints)[0])
    groups = [[k] for k in range(len(sets))]
    members = [set(s) for s in sets]
    merged = True
    while merged:
        merged = False
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                if members[a] & members[b]:
                    groups[a] += groups.pop(b)
                    members[a] = _closure(doc.nodes, sorted(members[a] | members.pop(b)))[0]
                    merged = True
                    break
            if merged:
                break
    doc.skin_skeleton = [0] * len(sets)
    for g, (skins, nodes) in enumerate(zip(groups, members)):
        for k in skins:
            doc.skin_skeleton[k] = g
        doc.skeletons.append((sorted(nodes), _closure(doc.nodes, sorted(nodes))[1]))


def opened_document(doc, what: str = "gltf") -> Gltf:
    """The document itself; InvalidError for None or anything else (a closed one reads as
    empty, so its lists are past every index)."""
    if not isinstance(doc, Gltf):
        raise InvalidError(f"{what} is not an opened glTF document")
    return doc
