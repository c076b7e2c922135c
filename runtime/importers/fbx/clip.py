"""Clips from FBX 7.x animation stacks, evaluated as ufbx evaluates them.

6.x Takes give the same: each Model's Transform channel's T, R and S, keyed as ufbx reads
a take's keys. A stack's layers are its AnimationLayer children in connection order; a layer's curve nodes
(AnimationCurveNode) connect to a model's property; a curve node's d|X, d|Y, d|Z give its
value where it has no curve, its AnimationCurve children (by d|X...) the rest. The first
layer holding a property replaces its value; further layers are not yet blended (see the
capi's pending note).

The grid starts at the stack's LocalStart (else ReferenceStart, else its first key) and
runs to its LocalStop (ReferenceStop, last key); sample k is evaluated at the start plus k
over the rate rounded to a whole KTime tick. Every model is evaluated at every sample
(vectorised over the samples) with FBX's transform rules and inheritance, so each bone of
the skeleton named as a model, or a model's helper, takes its local exactly as the
skeleton's rest formed it."""
from __future__ import annotations

import math

import numpy as np

from ...clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from ...clip.clip import MAX_SAMPLES, sample_count
from ...core.errors import CapacityError, ManiError
from ...core.limits import NO_BONE
from ...core.transform import quats_from_matrices
from ..common import ImportClipOptions, ImportFormatError, ImportReason
from .curves import KTIME_SECOND, evaluate_curve, read_curve, read_take_curve
from .scene import NONE, Scene
from .skeleton import HELPER_SUFFIX, FbxOptions, basis
from .transform import (INHERIT_COMPONENTWISE, INHERIT_NORMAL, euler_matrix, inherit_mode,
                        model_order)

__all__ = ["stack_animation", "take_animation", "animation", "build"]

_TRANSFORM_PROPS = (b"Lcl Translation", b"Lcl Rotation", b"Lcl Scaling")
_COMPONENTS = (b"d|X", b"d|Y", b"d|Z")


def stack_animation(scene: Scene, clip: int) -> tuple[dict, list]:
    """{model: {property: (default (3,), [curve or None] * 3)}} of the stack's first layer
    holding each property, and every key time seen (seconds)."""
    stack = scene.stacks[clip]
    layers = [c for c in scene.children.get(stack, ()) if scene.objects[c].kind == b"AnimationLayer"]
    out: dict = {}
    key_times: list = []
    node_target: dict = {}
    for src, dst, prop in scene.prop_links:
        if scene.objects[src].kind == b"AnimationCurveNode" and dst in scene.model_of:
            node_target.setdefault(src, (scene.model_of[dst], prop))
    curves_of: dict = {}
    for src, dst, prop in scene.prop_links:
        if scene.objects[src].kind == b"AnimationCurve" and scene.objects[dst].kind == b"AnimationCurveNode":
            curves_of.setdefault(dst, {}).setdefault(prop, src)
    for layer in layers:
        for node in scene.children.get(layer, ()):
            obj = scene.objects[node]
            if obj.kind != b"AnimationCurveNode" or node not in node_target:
                continue
            model, prop = node_target[node]
            props = out.setdefault(model, {})
            if prop in props:
                continue
            default = []
            curves = []
            for k, comp in enumerate(_COMPONENTS):
                found = obj.prop(comp)
                value = found[0].number(found[1]) if found is not None else None
                default.append(float(value) if isinstance(value, (int, float)) else math.nan)
                cid = curves_of.get(node, {}).get(comp)
                if cid is None:
                    curves.append(None)
                    continue
                try:
                    curve = read_curve(scene.objects[cid].record, cid)
                except ImportFormatError as exc:
                    raise ImportFormatError(f"the stack's curves are refused: {exc}",
                                            ImportReason.Property, offset=exc.offset,
                                            item=clip) from None
                curves.append(curve)
                key_times.extend(curve.times.tolist())
            props[prop] = (default, curves)
    return out, key_times


_TAKE_PROPS = {b"T": b"Lcl Translation", b"R": b"Lcl Rotation", b"S": b"Lcl Scaling"}
_AXES = {b"X": 0, b"Y": 1, b"Z": 2}


