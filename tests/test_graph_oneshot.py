"""One-shots, inertialization and dead blending, and sync groups."""
import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.graph.limits import GRAPH_NONE
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, instance_of, params, slots, standard_clips

PS = [("go", T.trigger), ("stop", T.trigger), ("abort", T.trigger), ("i", T.int_)]


def weight(inst, k):
    return capi.maniGraphInstance_InspectNode(inst, k).weight


def evaluated(inst):
    pose = rt.Pose(humanoid())
    capi.maniGraphInstance_Evaluate(inst, None, pose)
    return pose


def set_trigger(inst, k):
    capi.maniGraphInstance_SetParameter(inst, k, T.trigger, True)


def one_shot(mask=None, **kw):
    nodes = [ClipNode(0), ClipNode(3), OneShotNode(0, 1, 0, fade_out_trigger=1, abort=2, mask=mask, **kw)]
    return instance_of(GraphSource(humanoid(), nodes, 2, params(*PS), slots("a", "b", "c", "d")))


def test_one_shot_plays_fades_and_ends():
    g, b, inst = one_shot(fade_in=0.2, fade_out=0.2)      # the shot is d: 0.8 s
    capi.maniGraphInstance_Update(inst, 0.1)
    assert weight(inst, 1) == 0.0 and weight(inst, 0) == 1.0
    set_trigger(inst, 0)
    shots = []
    for _ in range(12):
        capi.maniGraphInstance_Update(inst, 0.1)
        shots.append(round(weight(inst, 1), 6))
    assert shots[:3] == [0.0, 0.5, 1.0]                  # fading in over 0.2 s
    assert max(shots) == 1.0 and shots[-1] == 0.0       # faded out before its end, then idle
    end = shots.index(0.5, 3)
    assert shots[2:end] == [1.0] * (end - 2) and shots[end:end + 2] == [0.5, 0.0]
    assert 7 <= end <= 8                                 # the fade out ends with the clip (0.8 s)
    assert not capi.maniGraphInstance_GetParameter(inst, 0).b


def test_one_shot_triggers_abort_fade_out_and_restart():
    g, b, inst = one_shot(fade_in=0.0, fade_out=0.4)
    set_trigger(inst, 0)
    capi.maniGraphInstance_Update(inst, 0.1)
    assert weight(inst, 1) == 1.0
    set_trigger(inst, 1)                                  # fade out now
    capi.maniGraphInstance_Update(inst, 0.1)
    capi.maniGraphInstance_Update(inst, 0.2)
    assert weight(inst, 1) == pytest.approx(0.5)
    set_trigger(inst, 0)                                  # again, from where it is
    capi.maniGraphInstance_Update(inst, 0.1)
    assert weight(inst, 1) == 1.0
    assert capi.maniGraphInstance_InspectNode(inst, 1).playhead == pytest.approx(0.1)
    set_trigger(inst, 2)                                  # abort: cut at once
    capi.maniGraphInstance_Update(inst, 0.1)
    assert weight(inst, 1) == 0.0
    np.testing.assert_array_equal([capi.maniGraphInstance_GetParameter(inst, k).b for k in range(3)],
                                  [False] * 3)


def test_one_shot_through_a_mask():
    sk = humanoid()
    arm = sk.find_bone("arm_l")
    g, b, inst = one_shot(mask=MaskSource([MaskChain(arm, 1.0, True)], 0.0))
    set_trigger(inst, 0)
    capi.maniGraphInstance_Update(inst, 0.1)
    pose = evaluated(inst).locals
    base = rt.Pose(sk)
    standard_clips()["a"].sample(sk, 0.1, base)
    shot = rt.Pose(sk)
    standard_clips()["d"].sample(sk, 0.1, shot)
    inside = np.arange(arm, sk.subtree_end(arm))
    outside = np.setdiff1d(np.arange(sk.bone_count), inside)
    np.testing.assert_allclose(pose[inside], shot.locals[inside], atol=2e-6)
    np.testing.assert_allclose(pose[outside], base.locals[outside], atol=2e-6)
    assert weight(inst, 0) == 1.0 and weight(inst, 1) == 1.0
    assert capi.maniGraphInstance_InspectNode(inst, 1).root_weight == 0.0      # the mask is 0 at the hips


