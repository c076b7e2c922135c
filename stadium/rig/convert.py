"""Species packs as runtime assets: a Maul Anim skeleton and one clip per animation role.

    python -m stadium.rig.convert [NAME ...] [--out DIR] [--ship]

checks each species' clips against the rig, reports each clip's full and compressed sizes,
writes the full runtime files to DIR, and with --ship writes the compressed clips the battle
plays to assets/runtime/<species>/ (with the digest of the pack they were made from).

The battle plays compressed clips (runtime_species), within the species' compression bounds
of the full ones; the full clips are the rig's exact reading and what the checks compare.

Two things stand between a pack and the runtime, and both are answered here.

Scale. The rig keeps bone scale out of its chain: a child's offset is stretched by its
parent's accumulated scale, but its axes are not (see stadium.rig). The runtime composes
the usual way, scale included, so a pack bone cannot be one runtime bone. Each pack bone
becomes two, as an FBX importer splits a node whose scale must not reach its children:

    pivot   "<bone>"       rotation and the already stretched offset, scale 1: this is
                           what children hang from, and its model matrix is the rig's pivot
    draw    "<bone>.draw"  a child of its pivot with no offset or turn and the bone's
                           accumulated scale: its model matrix is the rig's draw matrix

Time. Pack tracks hold one value a 30 Hz frame, Euler angles, and the rig invents the
halfway poses with its own rules: the short way round, and a bone that turns or jumps
too far in one frame holds its frame instead (stadium.rig's guards). A runtime clip
interpolates quaternions linearly between its samples, which is not the same curve.
So the clips are baked at 60 Hz from the rig's own pose() at every whole and half frame:
at those instants the runtime gives exactly what the rig gives, guards included, and
between them (only a time step other than 1/60 s lands there) it interpolates between
two poses the rig itself would show.

Roles. A battler's graph plays clips by role, and the pack's context slots say which
animation each role is. A clamped role (send-out, attacks, hit, faint) is baked over
frames + 1 frames: the last frame is held for one 30 Hz frame as the rig holds it before
the battle moves on. The standby loop joins back to its loop start, so it is baked as
two clips: the lead-in before the loop start ("standby_intro", one sample when there is
none) and the loop itself ("standby", ending where it starts). A role the species has no
animation for plays what the battle scene falls back to: the first attack for the
second, else the standby, else the bind pose. An animation no role plays becomes a held
clip of its own, "anim<index>", so every animation of the pack has its runtime clip.

Events. Each attack clip carries "impact" where the blow lands (a quarter frame before it,
so the update that reaches the frame lists it): the first frame at which
the body has come nine tenths of the way to its furthest reach toward the opponent
(+Z), or, for an attack that barely moves the body (a breath, a spit), the first frame
nine tenths of the way to the pose furthest from the attack's first frame.
"""
from __future__ import annotations

import argparse
import sys
import weakref
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import runtime as rt
from runtime.clip.clip import Clip, ClipEvent, LoopPolicy
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, build_clip
from runtime.pose.skeleton import BoneSource, SkeletonSource, build_skeleton
from runtime.core.transform import quats_from_matrices

from ..paths import RUNTIME_CLIPS
from . import pack
from .rig import StadiumRig, euler_matrix, ANGLE

RATE = 2 * pack.FPS                 # the bake: every whole and every half 30 Hz frame
DRAW_SUFFIX = ".draw"

# Roles, their context slot, and whether the rig plays them wrapped (the standby only).
ROLES = ("sendout", "standby_intro", "standby", "attack1", "attack2", "hit", "faint")
SLOT_OF = {"sendout": pack.ENTRANCE, "standby_intro": pack.STANDBY, "standby": pack.STANDBY,
           "attack1": pack.ATTACK1, "attack2": pack.ATTACK2, "hit": pack.HIT,
           "faint": pack.FAINT}
ATTACKS = ("attack1", "attack2")
IMPACT_EVENT = "impact"
DIGEST_FILE = "pack.sha256"         # beside shipped clips: the pack they were made from
# An update lists the events its playhead passes on [before, after), so an event exactly
# on the impact frame would be listed one 60 Hz step after the pose shows that frame.
# A quarter of a 30 Hz frame earlier, it is listed by the very step that arrives there.
IMPACT_LEAD = 0.25 / pack.FPS

