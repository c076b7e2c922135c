"""VRMC_springBone 1.0 as a spring set source on an opened skeleton (maniGltf_ReadSprings):
colliders (the extended collider's inside spheres and capsules and planes where its 1.0
is given, the plain shape otherwise), collider groups and springs, nodes found by bone
name; joints' VRMC_springBone_limit 1.0 limits (another version ignored, a last joint's
too). Offsets and tails are in their node's frame and, like radii, follow the unit; they,
gravity directions, plane normals and limit rotations are turned into the output's basis."""
from __future__ import annotations

import numpy as np

from ...core.errors import BusyError, InvalidError
from ...core.limits import NO_BONE
from ...physics.spring_build import (ColliderShape, ColliderSource, JointSource, LimitSource,
                                     SpringLimitKind, SpringSetSource, SpringSource)
from ...pose.skeleton import opened
from ..common import ImportFormatError, ImportReason
from . import space
from .document import GltfOptions, is_int, is_number, opened_document, quiet

R = ImportReason
EXTENSION = "VRMC_springBone"
EXTENDED = "VRMC_springBone_extended_collider"
LIMIT = "VRMC_springBone_limit"

__all__ = ["read_springs"]


class _Reader:
    def __init__(self, doc, skeleton, options: GltfOptions):
        self.doc, self.skeleton, self.options = doc, skeleton, options

    def fail(self, message, reason, obj, item) -> ImportFormatError:
        return ImportFormatError(f"{EXTENSION}: {message}", reason,
                                 offset=getattr(obj, "at", 0), item=item)

    def bone(self, obj: dict, key: str, item: int) -> int:
        node = obj.get(key)
        if not is_int(node) or not 0 <= node < len(self.doc.nodes):
            raise self.fail(f"{key} {node!r} past the {len(self.doc.nodes)} nodes", R.Index,
                            obj, item)
        b = self.skeleton.find_bone(self.doc.names[node])
        if b == NO_BONE:
            raise self.fail(f"node {node} is not a bone of the skeleton", R.Bone, obj, item)
        return b

    def vector(self, obj: dict, key: str, default, item: int) -> np.ndarray:
        value = obj.get(key, default)
        width = len(default)
        if not isinstance(value, list) or len(value) != width \
                or not all(is_number(v) for v in value):
            raise self.fail(f"{key} not {width} numbers", R.Property, obj, item)
        return np.array(value, dtype=np.float64)

    def number(self, obj: dict, key: str, default: float, item: int) -> float:
        value = obj.get(key, default)
        if not is_number(value):
            raise self.fail(f"{key} {value!r} is not a number", R.Property, obj, item)
        return float(value)

    def collider(self, c: int, obj) -> ColliderSource:
        if not isinstance(obj, dict):
            raise self.fail(f"collider {c} not an object", R.Property, obj, c)
        bone = self.bone(obj, "node", c)
        shape = obj.get("shape")
        ext = obj.get("extensions")
        extended = ext.get(EXTENDED) if isinstance(ext, dict) else None
        if isinstance(extended, dict) and extended.get("specVersion") == "1.0":
            shape = extended.get("shape")
        if not isinstance(shape, dict) or len(shape) != 1:
            raise self.fail(f"collider {c}: a shape of one kind", R.Property, obj, c)
        (kind, body), = shape.items()
        if not isinstance(body, dict) or kind not in ("sphere", "capsule", "plane"):
            raise self.fail(f"collider {c}: shape {kind!r}", R.Property, obj, c)
        o = self.options
        offset = space.points(o, self.vector(body, "offset", [0.0, 0.0, 0.0], c))
        if kind == "plane":
            normal = space.directions(o, self.vector(body, "normal", [0.0, 0.0, 1.0], c))
            return ColliderSource(bone, ColliderShape.plane, offset, normal=normal)
        radius = self.number(body, "radius", 0.0, c) * o.unit
        inside = body.get("inside", False)
        if not isinstance(inside, bool):
            raise self.fail(f"collider {c}: inside not a bool", R.Property, body, c)
        if kind == "sphere":
            return ColliderSource(bone, ColliderShape.inside_sphere if inside
                                  else ColliderShape.sphere, offset, radius)
        tail = space.points(o, self.vector(body, "tail", [0.0, 0.0, 0.0], c))
        return ColliderSource(bone, ColliderShape.inside_capsule if inside
                              else ColliderShape.capsule, offset, radius, tail)

    def limit(self, joint: dict, j: int):
        ext = joint.get("extensions")
        e = ext.get(LIMIT) if isinstance(ext, dict) else None
        if not isinstance(e, dict) or e.get("specVersion") != "1.0":
            return None
        kinds = [k for k in ("cone", "hinge", "spherical") if k in e]
        if len(kinds) != 1 or not isinstance(e[kinds[0]], dict):
            raise self.fail(f"joint {j}: a limit of one kind", R.Property, e, j)
        body = e[kinds[0]]
        q = self.vector(body, "rotation", [0.0, 0.0, 0.0, 1.0], j)
        if not np.linalg.norm(q) > 0:
            raise self.fail(f"joint {j}: a limit rotation of length 0", R.Property, body, j)
        q = space.rotations(self.options, q / np.linalg.norm(q))
        if kinds[0] == "spherical":
            return LimitSource(SpringLimitKind.spherical, self.number(body, "pitch", 0.0, j),
                               self.number(body, "yaw", 0.0, j), q)
        kind = SpringLimitKind.cone if kinds[0] == "cone" else SpringLimitKind.hinge
        return LimitSource(kind, self.number(body, "angle", 0.0, j), 0.0, q)

    def spring(self, s: int, obj, groups: int) -> SpringSource:
        if not isinstance(obj, dict) or not isinstance(obj.get("joints"), list):
            raise self.fail(f"spring {s} without joints", R.Property, obj, s)
        joints = []
        items = obj["joints"]
        for j, joint in enumerate(items):
            if not isinstance(joint, dict):
                raise self.fail(f"spring {s} joint {j} not an object", R.Property, items, j)
            gravity = space.directions(self.options,
                                       self.vector(joint, "gravityDir", [0.0, -1.0, 0.0], j))
            joints.append(JointSource(
                self.bone(joint, "node", j),
                self.number(joint, "hitRadius", 0.0, j) * self.options.unit,
                self.number(joint, "stiffness", 1.0, j),
                self.number(joint, "gravityPower", 0.0, j) * self.options.unit, gravity,
                self.number(joint, "dragForce", 0.5, j),
                self.limit(joint, j) if j + 1 < len(items) else None))
        chosen = obj.get("colliderGroups", [])
        if not isinstance(chosen, list) or not all(is_int(g) and 0 <= g < groups
                                                   for g in chosen):
            raise self.fail(f"spring {s}: collider groups past the {groups}", R.Index, obj, s)
        name = obj.get("name", "")
        raw = name.encode("utf-8", "surrogatepass") if isinstance(name, str) and name \
            else b"spring#%d" % s
        center = self.bone(obj, "center", s) if "center" in obj else NO_BONE
        return SpringSource(raw, joints, list(chosen), center)


