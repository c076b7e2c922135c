"""The graph's springs node: each evaluation after an update is maniSpringState_Step by the
update's delta then Apply on the node's input, bit for bit; it does not depend on the host's
frame rate (as the spring tests show for states); its state is saved and restored with the
instance (bit-exact continuation) and checked on restore; subsets plan its set's bones; its
build refusals and JSON form."""
from functools import lru_cache

import numpy as np
import pytest

import runtime as rt
from runtime.core.errors import BuildReason as R
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.json.read import GraphNamedAssets, read_text
from runtime.graph.json.write import write_text
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.graph.subset import GraphSubset
from runtime.physics.spring import SpringSet, SpringState
from runtime.physics.spring_build import (ColliderShape, ColliderSource, build_spring_set)
from runtime.samples.springs import (COMMON_TIMES, SEGMENT, TAIL_ROOT, TELEPORT_AT, host_times,
                                     placement_at, pose_at, spread_over_length, tail_set_source,
                                     tail_skeleton_source, world_points)

from graph_solver_fixtures import bits

SEGMENTS = 4
TAIL = range(TAIL_ROOT + 1, TAIL_ROOT + SEGMENTS + 1)
HEAD = TAIL_ROOT + SEGMENTS + 1


@lru_cache(maxsize=None)
def skeleton():
    return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), tail_skeleton_source(SEGMENTS)))


@lru_cache(maxsize=None)
def spring_set(colliders=False):
    kw = {}
    if colliders:
        kw = dict(colliders=[ColliderSource(HEAD, ColliderShape.sphere, (0.0, 0.0, 0.0), 0.2)],
                  groups=[[0]])
    return SpringSet(build_spring_set(rt.Builder(), tail_set_source(skeleton(), **kw)))


def parameters():
    return [ParameterSource("pose", T.pose), ParameterSource("at", T.vector3),
            ParameterSource("turn", T.quaternion), ParameterSource("push", T.vector3),
            ParameterSource("teleported", T.trigger)]


def source(colliders=False, **kw):
    node = SpringsNode(**{**dict(input=0, spring_set=0, position_parameter=1, rotation_parameter=2,
                                 force=(0.0, 0.5, 0.0), force_parameter=3, reset=4), **kw})
    return GraphSource(skeleton(), [PoseParameterNode(0), node], 1, parameters(),
                       spring_sets=[AssetSlotSource("tail", spring_set(colliders))])


def binding(colliders=False, **kw):
    return GraphBinding(Graph(build(source(colliders, **kw))),
                        GraphAssets(skeleton(), spring_sets=[spring_set(colliders)]))


def frame(inst, t, dt, placement, push=(0.0, 0.0, 0.0)):
    """One host frame: the pose and placement at t, an update by dt, the pose out."""
    pose = pose_at(skeleton(), t)
    inst.set_pose(0, pose)
    inst.set_parameter(1, T.vector3, tuple(float(v) for v in placement[:3]))
    inst.set_parameter(2, T.quaternion, tuple(float(v) for v in placement[3:7]))
    inst.set_parameter(3, T.vector3, push)
    inst.update(dt)
    out = rt.Pose(skeleton())
    inst.evaluate(out)
    return pose, out


