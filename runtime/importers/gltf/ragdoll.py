"""OMI_physics_body, OMI_physics_shape and OMI_physics_joint as a ragdoll profile's source on
an opened skeleton (maniGltf_ReadRagdoll).

A dynamic or kinematic body sits on the bone of its motion node or of that node's nearest
ancestor that is a bone; bodies on no bone (props in the scene) are not the skeleton's and
are passed over, as are static bodies and colliders without a body. The body's frame is
its one collider node's, composed the profile's way (the model matrix's translation, the
product of the local rotations) and given in its bone's scale-free frame; the collider
node's glTF axes are kept as the body's axes (in the output's basis), so a capsule stays
along y and a box's sizes along its own x, y, z. The node's scale (in the model, the
bone's included) goes into the shape's sizes, since the frame leaves it out.

A joint joins a body to its parent body (the nearest of its bone's ancestors that carries
one): its frame is the child side's node's in the child body, its linear axes all fixed,
its angular limits read as twist (x) and symmetric swings (y, z), and its angular
force-mode drives, equal on the three axes and without targets, as the drive. Anything a
profile cannot hold is refused with Unsupported rather than bent to fit."""
from __future__ import annotations

import math

import numpy as np

from ...core import args
from ...core.errors import BusyError, CapacityError, InvalidError
from ...core.limits import NO_BONE
from ...core.transform import quat_conj, quat_mul, quat_rotate
from ...physics.ragdoll_build import (BODY_VALUES, SIZES_USED, BodySource, RagdollShape,
                                      RagdollSource, compose, inverse, rest_frames)
from ...pose.skeleton import opened
from ..common import ImportFormatError, ImportReason
from . import space
from .document import GltfOptions, is_int, is_number, opened_document, quiet

R = ImportReason
BODY, SHAPE, JOINT = "OMI_physics_body", "OMI_physics_shape", "OMI_physics_joint"
AXIS_TOLERANCE = 1e-3           # facing and up: unit and perpendicular within this
SCALE_TOLERANCE = 1e-4          # a sphere's or capsule's scale: equal on its axes within this
SWING_TOLERANCE = 1e-6          # a swing limit: symmetric within this (radians)

__all__ = ["read_ragdoll"]


def _ext(obj, key: str):
    ext = obj.get("extensions") if isinstance(obj, dict) else None
    return ext.get(key) if isinstance(ext, dict) else None


