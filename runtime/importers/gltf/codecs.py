"""The compressed forms glTF takes, decoded by well-kept decoders rather than ours:
EXT_/KHR_meshopt_compression buffer views by the `meshopt` package, KHR_draco_mesh_compression
primitives by `DracoPy` (both wrap the reference C++ libraries). What is ours is the
checking around them: the extension objects read, offsets and counts bounded, and a stream
the decoder refuses turned into ImportReason.Data at its place."""
from __future__ import annotations

import numpy as np

from ..common import ImportFormatError, ImportReason

MESHOPT_EXTENSIONS = ("EXT_meshopt_compression", "KHR_meshopt_compression")
DRACO_EXTENSION = "KHR_draco_mesh_compression"
_MODES = ("ATTRIBUTES", "TRIANGLES", "INDICES")
_FILTERS = ("NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR")


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 53


def fallback_buffers(root: dict) -> set[int]:
    """Buffers marked as meshopt fallbacks: never read."""
    out = set()
    buffers = root.get("buffers", [])
    for i, b in enumerate(buffers if isinstance(buffers, list) else []):
        ext = b.get("extensions") if isinstance(b, dict) else None
        if isinstance(ext, dict):
            for name in MESHOPT_EXTENSIONS:
                e = ext.get(name)
                if isinstance(e, dict) and e.get("fallback") is True:
                    out.add(i)
    return out


def meshopt_stream(view: dict, v: int, nbuf: int, lengths: list[int], view_length: int):
    """The view's meshopt stream, checked (View refusals), or None for a plain view."""
    ext = view.get("extensions")
    if not isinstance(ext, dict):
        return None
    e = next((ext[n] for n in MESHOPT_EXTENSIONS if n in ext), None)
    if e is None:
        return None

    def bad(what: str):
        return ImportFormatError(f"view {v}: meshopt {what}", ImportReason.View,
                                 offset=getattr(e, "at", view.at), item=v)

    if not isinstance(e, dict):
        raise bad("extension not an object")
    b, offset, length = e.get("buffer"), e.get("byteOffset", 0), e.get("byteLength")
    stride, count = e.get("byteStride"), e.get("count")
    mode, filt = e.get("mode"), e.get("filter", "NONE")
    if not _int(b) or b >= nbuf:
        raise bad(f"buffer {b!r}")
    if not (_int(offset) and _int(length) and length >= 1 and offset + length <= lengths[b]):
        raise bad("stream out of its buffer")
    if not isinstance(mode, str) or not isinstance(filt, str) or mode not in _MODES \
            or filt not in _FILTERS:
        raise bad(f"mode {mode!r} or filter {filt!r}")
    if not (_int(stride) and 1 <= stride <= 256 and _int(count) and count >= 1):
        raise bad("byteStride or count")
    if count * stride > view_length:
        raise bad(f"{count} x {stride} bytes past the view's {view_length}")
    return {"buffer": b, "offset": offset, "length": length, "stride": stride, "count": count,
            "mode": mode, "filter": filt, "at": getattr(e, "at", view.at)}


def decode_meshopt(buffer: memoryview, stream: dict, v: int, view_length: int) -> np.ndarray:
    """The view's bytes decoded, (view_length,) uint8 (past count * stride, zeros)."""
    import meshopt
    data = bytes(buffer[stream["offset"]:stream["offset"] + stream["length"]])
    try:
        rows = meshopt.decode_gltf_buffer(data, stream["count"], stream["stride"],
                                          stream["mode"],
                                          None if stream["filter"] == "NONE" else stream["filter"])
    except Exception as e:      # noqa: BLE001 - the decoder's refusals are Data
        raise ImportFormatError(f"view {v}: meshopt stream refused ({e})", ImportReason.Data,
                                offset=stream["offset"], item=v) from None
    raw = np.ascontiguousarray(rows).view(np.uint8).reshape(-1)
    out = np.zeros(view_length, np.uint8)
    n = min(raw.size, view_length, stream["count"] * stream["stride"])
    out[:n] = raw[:n]
    return out


def decode_draco(data: bytes, view: int, at: int):
    """A Draco stream decoded: {unique id: (count, components) float64 or int array}, and the
    vertex count. Data at the view for a stream the decoder refuses."""
    import DracoPy
    try:
        mesh = DracoPy.decode(data)
        attributes = {}
        for a in mesh.attributes:
            values = np.asarray(a["data"])
            attributes[int(a["unique_id"])] = (values.reshape(values.shape[0], -1),
                                               int(a.get("data_type", 0)))
        count = len(mesh.points)
    except Exception as e:      # noqa: BLE001 - the decoder's refusals are Data
        raise ImportFormatError(f"Draco stream of view {view} refused ({e})",
                                ImportReason.Data, offset=at, item=view) from None
    return attributes, count
