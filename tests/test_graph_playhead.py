"""GraphInstance.playhead and set_playhead: a clip node's playhead read and put, against the
clip's own sampling and against an instance that played there."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime.graph.source import Blend1DNode, ClipLoop, ClipNode, GraphSource, SpacePoint
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, instance_of, params, slots, standard_clips

TOL = 2e-6


def three_clips():
    """Clips "a" (1 s, repeating, events stepA 0.25 and stepA2 0.75), "b" (0.5 s, event
    stepB 0.25, root motion) and "d" (0.8 s, clamped) along a parameter, "a" at 0."""
    nodes = [ClipNode(0), ClipNode(1), ClipNode(2, loop=ClipLoop.clamp),
             Blend1DNode(0, [SpacePoint(0, 0.0), SpacePoint(1, 1.0), SpacePoint(2, 2.0)])]
    return GraphSource(humanoid(), nodes, 3, params(("w", T.float_, 0.0, 0.0, 2.0)), slots("a", "b", "d"))


def sampled(name, t):
    pose = rt.Pose(humanoid())
    standard_clips()[name].sample(humanoid(), t, pose)
    return pose


def evaluated(inst):
    pose = rt.Pose(humanoid())
    inst.evaluate(pose)
    return pose


def test_playhead_reads_what_inspect_reads():
    _, _, inst = instance_of(three_clips())
    assert inst.playhead(0) == 0.0
    inst.update(0.3)
    assert inst.playhead(0) == inst.inspect(0).playhead == pytest.approx(0.3)
    assert inst.playhead(1) == inst.inspect(1).playhead == 0.0       # unweighed, it stands


def test_a_set_playhead_is_what_the_evaluation_samples():
    _, _, inst = instance_of(three_clips())
    inst.update(0.1)                                    # "a" weighed alone
    inst.set_playhead(0, 0.7)
    assert inst.playhead(0) == 0.7
    np.testing.assert_allclose(evaluated(inst).locals, sampled("a", 0.7).locals, atol=TOL)


def test_the_next_update_plays_on_from_the_set_time_and_lists_nothing_jumped_over():
    _, _, jumped = instance_of(three_clips())
    _, _, played = instance_of(three_clips())
    for inst in (jumped, played):
        inst.set_parameter(0, T.float_, 1.0)            # "b" weighed alone: its root motion
    jumped.update(0.05)
    jumped.set_playhead(1, 0.3)                         # over stepB at 0.25
    played.update(0.05)
    events, _, _ = played.update(0.25)                  # 0.05 -> 0.3, through stepB
    assert [e.name for e in events] == ["stepB"]
    events_j, count_j, move_j = jumped.update(0.1)      # 0.3 -> 0.4 both
    events_p, count_p, move_p = played.update(0.1)
    assert events_j == events_p == [] and count_j == count_p == 0
    np.testing.assert_allclose(move_j, move_p, atol=TOL)
    assert np.abs(move_j[:3]).max() > 0.0               # "b" moves its root: the check can fail
    assert jumped.playhead(1) == pytest.approx(played.playhead(1))
    events, _, _ = jumped.update(0.4)                   # 0.4 -> 0.8 wraps to 0.3, through 0.25 again
    assert [e.name for e in events] == ["stepB"]


def test_either_end_may_be_set_and_a_repeating_clip_plays_on_round_its_end():
    _, _, inst = instance_of(three_clips())
    inst.update(0.1)
    inst.set_playhead(2, 0.8)
    assert inst.playhead(2) == pytest.approx(0.8)
    inst.set_playhead(2, 0)
    assert inst.playhead(2) == 0.0
    inst.set_playhead(0, 1.0)
    assert inst.playhead(0) == 1.0
    events, _, _ = inst.update(0.3)                     # round the end to 0.3: stepA, not stepA2
    assert [e.name for e in events] == ["stepA"]
    assert inst.playhead(0) == pytest.approx(0.3)


@pytest.mark.parametrize("node, seconds, says", [
    (3, 0.5, "node 3 is a blend_1d node, not a clip node"),
    (4, 0.5, "node 4 past the count"),
    (-1, 0.5, "node -1 past the count"),
    ("first", 0.5, "node must be an integer, not str"),
    (None, 0.5, "node must be an integer, not NoneType"),
    (math.inf, 0.5, "node must be an integer, not float"),
    (2.5, 0.5, "node must be an integer, not float"),
    (True, 0.5, "node must be an integer, not bool"),
    (0, math.nan, "seconds must be finite, not nan"),
    (0, -math.inf, "seconds must be finite, not -inf"),
    (0, -0.001, "outside the clip's [0, 1.0]"),
    (0, 1.001, "outside the clip's [0, 1.0]"),
    (1, 0.6, "outside the clip's [0, 0.5]"),
    (0, "soon", "seconds must be a number, not str"),
    (0, None, "seconds must be a number, not NoneType"),
    (0, 10 ** 400, "seconds is past the float range"),
])
def test_refusals_name_the_argument_and_change_nothing(node, seconds, says):
    _, _, inst = instance_of(three_clips())
    inst.update(0.2)
    before = bytes(inst.buffer)
    with pytest.raises(rt.InvalidError, match=says.replace("[", r"\[").replace("]", r"\]")):
        inst.set_playhead(node, seconds)
    assert bytes(inst.buffer) == before


def test_reading_refuses_what_is_not_a_clip_node():
    _, _, inst = instance_of(three_clips())
    for node, says in ((3, "not a clip node"), (9, "past the count"), ("a", "node must be an integer")):
        with pytest.raises(rt.InvalidError, match=says):
            inst.playhead(node)