@quiet
def read_springs(doc, skeleton, options) -> SpringSetSource:
    """maniGltf_ReadSprings: the set source (empty without the extension), kept on the
    document until the next call or its close."""
    doc = opened_document(doc)
    if doc.builder._state == "hook":
        doc.builder.misuse += 1
        raise BusyError("a document call from the builder's allocator")
    skeleton = opened(skeleton)
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    reader = _Reader(doc, skeleton, options.checked())
    ext = doc.json.get("extensions")
    e = ext.get(EXTENSION) if isinstance(ext, dict) else None
    if e is None:
        doc.springs_read = SpringSetSource(skeleton)
        return doc.springs_read
    if not isinstance(e, dict):
        raise reader.fail("not an object", R.Property, ext, 0)
    if e.get("specVersion") != "1.0":
        raise reader.fail(f"specVersion {e.get('specVersion')!r}, not 1.0", R.Version, e, 0)
    lists = {}
    for key in ("colliders", "colliderGroups", "springs"):
        value = e.get(key, [])
        if not isinstance(value, list):
            raise reader.fail(f"{key} not an array", R.Property, e, 0)
        lists[key] = value
    colliders = [reader.collider(c, obj) for c, obj in enumerate(lists["colliders"])]
    groups = []
    for g, obj in enumerate(lists["colliderGroups"]):
        members = obj.get("colliders") if isinstance(obj, dict) else None
        if not isinstance(members, list) or not all(is_int(c) and 0 <= c < len(colliders)
                                                    for c in members):
            raise reader.fail(f"collider group {g}: colliders past the {len(colliders)}",
                              R.Index, obj, g)
        groups.append(list(members))
    springs = [reader.spring(s, obj, len(groups)) for s, obj in enumerate(lists["springs"])]
    doc.springs_read = SpringSetSource(skeleton, springs, colliders, groups)
    return doc.springs_read