def take_animation(scene: Scene, clip: int) -> tuple[dict, list]:
    """A 6.x Take as stack_animation gives a stack: each Model's Transform channels T, R
    and S (their X, Y and Z children) as the Lcl properties."""
    take = _takes(scene)[clip]
    out: dict = {}
    key_times: list = []
    for rec in take.all(b"Model"):
        raw = rec.string(0)
        if raw is None:
            continue
        o = scene.by_id.get(scene._key6(raw))
        m = scene.model_of.get(o) if o is not None else None
        if m is None:
            continue
        for channel in rec.all(b"Channel"):
            if channel.string(0) != b"Transform":
                continue
            for part in channel.all(b"Channel"):
                prop = _TAKE_PROPS.get(part.string(0))
                if prop is None:
                    continue
                default = [math.nan] * 3
                curves: list = [None] * 3
                comps = [part] if part.child(b"Key") is not None or part.child(b"Default") \
                    is not None else [c for c in part.all(b"Channel")
                                      if c.child(b"Key") is not None or c.child(b"Default") is not None]
                for k, comp in enumerate(comps[:3]):
                    axis = _AXES.get(comp.string(0), k) if comp is not part else 0
                    d = comp.child(b"Default")
                    value = d.number(0) if d is not None else None
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        default[axis] = float(value)
                    try:
                        curve = read_take_curve(comp, scene.version, clip)
                    except ImportFormatError as exc:
                        raise ImportFormatError(f"the take's curves are refused: {exc}",
                                                ImportReason.Property, offset=exc.offset,
                                                item=clip) from None
                    curves[axis] = curve
                    if curve is not None:
                        key_times.extend(curve.times.tolist())
                out.setdefault(m, {})[prop] = (default, curves)
    return out, key_times


def _takes(scene: Scene) -> list:
    takes = scene.doc.top.child(b"Takes")
    return [] if takes is None else takes.all(b"Take")


def animation(scene: Scene, clip: int) -> tuple[dict, list]:
    """The clip's animated properties, from a stack (7.x) or a take (6.x)."""
    return (stack_animation if scene.version >= 7000 else take_animation)(scene, clip)


def _time_range(scene: Scene, clip: int, key_times: list) -> tuple[int, int]:
    """The stack's (or take's) start and stop, in ticks."""
    if scene.version < 7000:
        take = _takes(scene)[clip]
        for name in (b"LocalTime", b"ReferenceTime"):
            r = take.child(name)
            if r is not None:
                va, vb = r.number(0), r.number(1)
                if isinstance(va, int) and isinstance(vb, int) and vb >= va:
                    return va, vb
        if key_times:
            return round(min(key_times) * KTIME_SECOND), round(max(key_times) * KTIME_SECOND)
        return 0, 0
    obj = scene.objects[scene.stacks[clip]]
    for a, b in ((b"LocalStart", b"LocalStop"), (b"ReferenceStart", b"ReferenceStop")):
        fa, fb = obj.prop(a), obj.prop(b)
        if fa is not None and fb is not None:
            va, vb = fa[0].number(fa[1]), fb[0].number(fb[1])
            if isinstance(va, int) and isinstance(vb, int) and vb >= va:
                return va, vb
    takes = scene.doc.top.child(b"Takes")
    if takes is not None:
        for take in takes.all(b"Take"):
            if take.string(0) == obj.name:
                for name in (b"LocalTime", b"ReferenceTime"):
                    r = take.child(name)
                    if r is not None:
                        va, vb = r.number(0), r.number(1)
                        if isinstance(va, int) and isinstance(vb, int) and vb >= va:
                            return va, vb
    if key_times:
        return round(min(key_times) * KTIME_SECOND), round(max(key_times) * KTIME_SECOND)
    return 0, 0


def _values(scene: Scene, m: int, anim: dict, times: np.ndarray) -> dict:
    """The animated properties of model m at `times`, (S, 3) each."""
    out = {}
    obj = scene.objects[scene.models[m]]
    for prop, (default, curves) in anim.get(m, {}).items():
        fallback = obj.vector(prop, (0.0, 0.0, 0.0)) if prop in (b"Lcl Translation", b"Lcl Rotation") \
            else obj.vector(prop, (1.0, 1.0, 1.0)) if prop == b"Lcl Scaling" else None
        cols = []
        for k in range(3):
            base = default[k]
            if math.isnan(base):
                base = fallback[k] if fallback is not None else 0.0
            c = curves[k]
            cols.append(np.full(times.shape, base) if c is None else evaluate_curve(c, times, base))
        out[prop] = np.stack(cols, -1)
    return out


