"""One species instance on the battle map: posed, anchored and skinned on the CPU.

The species is shared and read-only. A ``StadiumRig`` holds what changes every frame:
the two matrix chains, the anchor offset, and the vertex buffer its parts draw from.

Skinning on the CPU is cheap here because every vertex is rigidly bound to one bone
and the models are small. The finished vertices land in the same
``x y z u v shade`` format as the rest of the voxel diorama, so one shader (depth,
sun shadow, hour tint, hit flash, post effects) treats a creature like the terrain
around it.

The two chains keep bone scale out of the hierarchy, as the source game does.
``pivot`` holds rotation and translation only: it is what a child inherits, and the
normals turn with it. ``draw`` is the same matrix with the bone's accumulated scale
applied on the right: the vertices go through it, and it never reaches the children.
A child's offset is scaled by its parent's accumulated scale. Folding the scale into
the chain instead (glTF style) would shear a rotated child under a non-uniformly
scaled parent and compound every ancestor's scale once per generation.
"""
from __future__ import annotations

import logging
import math
import weakref
from dataclasses import dataclass

import numpy as np

from . import pack

log = logging.getLogger(__name__)

# Binary angle unit: 32768 is pi.
ANGLE = math.pi / 32768

# Shade comes from which way a surface faces, not from a light: the terrain bakes one
# value per face direction, and a posed creature must match it. These four numbers
# fit the diorama's six face values (+Y 1.00, -Y 0.55, +X 0.84, -X 0.72, +Z 0.90,
# -Z 0.68) as base + x*nx + y*ny + z*nz, so a flank catches the same sun as the roof
# behind it.
SHADE_BASE = 0.7725
SHADE_X = 0.06
SHADE_Y = 0.225
SHADE_Z = 0.11

# A rotation moving more than a quarter turn in one 30 Hz frame is not motion. It is
# the source re-expressing the same orientation as a different Euler triple, and
# blending toward it flips the bone through poses neither frame had. Such a bone
# holds its frame instead: all three components together, since they form one
# rotation.
BREAK_ANGLE = 16384

# Likewise a translation of more than half the body height in one frame is a
# teleport, not a stride, so the bone holds its frame rather than smearing across the
# gap. Scale needs no guard: a blend of two scales lies between them.
BREAK_MOVE = 0.5

# How far the body estimate may move in one frame of the standby loop before the
# species is judged unmeasurable and left unanchored. Genuine motion moves the body
# about a fifth of its height a frame. Junk rotation frames move it several heights,
# and no filter can both follow real excursions and reject that.
ANCHOR_STEADY = 0.5

# Seconds for the anchor offset to close half the gap to its target. Short enough to
# catch a real excursion within a few frames; long enough to flatten a 30 Hz wobble
# of the estimate instead of shaking the whole body with it.
ANCHOR_HALF_LIFE = 0.05


def euler_matrix(angles: np.ndarray) -> np.ndarray:
    """Rz @ Ry @ Rx (column vectors) for Euler angles in radians, shape (..., 3, 3)."""
    x, y, z = angles[..., 0], angles[..., 1], angles[..., 2]
    cx, sx, cy, sy, cz, sz = np.cos(x), np.sin(x), np.cos(y), np.sin(y), np.cos(z), np.sin(z)
    return np.stack([
        np.stack([cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz], -1),
        np.stack([cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz], -1),
        np.stack([-sy, sx * cy, cx * cy], -1)], -2)


def _rotation_terms():
    """Write every entry of ``euler_matrix`` as a fixed mix of cos(u . angles - phase).

    Product-to-sum turns each entry into a sum of cosines of ±x ±y ±z. The exact
    coefficients are the discrete Fourier transform of the matrix sampled at quarter
    turns, where its entries are exactly -1, 0 or 1. With these, every bone's
    rotation is one ``cos`` over precomputed phases and one small matrix product.
    Returns frequencies (K, 3), phases (K,) and the mix (K, 9).
    """
    quarter = np.arange(4) * (math.pi / 2)
    grid = np.stack(np.meshgrid(quarter, quarter, quarter, indexing="ij"), -1)
    spectrum = np.fft.fftn(np.round(euler_matrix(grid)).reshape(4, 4, 4, 9), axes=(0, 1, 2)) / 64
    frequencies, phases, mix = [], [], []
    for k in np.ndindex(4, 4, 4):
        c = spectrum[k]
        u = np.array([(v + 1) % 4 - 1 for v in k])      # DFT bins 0 1 3 are 0 1 -1
        first = u[u != 0][:1]
        if np.abs(c).max() < 1e-9 or (first.size and first[0] < 0):
            continue                                    # empty, or carried by -u
        twice = 2.0 if u.any() else 1.0
        for part, phase in ((c.real, 0.0), (-c.imag, math.pi / 2)):
            if np.abs(part).max() > 1e-9:
                frequencies.append(u)
                phases.append(phase)
                mix.append(np.round(twice * part * 8) / 8)
    return np.array(frequencies, np.float64), np.array(phases), np.array(mix)


