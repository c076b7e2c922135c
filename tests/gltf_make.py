"""glTF documents made in code for the tests: a small rig (a root, an arm, a hand, a
skinned mesh with one morph target), an animation with one channel of each interpolation,
a VRMC_springBone chain, and an external buffer; as JSON with a data: buffer, or as GLB."""
from __future__ import annotations

import base64
import json
import struct

import numpy as np


class Doc:
    """A glTF JSON object under construction; `add` appends an array as a view and an
    accessor over one buffer."""

    def __init__(self):
        self.blob = bytearray()
        self.j = {"asset": {"version": "2.0"}, "buffers": [], "bufferViews": [],
                  "accessors": []}

    def add(self, values, kind: str, component: int = 5126, dtype="<f4", **extra) -> int:
        a = np.ascontiguousarray(np.asarray(values, dtype=dtype))
        while len(self.blob) % 4:
            self.blob.append(0)
        self.j["bufferViews"].append({"buffer": 0, "byteOffset": len(self.blob),
                                      "byteLength": a.nbytes})
        self.blob += a.tobytes()
        count = a.shape[0] if kind != "SCALAR" or a.ndim else 1
        self.j["accessors"].append({"bufferView": len(self.j["bufferViews"]) - 1,
                                    "componentType": component, "type": kind,
                                    "count": int(count), **extra})
        return len(self.j["accessors"]) - 1

    def json_bytes(self) -> bytes:
        j = json.loads(json.dumps(self.j))
        j["buffers"].insert(0, {"byteLength": len(self.blob),
                                "uri": "data:application/octet-stream;base64,"
                                + base64.b64encode(bytes(self.blob)).decode()})
        return json.dumps(j).encode()

    def glb_bytes(self) -> bytes:
        j = json.loads(json.dumps(self.j))
        j["buffers"].insert(0, {"byteLength": len(self.blob)})
        return glb(json.dumps(j).encode(), bytes(self.blob))


def glb(text: bytes, binary: bytes | None) -> bytes:
    text = text + b" " * (-len(text) % 4)
    out = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary is not None:
        binary = binary + b"\0" * (-len(binary) % 4)
        out += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(out)) + out


def rig() -> Doc:
    d = Doc()
    positions = np.array([[0, 0, 0], [0, 1, 0], [0, 2, 0.5]])
    ibm = np.tile(np.eye(4), (3, 1, 1))
    ibm[1, 1, 3], ibm[2, 1, 3] = -1.0, -2.0
    pos = d.add(positions, "VEC3", min=[0, 0, 0], max=[0, 2, 0.5])
    joints = d.add([[0, 1, 0, 0], [1, 2, 0, 0], [2, 0, 0, 0]], "VEC4", 5121, "u1")
    weights = d.add([[0.5, 0.5, 0, 0], [0.75, 0.25, 0, 0], [1, 0, 0, 0]], "VEC4")
    target = d.add([[0, 0, 0], [0.1, 0, 0], [0, 0, 0.2]], "VEC3")
    binds = d.add(ibm.transpose(0, 2, 1).reshape(3, 16), "MAT4")
    times = d.add([0.0, 0.5, 1.0], "SCALAR")
    moves = d.add([[0, 1, 0], [0.5, 1, 0], [0, 1.5, 0]], "VEC3")
    q = np.array([[0, 0, 0, 1], [0, 0, np.sin(0.4), np.cos(0.4)], [0, 0, np.sin(0.8), np.cos(0.8)]])
    cubic = np.stack([np.zeros((3, 4)), q, np.zeros((3, 4))], axis=1).reshape(9, 4)
    turns = d.add(cubic, "VEC4")
    smiles = d.add([0.0, 1.0, 0.25], "SCALAR")
    d.j.update({
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "root", "children": [1, 3]},
                  {"name": "arm", "children": [2], "translation": [0, 1, 0]},
                  {"name": "hand", "translation": [0, 1, 0]},
                  {"name": "body", "mesh": 0, "skin": 0, "weights": [0.25]}],
        "skins": [{"joints": [0, 1, 2], "inverseBindMatrices": binds}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "JOINTS_0": joints,
                                                   "WEIGHTS_0": weights},
                                    "targets": [{"POSITION": target}]}],
                    "extras": {"targetNames": ["smile"]}}],
        "animations": [{"name": "wave", "samplers": [
            {"input": times, "output": moves},
            {"input": times, "output": turns, "interpolation": "CUBICSPLINE"},
            {"input": times, "output": smiles, "interpolation": "STEP"}], "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "translation"}},
            {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
            {"sampler": 2, "target": {"node": 3, "path": "weights"}}]}],
        "extensionsUsed": ["VRMC_springBone"],
        "extensions": {"VRMC_springBone": {
            "specVersion": "1.0",
            "colliders": [{"node": 0, "shape": {"sphere": {"offset": [0, 0.5, 0],
                                                           "radius": 0.2}}}],
            "colliderGroups": [{"colliders": [0]}],
            "springs": [{"name": "arm", "joints": [
                {"node": 1, "hitRadius": 0.05, "extensions": {"VRMC_springBone_limit": {
                    "specVersion": "1.0", "cone": {"angle": 0.5}}}},
                {"node": 2}], "colliderGroups": [0]}]}},
    })
    d.j["buffers"] = [{"byteLength": 4, "uri": "extra.bin"}]      # external, never read
    return d


