"""Figures for the Stadium rig, and the straightforward port it is measured against.

``NaiveRig`` does the rig's work the obvious way: a Python loop per bone to pose,
one per vertex to skin, guards checked frame by frame. It is the baseline for
``rig_speedup_vs_naive_x``, and tests/test_stadium_rig.py checks the vectorised rig
against it.

    python benchmarks/stadium_rig.py
"""
from __future__ import annotations

import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stadium.rig import pack, rig  # noqa: E402


class NaiveRig:
    """A per-bone, per-vertex reference port of stadium.rig.StadiumRig.

    Matrices are flat 12-float lists (3 rows of 4); vertices are rows of
    x y z u v shade per primitive.
    """

    def __init__(self, species: pack.Species):
        self.species = species
        n = len(species.parents)
        self.n = n
        self.parents = [int(p) for p in species.parents]
        self.rest = [[float(v) for v in species.rest_t[b]] + [float(v) for v in species.rest_r[b]]
                     + [float(v) for v in species.rest_s[b]] for b in range(n)]
        self.pivot = [[0.0] * 12 for _ in range(n)]
        self.drawm = [[0.0] * 12 for _ in range(n)]
        self.acc = [[1.0, 1.0, 1.0] for _ in range(n)]
        self.prims = []
        self.vertices = []
        self.textures_now = []
        for prim in species.prims:
            self.prims.append((prim.positions.tolist(), prim.normals.tolist(),
                               prim.bones.tolist(), prim))
            self.vertices.append([[0.0, 0.0, 0.0, float(u), float(v), 1.0]
                                  for u, v in prim.uv.tolist()])
            self.textures_now.append(prim.texture)
        self.weights = [0] * n
        for _, _, bones, _ in self.prims:
            for b in bones:
                self.weights[b] += 1
        self.total = sum(self.weights)
        root = species.root_scale if species.root_scale > 0 else 1.0
        self.h = species.height / root if species.height > 0 else 0.0
        self.frame_at = 0
        self.anchor_state = None
        self.bind = None
        self.anchor_ok = True
        self.measure_bind()

    def component(self, track, c, i):
        v = track[c]
        return float(v) if isinstance(v, (int, float)) else float(v[i])

    def pose(self, anim, frame, wrap):
        sp = self.species
        a = None if anim is None or anim == pack.NO_ANIM else sp.anims[anim]
        count = a.frames if a else 1
        here, after, part = 0, 0, 0.0
        if a and count > 1:
            t = max(frame, 0.0)
            whole = math.floor(t)
            part = t - whole
            start = a.loop_start if 0 < a.loop_start < count else 0
            if whole >= count:
                if wrap:
                    whole = start + (whole - start) % (count - start)
                else:
                    whole, part = count - 1, 0.0
            here = whole
            if here < count - 1:
                after = here + 1
            elif wrap:
                after = start
            else:
                after, part = here, 0.0
        self.frame_at = here
        move_limit = self.h * rig.BREAK_MOVE if part > 0 and self.h > 0 else None
        for b in range(self.n):
            track = a.tracks[b] if a else None
            if track is None:
                comps = list(self.rest[b])
            else:
                comps = [self.component(track, c, here) for c in range(9)]
                if part > 0:
                    then = [self.component(track, c, after) for c in range(9)]
                    arcs = []
                    for c in (3, 4, 5):
                        arc = then[c] - comps[c]
                        if arc > 32768:
                            arc -= 65536
                        elif arc < -32768:
                            arc += 65536
                        arcs.append(arc)
                    if all(abs(arc) <= rig.BREAK_ANGLE for arc in arcs):
                        for c, arc in zip((3, 4, 5), arcs):
                            comps[c] += arc * part
                    shift = [then[c] - comps[c] for c in (0, 1, 2)]
                    if move_limit is None or all(abs(m) <= move_limit for m in shift):
                        for c, m in zip((0, 1, 2), shift):
                            comps[c] += m * part
                    for c in (6, 7, 8):
                        comps[c] += (then[c] - comps[c]) * part
            p = self.parents[b]
            pa = self.acc[p] if p >= 0 else [1.0, 1.0, 1.0]
            tx, ty, tz = comps[0] * pa[0], comps[1] * pa[1], comps[2] * pa[2]
            ax, ay, az = (comps[3] * rig.ANGLE, comps[4] * rig.ANGLE, comps[5] * rig.ANGLE)
            sx, cx = math.sin(ax), math.cos(ax)
            sy, cy = math.sin(ay), math.cos(ay)
            sz, cz = math.sin(az), math.cos(az)
            m = [[cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz],
                 [cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz],
                 [-sy, sx * cy, cx * cy]]
            t = [tx, ty, tz]
            out = self.pivot[b]
            if p >= 0:
                q = self.pivot[p]
                for r in range(3):
                    for c in range(3):
                        out[r * 4 + c] = sum(q[r * 4 + j] * m[j][c] for j in range(3))
                    out[r * 4 + 3] = sum(q[r * 4 + j] * t[j] for j in range(3)) + q[r * 4 + 3]
            else:
                for r in range(3):
                    out[r * 4:r * 4 + 3] = m[r]
                    out[r * 4 + 3] = t[r]
            acc = [pa[0] * comps[6], pa[1] * comps[7], pa[2] * comps[8]]
            self.acc[b] = acc
            d = self.drawm[b]
            for r in range(3):
                for c in range(3):
                    d[r * 4 + c] = out[r * 4 + c] * acc[c]
                d[r * 4 + 3] = out[r * 4 + 3]

    def centre(self):
        if not self.total:
            return None
        x = y = z = 0.0
        for b in range(self.n):
            w = self.weights[b]
            x += self.drawm[b][3] * w
            y += self.drawm[b][7] * w
            z += self.drawm[b][11] * w
        return x / self.total, y / self.total, z / self.total

    def measure_bind(self):
        self.pose(None, 0, False)
        self.bind = self.centre()
        sp = self.species
        standby = sp.ctx[pack.STANDBY]
        if self.bind and standby != pack.NO_ANIM and self.h > 0:
            worst, before = 0.0, None
            frames = sp.anims[standby].frames
            for f in range(frames if frames > 1 else 0):
                self.pose(standby, f, True)
                here = self.centre()
                if before:
                    worst = max(worst, math.dist(here, before) / self.h)
                before = here
            self.anchor_ok = worst <= rig.ANCHOR_STEADY
        self.pose(None, 0, False)

    def anchor(self, limit, dt=None):
        if limit is None or limit <= 0 or not self.h > 0 or not self.bind or not self.anchor_ok:
            return
        x, y, z = self.centre()
        gap = [x - self.bind[0], y - self.bind[1], z - self.bind[2]]
        length = math.sqrt(sum(g * g for g in gap))
        reach = limit * self.h
        shift = [0.0, 0.0, 0.0]
        if length > reach:
            over = (length - reach) / length
            shift = [g * over for g in gap]
        if dt and dt > 0 and self.anchor_state is not None:
            ease = min(1.0, 1.0 - 0.5 ** (dt / rig.ANCHOR_HALF_LIFE))
            shift = [old + (new - old) * ease for old, new in zip(self.anchor_state, shift)]
        self.anchor_state = shift
        for b in range(self.n):
            for m in (self.pivot[b], self.drawm[b]):
                for row in range(3):
                    m[row * 4 + 3] -= shift[row]

    def skin(self, yaw=0.0):
        cy, sy = math.cos(yaw), math.sin(yaw)
        for (pos, nrm, bones, _), rows in zip(self.prims, self.vertices):
            for k, row in enumerate(rows):
                d = self.drawm[bones[k]]
                p = self.pivot[bones[k]]
                x, y, z = pos[k]
                row[0] = d[0] * x + d[1] * y + d[2] * z + d[3]
                row[1] = d[4] * x + d[5] * y + d[6] * z + d[7]
                row[2] = d[8] * x + d[9] * y + d[10] * z + d[11]
                ax, ay, az = nrm[k]
                wx = p[0] * ax + p[1] * ay + p[2] * az
                wy = p[4] * ax + p[5] * ay + p[6] * az
                wz = p[8] * ax + p[9] * ay + p[10] * az
                row[5] = (rig.SHADE_BASE + rig.SHADE_X * (cy * wx + sy * wz) + rig.SHADE_Y * wy
                          + rig.SHADE_Z * (cy * wz - sy * wx))

    def textures(self, aux):
        sets = self.species.aux_anims
        streams = sets[aux] if aux is not None and 0 <= aux < len(sets) else None
        for i, (_, _, _, prim) in enumerate(self.prims):
            index = prim.texture
            if streams and prim.tex_channel >= 0 and prim.tex_map:
                if prim.tex_channel < len(streams.channels):
                    stream = streams.channels[prim.tex_channel]
                    if len(stream):
                        at = min(self.frame_at, len(stream) - 1)
                        index = prim.tex_map.get(int(stream[at]), index)
            self.textures_now[i] = index


