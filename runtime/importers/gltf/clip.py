"""A glTF animation as a clip of an opened skeleton (maniBuildGltfClip): translation,
rotation and scale channels on the skeleton's bones (found by bone name), morph weights of
its bones and of the meshes its skins deform, and KHR_animation_pointer channels to anything
but nodes, as float tracks; the basis change applied and, with the placement folded, the
nodes above each root composed into its channels. The clip's duration is the latest key of
any channel; the clip builder samples every channel on its grid as glTF interpolates it.

Float tracks are named: a weight `bone name/target name` (targets named by the mesh's
extras.targetNames when it names every one, by index otherwise); a pointer channel by its
pointer, `/0`, `/1`... added for each component of a vector."""
from __future__ import annotations

import numpy as np

from ...clip.build import ChannelPath, ChannelSource, ClipSource, FloatTrackSource, build_clip
from ...clip.source import Interpolation
from ...core.builder import Builder
from ...core.errors import BuildReason, InvalidError, ManiError
from ...core.limits import NO_BONE
from ...pose.skeleton import opened
from ..common import ImportClipOptions, ImportFormatError, ImportReason
from . import space
from .document import Gltf, GltfOptions, is_int, opened_document, quiet
from .mesh import mesh_target_count
from .skeleton import _mul

R = ImportReason
_PATHS = {"translation": ChannelPath.translation, "rotation": ChannelPath.rotation,
          "scale": ChannelPath.scale}
_MODES = {"LINEAR": Interpolation.linear, "STEP": Interpolation.step,
          "CUBICSPLINE": Interpolation.cubic_spline}
_WIDTH = {"translation": 3, "rotation": 4, "scale": 3}
DEFAULT_RATE = 30.0
POINTER = "KHR_animation_pointer"

__all__ = ["animation_name", "clip_source", "build_gltf_clip", "target_names"]


def animation_name(doc, animation) -> bytes | None:
    doc = opened_document(doc)
    if not is_int(animation) or not 0 <= animation < len(doc.animations):
        return None
    name = doc.animations[animation].get("name")
    return name.encode("utf-8", "surrogatepass") if isinstance(name, str) else b""


def target_names(doc: Gltf, mesh: int) -> list[bytes]:
    """Each morph target's name: extras.targetNames when it names every target, else the
    index."""
    count = mesh_target_count(doc, mesh)
    extras = doc.meshes[mesh].get("extras")
    given = extras.get("targetNames") if isinstance(extras, dict) else None
    if isinstance(given, list) and len(given) == count \
            and all(isinstance(n, str) and n for n in given):
        return [n.encode("utf-8", "surrogatepass") for n in given]
    return [b"%d" % t for t in range(count)]


def _skinned_meshes(doc: Gltf, skeleton) -> set[int]:
    """Nodes whose mesh a skin with a joint on the skeleton deforms."""
    out = set()
    for i, node in enumerate(doc.nodes):
        if node.mesh >= 0 and node.skin >= 0 and any(
                skeleton.find_bone(doc.names[j]) != NO_BONE for j in doc.skin_joints[node.skin]):
            out.add(i)
    return out