# How far forward (in body heights) an attack must carry the body for its reach to say
# where the blow lands, and how close to the furthest point counts as having arrived.
REACH_MIN = 0.1
ARRIVED = 0.9


@dataclass(eq=False)
class RoleClip:
    """One role's clip and how the rig plays the same stretch of the pack.

    ``anim`` is the pack animation (None: the bind pose), ``first`` the pack frame at
    clip time 0, ``wrap`` the flag the rig's pose() takes: a playhead t shows pack frame
    ``first + t * FPS``.
    """

    role: str
    clip: Clip
    data: bytes
    anim: int | None
    first: int
    wrap: bool
    loop: bool
    impact: float | None = None          # seconds into the clip, attacks only

    def frame(self, playhead: float) -> float:
        return self.first + playhead * pack.FPS


@dataclass(eq=False)
class RuntimeSpecies:
    """A species as the runtime sees it: the split skeleton and a clip per role."""

    species: pack.Species
    skeleton: rt.Skeleton
    skeleton_data: bytes
    pivot_bones: np.ndarray      # runtime bone of each pack bone's pivot
    draw_bones: np.ndarray       # runtime bone of each pack bone's draw matrix
    clips: dict                  # role -> RoleClip ("anim<k>" for an animation no role plays)
    raw_height: float            # body height in the tracks' raw units

    @property
    def name(self) -> str:
        return self.species.name

    def clip(self, role: str) -> Clip:
        return self.clips[role].clip

    def chains(self, pose: rt.Pose) -> tuple[np.ndarray, np.ndarray]:
        """What StadiumRig.set_chains takes from a posed runtime skeleton (model space
        computed): each pack bone's pivot matrix, and its draw bone's local scale, which
        is the bone's accumulated scale (a draw bone has no turn or offset)."""
        return pose.model[self.pivot_bones], pose.locals[self.draw_bones, 7:10]

    def bone_label(self, b: int) -> str:
        """A pack bone's name, as the runtime skeleton names its pivot."""
        return bone_name(b)


def bone_name(b: int) -> str:
    return f"bone{b:02d}"


def animation_for(species: pack.Species, slot: int) -> int | None:
    """The animation a context slot plays, with the battle scene's fallbacks."""
    for candidate in (slot, pack.ATTACK1 if slot == pack.ATTACK2 else slot, pack.STANDBY):
        index = species.ctx[candidate] if species.ctx else pack.NO_ANIM
        if index != pack.NO_ANIM and index < len(species.anims):
            return index
    return None


# ------------------------------------------------------------------ the skeleton


def rest_scales(species: pack.Species) -> np.ndarray:
    """Each bone's accumulated rest scale (the bind pose's)."""
    n = len(species.parents)
    acc = np.ones((n, 3))
    for b in range(n):
        p = int(species.parents[b])
        acc[b] = species.rest_s[b] * (acc[p] if p >= 0 else 1.0)
    return acc


def split_skeleton(species: pack.Species):
    """The runtime skeleton: a pivot and a draw bone per pack bone (bind pose at rest).
    Returns (data, skeleton, pivot bones, draw bones)."""
    n = len(species.parents)
    acc = rest_scales(species)
    rotations = quats_from_matrices(euler_matrix(species.rest_r.astype(np.float64) * ANGLE))
    bones = []
    for b in range(n):
        p = int(species.parents[b])
        offset = species.rest_t[b].astype(np.float64) * (acc[p] if p >= 0 else 1.0)
        bones.append(BoneSource(bone_name(b), -1 if p < 0 else 2 * p, offset, rotations[b]))
        bones.append(BoneSource(bone_name(b) + DRAW_SUFFIX, 2 * b, scale=acc[b]))
    data = build_skeleton(rt.Builder(), SkeletonSource(bones))
    skeleton = rt.Skeleton.open(data)
    pivots = np.array([skeleton.find_bone(bone_name(b)) for b in range(n)], np.intp)
    draws = np.array([skeleton.find_bone(bone_name(b) + DRAW_SUFFIX) for b in range(n)], np.intp)
    return data, skeleton, pivots, draws