class _Reader:
    def __init__(self, doc, skeleton, options: GltfOptions):
        self.doc, self.skeleton, self.options = doc, skeleton, options
        self.rest = rest_frames(skeleton)
        self.blocks = _rest_blocks(skeleton)
        self.turn_q = space.matrix_quat(options.turn)

    def fail(self, message, reason, obj, item) -> ImportFormatError:
        return ImportFormatError(f"OMI physics: {message}", reason,
                                 offset=getattr(obj, "at", 0), item=item)

    def number(self, obj: dict, key: str, default: float, item: int) -> float:
        value = obj.get(key, default)
        if not is_number(value):
            raise self.fail(f"{key} {value!r} is not a number", R.Property, obj, item)
        return float(value)

    def axes(self, obj: dict, key: str, item: int) -> list:
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(is_int(a) and 0 <= a <= 2 for a in value):
            raise self.fail(f"{key} not an array of axes 0 to 2", R.Property, obj, item)
        return value

    # ---- where nodes are
    def bone_of(self, node: int) -> tuple[int, int]:
        """(bone, its node) of `node` or its nearest ancestor that is a bone; NO_BONE, -1."""
        while node != -1:
            b = self.skeleton.find_bone(self.doc.names[node])
            if b != NO_BONE:
                return b, node
            node = self.doc.nodes[node].parent
        return NO_BONE, -1

    def model(self, node: int, bone: int, bone_node: int):
        """The node's frame in the model (binary64 t, q: its glTF axes in the output's
        basis) and its scale along those axes, from its bone's rest down."""
        o = self.options
        chain = []
        n = node
        while n != bone_node:
            chain.append(n)
            n = self.doc.nodes[n].parent
        p, q, block = self.rest[bone, 0:3].copy(), self.rest[bone, 3:7].copy(), self.blocks[bone]
        for n in reversed(chain):
            t, r, s = space.local_trs(self.doc, n, "OMI physics")
            r = space.rotations(o, r)
            p = p + block @ space.points(o, t)
            block = block @ (space.quat_matrix(r) * space.scales(o, s))
            q = quat_mul(q, r)
        axes = block @ o.turn
        scale = np.linalg.norm(axes, axis=0)
        unit = axes / np.where(scale > 0, scale, 1.0)
        sheared = not (scale > 0).all() or \
            np.abs(unit.T @ unit - np.eye(3)).max() > space.SHEAR_TOLERANCE
        return np.concatenate([p, quat_mul(q, self.turn_q)]), scale, sheared

    # ---- bodies
    def shape(self, index, node: int, scale, sheared) -> tuple[int, list[float]]:
        doc_shapes = _ext(self.doc.json, SHAPE)
        shapes = doc_shapes.get("shapes") if isinstance(doc_shapes, dict) else None
        count = len(shapes) if isinstance(shapes, list) else 0
        if not is_int(index) or not 0 <= index < count:
            raise self.fail(f"node {node}: shape {index!r} past the {count} shapes", R.Index,
                            self.doc.nodes[node], node)
        obj = shapes[index]
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind in ("cylinder", "convex", "trimesh"):
            raise self.fail(f"shape {index}: a {kind}, which a profile cannot hold",
                            R.Unsupported, obj, index)
        if kind not in ("box", "sphere", "capsule"):
            raise self.fail(f"shape {index}: type {kind!r}", R.Property, obj, index)
        body = obj.get(kind, {})
        if not isinstance(body, dict):
            raise self.fail(f"shape {index}: {kind} not an object", R.Property, obj, index)
        if sheared:
            raise self.fail(f"node {node}: a collider scaled to a shear", R.Unsupported,
                            self.doc.nodes[node], node)
        unit = self.options.unit

        def even(a, b, what):
            if abs(a - b) > SCALE_TOLERANCE * max(a, b):
                raise self.fail(f"node {node}: a {what} scaled unevenly", R.Unsupported,
                                self.doc.nodes[node], node)
        if kind == "box":
            size = body.get("size", [1.0, 1.0, 1.0])
            if not isinstance(size, list) or len(size) != 3 or not all(is_number(v)
                                                                       for v in size):
                raise self.fail(f"shape {index}: size not 3 numbers", R.Property, body, index)
            sizes = [float(0.5 * v * s * unit) for v, s in zip(size, scale)]
            shape = RagdollShape.box
        elif kind == "sphere":
            even(scale.max(), scale.min(), "sphere")
            radius = self.number(body, "radius", 0.5, index)
            sizes = [float(radius * scale[0] * unit), 0.0, 0.0]
            shape = RagdollShape.sphere
        else:
            bottom = self.number(body, "radiusBottom", 0.5, index)
            top = self.number(body, "radiusTop", 0.5, index)
            if bottom != top:
                raise self.fail(f"shape {index}: a capsule with two radii", R.Unsupported,
                                body, index)
            even(scale[0], scale[2], "capsule")
            sizes = [float(bottom * scale[0] * unit),
                     float(0.5 * self.number(body, "height", 1.0, index) * scale[1] * unit), 0.0]
            shape = RagdollShape.capsule
        if not all(v > 0 for v in sizes[:SIZES_USED[shape]]):
            raise self.fail(f"shape {index}: a size not above 0", R.Unsupported, obj, index)
        return int(shape), sizes

    def collider_of(self, node: int) -> int:
        """The one collider node of the body whose motion is on `node`: in its subtree, not
        below a node with its own motion."""
        found, stack = [], [node]
        while stack:
            n = stack.pop()
            e = _ext(self.doc.json["nodes"][n], BODY)
            if n != node and _moves(e):
                continue
            collider = e.get("collider") if isinstance(e, dict) else None
            if collider is not None:
                if not isinstance(collider, dict):
                    raise self.fail(f"node {n}: collider not an object", R.Property,
                                    self.doc.nodes[n], n)
                if collider.get("shape", -1) != -1:
                    found.append(n)
            stack.extend(self.doc.nodes[n].children)
        if len(found) != 1:
            raise self.fail(f"node {node}: a body with {len(found)} colliders, not one",
                            R.Unsupported, self.doc.nodes[node], node)
        return found[0]

    def body(self, node: int, motion: dict, bone: int):
        """(source body, its model frame) of the motion on `node`."""
        mass = self.number(motion, "mass", 1.0, node)
        if not mass > 0:
            raise self.fail(f"node {node}: mass {mass} not above 0", R.Unsupported, motion,
                            node)
        c = self.collider_of(node)
        frame, scale, sheared = self.model(c, *self.bone_of(c))
        collider = _ext(self.doc.json["nodes"][c], BODY)["collider"]
        shape, sizes = self.shape(collider["shape"], c, scale, sheared)
        local = compose(inverse(self.rest[bone]), frame)
        local[3:7] /= np.linalg.norm(local[3:7])
        return BodySource(self.doc.names[node], bone, shape, sizes, mass, local[0:3],
                          local[3:7]), frame

    # ---- joints
    def settings(self, index, node: int):
        e = _ext(self.doc.json, JOINT)
        joints = e.get("physicsJoints") if isinstance(e, dict) else None
        count = len(joints) if isinstance(joints, list) else 0
        if not is_int(index) or not 0 <= index < count:
            raise self.fail(f"node {node}: joint {index!r} past the {count} physicsJoints",
                            R.Index, self.doc.nodes[node], node)
        obj = joints[index]
        if not isinstance(obj, dict) or not isinstance(obj.get("limits", []), list) \
                or not isinstance(obj.get("drives", []), list):
            raise self.fail(f"physicsJoints {index}: limits or drives not arrays",
                            R.Property, obj, index)
        return obj, index

    def limits(self, settings: dict, s: int, node: int, into: BodySource) -> None:
        lo, hi = np.full((2, 3), -math.inf), np.full((2, 3), math.inf)
        for limit in settings.get("limits", []):
            if not isinstance(limit, dict):
                raise self.fail(f"physicsJoints {s}: a limit not an object", R.Property,
                                settings, s)
            a, b = self.number(limit, "min", -1e308, s), self.number(limit, "max", 1e308, s)
            stiffness = self.number(limit, "stiffness", -1.0, s)
            if stiffness >= 0:
                raise self.fail(f"physicsJoints {s}: a soft limit", R.Unsupported, limit, s)
            for kind, key in ((0, "linearAxes"), (1, "angularAxes")):
                for axis in self.axes(limit, key, s):
                    lo[kind, axis] = max(lo[kind, axis], a)
                    hi[kind, axis] = min(hi[kind, axis], b)
        if not ((lo[0] == 0) & (hi[0] == 0)).all():
            raise self.fail(f"node {node}: a joint whose linear axes are not all fixed",
                            R.Unsupported, self.doc.nodes[node], node)
        lo, hi = np.clip(lo[1], -math.pi, math.pi), np.clip(hi[1], -math.pi, math.pi)
        if (lo > hi).any() or (np.abs(lo[1:] + hi[1:]) > SWING_TOLERANCE).any():
            raise self.fail(f"node {node}: an empty angular range or an uneven swing",
                            R.Unsupported, self.doc.nodes[node], node)
        into.twist_min, into.twist_max = float(lo[0]), float(hi[0])
        into.swing_y, into.swing_z = float(hi[1]), float(hi[2])

    def drives(self, settings: dict, s: int, node: int, into: BodySource) -> None:
        seen = {}
        for drive in settings.get("drives", []):
            if not isinstance(drive, dict) or not isinstance(drive.get("type"), str) \
                    or not isinstance(drive.get("mode"), str) \
                    or not (is_int(drive.get("axis")) and 0 <= drive["axis"] <= 2):
                raise self.fail(f"physicsJoints {s}: a drive without type, mode or axis",
                                R.Property, drive, s)
            if drive["type"] != "angular" or drive["mode"] != "force" \
                    or "positionTarget" in drive or "velocityTarget" in drive \
                    or drive["axis"] in seen:
                raise self.fail(f"physicsJoints {s}: a drive not angular, in force mode, "
                                "once an axis and without targets", R.Unsupported, drive, s)
            k, c = self.number(drive, "stiffness", 0.0, s), self.number(drive, "damping", 0.0, s)
            f = self.number(drive, "maxForce", -1.0, s)
            if k < 0 or c < 0:
                raise self.fail(f"physicsJoints {s}: a drive's stiffness or damping below 0",
                                R.Property, drive, s)
            seen[drive["axis"]] = (k, c, math.inf if f < 0 else f)
        if not seen:
            return
        if len(seen) != 3 or len(set(seen.values())) != 1 or not seen[0][2] > 0:
            raise self.fail(f"node {node}: drives not equal on the three angular axes, or "
                            "with no force", R.Unsupported, self.doc.nodes[node], node)
        into.stiffness, into.damping, into.max_force = seen[0]