_FREQUENCIES, _PHASES, _ROTATION_MIX = _rotation_terms()
_TERMS = len(_PHASES)
# A bone's features are its K cosine terms then its translation; this maps them to the
# twelve entries of its local [R | t], row by row.
_LOCAL_MIX = np.zeros((_TERMS + 3, 12))
_LOCAL_MIX[:_TERMS, [0, 1, 2, 4, 5, 6, 8, 9, 10]] = _ROTATION_MIX
_LOCAL_MIX[_TERMS + np.arange(3), [3, 7, 11]] = 1.0
_T = slice(_TERMS, _TERMS + 3)       # translation columns of a clip's feature rows
_S = slice(_TERMS + 3, _TERMS + 6)   # scale columns


@dataclass(eq=False)
class RigPart:
    """One primitive's draw call: vertex rows skinned in place, and its texture."""

    vertices: np.ndarray   # float32 (count, 6): x y z u v shade, rewritten by skin()
    indices: np.ndarray    # uint16 flat triangle list
    texture: int           # image index, chosen by textures()
    additive: bool         # drawn in the second, additive pass; never a shadow caster


def _features(components: np.ndarray) -> np.ndarray:
    """Per-bone rows [rotation phases (K) | t (3) | s (3)] from nine components."""
    out = np.empty(components.shape[:-1] + (_TERMS + 6,))
    out[..., :_TERMS] = (components[..., 3:6] * ANGLE) @ _FREQUENCIES.T - _PHASES
    out[..., _T] = components[..., 0:3]
    out[..., _S] = components[..., 6:9]
    return out


class _Clip:
    """One animation as per-frame feature rows, plus the guarded step to the next frame.

    ``features[f]`` holds every bone's rows at frame f (rest values for untouched
    bones). ``steps[f]`` is what a blend from f toward the next frame adds per unit of
    progress: the short way round for angles, and zero for a bone whose rotation or
    translation breaks between the two frames. Past the last frame a loop continues at
    its loop start, so the last step points there. Phases are linear in the angles, so
    blending them is blending the angles.
    """

    def __init__(self, anim: pack.Animation, rest: np.ndarray, move_break):
        frames = anim.frames
        loop = anim.loop_start if 0 < anim.loop_start < frames else 0
        values = np.repeat(rest[None], frames, axis=0)
        for b, track in enumerate(anim.tracks):
            if track is not None:
                for c, comp in enumerate(track):
                    values[:, b, c] = comp
        after = np.append(np.arange(1, frames), loop)
        delta = values[after] - values
        turn = delta[..., 3:6]
        turn[:] = (turn + 32768) % 65536 - 32768
        turn[np.any(np.abs(turn) > BREAK_ANGLE, axis=-1)] = 0
        if move_break is not None:
            move = delta[..., 0:3]
            move[np.any(np.abs(move) > move_break, axis=-1)] = 0
        self.frames = frames
        self.loop = loop
        self.features = _features(values)
        steps = _features(delta)
        steps[..., :_TERMS] += _PHASES        # a step carries no phase of its own
        self.steps = steps
        # a clip that never scales has no accumulated scale to carry
        self.scaled = bool(np.any(values[..., 6:9] != 1.0))


