"""One creature on the battle map, posed, anchored and skinned on the CPU.

A species is a read-only model that any number of rigs share. A ``StadiumRig`` owns
the per-frame state: both matrix chains, the anchor offset, and the vertex buffer its
parts draw from.

Doing this on the CPU costs little, since each vertex follows exactly one bone and
the models are small. In return the vertices come out in the diorama's own
``x y z u v shade`` layout and go through its one shader: depth, sun shadow, hour
tint, hit flash and post effects treat a creature like the terrain around it.

Scale stays outside the hierarchy, as in the source game. ``pivot`` carries rotation
and translation only. Children compose with it, and normals are turned by it.
``draw`` is that matrix multiplied from the right by the bone's accumulated scale.
It is used for the bone's own vertices and is never passed down. Where a child sits is
stretched by the accumulated scale of its parent. The tempting alternative, scale inside the chain as glTF
does, shears a turned child of a non-uniformly scaled parent and multiplies each
ancestor's scale in again at every level below it.
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

# The diorama lights a surface by its facing, with no light uniform: terrain carries a
# baked value per face direction (+Y 1.00, -Y 0.55, +X 0.84, -X 0.72, +Z 0.90,
# -Z 0.68). A posed creature has no fixed faces, so its shade is computed per vertex
# as base + x*nx + y*ny + z*nz, with these four numbers fitted to those six. The
# creature is then lit consistently with the buildings around it.
SHADE_BASE = 0.7725
SHADE_X = 0.06
SHADE_Y = 0.225
SHADE_Z = 0.11

# Angles come as Euler triples, and the data sometimes writes one orientation as a
# quite different triple from one frame to the next. Interpolating the numbers then
# swings the bone through orientations neither frame shows. A change above 90 degrees
# per 30 Hz frame (16384 units) is treated as such a rewrite, not as movement. That
# bone shows the earlier frame until the next whole frame, with all three angles held
# together because they describe one rotation.
BREAK_ANGLE = 16384

# The same for position: a bone jumping more than half the body height between two
# frames is a jump cut, and a blend would draw it halfway across the gap. Scale is
# never held, since any mix of two scales is bounded by them.
BREAK_MOVE = 0.5

# Largest per-frame jump of the body estimate, in body-heights, that the standby loop
# of a species may show if the species is to be anchored. Real movement stays near 0.2 a frame.
# Broken rotation frames jump many times that, and no smoothing constant keeps the
# first while rejecting the second, so such a species is simply not anchored.
ANCHOR_STEADY = 0.5

# Seconds for the anchor offset to cover half of the remaining distance to its target.
# A real excursion is followed within a few frames, while frame-to-frame jitter in the
# estimate is averaged away rather than passed on to the whole body.
ANCHOR_HALF_LIFE = 0.05

# an accumulated scale this close to 1 changes nothing (float32 noise from outside poses)
UNIT_SCALE = 1e-7


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
    additive: bool         # blended in after the opaque parts; casts no shadow


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
    bones). ``steps[f]`` is the change toward the following frame per unit of blend:
    angles take the smaller of the two arcs, and a bone whose rotation or translation
    jumps past its guard gets zero (it shows frame f). A loop's last frame continues
    into its loop start, so that is where its last step points. Phases are linear in
    the angles, so blending them blends the angles.
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
        # without any scale other than 1 there is no accumulated scale to compute
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
        self._buffer[:, 3:5] = sh.uv     # uv are fixed: set here, never touched again
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
        # now, before any pose exists that measuring could overwrite
        self.measure_bind()
        self.skin(0.0)

    # ------------------------------------------------------------ reading

    @property
    def pivot(self) -> np.ndarray:
        """(n, 3, 4) per bone: rotation and translation, no scale (a read-only view)."""
        view = self._world[:-1, :3, :]
        view.flags.writeable = False
        return view

    @property
    def draw(self) -> np.ndarray:
        """(n, 3, 4) per bone: the pivot times its accumulated scale, as the vertices see
        it (a copy)."""
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
        """Drawn after the opaque parts and added on top of them (flames)."""
        return self._additive

    def caster_parts(self):
        """What the sun pass draws: the opaque parts, since fire throws no shadow."""
        return self._opaque

    # ------------------------------------------------------------ posing

    def pose(self, anim, frame: float, wrap: bool):
        """Pose animation ``anim`` (None or NO_ANIM: the bind pose) at a float frame.

        With ``wrap`` the timeline continues from the loop start after its end (a
        standby). Without it the final frame stays on screen (a faint). An integer
        frame gives that stored frame exactly. A fraction blends toward the following
        frame, except for bones a guard holds.
        """
        sh = self._shared
        if anim is None or anim == pack.NO_ANIM:
            anim, clip = None, sh.bind
        elif 0 <= anim < len(sh.clips):
            clip = sh.clips[anim]
        else:
            raise ValueError(f"{self.species.name}: no animation {anim} "
                             f"(the species has {len(sh.clips)})")
        whole, part = self._whole_frame(clip, frame, wrap)
        # Remember the integer frame, not the blend. Image swaps cannot be blended, so
        # texture streams advance at 30 Hz even when the bones are drawn at 60.
        self._frame_at = whole
        key = (anim, whole, part)
        if key == self._pose_key and self._applied == (0.0, 0.0, 0.0):
            return      # already showing exactly this, with no anchor shift to undo
        if part == 0.0:
            features = clip.features[whole]
        else:
            features = np.multiply(clip.steps[whole], part, out=self._blend)
            features += clip.features[whole]
        self._compose(features, clip.scaled)
        self._pose_key = key
        self._pose_serial += 1
        self._travel = None
        self._applied = (0.0, 0.0, 0.0)

    def _whole_frame(self, clip: "_Clip", frame: float, wrap: bool) -> tuple[int, float]:
        """The stored frame a float frame falls on after the wrap or hold, and how far on."""
        if clip.frames <= 1:
            return 0, 0.0
        if not math.isfinite(frame):
            raise ValueError(f"{self.species.name}: frame {frame!r} is not finite")
        f = max(float(frame), 0.0)
        whole = math.floor(f)
        part = f - whole
        last = clip.frames - 1
        if whole > last:
            if wrap:
                # the source game's player restarts its counter at the loop start
                whole = clip.loop + (whole - clip.loop) % (clip.frames - clip.loop)
            else:
                whole, part = last, 0.0
        if whole == last and not wrap:
            part = 0.0      # no frame follows the last one of a held animation
        return whole, part

    def shown_frame(self, anim, frame: float, wrap: bool) -> int:
        """The whole frame pose() would show (what texture streams are read at)."""
        clips = self._shared.clips
        if anim is None or anim == pack.NO_ANIM or not 0 <= anim < len(clips):
            return 0
        return self._whole_frame(clips[anim], frame, wrap)[0]

    def set_chains(self, pivot: np.ndarray, scale: np.ndarray, frame_at: int) -> None:
        """Pose the rig from outside (a runtime graph's pose): each bone's pivot matrix
        (n, 3, 4) and accumulated scale (n, 3), written where pose() writes them, so
        anchor(), skin() and textures() read them as if the rig had posed itself."""
        n = len(self.species.parents)
        self._world[:n, :3, :] = pivot
        self._acc[:n] = scale
        self._scaled = bool(np.any(np.abs(self._acc[:n] - 1.0) > UNIT_SCALE))
        self._frame_at = int(frame_at)
        self._pose_key = None
        self._pose_serial += 1
        self._travel = None
        self._applied = (0.0, 0.0, 0.0)

    def forget_pose(self) -> None:
        """Make the next pose() compose afresh, even at the frame it last posed."""
        self._pose_key = None

    @property
    def anchor_state(self):
        """The one thing the rig carries from frame to frame (the smoothed anchor offset),
        for a saved battle; None before any smoothing."""
        return None if self._filtered is None else [float(v) for v in self._filtered]

    @anchor_state.setter
    def anchor_state(self, value) -> None:
        self._filtered = None if value is None else tuple(float(v) for v in value)

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
            # the parent's accumulated scale stretches where a child sits, not its axes
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
        """Where the body is now: the mean bone origin, each weighted by its vertex count.

        A median of the origins would be robust too, but it is a rank. When the wings
        hold most of the bones, the middle one switches between the raised and lowered
        groups and the estimate jumps. Fixed per-bone weights cannot jump, and bones
        that carry few vertices hardly move it.
        """
        return np.dot(self._shared.weights, self._origins, out=self._centre)

    def measure_bind(self):
        """Find the bind-pose centre and decide whether the species can be anchored.

        Done once per species, during construction: it poses the bind pose, which
        must not clobber a pose that anchor() is about to correct. The decision steps
        through the standby loop. If the body estimate jumps by more than
        ANCHOR_STEADY body-heights between two frames, the estimate is unreliable for
        this species. It is then never anchored, and it moves exactly as animated
        instead of jittering.
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
                log.info("%s: standby body estimate jumps %.2f body-heights between frames "
                         "(limit %.2f); anchoring disabled for this species",
                         species.name, worst, ANCHOR_STEADY)
        sh.bind_centre, sh.anchor_ok = bind, ok
        self.pose(None, 0.0, False)

    def anchor(self, limit, dt=None):
        """Shift the whole pose back so the body stays within ``limit`` body-heights
        of its bind centre.

        Anything within the limit is kept, so attacks and recoils keep their shape.
        Beyond it only the overshoot is subtracted, so a long excursion still shows as
        long and ends on its own cell. Pass ``dt`` (seconds) to ease the shift toward
        its target at ANCHOR_HALF_LIFE. Without it the full shift applies at once, as
        a single still frame needs. A None or non-positive limit does nothing.
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
        # subtract the overshoot only; inside the limit nothing moves
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
        """Rewrite every part's positions and shade in place; uv are left alone.

        Each position goes through its bone's draw matrix. Each normal goes through the
        pivot, which has no scale, so stretched bones keep true normals. It is then
        turned by ``yaw``, the Y rotation the renderer's model matrix will apply. The
        light is fixed in the world, so shade must follow the world-space normal.
        If neither the pose nor the yaw changed since the last call, nothing is done.
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
        Streams are indexed by the skeleton's integer frame, because the source game
        advances both from the same counter. Past its end a stream keeps its final
        entry rather than starting over. A five-entry blink in a forty-frame loop
        therefore blinks once per loop, not eight times.
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