def _locals_at(obj, values: dict, s: int):
    """Translation (S, 3), rotation (S, 3, 3) and scale (S, 3) of a model's local at S
    samples, FBX's rules as transform.local_of applies them."""
    def v(name, default):
        if name in values:
            return values[name]
        return np.broadcast_to(np.asarray(obj.vector(name, default), dtype=np.float64), (s, 3))
    zero, one = (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)
    t, r, sc = v(b"Lcl Translation", zero), v(b"Lcl Rotation", zero), v(b"Lcl Scaling", one)
    sp, rp = v(b"ScalingPivot", zero), v(b"RotationPivot", zero)
    so, ro = v(b"ScalingOffset", zero), v(b"RotationOffset", zero)
    order = int(obj.scalar(b"RotationOrder", 0.0))
    order = order if 0 <= order <= 6 else 0
    if obj.scalar(b"RotationActive", 1.0) != 0 and obj.scalar(b"RotationSpaceForLimitOnly", 0.0) == 0:
        pre = euler_matrix(v(b"PreRotation", zero), 0)
        post = euler_matrix(v(b"PostRotation", zero), 0)
        rot = pre @ euler_matrix(r, order) @ np.swapaxes(post, -1, -2)
    else:
        rot = euler_matrix(r, 0)
    arm = so + sp - sc * sp - rp
    return t + ro + rp + np.einsum("sij,sj->si", rot, arm), rot, np.array(sc, dtype=np.float64)


def _matrices(t, r, s) -> np.ndarray:
    m = np.zeros(t.shape[:-1] + (4, 4))
    m[..., :3, :3] = r * s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def evaluate_at(scene: Scene, anim: dict, times: np.ndarray):
    """Every model's effective local (t, R, s), world and unscaled world at `times`."""
    n, s = len(scene.models), times.size
    locals_: list = [None] * n
    world = np.zeros((n, s, 4, 4))
    unscaled = np.zeros((n, s, 4, 4))
    inherit = np.ones((n, s, 3))
    scale_node = [NONE] * n
    for m in model_order(scene):
        obj = scene.objects[scene.models[m]]
        t, r, sc = _locals_at(obj, _values(scene, m, anim, times), s)
        p = scene.model_parent[m]
        mode = inherit_mode(obj)
        if p == NONE or mode == INHERIT_NORMAL:
            parent = np.eye(4) if p == NONE else world[p]
            world[m] = parent @ _matrices(t, r, sc)
            unscaled[m] = parent @ _matrices(t, r, np.ones_like(sc))
        else:
            scale_node[m] = p if mode == INHERIT_COMPONENTWISE else scale_node[p]
            parent_scale = inherit[scale_node[m]] if scale_node[m] != NONE else 1.0
            t, sc = t * inherit[p], sc * parent_scale
            world[m] = unscaled[p] @ _matrices(t, r, sc)
            unscaled[m] = unscaled[p] @ _matrices(t, r, np.ones_like(sc))
        inherit[m] = sc
        locals_[m] = (t, r, sc)
    return locals_, world, unscaled


def _hemisphere(q: np.ndarray) -> np.ndarray:
    if q.shape[0] < 2:
        return q
    flips = np.einsum("ij,ij->i", q[1:], q[:-1]) < 0
    sign = np.concatenate(([1.0], np.where(np.cumsum(flips) % 2, -1.0, 1.0)))
    return q * sign[:, None]


def _decomposed(m: np.ndarray, item: int):
    """(S, 4, 4) shear-free matrices to t, q, s; Matrix (item the model) where not."""
    block = m[:, :3, :3]
    scale = np.linalg.norm(block, axis=1)
    if (scale <= 0).any() or not np.isfinite(m).all():
        raise ImportFormatError("a local that does not decompose", ImportReason.Matrix, item=item)
    rot = block / scale[:, None, :]
    neg = np.linalg.det(rot) < 0
    scale[neg, 0] *= -1
    rot[neg, :, 0] *= -1
    if np.abs(np.einsum("sji,sjk->sik", rot, rot) - np.eye(3)).max() > 1e-4:
        raise ImportFormatError("a local with shear at a sample", ImportReason.Matrix, item=item)
    return m[:, :3, 3], quats_from_matrices(rot), scale


