"""State machines: conditions, priority, fades and their curves, interruption, cooldown,
chain limit, entry modes, final states, and what InspectNode reports of them."""
import pytest

from runtime import capi
from runtime.graph.limits import GRAPH_NONE
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, instance_of, params, slots

PS = [("t0", T.trigger), ("t1", T.trigger), ("t2", T.trigger), ("f", T.float_), ("b", T.bool_),
      ("n", T.int_), ("t3", T.trigger)]
TRIG = lambda k: Condition(ConditionKind.trigger, k if k < 3 else 6)          # noqa: E731


def machine(transitions, states=3, **kw):
    """Clip nodes 0..states-1 (clips a, b, c, d), the machine last."""
    nodes = [ClipNode(k) for k in range(states)]
    nodes.append(StateMachineNode(list(range(states)), transitions, **kw))
    src = GraphSource(humanoid(), nodes, states, params(*PS), slots("a", "b", "c", "d"))
    return instance_of(src)


def fire(inst, k):
    capi.maniGraphInstance_SetParameter(inst, k if k < 3 else 6, T.trigger, True)


def view(inst, g):
    return capi.maniGraphInstance_InspectNode(inst, g.output_node)


def weights(inst, count=3):
    return [capi.maniGraphInstance_InspectNode(inst, k).weight for k in range(count)]


def step(inst, dt=0.1):
    return capi.maniGraphInstance_Update(inst, dt)


def test_entry_state_and_a_fade():
    g, b, inst = machine([Transition(1, 2, duration=0.4, conditions=[TRIG(0)])], entry=1)
    step(inst)
    assert weights(inst) == [0, 1, 0] and view(inst, g).state == 1
    fire(inst, 0)
    step(inst)                                  # fires: the fade starts at 0
    v = view(inst, g)
    assert v.state == 2 and v.transition == 0 and v.progress == 0.0
    assert weights(inst) == pytest.approx([0, 1, 0])
    assert not capi.maniGraphInstance_GetParameter(inst, 0).b          # consumed
    step(inst)
    assert weights(inst) == pytest.approx([0, 0.75, 0.25])
    step(inst, 0.2)
    assert weights(inst) == pytest.approx([0, 0.25, 0.75])
    step(inst, 0.2)
    v = view(inst, g)
    assert weights(inst) == pytest.approx([0, 0, 1]) and v.transition == GRAPH_NONE and v.state == 2


@pytest.mark.parametrize("curve,shape", [
    (Curve.linear, lambda t: t), (Curve.smooth, lambda t: t * t * (3 - 2 * t)),
    (Curve.ease_in, lambda t: t * t), (Curve.ease_out, lambda t: 1 - (1 - t) ** 2)])
def test_fade_curves(curve, shape):
    g, b, inst = machine([Transition(0, 1, duration=1.0, fade=curve, conditions=[TRIG(0)])])
    fire(inst, 0)
    step(inst)
    for k in range(1, 5):
        step(inst, 0.2)
        assert weights(inst)[1] == pytest.approx(shape(0.2 * k))


def test_priority_then_source_order_and_triggers_kept_until_used():
    g, b, inst = machine([Transition(0, 1, conditions=[TRIG(0)]),
                          Transition(0, 2, priority=5, conditions=[TRIG(0), TRIG(1)]),
                          Transition(None, 1, priority=5, conditions=[TRIG(2)])])
    fire(inst, 0)
    fire(inst, 1)
    fire(inst, 2)
    step(inst)
    # two of priority 5 hold: the first in the source's order fires, its triggers consumed
    assert view(inst, g).state == 2
    assert [capi.maniGraphInstance_GetParameter(inst, k).b for k in range(3)] == [False, False, True]
    step(inst)
    assert view(inst, g).state == 1                 # the any-state transition, t2 still set
    step(inst)
    assert view(inst, g).state == 1                 # not again to the state it is in


def test_parameter_conditions():
    cond = lambda k, op, v: Condition(ConditionKind.parameter, k, op, v)     # noqa: E731
    g, b, inst = machine([Transition(0, 1, conditions=[cond(3, CompareOp.gt, 0.5), cond(4, CompareOp.eq, 1),
                                                       cond(5, CompareOp.le, -2)]),
                          Transition(1, 0, conditions=[cond(5, CompareOp.ne, -2)])])
    step(inst)
    capi.maniGraphInstance_SetParameter(inst, 3, T.float_, 0.75)
    capi.maniGraphInstance_SetParameter(inst, 4, T.bool_, True)
    step(inst)
    assert view(inst, g).state == 0
    capi.maniGraphInstance_SetParameter(inst, 5, T.int_, -2)
    step(inst)
    assert view(inst, g).state == 1
    capi.maniGraphInstance_SetParameter(inst, 5, T.int_, 3)
    step(inst)
    assert view(inst, g).state == 0


def test_cooldown():
    g, b, inst = machine([Transition(0, 1, cooldown=0.5, conditions=[TRIG(0)]),
                          Transition(1, 0, conditions=[TRIG(1)])])
    fire(inst, 0)
    step(inst)
    fire(inst, 1)
    step(inst)
    assert view(inst, g).state == 0
    fire(inst, 0)
    step(inst)
    assert view(inst, g).state == 0                 # cooling down: the trigger waits
    assert capi.maniGraphInstance_GetParameter(inst, 0).b
    step(inst, 0.2)
    assert view(inst, g).state == 0                 # 0.4 s since it fired
    step(inst, 0.11)
    assert view(inst, g).state == 1