class _Read:
    """One animation's channels read into a clip source, remembering the glTF channel of
    each source item."""

    def __init__(self, doc: Gltf, animation: int, skeleton, options: GltfOptions):
        self.doc, self.animation, self.skeleton, self.options = doc, animation, skeleton, options
        self.obj = doc.animations[animation]
        self.channels: list[ChannelSource] = []
        self.channel_of: list[int] = []
        self.tracks: list[FloatTrackSource] = []
        self.track_of: list[int] = []
        self.latest = 0.0
        self.times: list[np.ndarray] = []
        self.skinned = _skinned_meshes(doc, skeleton)
        self.placements: dict[int, np.ndarray] = {}

    def fail(self, message: str, reason, at: int, item: int) -> ImportFormatError:
        return ImportFormatError(f"animation {self.animation}: {message}", reason, offset=at,
                                 item=item)

    def run(self) -> None:
        channels = self.obj.get("channels", [])
        samplers = self.obj.get("samplers", [])
        if not isinstance(channels, list) or not isinstance(samplers, list):
            raise self.fail("channels or samplers not an array", R.Property, self.obj.at,
                            self.animation)
        for c, ch in enumerate(channels):
            if not isinstance(ch, dict) or not isinstance(ch.get("target"), dict):
                raise self.fail(f"channel {c} without a target", R.Property, self.obj.at, c)
            s = ch.get("sampler")
            if not is_int(s) or not 0 <= s < len(samplers) or not isinstance(samplers[s], dict):
                raise self.fail(f"channel {c}: sampler {s!r} past the {len(samplers)}",
                                R.Index, ch.at, c)
            self._channel(c, ch, samplers[s])

    def _sampler(self, c: int, sampler: dict, at: int):
        mode = sampler.get("interpolation", "LINEAR")
        if not isinstance(mode, str) or mode not in _MODES:
            raise self.fail(f"channel {c}: interpolation {mode!r}", R.Property, sampler.at, c)
        times = self.doc.read(sampler.get("input"), f"channel {c}'s input", c, sampler.at,
                              kinds=("SCALAR",), components=(5126,))[:, 0]
        values = self.doc.read(sampler.get("output"), f"channel {c}'s output", c, sampler.at)
        self.latest = max(self.latest, float(times.max()))
        self.times.append(times)
        return _MODES[mode], times, values

    def _channel(self, c: int, ch: dict, sampler: dict) -> None:
        target = ch["target"]
        path = target.get("path")
        node = target.get("node")
        if path == "pointer":
            ext = target.get("extensions")
            pointer = ext.get(POINTER, {}).get("pointer") if isinstance(ext, dict) else None
            if not isinstance(pointer, str) or not pointer.startswith("/"):
                raise self.fail(f"channel {c}: a pointer channel without its pointer",
                                R.Property, ch.at, c)
            parts = pointer.split("/")
            if len(parts) == 4 and parts[1] == "nodes" and parts[2].isdigit() \
                    and parts[3] in (*_PATHS, "weights"):
                node, path = int(parts[2]), parts[3]
            elif parts[1] == "nodes":
                self._sampler(c, sampler, ch.at)       # counted for the duration only
                return
            else:
                mode, times, values = self._sampler(c, sampler, ch.at)
                self._pointer(c, pointer, mode, times, values, ch.at)
                return
        elif path not in (*_PATHS, "weights"):
            raise self.fail(f"channel {c}: path {path!r}", R.Property, ch.at, c)
        if not is_int(node) or not 0 <= node < len(self.doc.nodes):
            raise self.fail(f"channel {c}: node {node!r} past the {len(self.doc.nodes)} nodes",
                            R.Index, ch.at, c)
        mode, times, values = self._sampler(c, sampler, ch.at)
        k = times.size
        per = 3 if mode == Interpolation.cubic_spline else 1
        if path == "weights":
            self._weights(c, node, mode, times, values, ch.at)
            return
        if values.shape != (per * k, _WIDTH[path]):
            raise self.fail(f"channel {c}: {values.shape[0]} outputs of width "
                            f"{values.shape[1]} for {k} keys of {path}", R.Property, ch.at, c)
        bone = self.skeleton.find_bone(self.doc.names[node])
        if bone == NO_BONE:
            return
        shaped = values.reshape(k, per, -1) if per == 3 else values
        shaped = self._placed(bone, node, path, shaped, mode)
        converted = {"translation": space.points, "rotation": space.rotations,
                     "scale": space.scales}[path](self.options, shaped)
        self.channels.append(ChannelSource(bone, _PATHS[path], times, converted, mode))
        self.channel_of.append(c)

    def _placed(self, bone: int, node: int, path: str, values: np.ndarray, mode) -> np.ndarray:
        """With the placement folded, a root bone's values with the nodes above composed in
        (tangents of CUBICSPLINE keys take the linear part alone)."""
        if not self.options.fold_placement or self.skeleton.parent(bone) != NO_BONE:
            return values
        placement = space.above(self.doc, node)
        if np.allclose(placement, np.eye(4), rtol=0, atol=0):
            return values
        from .skeleton import folded_trs
        pt, pq, ps = folded_trs(self.doc, placement, np.zeros(3), np.array([0, 0, 0, 1.0]),
                                np.ones(3), node, f"animation {self.animation}")
        if path == "translation":
            out = ps[0] * (values @ space.quat_matrix(pq).T)
            if mode == Interpolation.cubic_spline:
                out[:, 1] += pt
            else:
                out += pt
            return out
        if path == "rotation":
            return _mul(pq, values.reshape(-1, 4)).reshape(values.shape)
        return values * ps[0]

    def _weights(self, c, node, mode, times, values, at) -> None:
        doc = self.doc
        mesh = doc.nodes[node].mesh
        if mesh < 0:
            raise self.fail(f"channel {c}: weights of node {node}, which has no mesh",
                            R.Property, at, c)
        count = mesh_target_count(doc, mesh)
        k = times.size
        per = 3 if mode == Interpolation.cubic_spline else 1
        if count == 0 or values.shape != (per * k * count, 1):
            raise self.fail(f"channel {c}: {values.shape[0]} weights for {k} keys of "
                            f"{count} targets", R.Property, at, c)
        if self.skeleton.find_bone(doc.names[node]) == NO_BONE and node not in self.skinned:
            return
        w = values.reshape(k, per, count)
        for t, name in enumerate(target_names(doc, mesh)):
            v = w[:, :, t] if per == 3 else w[:, 0, t]
            self.tracks.append(FloatTrackSource(doc.names[node] + b"/" + name, times, v, mode))
            self.track_of.append(c)

    def _pointer(self, c, pointer, mode, times, values, at) -> None:
        k = times.size
        per = 3 if mode == Interpolation.cubic_spline else 1
        if values.shape[0] % (per * k):
            raise self.fail(f"channel {c}: {values.shape[0]} outputs for {k} keys",
                            R.Property, at, c)
        flat = values.reshape(k, per, -1)
        width = flat.shape[2]
        raw = pointer.encode("utf-8", "surrogatepass")
        for i in range(width):
            v = flat[:, :, i] if per == 3 else flat[:, 0, i]
            self.tracks.append(FloatTrackSource(raw if width == 1 else raw + b"/%d" % i,
                                                times, v, mode))
            self.track_of.append(c)

    def rate(self, given: float) -> float:
        """The options' rate, or for 0 the keys' own: every channel's keys a common step
        apart (within a thousandth of it), else DEFAULT_RATE."""
        if given > 0:
            return given
        steps = [np.diff(t) for t in self.times if t.size > 1]
        if not steps:
            return DEFAULT_RATE
        step = float(np.median(np.concatenate(steps)))
        if step > 0 and all(np.abs(d - step).max() <= 1e-3 * step for d in steps):
            return 1.0 / step
        return DEFAULT_RATE