def build(builder, scene: Scene, clip: int, skeleton, options: FbxOptions,
          clip_options: ImportClipOptions) -> int:
    """Builds the clip into the builder; returns how many of the skeleton's bones it moves."""
    anim, key_times = animation(scene, clip)
    start, stop = _time_range(scene, clip, key_times)
    rate = clip_options.sample_rate or scene.settings().frame_rate
    duration = (stop - start) / KTIME_SECOND
    count = sample_count(duration, rate)
    if count > MAX_SAMPLES:
        raise ImportFormatError(f"more than {MAX_SAMPLES} samples", ImportReason.Build,
                                item=0)
    ticks = start + np.rint(np.arange(count) * (KTIME_SECOND / rate))
    if count > 1:
        ticks[-1] = stop                     # the grid's last sample is at the duration
    times = ticks / KTIME_SECOND
    locals_, world, unscaled = evaluate_at(scene, anim, times)
    P, u = basis(scene, options)
    keyed = np.arange(count) / rate
    keyed[-1] = duration if count > 1 else 0.0
    channels = []
    bound = 0
    index = {name: m for m, name in enumerate(scene.bone_names)}
    for bone in range(skeleton.bone_count):
        name = skeleton.bone_name(bone).encode()
        helper = name.endswith(HELPER_SUFFIX) and name not in index
        m = index.get(name[:-len(HELPER_SUFFIX)] if helper else name)
        if m is None:
            continue
        t, r, sc = locals_[m]
        if helper:
            sc = np.ones_like(sc)
        if skeleton.parent(bone) == NO_BONE and options.fold_placement:
            p = scene.model_parent[m]
            above = np.eye(4)[None] if p == NONE else (
                world[p] if inherit_mode(scene.objects[scene.models[m]]) == INHERIT_NORMAL
                else unscaled[p])
            full = above @ _matrices(t, r, sc)
            full = _conjugated(full, P, u)
            tt, q, ss = _decomposed(full, scene.models[m])
        else:
            tt = u * np.einsum("ij,sj->si", P, t)
            q = quats_from_matrices(np.einsum("ij,sjk,lk->sil", P, r, P))
            ss = np.einsum("ij,sj->si", np.abs(P), sc)
        q = _hemisphere(q)
        rest = skeleton.rest(bone).astype(np.float64)
        moved = False
        for path, values, width in ((ChannelPath.translation, tt, rest[0:3]),
                                    (ChannelPath.rotation, q, rest[3:7]),
                                    (ChannelPath.scale, ss, rest[7:10])):
            if _leaves_rest(path, values, width):
                channels.append(ChannelSource(bone, path, keyed, values))
                moved = True
        bound += moved
    source = ClipSource(skeleton=skeleton, channels=channels, sample_rate=float(rate),
                        duration=float(keyed[-1]) if count else 0.0, loop=clip_options.loop,
                        additive=clip_options.additive, root_motion=clip_options.root_motion)
    try:
        build_clip(builder, source)
    except (CapacityError, ImportFormatError):
        raise
    except ManiError as exc:
        if exc.reason == 0:
            raise
        raise ImportFormatError(f"the clip builder refuses it: {exc}", ImportReason.Build,
                                item=int(exc.reason)) from None
    return bound


def _conjugated(m, P, u):
    B = np.eye(4)
    B[:3, :3] = u * P
    Binv = np.eye(4)
    Binv[:3, :3] = P.T / u
    return B @ m @ Binv


def _leaves_rest(path, values, rest) -> bool:
    tol = 1e-6 * max(1.0, float(np.abs(rest).max()))
    if path == ChannelPath.rotation:
        d = np.minimum(np.abs(values - rest).max(-1), np.abs(values + rest).max(-1))
        return bool((d > 1e-6).any())
    return bool((np.abs(values - rest) > tol).any())