@pytest.mark.parametrize("mode,from_destination,from_source", [
    (Interruption.none, False, False), (Interruption.destination, True, False),
    (Interruption.source, False, True), (Interruption.source_then_destination, True, True)])
def test_interruption(mode, from_destination, from_source):
    transitions = [Transition(0, 1, duration=1.0, interruption=mode, conditions=[TRIG(0)]),
                   Transition(1, 2, duration=1.0, conditions=[TRIG(1)]),
                   Transition(0, 2, duration=1.0, conditions=[TRIG(2)])]
    g, b, inst = machine(transitions)
    fire(inst, 0)
    step(inst)
    step(inst)
    fire(inst, 1)
    step(inst)
    assert (view(inst, g).state == 2) == from_destination
    if not from_destination:
        fire(inst, 2)
        step(inst)
        assert (view(inst, g).state == 2) == from_source
    if view(inst, g).state == 2:                   # three states blend: the chain below the new fade
        w = weights(inst)
        assert sum(w) == pytest.approx(1.0) and w[2] == 0.0 and w[0] > 0 and w[1] > 0


def test_chain_limit_drops_the_oldest():
    any_mode = Interruption.destination
    transitions = [Transition(0, 1, duration=1.0, interruption=any_mode, conditions=[TRIG(0)]),
                   Transition(1, 2, duration=1.0, interruption=any_mode, conditions=[TRIG(1)]),
                   Transition(2, 0, duration=1.0, interruption=any_mode, conditions=[TRIG(2)])]
    g, b, inst = machine(transitions, chain_limit=2)
    for k in range(3):
        fire(inst, k)
        step(inst)
        step(inst)
    m = b.runs[g.output_node]
    assert int(inst.scalars[m.at["length"]]) == 2
    # the chain was 0 -> 1 -> 2 -> 0; the first 0 gave way: 1 (0.9 x 0.7), 2 (0.9 x 0.3), 0 (0.1)
    assert weights(inst) == pytest.approx([0.1, 0.63, 0.27])


def test_entry_restart_and_continue():
    g, b, inst = machine([Transition(0, 1, conditions=[TRIG(0)]),
                          Transition(1, 0, entry=EntryMode.continue_, conditions=[TRIG(1)])])
    head = lambda k: capi.maniGraphInstance_InspectNode(inst, k).playhead      # noqa: E731
    step(inst, 0.3)
    fire(inst, 0)
    step(inst, 0.1)                                 # to 1, restarted, then played 0.1
    assert head(1) == pytest.approx(0.1) and head(0) == pytest.approx(0.3)
    step(inst, 0.2)
    fire(inst, 1)
    step(inst, 0.1)                                 # back to 0, continuing from 0.3
    assert head(0) == pytest.approx(0.4)
    fire(inst, 0)
    step(inst, 0.1)                                 # to 1 again, restarted (not from 0.3)
    assert head(1) == pytest.approx(0.1)


def test_state_time_event_and_finished_conditions():
    transitions = [Transition(0, 3, conditions=[Condition(ConditionKind.state_time, value=0.35)]),
                   Transition(3, 1, conditions=[Condition(ConditionKind.finished)]),
                   Transition(1, 2, conditions=[Condition(ConditionKind.event, event="stepB")])]
    g, b, inst = machine(transitions, states=4, finals=[2])
    states = []
    for _ in range(4):
        step(inst)
        states.append(view(inst, g).state)
    assert states == [0, 0, 0, 3]                   # 0.4 s in state 0
    heads = []
    while view(inst, g).state == 3 and len(heads) < 20:
        heads.append(capi.maniGraphInstance_InspectNode(inst, 3).playhead)
        step(inst)
    assert view(inst, g).state == 1                 # d (clamped) finished at its end
    assert heads[-1] == pytest.approx(0.8) and heads[-2] < heads[-1]
    names = []
    while view(inst, g).state == 1 and len(names) < 20:
        names.append([e.name for e in step(inst)[0]])
    assert view(inst, g).state == 2
    assert names[-2] == ["stepB"] and names[-1] == []   # latched, then taken the update after
    m = b.runs[g.output_node]
    assert inst.scalars[m.at["finished"]] == 1.0          # a final state: the machine has finished
    fire(inst, 0)
    step(inst)
    assert view(inst, g).state == 2                 # nothing leaves a final state


def test_a_finished_machine_inside_another():
    inner = StateMachineNode([0, 1], [Transition(0, 1, conditions=[TRIG(0)])], finals=[1])
    outer = StateMachineNode([2, 3], [Transition(0, 1, conditions=[Condition(ConditionKind.finished)])])
    nodes = [ClipNode(0), ClipNode(1), inner, ClipNode(2), outer]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 4, params(*PS), slots("a", "b", "c")))
    step(inst)
    step(inst)
    assert view(inst, g).state == 0
    fire(inst, 0)
    step(inst)                                      # the inner machine reaches its final state
    step(inst)                                      # the outer one sees it finished
    assert view(inst, g).state == 1
