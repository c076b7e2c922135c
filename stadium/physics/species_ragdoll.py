"""A species' ragdoll profile, made from its pack: a box body on each of its bulkiest bones
(up to MOST_BODIES: the extent of its vertices in the bone's unscaled frame; the smaller
bones keep their clip's pose on the bodies' bones), the root body where their chains meet (a
sphere there when that bone carries nothing),
swing-twist joints at each bone's origin, masses by volume, drives stiff enough to hold the
pose against gravity until a faint lets them go.

Made in code from what the pack already says, so every species (a bundled one or a user's)
falls without anyone authoring a profile; the Stadium path never uses it."""
from __future__ import annotations

import math

import numpy as np

import runtime as rt
from runtime.physics import BodySource, RagdollShape, RagdollSource

from ..rig.convert import RuntimeSpecies, rest_scales

DENSITY = 1.0                # mass a cubic raw unit: only ratios matter to the drives
LIGHTEST = 0.04              # the least body's mass, a share of the whole: lighter ones jitter
MOST_BODIES = 12             # the bulkiest bones get bodies; the rest follow their clip
ROOT_SIZE = 0.08             # a bare root's sphere, in body heights
THINNEST = 0.05              # the least half extent of a box, in body heights
TWIST = 1.2                 # the joints' limits, radians: a creature is stiffer than a doll
SWING = 1.4
HOLD = 60.0                  # drive stiffness per unit of the body's mass below the joint
DAMPING = 0.15               # drive damping, as a share of the stiffness


def species_ragdoll(rts: RuntimeSpecies) -> rt.Ragdoll:
    """The species' profile on its runtime skeleton, opened."""
    species = rts.species
    n = len(species.parents)
    height = rts.raw_height if rts.raw_height > 0 else 1.0
    acc = rest_scales(species)
    lo = np.full((n, 3), np.inf)
    hi = np.full((n, 3), -np.inf)
    for prim in species.prims:
        scaled = prim.positions.astype(np.float64) * acc[prim.bones]      # the pivot's frame
        np.minimum.at(lo, prim.bones, scaled)
        np.maximum.at(hi, prim.bones, scaled)
    carries = np.isfinite(lo[:, 0])
    bulk = np.where(carries, np.prod(np.maximum(hi - lo, 0.0), axis=1), -1.0)
    carries &= np.isin(np.arange(n), np.argsort(-bulk, kind="stable")[:MOST_BODIES])
    root = _common_ancestor(species.parents, np.flatnonzero(carries))
    bodies = []
    for b in range(n):
        if b != root and not carries[b]:
            continue
        if not carries[b]:          # the bones' meeting point carries nothing of its own
            shape, size, centre = RagdollShape.sphere, (ROOT_SIZE * height, 0.0, 0.0), np.zeros(3)
            volume = 4.0 / 3.0 * math.pi * size[0] ** 3
        else:
            half = np.maximum((hi[b] - lo[b]) / 2.0, THINNEST * height)
            shape, size, centre = RagdollShape.box, tuple(half), (hi[b] + lo[b]) / 2.0
            volume = 8.0 * float(np.prod(half))
        bodies.append(BodySource(rts.bone_label(b), int(rts.pivot_bones[b]), shape, size,
                                 mass=DENSITY * volume, translation=tuple(centre),
                                 joint_translation=tuple(-centre), twist_min=-TWIST,
                                 twist_max=TWIST, swing_y=SWING, swing_z=SWING))
    least = LIGHTEST * sum(b.mass for b in bodies)
    for body in bodies:
        body.mass = max(body.mass, least)
    if not carries[root]:       # a bare root carries the tree: as heavy as a body on average
        bare = next(b for b in bodies if b.bone == int(rts.pivot_bones[root]))
        bare.mass = max(bare.mass, sum(b.mass for b in bodies) / len(bodies))
    _drives(bodies, species.parents, rts)
    source = RagdollSource(rts.skeleton, bodies, facing=(0.0, 0.0, 1.0), up=(0.0, 1.0, 0.0))
    return rt.Ragdoll.open(rt.build_ragdoll(rt.Builder(), source))


def _common_ancestor(parents: np.ndarray, bones: np.ndarray) -> int:
    """The deepest bone every one of `bones` descends from (or is)."""
    def path(b):
        out = []
        while b >= 0:
            out.append(int(b))
            b = int(parents[b])
        return out[::-1]
    paths = [path(b) for b in bones]
    common = 0
    while all(len(p) > common and p[common] == paths[0][common] for p in paths):
        common += 1
    return paths[0][common - 1]


def _drives(bodies: list, parents: np.ndarray, rts: RuntimeSpecies) -> None:
    """Each joint's drive: stiffness by the mass it holds up (its body's and every body
    below it), so a tail and a torso hold alike."""
    by_bone = {int(np.flatnonzero(rts.pivot_bones == b.bone)[0]): b for b in bodies}
    held = {bone: body.mass for bone, body in by_bone.items()}
    for bone in sorted(by_bone, reverse=True):          # parents come before children
        up = int(parents[bone])
        while up >= 0 and up not in by_bone:
            up = int(parents[up])
        if up >= 0:
            held[up] += held[bone]
    for bone, body in by_bone.items():
        body.stiffness = HOLD * held[bone]
        body.damping = DAMPING * body.stiffness
