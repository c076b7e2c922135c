"""Every species' ragdoll profile, made from its pack: a box on each of its bulkiest bones
holding the bone's vertices, the root where their chains meet, and a faint from the rest
pose that ends lying still on the ground (the drives let go, gravity in the species' own
units, MuJoCo never warning)."""
import numpy as np
import pytest

pytest.importorskip("mujoco")

import runtime as rt  # noqa: E402
from stadium.battle.fall import LIMP, RATE  # noqa: E402
from stadium.physics import RagdollEngine  # noqa: E402
from stadium.physics.species_ragdoll import MOST_BODIES, species_ragdoll  # noqa: E402
from stadium.rig.convert import rest_scales, runtime_species  # noqa: E402
from stadium.rig.roster import Roster  # noqa: E402

ROSTER = Roster()


def ancestors(parents, b):
    out = []
    while b >= 0:
        out.append(int(b))
        b = int(parents[b])
    return out


@pytest.mark.parametrize("name", ROSTER.names)
def test_boxes_hold_the_bulkiest_bones_under_one_root(name):
    rts = runtime_species(ROSTER.load(name))
    species = rts.species
    ragdoll = species_ragdoll(rts)
    pack_of = {int(rts.pivot_bones[b]): b for b in range(len(species.parents))}
    bodies = {pack_of[int(ragdoll.body(k).bone)]: ragdoll.body(k)
              for k in range(ragdoll.body_count)}
    acc = rest_scales(species)
    extent = {}
    for prim in species.prims:
        for b in np.unique(prim.bones):
            points = prim.positions[prim.bones == b].astype(np.float64) * acc[b]
            lo, hi = extent.get(int(b), (np.full(3, np.inf), np.full(3, -np.inf)))
            extent[int(b)] = (np.minimum(lo, points.min(0)), np.maximum(hi, points.max(0)))
    bulk = {b: float(np.prod(hi - lo)) for b, (lo, hi) in extent.items()}
    chosen = sorted(bulk, key=lambda b: (-bulk[b], b))[:MOST_BODIES]
    # the root: the deepest bone on every chosen bone's chain to the top
    common = set.intersection(*(set(ancestors(species.parents, b)) for b in chosen))
    root = max(common, key=lambda b: len(ancestors(species.parents, b)))
    assert set(bodies) == set(chosen) | {root}
    assert int(ragdoll.body(0).bone) == int(rts.pivot_bones[root])
    for b in chosen:
        body = bodies[b]
        lo, hi = extent[b]
        for corner in (lo, hi):
            inside = np.abs(corner - body.frame[0:3]) <= np.asarray(body.size) * (1 + 1e-5) + 1e-6
            assert inside.all(), f"{name}: bone {b}'s vertices outside its box"


@pytest.mark.parametrize("name", ROSTER.names)
def test_a_faint_lies_still_on_the_ground(name):
    rts = runtime_species(ROSTER.load(name))
    ragdoll = species_ragdoll(rts)
    sk = rts.skeleton
    pose = rt.Pose(sk)
    pose.set_rest(sk)
    pose.compute_model(sk)
    lift = 0.02 * rts.raw_height
    placement = np.array([0, lift, 0, 0, 0, 0, 1, 1, 1, 1], np.float32)
    engine = RagdollEngine(ragdoll, sk, rate=RATE, gravity=9.81 / rts.species.root_scale,
                           joint_damping=1.0, limp_damping=LIMP)      # as the battle's fall
    engine.set_bodies(ragdoll.bodies_from_pose(pose, placement))
    engine.faint(0.5)
    for step in range(6 * 60):          # at rest, some moment after the first second
        engine.step(1 / 60)
        if step >= 60 and engine.at_rest(0.05 * rts.raw_height, 0.25):
            break
    bodies = engine.bodies()
    assert engine.strength == 0.0 and not engine.unstable
    assert engine.lowest_points().min() >= -0.01 * rts.raw_height
    assert engine.at_rest(0.05 * rts.raw_height, 0.25)
    top = max(float(b[1]) for b in bodies)
    assert top < 0.9 * rts.raw_height                       # it has gone down
    back = rt.Pose(sk)
    engine.pose(placement, pose, back)
    assert np.isfinite(back.locals).all()
