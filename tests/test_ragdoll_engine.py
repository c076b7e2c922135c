"""The product's ragdoll engine (stadium/physics, MuJoCo): a profile's bodies in and out
unchanged, the pose back through ComputePoseFromBodies, and the sample 20-body humanoid
dropped while its drives weaken coming to rest lying on the ground, bit for bit the same
on every run."""
import math

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import runtime as rt  # noqa: E402
from runtime.core.transform import quat_rotate  # noqa: E402
from runtime.samples.humanoid import humanoid_source  # noqa: E402
from runtime.samples.ragdoll import humanoid_ragdoll_source  # noqa: E402
from stadium.physics import RagdollEngine  # noqa: E402

RATE = 240.0
SECONDS = 5.0           # N: the fall and the settling
FAINT = 1.0             # the drives weaken to nothing over this
SPEED, TURN = 0.05, 0.25    # at rest: every body slower than these (m/s, rad/s)
UP = np.array([0.0, 1.0, 0.0])


@pytest.fixture(scope="module")
def rig():
    sk = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(80)))
    return sk, rt.Ragdoll(rt.build_ragdoll(rt.Builder(), humanoid_ragdoll_source(sk)))


def standing(sk, ragdoll, tilt_rate=1.8):
    """The rest pose a little above the ground, tipping forward at tilt_rate rad/s."""
    pose = rt.Pose(sk)
    pose.compute_model(sk)
    h = 1 / 60
    now = np.array([0, 0.15, 0, 0, 0, 0, 1, 1, 1, 1], np.float32)
    before = now.copy()
    before[3], before[6] = math.sin(-tilt_rate * h / 2), math.cos(-tilt_rate * h / 2)
    return pose, now, ragdoll.bodies_from_pose(pose, now, pose, before, h)


def fall(sk, ragdoll):
    engine = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    engine.set_bodies(standing(sk, ragdoll)[2])
    engine.faint(FAINT)
    for _ in range(int(SECONDS * 60)):
        engine.step(1 / 60)
    return engine


def test_the_model_is_the_profile(rig):
    sk, ragdoll = rig
    engine = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    m = engine.model
    assert m.nbody == 21 and m.njnt == 1 + 3 * 19 and m.nu == 3 * 19
    assert np.isclose(sum(m.body_mass[1:]), sum(ragdoll.body(k).mass for k in range(20)))
    for k in range(1, 20):
        body = ragdoll.body(k)
        ranges = m.jnt_range[1 + 3 * (k - 1):1 + 3 * k]
        assert np.allclose(ranges, [[-body.swing_z, body.swing_z], [-body.swing_y, body.swing_y],
                                    [body.twist_min, body.twist_max]])
    assert np.isclose(m.opt.timestep, 1 / RATE) and np.allclose(m.opt.gravity, -9.81 * UP)


def test_bodies_and_pose_go_in_and_come_back(rig):
    sk, ragdoll = rig
    pose, placement, bodies = standing(sk, ragdoll)
    engine = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    engine.set_bodies(bodies)
    out = engine.bodies()
    assert np.abs(out[:, 0:3] - bodies[:, 0:3]).max() <= 1e-5
    assert all(min(np.abs(out[k, 3:7] - bodies[k, 3:7]).max(),
                   np.abs(out[k, 3:7] + bodies[k, 3:7]).max()) <= 1e-5 for k in range(20))
    back = rt.Pose(sk)
    engine.pose(placement, pose, back)
    again = ragdoll.bodies_from_pose(back, placement)
    assert np.abs(again[:, 0:3] - bodies[:, 0:3]).max() <= 1e-5
    for _ in range(30):                     # moving states the engine itself made
        engine.step(1 / 60)
    moving = engine.bodies()
    engine.set_bodies(moving)
    assert np.abs(engine.bodies() - moving).max() <= 1e-3 * (1 + np.abs(moving).max())


def test_a_faint_comes_to_rest_lying_on_the_ground(rig):
    sk, ragdoll = rig
    engine = fall(sk, ragdoll)
    bodies = engine.bodies()
    assert engine.strength == 0.0 and (engine.model.actuator_gainprm[:, 0] == 0).all()
    assert (bodies[:, 0:3] @ UP > 0).all()
    assert engine.lowest_points().min() >= -0.01            # above the ground, bar contact slop
    speeds = np.linalg.norm(bodies[:, 7:10], axis=1)
    turns = np.linalg.norm(bodies[:, 10:13], axis=1)
    print(f"at rest after {SECONDS} s: fastest body {speeds.max():.4f} m/s, {turns.max():.4f} rad/s")
    assert speeds.max() < SPEED and turns.max() < TURN and engine.at_rest(SPEED, TURN)
    up = quat_rotate(bodies[0, 3:7].astype(np.float64), ragdoll.up)
    assert abs(up @ UP) < 0.3                               # the root's up lies near the plane
    pose = rt.Pose(sk)
    engine.pose([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], pose, pose)
    assert pose.is_model_current and np.isfinite(pose.model).all()


def test_a_faint_is_the_same_bits_every_run(rig):
    sk, ragdoll = rig
    a, b = fall(sk, ragdoll), fall(sk, ragdoll)
    assert np.array_equal(a.data.qpos, b.data.qpos) and np.array_equal(a.data.qvel, b.data.qvel)
    assert a.bodies().tobytes() == b.bodies().tobytes()


def test_drives_hold_the_pose_until_the_faint(rig):
    """Full drives keep the joints near the angles they started at; weakened ones do not."""
    sk, ragdoll = rig
    strong = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    weak = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    for engine, strength in ((strong, 1.0), (weak, 0.0)):
        pose = rt.Pose(sk)
        pose.compute_model(sk)
        engine.set_bodies(ragdoll.bodies_from_pose(pose, [0, 0.05, 0, 0, 0, 0, 1, 1, 1, 1]))
        engine.set_drive_strength(strength)
        for _ in range(60):
            engine.step(1 / 60)             # a second standing on the ground
    bend = [np.abs(e.data.qpos[7:]).max() for e in (strong, weak)]
    print("joint bend, drives full and none:", bend)
    assert bend[0] < 0.5 and bend[1] > 3 * bend[0]


def test_steps_run_at_the_fixed_rate(rig):
    sk, ragdoll = rig
    engine = RagdollEngine(ragdoll, sk, rate=RATE, up=UP)
    assert engine.step(1 / 60) == 4
    assert [engine.step(0.001) for _ in range(5)] == [0, 0, 0, 0, 1]     # 1/240 = 4.17 ms
    assert math.isclose(engine.time, 5 / RATE)
    assert not engine.at_rest()                                          # falling