def _turn(axis, angle: float) -> list:
    s = np.sin(angle / 2) * np.asarray(axis, dtype=float)
    return [*s.tolist(), float(np.cos(angle / 2))]


HIPS_TURN, SPINE_TURN = 0.4, 0.3       # about y, about z


def ragdoll_rig() -> Doc:
    """A three-bone rig (hips, spine, head) with OMI physics: a dynamic body on the hips
    with a box on a scaled child, one on the spine with a capsule on a turned and scaled
    child, a kinematic one on the (scaled) head that is its own sphere; joints from spine
    to hips (limits and drives) and head to spine (limits only), each at a node of the
    child body meeting an anchor node of the parent's; a crate body and a static floor
    off the skeleton."""
    d = Doc()
    d.add([0.0], "SCALAR")          # a buffer has at least one byte
    body = "OMI_physics_body"

    def physics(motion=None, shape=None):
        e = {}
        if motion is not None:
            e["motion"] = motion
        if shape is not None:
            e["collider"] = {"shape": shape}
        return {body: e}
    fixed = {"linearAxes": [0, 1, 2], "min": 0.0, "max": 0.0}
    d.j.update({
        "scene": 0, "scenes": [{"nodes": [0, 9, 10]}],
        "nodes": [
            {"name": "hips", "children": [1, 3, 4], "translation": [0, 1, 0],
             "rotation": _turn([0, 1, 0], HIPS_TURN),
             "extensions": physics({"type": "dynamic", "mass": 10.0,
                                    "linearVelocity": [1, 0, 0]})},
            {"name": "spine", "children": [2, 5, 6, 7], "translation": [0, 0.2, 0],
             "rotation": _turn([0, 0, 1], SPINE_TURN),
             "extensions": physics({"type": "dynamic", "mass": 5.0})},
            {"name": "head", "children": [8], "translation": [0, 0.3, 0], "scale": [2, 2, 2],
             "extensions": physics({"type": "kinematic", "mass": 3.0}, 1)},
            {"name": "hips_shape", "translation": [0, 0.05, 0], "scale": [1, 2, 1],
             "extensions": physics(shape=0)},
            {"name": "spine_anchor", "translation": [0, 0.2, 0],
             "rotation": _turn([0, 0, 1], SPINE_TURN)},
            {"name": "spine_shape", "translation": [0, 0.1, 0],
             "rotation": _turn([1, 0, 0], np.pi / 2), "scale": [1.5, 2, 1.5],
             "extensions": physics(shape=2)},
            {"name": "spine_joint", "extensions": {"OMI_physics_joint": {
                "joint": 0, "connectedNode": 4}}},
            {"name": "head_anchor", "translation": [0, 0.3, 0]},
            {"name": "head_joint", "extensions": {"OMI_physics_joint": {
                "joint": 1, "connectedNode": 7}}},
            {"name": "crate", "translation": [3, 0, 0],
             "extensions": physics({"type": "dynamic"}, 3)},
            {"name": "floor", "extensions": physics({"type": "static"}, 3)}],
        "skins": [{"joints": [0, 1, 2]}],
        "extensionsUsed": ["OMI_physics_body", "OMI_physics_shape", "OMI_physics_joint"],
        "extensions": {
            "OMI_physics_shape": {"shapes": [
                {"type": "box", "box": {"size": [0.4, 0.2, 0.3]}},
                {"type": "sphere", "sphere": {"radius": 0.1}},
                {"type": "capsule", "capsule": {"height": 0.3, "radiusTop": 0.1,
                                                "radiusBottom": 0.1}},
                {"type": "box"}]},
            "OMI_physics_joint": {"physicsJoints": [
                {"limits": [fixed, {"angularAxes": [0], "min": -0.3, "max": 0.6},
                            {"angularAxes": [1, 2], "min": -0.4, "max": 0.4},
                            {"angularAxes": [2], "min": -0.25, "max": 0.25}],
                 "drives": [{"type": "angular", "mode": "force", "axis": a, "stiffness": 50.0,
                             "damping": 5.0, "maxForce": 100.0} for a in range(3)]},
                {"limits": [fixed, {"angularAxes": [1], "min": -0.2, "max": 0.2},
                            {"angularAxes": [2], "min": -0.5, "max": 0.5}]}]}},
    })
    return d
