"""Every species' ragdoll profile, made from its pack: a body on each bone that carries
geometry, boxes that hold the bone's vertices, and a faint that ends lying still on the
ground (the drives let go, gravity in the species' own units)."""
import numpy as np
import pytest

pytest.importorskip("mujoco")

import runtime as rt  # noqa: E402
from runtime.core.transform import quat_rotate  # noqa: E402
from stadium.physics import RagdollEngine  # noqa: E402
from stadium.physics.species_ragdoll import species_ragdoll  # noqa: E402
from stadium.rig.convert import rest_scales, runtime_species  # noqa: E402
from stadium.rig.roster import Roster  # noqa: E402

ROSTER = Roster()


@pytest.mark.parametrize("name", ROSTER.names)
def test_a_body_holds_each_bone_with_geometry(name):
    rts = runtime_species(ROSTER.load(name))
    species = rts.species
    ragdoll = species_ragdoll(rts)
    bones = {int(ragdoll.body(k).bone): ragdoll.body(k) for k in range(ragdoll.body_count)}
    acc = rest_scales(species)
    carried = set()
    for prim in species.prims:
        for b in np.unique(prim.bones):
            carried.add(int(b))
            body = bones[int(rts.pivot_bones[b])]
            points = prim.positions[prim.bones == b].astype(np.float64) * acc[b]
            inside = np.abs(points - body.frame[0:3]) <= np.asarray(body.size) * (1 + 1e-5) + 1e-6
            assert inside.all(), f"{name}: bone {b}'s vertices outside its box"
    assert len(bones) == len(carried | {0}) and ragdoll.body(0).parent == rt.physics.NO_BODY \
        if hasattr(rt.physics, "NO_BODY") else len(bones) == len(carried | {0})


@pytest.mark.parametrize("name", ["emberlisk", "gloopet", "ripplewyrm"])
def test_a_faint_lies_still_on_the_ground(name):
    rts = runtime_species(ROSTER.load(name))
    ragdoll = species_ragdoll(rts)
    sk = rts.skeleton
    pose = rt.Pose(sk)
    pose.set_rest(sk)
    pose.compute_model(sk)
    lift = 0.02 * rts.raw_height
    placement = np.array([0, lift, 0, 0, 0, 0, 1, 1, 1, 1], np.float32)
    engine = RagdollEngine(ragdoll, sk, gravity=9.81 / rts.species.root_scale)
    engine.set_bodies(ragdoll.bodies_from_pose(pose, placement))
    engine.faint(0.5)
    for _ in range(6 * 60):
        engine.step(1 / 60)
    bodies = engine.bodies()
    assert engine.strength == 0.0
    assert engine.lowest_points().min() >= -0.01 * rts.raw_height
    assert engine.at_rest(0.05 * rts.raw_height, 0.25)
    top = max(float(b[1]) for b in bodies)
    assert top < 0.9 * rts.raw_height                       # it has gone down
    back = rt.Pose(sk)
    engine.pose(placement, pose, back)
    assert np.isfinite(back.locals).all()