def _rest_blocks(skeleton) -> np.ndarray:
    """Each bone's rest model linear block (rotation and scale composed from the root)."""
    rests = skeleton.rests.astype(np.float64)
    out = np.zeros((skeleton.bone_count, 3, 3))
    for b in range(skeleton.bone_count):
        q = rests[b, 3:7] / np.linalg.norm(rests[b, 3:7])
        local = space.quat_matrix(q) * rests[b, 7:10]
        p = int(skeleton.parents[b])
        out[b] = out[p] @ local if p < b else local
    return out


def _axis(value, what: str) -> np.ndarray:
    v = args.floats(value, (3,), what, dtype=np.float64)
    if not abs(math.sqrt(float(v @ v)) - 1.0) <= AXIS_TOLERANCE:
        raise InvalidError(f"{what} must be of unit length within a thousandth")
    return v


def _motion_nodes(doc) -> list[int]:
    """The nodes with a motion (or an OMI_physics_body that is not an object): each its own
    body, whatever its type."""
    return [n for n, obj in enumerate(doc.json.get("nodes", [])) if _moves(_ext(obj, BODY))]


def _moves(e) -> bool:
    return e is not None and (not isinstance(e, dict) or "motion" in e)


def _motion(reader: _Reader, n: int):
    """A body's motion on the skeleton, checked; None for a static one."""
    obj = reader.doc.json["nodes"][n]
    e = _ext(obj, BODY)
    motion = e.get("motion") if isinstance(e, dict) else None
    if not isinstance(motion, dict):
        raise reader.fail(f"node {n}: {BODY} or its motion not an object", R.Property, obj, n)
    kind = motion.get("type")
    if kind not in ("static", "kinematic", "dynamic"):
        raise reader.fail(f"node {n}: motion type {kind!r}", R.Property, motion, n)
    return None if kind == "static" else motion