def _continuity(method):
    """A select switched under an inertialize node: the output moves on from the old pose,
    not jumping, and reaches the new input once the duration has passed."""
    nodes = [ClipNode(0), ClipNode(1), SelectNode(3, [0, 1]),
             InertializeNode(2, method=method, duration=0.3)]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 3, params(*PS), slots("a", "c")))
    sk = humanoid()
    poses = []
    for frame in range(20):
        if frame == 5:
            capi.maniGraphInstance_SetParameter(inst, 3, T.int_, 1)
        capi.maniGraphInstance_Update(inst, 1 / 30)
        poses.append(evaluated(inst).locals.copy())
    target = rt.Pose(sk)
    clip = standard_clips()["c"]
    t = capi.maniGraphInstance_InspectNode(inst, 1).playhead
    clip.sample(sk, t, target)
    jump_without = np.abs(poses[4] - _sampled(clip, 5 / 30)).max()
    jump_with = np.abs(poses[5] - poses[4]).max()
    assert jump_with < 0.5 * jump_without
    np.testing.assert_allclose(poses[-1], target.locals, atol=2e-5)
    return g, b, inst


def _sampled(clip, t):
    pose = rt.Pose(humanoid())
    clip.sample(humanoid(), t, pose)
    return pose.locals


def test_inertialization_and_dead_blending_are_continuous():
    _continuity(InertializeMethod.inertialization)
    _continuity(InertializeMethod.dead_blending)


def test_machines_under_an_inertialize_node_switch_at_once():
    machine = StateMachineNode([0, 1], [Transition(0, 1, duration=0.25, conditions=[Condition(ConditionKind.trigger, 0)])])
    nodes = [ClipNode(0), ClipNode(1), machine, InertializeNode(2, trigger=1)]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 3, params(*PS), slots("a", "c")))
    capi.maniGraphInstance_Update(inst, 0.1)
    evaluated(inst)
    capi.maniGraphInstance_Update(inst, 0.1)
    evaluated(inst)
    set_trigger(inst, 0)
    capi.maniGraphInstance_Update(inst, 0.1)
    assert weight(inst, 1) == 1.0 and weight(inst, 0) == 0.0          # no crossfade
    at = b.layout.nodes[3] + 2
    assert inst.scalars[at + 1] == 1.0 and inst.scalars[at + 3] == pytest.approx(0.25)   # pending, the transition's time
    evaluated(inst)
    assert inst.scalars[at] == 1.0 and inst.scalars[at + 1] == 0.0                 # captured: active
    for _ in range(3):
        capi.maniGraphInstance_Update(inst, 0.1)
    assert inst.scalars[at] == 0.0                                           # done after 0.25 s
    set_trigger(inst, 1)                                               # its own trigger
    capi.maniGraphInstance_Update(inst, 0.1)
    assert not capi.maniGraphInstance_GetParameter(inst, 1).b


def test_inspect_shows_an_inertialization_under_way():
    machine = StateMachineNode([0, 1], [Transition(0, 1, duration=0.25, conditions=[Condition(ConditionKind.trigger, 0)])])
    nodes = [ClipNode(0), ClipNode(1), machine, InertializeNode(2, trigger=1)]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 3, params(*PS), slots("a", "c")))
    inspect = lambda: capi.maniGraphInstance_InspectNode(inst, 3)            # noqa: E731
    for _ in range(2):
        capi.maniGraphInstance_Update(inst, 0.1)
        evaluated(inst)
    assert inspect().transition == GRAPH_NONE and inspect().progress == 0.0
    set_trigger(inst, 0)
    capi.maniGraphInstance_Update(inst, 0.1)                       # switched: pending its capture
    view = inspect()
    assert view.transition == 0 and view.progress == 0.0 and view.playhead == 0.0
    assert capi.maniGraphInstance_InspectNode(inst, 2).transition == GRAPH_NONE   # the machine switched at once
    evaluated(inst)
    capi.maniGraphInstance_Update(inst, 0.1)
    view = inspect()
    assert view.transition == 0 and view.progress == pytest.approx(0.4) and view.playhead == pytest.approx(0.1)
    for _ in range(2):
        evaluated(inst)
        capi.maniGraphInstance_Update(inst, 0.1)
    assert inspect().transition == GRAPH_NONE                      # done after 0.25 s


