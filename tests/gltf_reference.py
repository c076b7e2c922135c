"""An independent evaluation of glTF by its own rules, plain numpy and no runtime code: the
JSON and buffers read with json and struct, node TRS, animation samplers (LINEAR lerp and
slerp, STEP, CUBICSPLINE Hermite), world matrices, joint matrices (world times inverse bind)
and skinned vertices."""
from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "testdata"
GLTF = SHARED / "gltf"
_DT = {5120: "i1", 5121: "u1", 5122: "<i2", 5123: "<u2", 5125: "<u4", 5126: "<f4"}
_N = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
_NORM = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


class Ref:
    def __init__(self, path: Path):
        raw = path.read_bytes()
        self.bin = None
        if raw[:4] == b"glTF":
            n = struct.unpack_from("<I", raw, 12)[0]
            self.j = json.loads(raw[20:20 + n])
            at = 20 + n
            if at < len(raw):
                m = struct.unpack_from("<I", raw, at)[0]
                self.bin = raw[at + 8:at + 8 + m]
        else:
            self.j = json.loads(raw)
        self.buffers = []
        for b in self.j.get("buffers", []):
            uri = b.get("uri")
            if uri is None:
                self.buffers.append(self.bin)
            elif uri.startswith("data:"):
                self.buffers.append(base64.b64decode(uri.split(",", 1)[1]))
            else:
                self.buffers.append((path.parent / uri).read_bytes())
        self.nodes = self.j.get("nodes", [])
        self.parent = {c: i for i, n in enumerate(self.nodes) for c in n.get("children", [])}

    def accessor(self, i: int) -> np.ndarray:
        a = self.j["accessors"][i]
        n, count, dt = _N[a["type"]], a["count"], np.dtype(_DT[a["componentType"]])
        out = np.zeros((count, n))
        if "bufferView" in a:
            v = self.j["bufferViews"][a["bufferView"]]
            buf = self.buffers[v["buffer"]]
            stride = v.get("byteStride", n * dt.itemsize)
            base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
            for e in range(count):
                out[e] = np.frombuffer(buf, dt, n, base + e * stride)
        if "sparse" in a:
            s = a["sparse"]
            iv = self.j["bufferViews"][s["indices"]["bufferView"]]
            vv = self.j["bufferViews"][s["values"]["bufferView"]]
            idx = np.frombuffer(self.buffers[iv["buffer"]], _DT[s["indices"]["componentType"]],
                                s["count"], iv.get("byteOffset", 0) + s["indices"].get("byteOffset", 0))
            val = np.frombuffer(self.buffers[vv["buffer"]], dt, s["count"] * n,
                                vv.get("byteOffset", 0) + s["values"].get("byteOffset", 0))
            out[idx.astype(int)] = val.reshape(-1, n)
        if a.get("normalized"):
            out = np.maximum(out / _NORM[a["componentType"]], -1)
        return out

    # ---- poses
    def rest(self) -> list[dict]:
        out = []
        for n in self.nodes:
            if "matrix" in n:
                out.append({"matrix": np.array(n["matrix"]).reshape(4, 4).T})
            else:
                out.append({"t": np.array(n.get("translation", [0, 0, 0]), float),
                            "r": np.array(n.get("rotation", [0, 0, 0, 1]), float),
                            "s": np.array(n.get("scale", [1, 1, 1]), float)})
        return out

    def posed(self, animation: int, time: float) -> list[dict]:
        nodes = self.rest()
        anim = self.j["animations"][animation]
        for ch in anim["channels"]:
            tgt = ch["target"]
            if tgt.get("path") not in ("translation", "rotation", "scale"):
                continue
            smp = anim["samplers"][ch["sampler"]]
            times = self.accessor(smp["input"])[:, 0]
            values = self.accessor(smp["output"])
            v = sample(times, values, smp.get("interpolation", "LINEAR"), time,
                       tgt["path"] == "rotation")
            nodes[tgt["node"]][tgt["path"][0]] = v
        return nodes

    def world(self, locals_: list[dict]) -> list[np.ndarray]:
        def local(d):
            return d["matrix"] if "matrix" in d else trs(d["t"], d["r"], d["s"])
        out = [None] * len(self.nodes)

        def get(i):
            if out[i] is None:
                m = local(locals_[i])
                out[i] = get(self.parent[i]) @ m if i in self.parent else m
            return out[i]
        return [get(i) for i in range(len(self.nodes))]

    def skinned(self, mesh: int, skin: int, locals_: list[dict], prim: int = 0) -> np.ndarray:
        """World positions of a skinned primitive: sum of w * world(joint) * IBM * v."""
        p = self.j["meshes"][mesh]["primitives"][prim]["attributes"]
        pos = self.accessor(p["POSITION"])
        sk = self.j["skins"][skin]
        ibm = (self.accessor(sk["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
               if "inverseBindMatrices" in sk else np.tile(np.eye(4), (len(sk["joints"]), 1, 1)))
        world = self.world(locals_)
        jm = np.array([world[n] @ ibm[k] for k, n in enumerate(sk["joints"])])
        sets = []
        k = 0
        while f"JOINTS_{k}" in p:
            sets.append((self.accessor(p[f"JOINTS_{k}"]).astype(int),
                         self.accessor(p[f"WEIGHTS_{k}"])))
            k += 1
        # weights normalized to sum 1, as glTF asks of them (CesiumMan's do not)
        total = sum(ws.sum(axis=1) for _, ws in sets)[:, None]
        out = np.zeros((pos.shape[0], 3))
        for js, ws in sets:
            for c in range(4):
                m = jm[js[:, c]]
                hom = np.einsum("vij,vj->vi", m[:, :3, :3], pos) + m[:, :3, 3]
                out += ws[:, c:c + 1] / total * hom
        return out


def trs(t, r, s) -> np.ndarray:
    x, y, z, w = r / np.linalg.norm(r)
    rot = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    m = np.eye(4)
    m[:3, :3] = rot * s
    m[:3, 3] = t
    return m


def slerp(a, b, u):
    d = float(a @ b)
    if d < 0:
        b, d = -b, -d
    if d > 0.9995:
        q = a + u * (b - a)
        return q / np.linalg.norm(q)
    th = np.arccos(d)
    return (np.sin((1 - u) * th) * a + np.sin(u * th) * b) / np.sin(th)


def sample(times, values, mode, t, rotation=False) -> np.ndarray:
    """One sampler at time t, as glTF 2.0's appendix on interpolation writes it."""
    k = times.size
    if rotation and mode != "CUBICSPLINE":      # keys of unit length, as glTF asks of them
        values = values / np.linalg.norm(values, axis=1, keepdims=True)
    if mode == "CUBICSPLINE":
        v = values.reshape(k, 3, -1)
        if t <= times[0]:
            out = v[0, 1]
        elif t >= times[-1]:
            out = v[-1, 1]
        else:
            i = int(np.searchsorted(times, t, side="right") - 1)
            td = times[i + 1] - times[i]
            u = (t - times[i]) / td
            p0, m0 = v[i, 1], v[i, 2] * td
            p1, m1 = v[i + 1, 1], v[i + 1, 0] * td
            out = ((2 * u ** 3 - 3 * u ** 2 + 1) * p0 + (u ** 3 - 2 * u ** 2 + u) * m0
                   + (-2 * u ** 3 + 3 * u ** 2) * p1 + (u ** 3 - u ** 2) * m1)
        return out / np.linalg.norm(out) if rotation else out
    if t <= times[0]:
        return values[0].copy()
    if t >= times[-1]:
        return values[-1].copy()
    i = int(np.searchsorted(times, t, side="right") - 1)
    if mode == "STEP":
        return values[i].copy()
    u = (t - times[i]) / (times[i + 1] - times[i])
    if rotation:
        return slerp(values[i], values[i + 1], u)
    return values[i] + u * (values[i + 1] - values[i])
