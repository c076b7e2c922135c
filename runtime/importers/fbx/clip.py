"""Clips from FBX 7.x animation stacks, evaluated as ufbx evaluates them.

6.x Takes give the same: each Model's Transform channel's T, R and S, keyed as ufbx reads
a take's keys. A stack's layers are its AnimationLayer children in connection order; a layer's curve nodes
(AnimationCurveNode) connect to a model's property; a curve node's d|X, d|Y, d|Z give its
value where it has no curve, its AnimationCurve children (by d|X...) the rest. The stack's
first layer replaces a property's value; each later one combines with it as ufbx combines
layers (additive, override, override passthrough; rotations as quaternions turned in the
RotationOrder the model has at the sample, scales multiplied, where the layer composes
them). An animated RotationOrder turns its model sample by sample; an animated InheritType
is held at rest, as ufbx reads it; either is refused out of range.

The grid starts at the stack's LocalStart (else ReferenceStart, else its first key) and
runs to its LocalStop (ReferenceStop, last key); sample k is evaluated at the start plus k
over the rate rounded to a whole KTime tick. Every model is evaluated at every sample
(vectorised over the samples) with FBX's transform rules and inheritance, so each bone of
the skeleton named as a model, or a model's helper, takes its local exactly as the
skeleton's rest formed it."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...clip.build import ChannelPath, ChannelSource, ClipSource, FloatTrackSource, build_clip
from ...clip.clip import MAX_SAMPLES, sample_count
from ...core.errors import BuildReason, CapacityError, ManiError
from ...core.limits import NO_BONE
from ...core.transform import quats_from_matrices
from ..common import ImportClipOptions, ImportFormatError, ImportReason
from .curves import KTIME_SECOND, evaluate_curve, read_curve, read_take_curve
from .scene import NONE, Scene
from .skeleton import HELPER_SUFFIX, FbxOptions, basis
from .transform import (INHERIT_COMPONENTWISE, INHERIT_NORMAL, euler_matrix, inherit_mode,
                        model_order, needed, rest_order)

__all__ = ["stack_animation", "take_animation", "animation", "build"]

_TRANSFORM_PROPS = (b"Lcl Translation", b"Lcl Rotation", b"Lcl Scaling")
_COMPONENTS = (b"d|X", b"d|Y", b"d|Z")


class Entry(NamedTuple):
    """One layer's animation of a property: the layer's index and blending (None for a
    take), each component's curve-node value (NaN where it has none) and curve, and the
    record they come from (the curve node, or a take's channel)."""

    index: int
    layer: "Layer | None"
    defaults: list
    curves: list
    offset: int


class Layer:
    """An AnimationLayer's blending, as ufbx reads it: BlendMode 0 additive, 1 override,
    2 override passthrough (blended); Weight / 100 clamped to [0, 1] (animated only where
    blended); rotation and scale composed (as quaternions, multiplied) unless their
    accumulation modes say otherwise."""

    def __init__(self, scene: Scene, obj, weight_curve):
        def number(name, default):
            found = obj.prop(name)
            v = found[0].number(found[1]) if found is not None else None
            return default if not isinstance(v, (int, float)) or isinstance(v, bool) else v
        mode = number(b"BlendMode", 0)
        self.additive = mode == 0
        self.blended = mode in (0, 2)
        w = float(number(b"Weight", 100.0)) / 100.0
        self.weight = 1.0 if w > 0.99999 else max(w, 0.0)
        self.weight_curve = weight_curve if self.blended else None
        self.compose_rotation = number(b"RotationAccumulationMode", 0) == 0
        self.compose_scale = number(b"ScaleAccumulationMode", 0) == 0

    def weights(self, times: np.ndarray) -> np.ndarray:
        if self.weight_curve is None:
            return np.full(times.shape, self.weight)
        w = evaluate_curve(self.weight_curve, times, self.weight * 100.0) / 100.0
        return np.where(w > 0.99999, 1.0, np.maximum(w, 0.0))


def stack_animation(scene: Scene, clip: int) -> tuple[dict, list]:
    """{model: {property: [Entry]}} for every layer of the
    stack holding the property, in layer order (other objects' properties keyed by
    ("object", index)), and every key time seen (seconds)."""
    stack = scene.stacks[clip]
    layers = [c for c in scene.children.get(stack, ()) if scene.objects[c].kind == b"AnimationLayer"]
    out: dict = {}
    key_times: list = []
    node_target: dict = {}
    for src, dst, prop in scene.prop_links:
        if scene.objects[src].kind == b"AnimationCurveNode":
            node_target.setdefault(src, (dst, prop))
    curves_of: dict = {}
    for src, dst, prop in scene.prop_links:
        if scene.objects[src].kind == b"AnimationCurve" and scene.objects[dst].kind == b"AnimationCurveNode":
            curves_of.setdefault(dst, {}).setdefault(prop, src)

    def curve(cid):
        try:
            c = read_curve(scene.objects[cid].record, cid)
        except ImportFormatError as exc:
            raise ImportFormatError(f"the stack's curves are refused: {exc}",
                                    ImportReason.Property, offset=exc.offset,
                                    item=clip) from None
        key_times.extend(c.times.tolist())
        return c

    for ix, layer in enumerate(layers):
        weight_curve = None
        for node in scene.children.get(layer, ()):
            target = node_target.get(node)
            if target is not None and target == (layer, b"Weight") and curves_of.get(node):
                weight_curve = curve(next(iter(curves_of[node].values())))
        blend = Layer(scene, scene.objects[layer], weight_curve)
        for node in scene.children.get(layer, ()):
            obj = scene.objects[node]
            target = node_target.get(node)
            if obj.kind != b"AnimationCurveNode" or target is None or target[0] == layer:
                continue
            # models by model index; other objects (blend channels) as ("object", index)
            model = scene.model_of.get(target[0], ("object", target[0]))
            prop = target[1]
            entries = out.setdefault(model, {}).setdefault(prop, [])
            if entries and entries[-1][0] == ix:
                continue                      # one curve node a property a layer
            names = [n for n in obj.props if n.startswith(b"d|")]
            if set(names) <= set(_COMPONENTS):
                names = list(_COMPONENTS)
            default = []
            curves = []
            for comp in names:
                found = obj.prop(comp)
                value = found[0].number(found[1]) if found is not None else None
                default.append(float(value) if isinstance(value, (int, float))
                               and not isinstance(value, bool) else math.nan)
                cid = curves_of.get(node, {}).get(comp)
                curves.append(None if cid is None else curve(cid))
            entries.append(Entry(ix, blend, default, curves, obj.record.offset))
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
            if channel.string(0) == b"Transform":
                parts = [(_TAKE_PROPS.get(p.string(0)), p) for p in channel.all(b"Channel")]
            else:
                parts = [(channel.string(0), channel)]
            for prop, part in parts:
                if not prop:
                    continue
                comps = [part] if part.child(b"Key") is not None or part.child(b"Default") \
                    is not None else [c for c in part.all(b"Channel")
                                      if c.child(b"Key") is not None or c.child(b"Default") is not None]
                if not comps:
                    continue
                xyz = comps[0] is not part and all(c.string(0) in _AXES for c in comps)
                width = 3 if xyz or prop in _VECTORS else len(comps)
                default = [math.nan] * width
                curves: list = [None] * width
                for k, comp in enumerate(comps[:width]):
                    axis = _AXES[comp.string(0)] if xyz else k
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
                out.setdefault(m, {})[prop] = [Entry(0, None, default, curves, part.offset)]
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


_VECTORS = {b"Lcl Translation": (0.0, 0.0, 0.0), b"Lcl Rotation": (0.0, 0.0, 0.0),
            b"Lcl Scaling": (1.0, 1.0, 1.0), b"RotationPivot": (0.0, 0.0, 0.0),
            b"ScalingPivot": (0.0, 0.0, 0.0), b"RotationOffset": (0.0, 0.0, 0.0),
            b"ScalingOffset": (0.0, 0.0, 0.0), b"PreRotation": (0.0, 0.0, 0.0),
            b"PostRotation": (0.0, 0.0, 0.0)}
ROTATION_MATRIX = b"\x00rotation"          # a layered Lcl Rotation, as (S, 3, 3)
# the integer inputs of a transform that animation may change: their rest default and
# largest value. An animated RotationOrder turns its model sample by sample; an animated
# InheritType is held at rest, as ufbx reads it once at load (as RotationActive and
# RotationSpaceForLimitOnly are, where every value is one); either is refused out of range.
_INTEGERS = {b"RotationOrder": (0.0, 6), b"InheritType": (1.0, 2)}


def _integer_values(scene: Scene, m: int, prop: bytes, entries, times) -> np.ndarray:
    """An animated integer input at `times`, its layers combined and the sum truncated as
    ufbx takes a number as an integer. One out of range is refused: Property, the model
    the item, the offset the record of the layer's curve (or curve node) that takes it
    out of range at the first sample found out."""
    obj = scene.objects[scene.models[m]]
    default, top = _INTEGERS[prop]
    steps = [(e, np.trunc(v[:, 0])) for e, v in _layered(entries, [obj.scalar(prop, default)],
                                                          times)]
    bad = ~((steps[-1][1] >= 0) & (steps[-1][1] <= top))       # NaN among them
    if bad.any():
        s = int(np.argmax(bad))
        culprit, was_out = steps[0][0], False
        for entry, v in steps:
            out = not 0 <= v[s] <= top
            if out and not was_out:
                culprit = entry
            was_out = out
        curve = culprit.curves[0] if culprit.curves else None
        raise ImportFormatError(f"{prop.decode()} animated out of range", ImportReason.Property,
                                offset=culprit.offset if curve is None else curve.offset,
                                item=scene.models[m])
    return steps[-1][1].astype(np.int64)


def _layered(entries, static, times):
    """(entry, (S, n) value) after each layer of a number's animation, combined as ufbx
    combines layers where it composes nothing: the first layer (or a take) and an override
    replace, an additive layer adds by its weight, an override passthrough blends by it."""
    result = np.tile(np.asarray(static, dtype=np.float64), (times.size, 1))
    for entry in entries:
        v = _component_values(entry, static, times)
        layer = entry.layer
        if entry.index == 0 or layer is None or not layer.blended:
            result = v
        else:
            w = layer.weights(times)[:, None]
            result = result + v * w if layer.additive else result * (1.0 - w) + v * w
        yield entry, result


def _combined(entries, static, times) -> np.ndarray:
    """A number's animation at `times`, every layer combined as _layered combines them."""
    *_, (_entry, value) = _layered(entries, static, times)
    return value


def _component_values(entry: Entry, static, times):
    default, curves = entry.defaults, entry.curves
    cols = []
    for k in range(len(static)):
        base = default[k] if k < len(default) else math.nan
        if math.isnan(base):
            base = static[k]
        c = curves[k] if k < len(curves) else None
        cols.append(np.full(times.shape, base) if c is None else evaluate_curve(c, times, base))
    return np.stack(cols, -1)


def _pow_abs(v, e):
    e = e[:, None]
    with np.errstate(all="ignore"):
        p = np.sign(v) * np.abs(v) ** e
    return np.where(e <= 0.0, 1.0, np.where(e >= 1.0, v, p))


def _slerp(a, b, t):
    dot = np.einsum("si,si->s", a, b)
    b = np.where(dot[:, None] < 0, -b, b)
    omega = np.arccos(np.clip(np.abs(dot), 0.0, 1.0))
    small = omega <= 1.175494351e-38
    so = np.where(small, 1.0, np.sin(omega))
    af = np.sin((1.0 - t) * omega) / so
    bf = np.sin(t * omega) / so
    r = af[:, None] * a + bf[:, None] * b
    with np.errstate(all="ignore"):
        r /= np.linalg.norm(r, axis=1, keepdims=True)
    return np.where(small[:, None], a, r)


def _values(scene: Scene, m: int, anim: dict, times: np.ndarray) -> dict:
    """The animated transform properties of model m at `times`, (S, 3) each, its layers
    combined as ufbx combines them (a composed rotation as ROTATION_MATRIX, turned in the
    RotationOrder the model has at each sample); animated integer inputs as (S,)."""
    from ...core.transform import quat_mul
    out = {}
    obj = scene.objects[scene.models[m]]
    animated = anim.get(m, {})
    for prop in _INTEGERS:
        if prop in animated:
            out[prop] = _integer_values(scene, m, prop, animated[prop], times)
    orders = out.get(b"RotationOrder")
    if orders is None:
        orders = np.full(times.size, rest_order(obj))
    for prop, entries in animated.items():
        if prop not in _VECTORS:
            continue
        static = obj.vector(prop, _VECTORS[prop])
        result = np.broadcast_to(np.asarray(static, dtype=np.float64), (times.size, 3)).copy()
        quat = None                       # a composed rotation, once one layer composes
        for entry in entries:
            ix, layer = entry[0], entry[1]
            v = _component_values(entry, static, times)
            if ix == 0 or layer is None:
                result, quat = v, None
                continue
            w = layer.weights(times)
            if prop == b"Lcl Rotation" and layer.compose_rotation and layer.blended:
                a = quat if quat is not None else quats_from_matrices(_turns(result, orders))
                b = quats_from_matrices(_turns(v, orders))
                if layer.additive:
                    quat = quat_mul(a, _slerp(np.tile([0.0, 0.0, 0.0, 1.0], (times.size, 1)), b, w))
                else:
                    quat = _slerp(a, b, w)
                continue
            if quat is not None:
                result = _eulers_of(_quat_matrices(quat), orders)
                quat = None
            if layer.additive:
                if prop == b"Lcl Scaling" and layer.compose_scale:
                    result = result * _pow_abs(v, w)
                else:
                    result = result + v * w[:, None]
            elif layer.blended:
                if prop == b"Lcl Scaling" and layer.compose_scale:
                    result = _pow_abs(result, 1.0 - w) * _pow_abs(v, w)
                else:
                    result = result * (1.0 - w[:, None]) + v * w[:, None]
            else:
                result = v
        out[prop] = result
        if quat is not None:
            out[ROTATION_MATRIX] = _quat_matrices(quat)
    return out


@np.errstate(all="ignore")
def morph_weight_tracks(scene: Scene, morph, anim: dict, times: np.ndarray) -> list:
    """(target name, (S,) weights) of a morph set at `times`: each channel's DeformPercent
    (its curves, else its value) walked through its targets as at rest."""
    from .morph import _deform_percent, walk
    out = []
    for c, (name, shapes, ch) in enumerate(morph.channels):
        percent = np.full(times.shape, _deform_percent(ch))
        entries = anim.get(("object", ch.index), {}).get(b"DeformPercent") if ch is not None else None
        if entries:
            static = [float(percent[0]) if times.size else 0.0]
            percent = _combined(entries, static, times)[:, 0]
        fulls = [w for w, *_ in shapes]
        weights = np.array([walk(p / 100.0, fulls) for p in percent.tolist()]).reshape(-1, len(fulls))
        for k, (_w, _rec, shape_name, _pv) in enumerate(shapes):
            target = shape_name or (name if k == 0 else name + b"/%d" % k)
            out.append((target, weights[:, k]))
    return out


_INPUTS = set(_VECTORS) | {b"RotationOrder", b"RotationActive", b"RotationSpaceForLimitOnly",
                           b"InheritType", b"GeometricTranslation", b"GeometricRotation",
                           b"GeometricScaling"}


@np.errstate(all="ignore")
def float_values(scene: Scene, m: int, anim: dict, times: np.ndarray) -> list:
    """(property, (S, n) values) of every number model m animates that is not an input of
    its transform, its layers combined (added, blended or replaced) as ufbx does."""
    out = []
    obj = scene.objects[scene.models[m]]
    for prop, entries in anim.get(m, {}).items():
        if prop in _INPUTS:
            continue
        width = max(len(e[2]) for e in entries)
        found = obj.prop(prop)
        static = []
        for k in range(width):
            v = found[0].number(found[1] + k) if found is not None else None
            static.append(float(v) if isinstance(v, (int, float)) else 0.0)
        out.append((prop, _combined(entries, static, times)))
    return out


def _quat_matrices(q):
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def _turns(degrees, orders) -> np.ndarray:
    """(S, 3, 3) rotations of (S, 3) Euler angles, sample s turned in RotationOrder
    orders[s]."""
    out = np.empty(degrees.shape[:-1] + (3, 3))
    for o in np.unique(orders).tolist():
        sel = orders == o
        out[sel] = euler_matrix(degrees[sel], o)
    return out


def _eulers_of(m, orders) -> np.ndarray:
    """(S, 3) Euler angles in degrees, sample s's in RotationOrder orders[s], that make the
    rotations m."""
    out = np.empty(m.shape[:-2] + (3,))
    for o in np.unique(orders).tolist():
        sel = orders == o
        out[sel] = _euler_of(m[sel], o)
    return out


def _euler_of(m, order: int) -> np.ndarray:
    """Euler angles in degrees turning in RotationOrder `order` that make the rotations m
    (the middle angle within +-90 degrees)."""
    from .transform import ORDERS
    i, j, k = ORDERS[order]
    even = (j - i) % 3 == 1
    s = 1.0 if even else -1.0
    mid = np.arcsin(np.clip(-s * m[:, k, i], -1.0, 1.0))
    first = np.arctan2(s * m[:, k, j], m[:, k, k])
    last = np.arctan2(s * m[:, j, i], m[:, i, i])
    out = np.zeros((m.shape[0], 3))
    out[:, i], out[:, j], out[:, k] = first, mid, last
    return np.degrees(out)


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
    order = values.get(b"RotationOrder")
    if order is None:
        order = np.full(s, rest_order(obj))
    active = np.full(s, obj.scalar(b"RotationActive", 1.0) != 0
                     and obj.scalar(b"RotationSpaceForLimitOnly", 0.0) == 0)
    turn = np.empty((s, 3, 3))
    composed = values.get(ROTATION_MATRIX)
    for o in np.unique(order).tolist():
        for on in (True, False):
            sel = (order == o) & (active == on)
            if not sel.any():
                continue
            if composed is not None:            # a composed rotation: in the model's order
                turn[sel] = composed[sel] if on else euler_matrix(_euler_of(composed[sel], o), 0)
            else:
                turn[sel] = euler_matrix(r[sel], o if on else 0)
    pre = euler_matrix(v(b"PreRotation", zero), 0)
    post = euler_matrix(v(b"PostRotation", zero), 0)
    rot = np.where(active[:, None, None], pre @ turn @ np.swapaxes(post, -1, -2), turn)
    arm = so + sp - sc * sp - rp
    return t + ro + rp + np.einsum("sij,sj->si", rot, arm), rot, np.array(sc, dtype=np.float64)


def _matrices(t, r, s) -> np.ndarray:
    m = np.zeros(t.shape[:-1] + (4, 4))
    m[..., :3, :3] = r * s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


@np.errstate(all="ignore")
def evaluate_at(scene: Scene, anim: dict, times: np.ndarray, only=None):
    """Every model's effective local (t, R, s), world and unscaled world at `times` (with
    `only`, just those models and their ancestors, as transform.evaluate)."""
    n, s = len(scene.models), times.size
    locals_: list = [None] * n
    world = np.zeros((n, s, 4, 4))
    unscaled = np.zeros((n, s, 4, 4))
    inherit = np.ones((n, s, 3))
    scale_node = [NONE] * n
    keep = needed(scene, only)
    for m in model_order(scene):
        if keep is not None and m not in keep:
            continue
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


@np.errstate(all="ignore")
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
                                item=BuildReason.Timing)     # as the clip builder would
    ticks = start + np.rint(np.arange(count) * (KTIME_SECOND / rate))
    if count > 1:
        ticks[-1] = stop                     # the grid's last sample is at the duration
    times = ticks / KTIME_SECOND
    index = {name: m for m, name in enumerate(scene.bone_names)}
    bones = []
    for bone in range(skeleton.bone_count):
        name = skeleton.bone_name(bone).encode()
        helper = name.endswith(HELPER_SUFFIX) and name not in index
        m = index.get(name[:-len(HELPER_SUFFIX)] if helper else name)
        if m is not None:
            bones.append((bone, name, helper, m))
    locals_, world, unscaled = evaluate_at(scene, anim, times, [m for *_, m in bones])
    P, u = basis(scene, options)
    keyed = np.arange(count) / rate
    keyed[-1] = duration if count > 1 else 0.0
    channels = []
    floats: list = []
    track_names: set = set()
    bound = 0
    for bone, name, helper, m in bones:
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
        if not helper:
            for prop, values in float_values(scene, m, anim, times):
                names = [name + b"/" + prop] if values.shape[1] == 1 else \
                    [name + b"/" + prop + b"/%d" % k for k in range(values.shape[1])]
                for k, track in enumerate(names):
                    if track in track_names:
                        raise ImportFormatError(f"a float track {track!r} named twice",
                                                ImportReason.Name, item=scene.models[m])
                    track_names.add(track)
                    floats.append(FloatTrackSource(track, keyed, values[:, k]))
    from .morph import morph_sets
    for morph in morph_sets(scene):
        bone_name = scene.bone_names[morph.model] if morph.model != NONE else None
        if bone_name is None or skeleton.find_bone(bone_name) == NO_BONE:
            continue
        for target, values in morph_weight_tracks(scene, morph, anim, times):
            track = bone_name + b"/" + target
            if track in track_names:
                raise ImportFormatError(f"a float track {track!r} named twice",
                                        ImportReason.Name, item=scene.models[morph.model])
            track_names.add(track)
            floats.append(FloatTrackSource(track, keyed, values))
    source = ClipSource(skeleton=skeleton, channels=channels, float_tracks=floats,
                        sample_rate=float(rate),
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