@quiet
def read_ragdoll(doc, skeleton, options, facing, up) -> RagdollSource:
    """maniGltf_ReadRagdoll: the source (empty without bodies on the skeleton), kept on the
    document until the next call or its close. `facing` and `up` are in glTF's basis."""
    doc = opened_document(doc)
    if doc.builder._state == "hook":
        doc.builder.misuse += 1
        raise BusyError("a document call from the builder's allocator")
    skeleton = opened(skeleton)
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    options = options.checked()
    facing, up = _axis(facing, "facing"), _axis(up, "up")
    if not abs(float(facing @ up)) <= AXIS_TOLERANCE:
        raise InvalidError("facing and up must be perpendicular within a thousandth")
    reader = _Reader(doc, skeleton, options)
    bodies, frames, node_of, on_bone = [], [], [], {}
    moving = _motion_nodes(doc)
    for n in moving:
        bone = reader.bone_of(n)[0]
        motion = _motion(reader, n) if bone != NO_BONE else None
        if motion is None:
            continue                    # off the skeleton, or static: not the ragdoll's
        if bone in on_bone:
            raise reader.fail(f"node {n}: a second body on bone {bone} (node "
                              f"{on_bone[bone]}'s)", R.Unsupported, doc.nodes[n], n)
        on_bone[bone] = n
        body, frame = reader.body(n, motion, bone)
        bodies.append(body)
        frames.append(frame)
        node_of.append(n)
    if not bodies:
        return _keep(doc, RagdollSource(skeleton, []))
    body_of_bone = {b.bone: i for i, b in enumerate(bodies)}
    parents = []
    for body in bodies:
        p = int(skeleton.parents[body.bone])
        while p < skeleton.bone_count and p not in body_of_bone:
            p = int(skeleton.parents[p])
        parents.append(body_of_bone.get(p, -1))
    roots = [i for i, p in enumerate(parents) if p == -1]
    if len(roots) > 1:
        raise reader.fail(f"node {node_of[roots[1]]}: a second root body (node "
                          f"{node_of[roots[0]]}'s)", R.Unsupported, doc.nodes[node_of[roots[1]]],
                          node_of[roots[1]])
    _joints(reader, bodies, frames, node_of, parents, moving)
    root = roots[0]
    turn_back = quat_conj(frames[root][3:7])
    source = RagdollSource(skeleton, bodies,
                           quat_rotate(turn_back, space.directions(options, facing)),
                           quat_rotate(turn_back, space.directions(options, up)))
    return _keep(doc, source)