def largest_species():
    packs = sorted((ROOT / "assets" / "species").glob("*.pack"))
    species = [pack.load(p) for p in packs]
    return max(species, key=lambda s: sum(len(p.positions) for p in s.prims))


LIMIT = 0.5
ROUNDS = 40
FAST_PER_ROUND = 100


def frame_loop(rigs, anim, limit, start):
    """One battle frame for each rig at a half frame: pose, anchor, skin, textures."""
    for k, r in enumerate(rigs):
        r.pose(anim, start + 0.5 + 7 * k, True)
        r.anchor(limit, 1 / 60)
        r.skin(0.01 * start + k)
        r.textures(anim)


def timed_us(rigs, anim, start) -> float:
    t0 = time.perf_counter()
    frame_loop(rigs, anim, LIMIT, start)
    return (time.perf_counter() - t0) * 1e6


def main():
    species = largest_species()
    anim = species.ctx[pack.STANDBY]
    ours = [rig.StadiumRig(species) for _ in range(2)]
    naive = [NaiveRig(species) for _ in range(2)]
    for i in range(200):                          # warm-up
        frame_loop(ours, anim, LIMIT, i)
    # interleaved, so both see the same machine: these runs share it with others
    fast, slow = [], []
    frame = 0
    for _ in range(ROUNDS):
        for _ in range(FAST_PER_ROUND):
            fast.append(timed_us(ours, anim, frame))
            frame += 1
        slow.append(timed_us(naive, anim, frame))
        frame += 1
    fast_us, slow_us = statistics.median(fast), statistics.median(slow)
    vertices = sum(len(p.positions) for p in species.prims)
    print(f"{species.name}: {vertices} vertices, {len(species.parents)} bones, two rigs a frame")
    print(f"vectorised median {fast_us:.1f} us (fastest {min(fast):.1f}), "
          f"naive median {slow_us:.1f} us (fastest {min(slow):.1f})")
    figures = [
        {"figure": "rig_frame_two_largest_us", "value": round(fast_us, 1), "unit": "us",
         "better": "lower", "target": 400},
        {"figure": "rig_speedup_vs_naive_x", "value": round(slow_us / fast_us, 1), "unit": "x",
         "better": "higher", "target": 20},
    ]
    for figure in figures:
        print(json.dumps(figure))


if __name__ == "__main__":
    main()