@pytest.mark.parametrize("colliders", [False, True])
def test_each_evaluation_is_the_states_step_then_apply(colliders):
    inst = GraphInstance(binding(colliders))
    state = SpringState(spring_set(colliders), skeleton())
    ref = rt.Pose(skeleton())
    rng = np.random.default_rng(1)
    t = 0.0
    turns = [(0.0, 0.0, 0.0, 1.0), (0.5, 0.5, 0.5, 0.5), (0.0, 1.0, 0.0, 0.0)]
    for k in range(60):
        dt = float(rng.uniform(1 / 200, 1 / 20))
        t += dt
        at = np.float32(placement_at(t)[:3])
        placement = np.array([*at, *turns[k // 20], 1.0, 1.0, 1.0], dtype=np.float64)
        push = tuple(float(v) for v in np.float32(rng.normal(size=3)))
        pose, out = frame(inst, t, dt, placement, push)
        state.step(pose, placement, np.array([0.0, 0.5, 0.0]) + push, np.float32(dt))
        ref.copy_from(pose)
        state.apply(ref)
        assert np.array_equal(bits(out), bits(ref)), k
    assert not np.array_equal(bits(out), bits(pose))


def run(times) -> dict:
    """The scripted motion (samples/springs.py's play) through the graph at the host's frame
    times: the tail's bones in the world at the common times."""
    inst = GraphInstance(binding())
    seen, previous = {}, 0.0
    for t in times:
        if t >= TELEPORT_AT > previous:
            frame(inst, TELEPORT_AT, TELEPORT_AT - previous, placement_at(TELEPORT_AT - 1e-9))
            inst.set_parameter(4, T.trigger, True)
            frame(inst, TELEPORT_AT, 0.0, placement_at(TELEPORT_AT))
            previous = TELEPORT_AT
        placement = placement_at(t)
        _, out = frame(inst, t, t - previous, placement)
        previous = t
        if any(abs(t - c) < 1e-9 for c in COMMON_TIMES):
            seen[round(t, 6)] = world_points(skeleton(), out, placement, TAIL)
    return seen


def test_the_node_does_not_depend_on_the_host_frame_rate():
    runs = [run(host_times(rate)) for rate in (30, 144)] + [run(host_times(None, seed=2))]
    spread = spread_over_length(runs)
    print(f"graph spring spread over the bone length, 30 / 144 Hz / irregular: {spread:.2e}")
    assert spread <= 1e-3
    # the tail did move (the motion is not trivially the pose's)
    still = world_points(skeleton(), pose_at(skeleton(), COMMON_TIMES[3]),
                         placement_at(COMMON_TIMES[3]), TAIL)
    assert np.abs(runs[0][round(COMMON_TIMES[3], 6)] - still).max() > 1e-2 * SEGMENT


def test_save_mid_motion_and_restore_continue_bit_for_bit():
    b = binding(True)
    a = GraphInstance(b)
    t, dt = 0.0, 1 / 60
    for _ in range(50):
        t += dt
        frame(a, t, dt, placement_at(t))
    saved = a.save()
    c = GraphInstance(b)
    c.restore(saved)
    for _ in range(300):
        t += dt
        _, pa = frame(a, t, dt, placement_at(t))
        _, pc = frame(c, t, dt, placement_at(t))
        assert np.array_equal(bits(pa), bits(pc))
    assert np.array_equal(a.scalars, c.scalars)


def test_restore_checks_the_spring_values():
    b = binding()
    a = GraphInstance(b)
    for k in range(1, 6):
        frame(a, k / 30, 1 / 30, placement_at(k / 30))
    saved = bytearray(a.save())
    fresh = GraphInstance(b)
    before = fresh.buffer.copy()
    first = b.layout.nodes[1] + 3                       # the state's remainder
    raw = a.scalars.tobytes()
    at = bytes(saved).index(raw) + 8 * first
    bad = bytearray(saved)
    bad[at:at + 8] = np.float64(1.0).tobytes()        # a remainder past a step
    from test_graph_open import restamp
    with pytest.raises(rt.FormatError) as e:
        fresh.restore(restamp(bad))
    assert e.value.offset == at
    assert np.array_equal(fresh.buffer, before)


def test_the_reset_trigger_puts_the_springs_at_rest():
    inst = GraphInstance(binding())
    for k in range(1, 20):
        frame(inst, k / 30, 1 / 30, placement_at(k / 30))
    base = inst.binding.layout.nodes[1]
    assert inst.scalars[base + 5] == 1.0              # in motion
    inst.set_parameter(4, T.trigger, True)
    inst.update(0.0)
    assert inst.scalars[base + 4] == 0.0 and inst.scalars[base + 5] == 0.0
    assert inst.get_parameter(4).b is False


def test_subsets_plan_the_sets_bones_and_evaluate_bit_for_bit():
    b = binding(True)
    inst = GraphInstance(b)
    for k in range(1, 20):
        frame(inst, k / 30, 1 / 30, placement_at(k / 30))
    inst.set_pose(0, pose_at(skeleton(), 0.7))
    inst.update(1 / 30)
    plan = GraphSubset(b, [TAIL_ROOT + 2])
    s = spring_set(True)
    for bone in list(s.joint_bones) + list(s.collider_bones):
        assert bone in plan.bones
    twin = GraphInstance.attach(b, inst.buffer.copy())
    full = rt.Pose(skeleton())
    inst.evaluate(full)
    part = rt.Pose(skeleton())
    twin.evaluate_subset(plan, part)
    assert np.array_equal(bits(part)[plan.bones], bits(full)[plan.bones])
    assert np.array_equal(twin.scalars, inst.scalars)
    # a plan without any joint does not step the set: its due time stays
    other = GraphInstance.attach(b, twin.buffer.copy())
    other.update(1 / 30)
    due = other.scalars[b.layout.nodes[1] + 2]
    assert due > 0
    other.evaluate_subset(GraphSubset(b, [1]), rt.Pose(skeleton()))
    assert other.scalars[b.layout.nodes[1] + 2] == due


def test_build_refusals():
    def refused(**kw):
        with pytest.raises(rt.InvalidError) as e:
            build(source(**kw))
        return e.value.reason, e.value.item, e.value.other
    assert refused(spring_set=1) == (R.SpringSetSlot, 1, 1)
    assert refused(spring_set=-1) == (R.SpringSetSlot, 1, 0xFFFFFFFF)
    assert refused(position_parameter=2) == (R.Parameter, 1, 2)
    assert refused(rotation_parameter=1) == (R.Parameter, 1, 3)
    assert refused(force=(0.0, float("nan"), 0.0)) == (R.Node, 1, 4)
    assert refused(force_parameter=0) == (R.Parameter, 1, 5)
    assert refused(reset=3) == (R.Parameter, 1, 6)
    with pytest.raises(rt.InvalidError):
        GraphBinding(Graph(build(source())), GraphAssets(skeleton()))      # the set not given


def test_json_form_is_a_fixed_point():
    src = source(True)
    text = write_text(src)
    assert '"kind": "springs"' in text and '"springSet": "tail"' in text
    assets = GraphNamedAssets(skeleton(), spring_sets=[("tail", spring_set(True))])
    again = read_text(text, assets)
    assert write_text(again) == text and build(again) == build(src)
    bare = write_text(GraphSource(skeleton(), [PoseParameterNode(0), SpringsNode(0, 0)], 1, parameters(),
                                  spring_sets=[AssetSlotSource("tail", spring_set(True))]))
    assert '"force":' not in bare and '"reset":' not in bare