class _Shared:
    """Everything about a species that every rig of it can share, computed once.

    The chain is composed by pointer jumping over the depth levels. Every bone starts
    with its local matrix and, at each step, takes on the product its current ancestor
    holds, then looks twice as far up. After ceil(log2(levels)) steps each bone holds
    the product from its root down. That is one batched product per step, fewer than
    one per depth level. Row n of the chain buffers is the identity, the parent of
    every root.
    """

    def __init__(self, species: pack.Species):
        parents = np.asarray(species.parents, np.intp)
        n = len(parents)
        self.parent_row = np.where(parents >= 0, parents, n)
        chains = []
        for b in range(n):
            chain, at = [], b
            while at < n:
                chain.append(at)
                at = self.parent_row[at]
            chains.append(chain[::-1])
        levels = max((len(c) for c in chains), default=1)
        # per level, each bone's ancestor at that level (root first), or the sentinel
        self.ancestors = np.full((levels, n), n, np.intp)
        for b, chain in enumerate(chains):
            self.ancestors[:len(chain), b] = chain
        self.jumps = []
        jump = np.append(self.parent_row, n)
        for _ in range(math.ceil(math.log2(levels)) if levels > 1 else 0):
            self.jumps.append(jump)
            jump = jump[jump]

        rest = np.concatenate([species.rest_t, species.rest_r, species.rest_s], axis=1)
        rest = rest.astype(np.float64)
        root = species.root_scale if species.root_scale > 0 else 1.0
        self.raw_height = species.height / root if species.height > 0 else 0.0
        move_break = self.raw_height * BREAK_MOVE if self.raw_height > 0 else None
        self.bind = _Clip(pack.Animation(1, 0, [None] * n), rest, None)
        self.clips = [_Clip(a, rest, move_break) for a in species.anims]

        prims = species.prims
        bones = (np.concatenate([p.bones for p in prims]) if prims
                 else np.zeros(0, np.intp)).astype(np.intp)
        self.vertex_bone = bones
        count = np.bincount(bones, minlength=n).astype(np.float64)
        total = count.sum()
        # the body centre weights each bone origin by how many vertices it carries
        self.weights = count / total if total > 0 else None
        # per vertex, the four rows the skin multiplies with the bone's table:
        # [p 1] against each draw row, and [n 1] against (pivot^T d, SHADE_BASE)
        self.vertex_rows = np.ones((4, 4, len(bones)), np.float32)
        if prims:
            self.vertex_rows[:3, :3] = np.concatenate([q.positions for q in prims]).T[None]
            self.vertex_rows[3, :3] = np.concatenate([q.normals for q in prims]).T
        self.uv = (np.concatenate([q.uv for q in prims]) if prims
                   else np.zeros((0, 2), np.float32))
        self.streams = [[tuple(int(v) for v in ch) for ch in s.channels]
                        for s in species.aux_anims]
        self.bind_centre = None
        self.anchor_ok = True


_SHARED: "weakref.WeakKeyDictionary[pack.Species, _Shared]" = weakref.WeakKeyDictionary()


def _shared(species: pack.Species) -> _Shared:
    found = _SHARED.get(species)
    if found is None:
        found = _SHARED[species] = _Shared(species)
    return found