# ------------------------------------------------------------------ baking


def split_locals(parents: np.ndarray, pivot: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """Pivot and draw matrices (..., n, 3, 4) as split-skeleton locals (..., n, 2, 10) in
    binary64: [..., 0, :] each pivot bone's, [..., 1, :] each draw bone's."""
    pivot = np.asarray(pivot, np.float64)
    draw = np.asarray(draw, np.float64)
    out = np.zeros(pivot.shape[:-2] + (2, 10))
    rot, pos = pivot[..., :3], pivot[..., 3]
    has = np.asarray(parents) >= 0
    up = np.where(has, parents, 0)
    # the parent's pivot is a pure rotation: its inverse is its transpose
    local_rot = np.where(has[:, None, None],
                         np.einsum("...bji,...bjk->...bik", rot[..., up, :, :], rot), rot)
    local_pos = np.where(has[:, None],
                         np.einsum("...bji,...bj->...bi", rot[..., up, :, :], pos - pos[..., up, :]),
                         pos)
    out[..., 0, 0:3] = local_pos
    out[..., 0, 3:7] = quats_from_matrices(local_rot)
    out[..., 0, 7:10] = 1.0
    out[..., 1, 6] = 1.0
    # draw = pivot * diag(acc): each column of the draw block is the pivot's, scaled
    out[..., 1, 7:10] = np.einsum("...bij,...bij->...bj", draw[..., :3], rot)
    return out


def bake(rig: StadiumRig, anim, frames, wrap: bool) -> np.ndarray:
    """Split-skeleton locals (len(frames), n, 2, 10) of the rig posed at each frame."""
    n = len(rig.species.parents)
    pivots = np.empty((len(frames), n, 3, 4))
    draws = np.empty((len(frames), n, 3, 4))
    for k, f in enumerate(frames):
        rig.pose(anim, float(f), wrap)
        pivots[k] = rig.pivot
        draws[k] = rig.draw
    return split_locals(rig.species.parents, pivots, draws)


def _clip_from(rts_skeleton, pivots, draws, samples: np.ndarray, loop: bool, events=()) -> bytes:
    """A clip keyed at every 60 Hz sample with the baked locals."""
    count = samples.shape[0]
    times = np.arange(count, dtype=np.float64) / RATE
    channels = []
    for b in range(samples.shape[1]):
        for bone, part in ((pivots[b], 0), (draws[b], 1)):
            values = samples[:, b, part]
            channels.append(ChannelSource(int(bone), ChannelPath.translation, times, values[:, 0:3]))
            channels.append(ChannelSource(int(bone), ChannelPath.rotation, times, values[:, 3:7]))
            channels.append(ChannelSource(int(bone), ChannelPath.scale, times, values[:, 7:10]))
    source = ClipSource(rts_skeleton, channels, events=[ClipEvent(*e) for e in events],
                        sample_rate=float(RATE), duration=(count - 1) / RATE,
                        loop=LoopPolicy.repeat if loop else LoopPolicy.clamp)
    return build_clip(rt.Builder(), source)


def impact_frame(rig: StadiumRig, anim: int) -> int:
    """Where an attack's blow lands (see the module's text), a whole pack frame."""
    species = rig.species
    frames = species.anims[anim].frames
    height = species.height / species.root_scale
    weights = _bone_weights(species)
    centres, origins = [], []
    for f in range(frames):
        rig.pose(anim, f, False)
        origins.append(np.asarray(rig.pivot)[:, :, 3].copy())
        centres.append(weights @ origins[-1])
    centres, origins = np.array(centres), np.array(origins)
    forward = centres[:, 2] - centres[0, 2]
    if height > 0 and forward.max() >= REACH_MIN * height:
        return int(np.argmax(forward >= ARRIVED * forward.max()))
    moved = np.einsum("b,fb->f", weights, np.linalg.norm(origins - origins[0], axis=-1))
    if moved.max() <= 0:
        return int(frames * 0.45)
    return int(np.argmax(moved >= ARRIVED * moved.max()))


def _bone_weights(species: pack.Species) -> np.ndarray:
    counts = np.zeros(len(species.parents))
    for prim in species.prims:
        np.add.at(counts, prim.bones, 1)
    return counts / counts.sum() if counts.sum() > 0 else np.full(len(counts), 1 / len(counts))


def _halves(first: int, last: int) -> np.ndarray:
    """Pack frames first, first + 0.5, ..., last."""
    return first + np.arange(2 * (last - first) + 1) / 2.0


@dataclass(frozen=True)
class _RolePlan:
    """What a role's clip bakes: the pack frames at its 60 Hz samples, and how it plays."""

    role: str
    anim: int | None
    first: int
    times: np.ndarray
    wrap: bool
    loop: bool
    events: tuple = ()
    impact: float | None = None


def _plans(species: pack.Species, rig: StadiumRig) -> list[_RolePlan]:
    """Every role's plan, then one for each animation no role plays ("anim<index>")."""
    plans = []
    for role in ROLES:
        anim = animation_for(species, SLOT_OF[role])
        frames = species.anims[anim].frames if anim is not None else 1
        loop_start = species.anims[anim].loop_start if anim is not None else 0
        if not 0 < loop_start < frames:
            loop_start = 0
        wrap = SLOT_OF[role] == pack.STANDBY and anim is not None and \
            animation_for(species, pack.STANDBY) == anim
        events, impact = (), None
        if role == "standby_intro":
            first, times, loop = 0, _halves(0, loop_start), False
        elif role == "standby" and wrap:
            # frames loop_start .. frames, the last blending back into loop_start
            first, times, loop = loop_start, _halves(loop_start, frames), True
        else:
            # a held end: the last frame shows for one more 30 Hz frame
            first, times, loop = 0, np.minimum(_halves(0, frames), frames - 1), False
            if role == "standby":
                loop = True      # a species with no standby loops its fallback
            if role in ATTACKS and anim is not None:
                impact = impact_frame(rig, anim) / pack.FPS
                events = ((IMPACT_EVENT, impact - IMPACT_LEAD),)
        plans.append(_RolePlan(role, anim, first, times, wrap, loop, events, impact))
    played = {p.anim for p in plans}
    for anim, a in enumerate(species.anims):
        if anim not in played:
            times = np.minimum(_halves(0, a.frames), a.frames - 1)
            plans.append(_RolePlan(f"anim{anim}", anim, 0, times, False, False))
    return plans


def _species(species: pack.Species, clip_data) -> RuntimeSpecies:
    """The runtime species with each plan's clip from clip_data(plan, skeleton, pivots,
    draws, rig)."""
    data, skeleton, pivots, draws = split_skeleton(species)
    rig = StadiumRig(species)
    clips = {}
    for plan in _plans(species, rig):
        made = bytes(clip_data(plan, skeleton, pivots, draws, rig))
        clips[plan.role] = RoleClip(plan.role, Clip.open(made), made, plan.anim, plan.first,
                                    plan.wrap, plan.loop, plan.impact)
    rig.release()
    root = species.root_scale if species.root_scale > 0 else 1.0
    return RuntimeSpecies(species, skeleton, data, pivots, draws, clips, species.height / root)


def _baked(plan: _RolePlan, skeleton, pivots, draws, rig) -> bytes:
    samples = bake(rig, plan.anim, plan.times, plan.wrap)
    return _clip_from(skeleton, pivots, draws, samples, plan.loop, plan.events)


def convert(species: pack.Species) -> RuntimeSpecies:
    """Build the runtime skeleton and every role's full clip, the rig's exact reading (no
    caching and no compression; see runtime_species)."""
    return _species(species, _baked)


_CACHE: "weakref.WeakKeyDictionary[pack.Species, RuntimeSpecies]" = weakref.WeakKeyDictionary()


def runtime_species(species: pack.Species) -> RuntimeSpecies:
    """The species as the battle plays it, made once per loaded pack: every clip compressed
    at compression_options. A bundled pack's compressed clips are shipped in
    assets/runtime/ (see ship), so the battle neither bakes nor compresses them."""
    found = _CACHE.get(species)
    if found is None:
        found = _CACHE[species] = _shipped(species) or compressed(convert(species))
    return found


# ------------------------------------------------------------------ checking


def role_frames(role: RoleClip, species: pack.Species) -> list[float]:
    """Every whole and half pack frame the role's clip covers."""
    if role.anim is None:
        return [0.0]
    frames = species.anims[role.anim].frames
    span = role.clip.duration * pack.FPS
    return [role.first + k / 2.0 for k in range(int(round(2 * span)) + 1)
            if role.first + k / 2.0 <= max(frames, 1) + 1e-9]


def equivalence_error(rts: RuntimeSpecies, role_name: str) -> float:
    """The largest gap between the runtime's model matrices and the rig's pivot and draw
    matrices, over every whole and half frame of a role, in body heights (the 3x3 part
    measured over one body height)."""
    species = rts.species
    role = rts.clips[role_name]
    rig = StadiumRig(species)
    pose = rt.Pose(rts.skeleton)
    h = rts.raw_height if rts.raw_height > 0 else 1.0
    worst = 0.0
    for f in role_frames(role, species):
        t = (f - role.first) / pack.FPS
        role.clip.sample(rts.skeleton, t, pose)
        pose.compute_model(rts.skeleton)
        model = pose.model.astype(np.float64)
        rig.pose(role.anim, f, role.wrap)
        for ours, theirs in ((model[rts.pivot_bones], np.asarray(rig.pivot)),
                             (model[rts.draw_bones], rig.draw)):
            gap = np.abs(ours - theirs)
            worst = max(worst, float(gap[:, :, 3].max()) / h, float(gap[:, :, :3].max()))
    rig.release()
    return worst


# ------------------------------------------------------------------ compression


# The compression bounds for a species, in its own units: fractions of its size (the furthest
# any bone sits from the origin at rest), the defaults' 0.1 mm at 3 cm for a rig a metre out.
PRECISION_PER_SIZE = 1e-4
SHELL_PER_SIZE = 0.03


@dataclass(frozen=True)
class ClipSizes:
    """One clip's file sizes, full and compressed, and the compressed clip's worst shell
    error (in the skeleton's units) with the precision it was held to."""

    role: str
    full_bytes: int
    compressed_bytes: int
    worst_error: float
    precision: float

    @property
    def ratio(self) -> float:
        return self.full_bytes / self.compressed_bytes


def species_size(rts: RuntimeSpecies) -> float:
    """The furthest any bone's origin sits from the species' origin, on any axis, at rest."""
    pose = rt.Pose(rts.skeleton)
    pose.set_rest(rts.skeleton)
    return float(np.abs(pose.model[:, :, 3]).max())


def compression_options(rts: RuntimeSpecies) -> rt.CompressOptions:
    """The default bounds scaled to the species' size (PRECISION_PER_SIZE, SHELL_PER_SIZE)."""
    size = species_size(rts)
    return rt.CompressOptions(precision=size * PRECISION_PER_SIZE,
                              shell_distance=size * SHELL_PER_SIZE)


def compression_report(rts: RuntimeSpecies) -> list[ClipSizes]:
    """Every clip of the species compressed at compression_options: its sizes and error."""
    options = compression_options(rts)
    sizes = []
    for name, role in rts.clips.items():
        report = rt.compress_clip(rt.Builder(), role.clip, rts.skeleton, options)
        sizes.append(ClipSizes(name, report.full_bytes, report.compressed_bytes,
                               report.worst_error, options.precision))
    return sizes


def compression_tolerance(rts: RuntimeSpecies) -> tuple[float, float]:
    """How far a compressed clip's model frames may stray from the full clip's: each bone's
    origin by the precision, its axes by the angle that moves a vertex at the shell distance
    by twice the precision (the shell's bound less the origin's share), in radians."""
    options = compression_options(rts)
    return options.precision, 2 * options.precision / options.shell_distance


def compressed(rts: RuntimeSpecies) -> RuntimeSpecies:
    """The species with every clip compressed at compression_options (a clip already
    compressed is kept)."""
    options = compression_options(rts)

    def packed(plan: _RolePlan, skeleton, *_):
        clip = rts.clips[plan.role].clip
        if clip.is_compressed:
            return clip.data
        builder = rt.Builder()
        rt.compress_clip(builder, clip, skeleton, options)
        return builder.built()

    return _species(rts.species, packed)


def _shipped_folder(species: pack.Species) -> Path:
    return RUNTIME_CLIPS / species.name.lower()


def _shipped(species: pack.Species) -> RuntimeSpecies | None:
    """The species with its shipped compressed clips, when assets/runtime/ holds them for
    exactly this pack's bytes; else None."""
    folder = _shipped_folder(species)
    try:
        if not species.digest or (folder / DIGEST_FILE).read_text().strip() != species.digest:
            return None
    except OSError:
        return None
    return _species(species, lambda plan, *_: (folder / f"{plan.role}.mclip").read_bytes())


def ship(rts: RuntimeSpecies, folder: Path | None = None) -> list[Path]:
    """Write the species' compressed clips, and the digest of the pack they were made from,
    where runtime_species finds them (assets/runtime/<species>/ by default)."""
    folder = Path(folder) / rts.name.lower() if folder else _shipped_folder(rts.species)
    folder.mkdir(parents=True, exist_ok=True)
    packed = compressed(rts)
    written = []
    for name, role in packed.clips.items():
        written.append(folder / f"{name}.mclip")
        written[-1].write_bytes(bytes(role.data))
    written.append(folder / DIGEST_FILE)
    written[-1].write_text(rts.species.digest + "\n")
    return written


def format_sizes(sizes: list[ClipSizes]) -> list[str]:
    """The report's lines: one a clip, then the species' total."""
    def line(name, full, packed, worst):
        return (f"  {name:<14} {full:>9,} B full {packed:>8,} B compressed {full / packed:6.2f} : 1, "
                f"worst error {worst:.3f} of the precision")
    lines = [line(s.role, s.full_bytes, s.compressed_bytes, s.worst_error / s.precision) for s in sizes]
    lines.append(line("all clips", sum(s.full_bytes for s in sizes),
                      sum(s.compressed_bytes for s in sizes),
                      max(s.worst_error / s.precision for s in sizes))
                 + f" ({sizes[0].precision:.3g} in the species' units)")
    return lines


def write(rts: RuntimeSpecies, folder: Path) -> list[Path]:
    """The skeleton and role clips as runtime files under folder/<species>/."""
    folder = Path(folder) / rts.name.lower()
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "skeleton.mskel"]
    written[0].write_bytes(bytes(rts.skeleton_data))
    for name, role in rts.clips.items():
        path = folder / f"{name}.mclip"
        path.write_bytes(bytes(role.data))
        written.append(path)
    return written


def main(argv=None) -> int:
    from .roster import Roster

    parser = argparse.ArgumentParser(prog="python -m stadium.rig.convert", description=__doc__.split("\n")[0])
    parser.add_argument("species", nargs="*", help="species names or .pack paths (default: all bundled)")
    parser.add_argument("--out", type=Path, help="write skeleton.mskel and <role>.mclip per species here")
    parser.add_argument("--ship", action="store_true",
                        help="write the compressed clips the battle plays to assets/runtime/")
    args = parser.parse_args(argv)
    roster = Roster()
    for name in args.species or roster.names:
        rts = convert(roster.load(name))
        worst = max(equivalence_error(rts, role) for role in rts.clips)
        impacts = ", ".join(f"{r} {rts.clips[r].impact * pack.FPS:.0f}" for r in ATTACKS
                            if rts.clips[r].impact is not None)
        print(f"{rts.name}: {rts.skeleton.bone_count} runtime bones, {len(rts.clips)} clips, "
              f"worst gap {worst:.2e} body heights; impact frames {impacts or 'none'}")
        for line in format_sizes(compression_report(rts)):
            print(line)
        for path in (write(rts, args.out) if args.out else []) + (ship(rts) if args.ship else []):
            print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