@pytest.mark.parametrize("method", [InertializeMethod.inertialization, InertializeMethod.dead_blending])
def test_evaluating_again_without_an_update_changes_nothing(method):
    nodes = [ClipNode(0), ClipNode(1), SelectNode(3, [0, 1]), InertializeNode(2, method=method, duration=0.3)]
    g, b, once = instance_of(GraphSource(humanoid(), nodes, 3, params(*PS), slots("a", "c")))
    twice = capi.maniInitGraphInstance(b)
    for frame in range(14):
        for inst in (once, twice):
            if frame in (4, 6):
                capi.maniGraphInstance_SetParameter(inst, 3, T.int_, frame // 2 % 2)
            capi.maniGraphInstance_Update(inst, 1 / 30)
        pose = evaluated(once)
        first = evaluated(twice)
        assert np.array_equal(evaluated(twice).locals, first.locals)
        assert np.array_equal(pose.locals, first.locals) and bytes(once.buffer) == bytes(twice.buffer)


def test_sync_groups_follow_the_leader_by_markers():
    ps = params(("w", T.float_, 0.3, 0.0, 1.0))
    nodes = [ClipNode(0, sync_group=0), ClipNode(1, sync_group=0),
             Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)])]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 2, ps, slots("a", "b"), [SyncGroupSource("g")]))
    for _ in range(7):
        events, _, _ = capi.maniGraphInstance_Update(inst, 0.07)
        ta = capi.maniGraphInstance_InspectNode(inst, 0).playhead       # a leads (heavier): L 0, R 0.5
        tb = capi.maniGraphInstance_InspectNode(inst, 1).playhead       # b: L 0.1, R 0.3, duration 0.5
        if ta < 0.5:
            want = 0.1 + ta / 0.5 * 0.2
        else:
            want = (0.3 + (ta - 0.5) / 0.5 * 0.3) % 0.5
        assert tb == pytest.approx(want)
    # a flagged leader leads even when lighter
    nodes[1] = ClipNode(1, sync_group=0, leader=True)
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 2, ps, slots("a", "b"), [SyncGroupSource("g")]))
    capi.maniGraphInstance_Update(inst, 0.07)
    capi.maniGraphInstance_Update(inst, 0.07)
    assert capi.maniGraphInstance_InspectNode(inst, 1).playhead == pytest.approx(0.14)


def test_sync_without_markers_by_fraction_and_a_joiner_lists_nothing():
    ps = params(("w", T.float_, 0.0, 0.0, 1.0))
    nodes = [ClipNode(0, sync_group=0), ClipNode(2, sync_group=0),
             Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0)])]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 2, ps, slots("a", "b", "c"), [SyncGroupSource("g")]))
    capi.maniGraphInstance_Update(inst, 0.6)
    assert capi.maniGraphInstance_InspectNode(inst, 1).weight == 0.0
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, 0.4)
    events, _, _ = capi.maniGraphInstance_Update(inst, 0.2)              # c joins at a's fraction
    assert capi.maniGraphInstance_InspectNode(inst, 1).playhead == pytest.approx(0.8 * 2.0)
    assert [e.name for e in events] == ["stepA2"]                        # a's own; c joined silently
    events, _, _ = capi.maniGraphInstance_Update(inst, 0.1)
    assert capi.maniGraphInstance_InspectNode(inst, 1).playhead == pytest.approx(0.9 * 2.0)