@quiet
def clip_source(doc, animation, skeleton, options, clip_options) -> tuple[ClipSource, _Read]:
    doc = opened_document(doc)
    if not is_int(animation) or not 0 <= animation < len(doc.animations):
        raise InvalidError(f"animation {animation!r} past the {len(doc.animations)} animations")
    skeleton = opened(skeleton)
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    options = options.checked()
    if not isinstance(clip_options, ImportClipOptions):
        raise InvalidError("clip_options must be ImportClipOptions")
    clip_options = clip_options.checked(skeleton)
    read = _Read(doc, animation, skeleton, options)
    read.run()
    source = ClipSource(skeleton, read.channels, read.tracks,
                        sample_rate=read.rate(clip_options.sample_rate), duration=read.latest,
                        loop=clip_options.loop, additive=clip_options.additive,
                        root_motion=clip_options.root_motion)
    return source, read


def build_gltf_clip(builder, doc, animation, skeleton, options, clip_options) -> tuple[bytes, int]:
    """maniBuildGltfClip: the clip file and how many of the animation's channels it bound
    (a channel on a bone or a weight or pointer track)."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    source, read = clip_source(doc, animation, skeleton, options, clip_options)
    try:
        data = build_clip(builder, source)
    except ManiError as e:
        if e.reason == 0:
            raise
        if e.reason in (BuildReason.Channel, BuildReason.NotFinite) \
                and 0 <= e.item < len(read.channel_of) + len(read.track_of):
            c = (read.channel_of + read.track_of)[e.item]
            raise read.fail(f"channel {c}'s keys refused: {e}", R.Data, read.obj.at, c) from None
        raise ImportFormatError(f"animation {animation}: the clip builder refuses it: {e}",
                                R.Build, offset=read.obj.at, item=int(e.reason)) from None
    return data, len(set(read.channel_of) | set(read.track_of))