class StadiumRig:
    """One creature on the map: its pose, its anchor and its skinned parts."""

    def __init__(self, species: pack.Species):
        self.species = species
        sh = self._shared = _shared(species)
        n = len(species.parents)
        vcount = len(sh.vertex_bone)
        # The chain: two buffers the jumps alternate between, arranged so the last
        # jump lands in _world. Row n is the identity, and bottom rows stay (0 0 0 1).
        chain = np.zeros((2, n + 1, 4, 4))
        chain[:, :, 3, 3] = 1.0
        chain[:, n] = np.eye(4)
        self._world = chain[0]
        self._spare = chain[1]
        self._local = chain[len(sh.jumps) % 2]
        self._local_rows = self._local[:n, :3, :].reshape(n, 12)
        self._gathered_chain = np.empty((n + 1, 4, 4))
        self._blend = np.empty((n, _TERMS + 6))
        self._terms = np.empty((n, _TERMS + 3))
        self._scale = np.ones((n + 1, 3))
        self._acc = np.ones((n + 1, 3))
        self._chain_scale = np.empty(sh.ancestors.shape + (3,))
        self._parent_acc = np.empty((n, 3))
        self._scaled = False
        # skin scratch: per bone, 12 draw entries and pivot^T d; per vertex, those
        # 15 gathered plus the shade base, which never changes
        self._bone_table = np.empty((15, n), np.float32)
        self._shade_dir = np.empty(3, np.float32)
        self._gathered = np.empty((16, vcount), np.float32)
        self._gathered[15] = SHADE_BASE
        self._skinned = np.empty((4, vcount), np.float32)
        self._centre = np.empty(3)
        self._change = np.empty(3)
        # one interleaved buffer; each part's rows are a contiguous slice of it
        self._buffer = np.zeros((vcount, 6), np.float32)
        self._buffer[:, 3:5] = sh.uv     # uv never change: written once, here
        self._buffer[:, 5] = 1.0
        self.parts: list[RigPart] = []
        self._animated = []
        at = 0
        for prim in species.prims:
            count = len(prim.positions)
            part = RigPart(self._buffer[at:at + count], np.ascontiguousarray(prim.indices),
                           prim.texture, prim.additive)
            self.parts.append(part)
            if prim.tex_channel >= 0 and prim.tex_map:
                self._animated.append((part, prim.texture, prim.tex_channel, prim.tex_map))
            at += count
        self._opaque = tuple(p for p in self.parts if not p.additive)
        self._additive = tuple(p for p in self.parts if p.additive)
        # Views made once: the buffers never move, and making a view costs about as
        # much as a small operation on it.
        self._cos_terms, self._offset_terms = self._terms[:, :_TERMS], self._terms[:, _TERMS:]
        self._origins = self._world[:n, :3, 3]
        draw_rows = self._bone_table[:12].reshape(3, 4, n)
        self._draw_rows = draw_rows
        self._pivot_rows = self._world[:n, :3, :].transpose(1, 2, 0)
        self._axis_rows = draw_rows[:, :3, :]
        self._flat_axis_rows = self._axis_rows.reshape(3, 3 * n)
        self._shade_rows = self._bone_table[12:15].reshape(3 * n)
        self._acc_rows = self._acc[:n].T[None]
        self._gathered_rows = self._gathered[:15]
        self._gathered_blocks = self._gathered.reshape(4, 4, vcount)
        self._columns = tuple(self._buffer[:, c] for c in (0, 1, 2, 5))

        self.version = 0
        self._frame_at = 0
        self._pose_key = None
        self._pose_serial = 0
        self._skin_key = None
        self._travel = None              # raw body centre minus bind centre, this pose
        self._applied = (0.0, 0.0, 0.0)  # what anchor() has subtracted from this pose
        self._filtered = None            # the smoothed anchor offset, across frames
        self._released = False
        # measured while the rig is being built: posing the bind pose now costs no pose
        self.measure_bind()
        self.skin(0.0)

    # ------------------------------------------------------------ reading

    @property
    def pivot(self) -> np.ndarray:
        """(n, 3, 4) rotation and translation per bone: a read-only view."""
        view = self._world[:-1, :3, :]
        view.flags.writeable = False
        return view

    @property
    def draw(self) -> np.ndarray:
        """(n, 3, 4) the pivot with the bone's accumulated scale on the right (a copy)."""
        out = self._world[:-1, :3, :].copy()
        if self._scaled:
            out[:, :, :3] *= self._acc[:-1, None, :]
        return out

    @property
    def frame_at(self) -> int:
        """The whole frame the last pose() shows, after wrap or hold."""
        return self._frame_at

    @property
    def bind_centre(self):
        centre = self._shared.bind_centre
        return None if centre is None else centre.copy()

    @property
    def anchor_ok(self) -> bool:
        return self._shared.anchor_ok

    def opaque_parts(self):
        return self._opaque

    def additive_parts(self):
        """Held back for a second pass so flames composite over the body."""
        return self._additive

    def caster_parts(self):
        """What the sun pass draws: a flame casts light, not a shadow."""
        return self._opaque

    # ------------------------------------------------------------ posing

    def pose(self, anim, frame: float, wrap: bool):
        """Pose animation ``anim`` (None or NO_ANIM: the bind pose) at a float frame.

        ``wrap`` joins the end back to the loop start (a standby loop). Without it the
        last frame holds (a faint). A whole frame shows exactly that frame. Between
        frames the pose blends toward the next, except for bones the guards hold.
        """
        sh = self._shared
        if anim is None or anim == pack.NO_ANIM:
            anim, clip = None, sh.bind
        elif 0 <= anim < len(sh.clips):
            clip = sh.clips[anim]
        else:
            raise ValueError(f"{self.species.name}: no animation {anim} "
                             f"(the species has {len(sh.clips)})")
        base, k = 0, 0.0
        if clip.frames > 1:
            if not math.isfinite(frame):
                raise ValueError(f"{self.species.name}: frame {frame!r} is not finite")
            f = max(float(frame), 0.0)
            base = math.floor(f)
            k = f - base
            last = clip.frames - 1
            if base > last:
                if wrap:
                    # where the game's own player sends its counter
                    base = clip.loop + (base - clip.loop) % (clip.frames - clip.loop)
                else:
                    base, k = last, 0.0
            if base == last and not wrap:
                k = 0.0      # a held animation has nothing after its last frame
        # The whole frame on show, never the blend: a texture has no halfway, so the
        # streams step at 30 Hz while the skeleton moves at 60.
        self._frame_at = base
        key = (anim, base, k)
        if key == self._pose_key:
            return
        if k == 0.0:
            features = clip.features[base]
        else:
            features = np.multiply(clip.steps[base], k, out=self._blend)
            features += clip.features[base]
        self._compose(features, clip.scaled)
        self._pose_key = key
        self._pose_serial += 1
        self._travel = None
        self._applied = (0.0, 0.0, 0.0)

    def _compose(self, features: np.ndarray, scaled: bool):
        """The pivot chain (and the accumulated scale) from every bone's feature row."""
        sh = self._shared
        n = len(features)
        np.cos(features[:, :_TERMS], out=self._cos_terms)
        if scaled:
            # the product of the scales down each bone's chain
            self._scale[:n] = features[:, _S]
            np.take(self._scale, sh.ancestors, axis=0, out=self._chain_scale)
            np.multiply.reduce(self._chain_scale, axis=0, out=self._acc[:n])
            # a child's offset is scaled by its parent's accumulated scale, not its axes
            np.take(self._acc, sh.parent_row, axis=0, out=self._parent_acc)
            np.multiply(features[:, _T], self._parent_acc, out=self._offset_terms)
        else:
            self._offset_terms[:] = features[:, _T]
        self._scaled = scaled
        np.matmul(self._terms, _LOCAL_MIX, out=self._local_rows)
        src, dst = self._local, (self._spare if self._local is self._world else self._world)
        for jump in sh.jumps:
            np.take(src, jump, axis=0, out=self._gathered_chain)
            np.matmul(self._gathered_chain, src, out=dst)
            src, dst = dst, src

    # ------------------------------------------------------------ anchoring

    def _centre_now(self) -> np.ndarray:
        """The body centre of the current pose: bone origins weighted by vertex count."""
        return np.dot(self._shared.weights, self._origins, out=self._centre)

    def measure_bind(self):
        """Measure the bind centre and the anchor verdict once per species.

        Posing the bind pose overwrites the current pose, which is why this runs while
        the rig is built and never lazily from anchor(). The verdict walks the standby
        loop. If the body estimate jumps more than ANCHOR_STEADY body-heights in one
        frame, the estimate cannot be trusted, and the species plays unanchored. It
        then travels as its data says but does not shake.
        """
        sh = self._shared
        if sh.bind_centre is not None or sh.weights is None:
            return
        self.pose(None, 0.0, False)
        bind = self._centre_now().copy()
        ok = True
        species = self.species
        standby = species.ctx[pack.STANDBY] if species.ctx else pack.NO_ANIM
        if standby != pack.NO_ANIM and standby < len(sh.clips) and sh.raw_height > 0:
            frames = sh.clips[standby].frames
            worst, before = 0.0, None
            for f in range(frames if frames > 1 else 0):
                self.pose(standby, f, True)
                here = self._centre_now().copy()
                if before is not None:
                    worst = max(worst, float(np.linalg.norm(here - before)) / sh.raw_height)
                before = here
            if worst > ANCHOR_STEADY:
                ok = False
                log.info("stadium: %s moves its body %.1f body-heights in one frame of its "
                         "standby loop; not anchoring it, the estimate cannot be trusted",
                         species.name, worst)
        sh.bind_centre, sh.anchor_ok = bind, ok
        self.pose(None, 0.0, False)

    def anchor(self, limit, dt=None):
        """Take back whatever carries the body more than ``limit`` body-heights from
        its bind centre.

        Motion inside the limit is left exactly as posed, so a lunge still reads as a
        lunge. Past it only the excess goes, so an excursion still looks big and
        returns to the tile it left. With ``dt`` (seconds) the offset moves toward its
        target with ANCHOR_HALF_LIFE. Without it the offset applies whole, which is
        what a still frame wants. A None or non-positive limit leaves the pose alone.
        """
        sh = self._shared
        if limit is None or not limit > 0 or not sh.raw_height > 0:
            return
        if sh.bind_centre is None or not sh.anchor_ok:
            return
        if self._travel is None:
            centre = self._centre_now().tolist()
            self._travel = tuple(c + o - b for c, o, b in
                                 zip(centre, self._applied, sh.bind_centre.tolist()))
        dx, dy, dz = self._travel
        dist = math.sqrt(dx * dx + dy * dy + dz * dz)
        allow = limit * sh.raw_height
        # only the excess beyond the limit: inside it the motion keeps its shape
        excess = (dist - allow) / dist if dist > allow else 0.0
        tx, ty, tz = dx * excess, dy * excess, dz * excess
        if dt is not None and dt > 0 and self._filtered is not None:
            a = min(1.0, 1.0 - 0.5 ** (dt / ANCHOR_HALF_LIFE))
            fx, fy, fz = self._filtered
            tx, ty, tz = fx + (tx - fx) * a, fy + (ty - fy) * a, fz + (tz - fz) * a
        self._filtered = (tx, ty, tz)
        ox, oy, oz = self._applied
        if (tx, ty, tz) == (ox, oy, oz):
            return
        change = self._change
        change[0], change[1], change[2] = tx - ox, ty - oy, tz - oz
        self._origins -= change
        self._applied = (tx, ty, tz)
        self._pose_serial += 1

    # ------------------------------------------------------------ skinning

    def skin(self, yaw: float = 0.0):
        """Rewrite every part's positions and shade in place; uv stay as written.

        Positions go through the bone's draw matrix. The shade uses the posed normal,
        turned by the pivot (a pure rotation, so a non-uniformly scaled bone keeps its
        normals) and by ``yaw``, the model matrix's own turn. The sun does not turn
        with the creature, so the shade must be taken against the world normal.
        Nothing is rewritten when neither the pose nor the yaw changed.
        """
        if self._released:
            return
        key = (self._pose_serial, yaw)
        if key == self._skin_key:
            return
        self._draw_rows[:] = self._pivot_rows
        # shade = SHADE_BASE + (SHADE_X, SHADE_Y, SHADE_Z) . (yaw-turned world normal),
        # taken as d . (pivot normal) with d the shade weights turned back by the yaw
        cy, sy = math.cos(yaw), math.sin(yaw)
        d = self._shade_dir
        d[0] = SHADE_X * cy - SHADE_Z * sy
        d[1] = SHADE_Y
        d[2] = SHADE_X * sy + SHADE_Z * cy
        np.dot(d, self._flat_axis_rows, out=self._shade_rows)
        if self._scaled:
            self._axis_rows *= self._acc_rows       # pivot becomes draw
        # the bone indices are valid by construction; "clip" skips the bounds check
        np.take(self._bone_table, self._shared.vertex_bone, axis=1, out=self._gathered_rows,
                mode="clip")
        out = self._skinned
        np.einsum("ijv,ijv->iv", self._gathered_blocks, self._shared.vertex_rows, out=out)
        for column, values in zip(self._columns, out):
            column[:] = values
        self._skin_key = key
        self.version += 1

    # ------------------------------------------------------------ textures

    def textures(self, aux):
        """Choose each part's image for the frame the last pose() showed.

        ``aux`` indexes species.aux_anims (None: every part wears its own texture).
        A stream is read at the skeletal frame, since one counter drives both in the
        game, and clamped at its last entry, never wrapped. A five-entry blink in a
        forty-frame loop then blinks once per loop instead of eight times.
        """
        streams = self._shared.streams
        channels = streams[aux] if aux is not None and 0 <= aux < len(streams) else ()
        at = self._frame_at
        for part, own, channel, mapping in self._animated:
            index = own
            if channel < len(channels):
                stream = channels[channel]
                if stream:
                    index = mapping.get(stream[min(at, len(stream) - 1)], own)
            part.texture = index

    def release(self):
        """Let go of the parts and their buffer; later skin() calls do nothing."""
        self._released = True
        self.parts = []
        self._opaque = self._additive = ()
        self._animated = []
        self._buffer = np.zeros((0, 6), np.float32)
        self._columns = ()