def _keep(doc, source: RagdollSource) -> RagdollSource:
    """The source's arrays held in a block from the document's allocator (as the C arrays
    are), the previous call's freed; CapacityError, nothing changed, when it fails."""
    size = sum(BODY_VALUES * 4 + len(b.name) for b in source.bodies)
    block = None
    if size:
        block = doc.builder._call_alloc(size)
        if block is None:
            raise CapacityError(f"the allocator refused {size} bytes for the ragdoll source")
    old, doc.ragdoll_block = doc.ragdoll_block, block
    doc.ragdoll_read = source
    if old is not None:
        doc.builder._call_free(old)
    return source


def _body_of_node(reader: _Reader, node: int, motion_nodes: dict) -> int:
    """The ragdoll body a node moves with (its nearest motion ancestor's), or -1."""
    while node != -1:
        if node in motion_nodes:
            return motion_nodes[node]
        node = reader.doc.nodes[node].parent
    return -1


def _joints(reader: _Reader, bodies, frames, node_of, parents, moving) -> None:
    doc = reader.doc
    motion = {n: -2 for n in moving}                # bodies, but not the ragdoll's
    motion.update({n: i for i, n in enumerate(node_of)})
    jointed = {}
    for n, obj in enumerate(doc.json.get("nodes", [])):
        e = _ext(obj, JOINT)
        if e is None:
            continue
        if not isinstance(e, dict):
            raise reader.fail(f"node {n}: {JOINT} not an object", R.Property, obj, n)
        other = e.get("connectedNode")
        if not is_int(other) or not 0 <= other < len(doc.nodes):
            raise reader.fail(f"node {n}: connectedNode {other!r} past the {len(doc.nodes)} "
                              "nodes", R.Index, obj, n)
        a, b = _body_of_node(reader, n, motion), _body_of_node(reader, other, motion)
        if a < 0 and b < 0:
            continue                                  # a joint of the scene, not the ragdoll
        if a >= 0 and b >= 0 and parents[b] == a:
            child, side = b, other
        elif a >= 0 and b >= 0 and parents[a] == b:
            child, side = a, n
        else:
            raise reader.fail(f"node {n}: a joint not from a body to its parent body",
                              R.Unsupported, obj, n)
        if child in jointed:
            raise reader.fail(f"node {n}: a second joint on node {node_of[child]}'s body "
                              f"(node {jointed[child]}'s)", R.Unsupported, obj, n)
        jointed[child] = n
        settings, s = reader.settings(e.get("joint"), n)
        body = bodies[child]
        frame = compose(inverse(frames[child]), reader.model(side, *reader.bone_of(side))[0])
        frame[3:7] /= np.linalg.norm(frame[3:7])
        body.joint_translation, body.joint_rotation = frame[0:3], frame[3:7]
        reader.limits(settings, s, n, body)
        reader.drives(settings, s, n, body)
    for i, p in enumerate(parents):
        if p != -1 and i not in jointed:
            n = node_of[i]
            raise reader.fail(f"node {n}: a body without a joint to its parent body",
                              R.Unsupported, doc.nodes[n], n)
