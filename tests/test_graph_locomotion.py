"""The locomotion graph (runtime.samples.locomotion) driven by a scripted parameter sequence: the
weights share the whole at every update, each event fires once and in node order, the root
motion is the weighted blend of the clips' own moves, and the machine's transitions keep
their priority, interruption and cooldown."""
import math

import numpy as np
import pytest

from runtime import capi
from runtime.graph.binding import GraphAssets
from runtime.graph.limits import GRAPH_EVENT_THRESHOLD
from runtime.graph.source import NodeKind
from runtime.graph.source import ParameterType as T
from runtime.clip.rootmotion import blend as blend_moves
from runtime.clip.rootmotion import get_root_motion

from test_graph_fixtures import locomotion

DT = 1 / 60
SPEED, DIRECTION, JUMP, GROUNDED, ATTACK, BREATH = 1, 0, 2, 3, 4, 5


def script(frame: int, inst) -> None:
    """The parameters a game sets, frame by frame (60 a second)."""
    t = frame * DT
    set_ = lambda k, ty, v: capi.maniGraphInstance_SetParameter(inst, k, ty, v)       # noqa: E731
    set_(SPEED, T.float_, min(4.0, 0.5 + 1.2 * t) if t < 5.5 else max(0.0, 4.0 - 2.0 * (t - 5.5)))
    set_(DIRECTION, T.float_, 0.8 * math.sin(0.7 * t) + (math.pi if 3.0 < t < 3.6 else 0.0))
    set_(BREATH, T.float_, 0.5 + 0.5 * math.sin(t))
    if frame in (60, 96, 300):
        set_(JUMP, T.trigger, True)
    if frame in (63, 180, 300):
        set_(GROUNDED, T.bool_, False)             # 63: during the jump's fade; 300: with a jump
    if frame in (90, 200, 320):
        set_(GROUNDED, T.bool_, True)
    if frame in (120, 270):
        set_(ATTACK, T.trigger, True)


@pytest.fixture(scope="module")
def run():
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    inst = capi.maniInitGraphInstance(binding)
    nodes = graph.nodes
    clip_nodes = [k for k, n in enumerate(nodes) if n.kind == NodeKind.clip]
    machine = next(k for k, n in enumerate(nodes) if n.kind == NodeKind.state_machine)
    frames = []
    for frame in range(420):
        before = {k: capi.maniGraphInstance_InspectNode(inst, k).playhead for k in clip_nodes}
        jump_before = capi.maniGraphInstance_GetParameter(inst, JUMP).b
        script(frame, inst)
        events, count, move = capi.maniGraphInstance_Update(inst, DT)
        views = {k: capi.maniGraphInstance_InspectNode(inst, k) for k in range(len(nodes))}
        frames.append(dict(frame=frame, before=before, events=events, count=count, move=move,
                           views=views, jump_before=jump_before,
                           jump_after=capi.maniGraphInstance_GetParameter(inst, JUMP).b))
    return graph, binding, clips, clip_nodes, machine, frames


def test_weights_share_the_whole_at_every_update(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    space = next(k for k, n in enumerate(graph.nodes) if n.kind == NodeKind.blend_2d_banded)
    for f in frames:
        views = f["views"]
        assert views[graph.output_node].weight == 1.0
        # root motion weights: masks by the hips' weight, the additive breath none
        assert sum(views[k].root_weight for k in clip_nodes) == pytest.approx(1.0, abs=1e-9), f["frame"]
        if views[space].weight > 0:
            total = sum(views[i].weight for i in graph.nodes[space].inputs)
            assert total == pytest.approx(views[space].weight, abs=1e-9)


def test_machine_shares_sum_to_one(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    sk, clips_, source, _ = locomotion()
    inst = capi.maniInitGraphInstance(binding)
    m = binding.runs[machine]
    for frame in range(420):
        script(frame, inst)
        capi.maniGraphInstance_Update(inst, DT)
        shares = inst.scalars[m.at["shares"]:m.at["shares"] + 3]
        assert shares.sum() == pytest.approx(1.0, abs=1e-9)


def _passed(clip, old, new, repeat):
    """The events a forward playhead passes, by the clip's own event_range."""
    if new >= old:
        first, count = clip.event_range(old, new)
        return list(range(first, first + count))
    end = np.nextafter(np.float32(clip.duration), np.float32(np.inf))
    first, count = clip.event_range(old, float(end))
    a = list(range(first, first + count))
    first, count = clip.event_range(0.0, new)
    return a + list(range(first, first + count))


def test_each_event_fires_once_in_node_order(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    seen = {}
    for f in frames:
        leader = _leader(binding, f, clip_nodes)
        listed = [(e.node, e.name, e.time) for e in f["events"]]
        assert f["count"] == len(listed)
        assert [n for n, _, _ in listed] == sorted(n for n, _, _ in listed)       # node order
        want = []
        for k in clip_nodes:
            v = f["views"][k]
            if v.weight > GRAPH_EVENT_THRESHOLD:
                run_ = binding.runs[k]
                old, new = f["before"][k], v.playhead
                if binding.runs[k].sync != 0xFFFFFFFF and k != leader and (
                        f["frame"] == 0 or frames[f["frame"] - 1]["views"][k].weight <= 0):
                    continue                        # joined its sync group: placed silently
                for e in _passed(run_.clip, old, new, run_.repeat):
                    ev = run_.clip.event(e)
                    want.append((k, ev.name, ev.time))
        assert listed == want, f["frame"]
        for item in listed:
            seen[item] = seen.get(item, 0) + 1
    names = {name for (_, name, _) in seen}
    assert {"footL", "footR", "land", "hit"} <= names
    hits = [f["frame"] for f in frames for e in f["events"] if e.name == "hit"]
    assert len(hits) == 2 and hits[1] - hits[0] > 60          # once per attack


def _leader(binding, f, clip_nodes):
    """The sync group's leader: the flagged one if weighed, else the heaviest (the first)."""
    live = [k for k in clip_nodes if binding.runs[k].sync != 0xFFFFFFFF and f["views"][k].weight > 0]
    flagged = [k for k in live if binding.runs[k].leader]
    return flagged[0] if flagged else max(live, key=lambda k: f["views"][k].weight, default=None)


def test_root_motion_is_the_weighted_blend_of_the_clips_moves(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    for f in frames[1:]:
        leader = _leader(binding, f, clip_nodes)
        moves, weights = [], []
        for k in clip_nodes:
            v = f["views"][k]
            if v.root_weight <= 0:
                continue
            r = binding.runs[k]
            old, new = f["before"][k], v.playhead
            step = new - old
            if r.repeat and step < 0:
                step += r.duration                          # a forward wrap
            if r.sync != 0xFFFFFFFF and k != leader and frames[f["frame"] - 1]["views"][k].weight <= 0:
                step = 0.0                                  # joined its group: placed, not moved
            moves.append(get_root_motion(r.clip, old, step))
            weights.append(v.root_weight)
        total = sum(weights)
        if total < 1:
            moves.append(np.array([0, 0, 0, 0, 0, 0, 1], np.float32))
            weights.append(1 - total)
        want = blend_moves(moves, weights)
        np.testing.assert_allclose(f["move"], want, atol=3e-6, err_msg=str(f["frame"]))
    travelled = np.sum([np.linalg.norm(f["move"][:3]) for f in frames])
    assert travelled > 5.0


def test_transitions_keep_priority_interruption_and_cooldown(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    state = [f["views"][machine].state for f in frames]
    transition = [f["views"][machine].transition for f in frames]
    fade = lambda start, seconds: start + math.ceil(seconds / DT - 1e-6)      # noqa: E731
    # 60: the jump fires, fading over 0.15 s; grounded falls at 63, but the jump's fade
    # (interruption none) is not cut: the fall (from any state) comes when the fade is done
    assert state[59] == 0 and state[60] == 1 and transition[60] == 0
    assert all(s == 1 for s in state[60:69])
    fall = state.index(2, 60)
    assert fade(60, 0.15) <= fall <= fade(60, 0.15) + 1
    # 90: grounded again, back to locomotion fading 0.2 s (interruption source: only the fall's
    # own transitions may cut in, not the jump from locomotion)
    assert state[90] == 0 and transition[90] == 3
    # the jump set at 96 waits for that fade and then for its cooldown, 1.5 s after 60
    assert frames[96]["jump_after"]
    second = state.index(1, 91)
    assert 150 <= second <= 151 and all(s == 0 for s in state[91:second])
    # 180: the fall from the jump (priority 2, from any state)
    assert state[180] == 2
    # 300: jump and not grounded at once, in locomotion, the cooldown long over: the fall's
    # priority wins and the jump's trigger is left set until the fall's way back has faded
    assert state[299] == 0 and transition[299] == 0xFFFFFFFF
    assert state[300] == 2 and frames[300]["jump_after"]
    back = state.index(0, 300)
    assert back == 320
    third = state.index(1, back)
    assert fade(320, 0.2) <= third <= fade(320, 0.2) + 1
    assert not frames[third]["jump_after"]


def test_one_shot_attack_weights(run):
    graph, binding, clips, clip_nodes, machine, frames = run
    shot = next(k for k, n in enumerate(graph.nodes) if n.kind == NodeKind.one_shot)
    attack = graph.nodes[shot].inputs[1]
    w = [f["views"][attack].weight for f in frames]
    assert w[119] == 0 and max(w[120:160]) == 1.0 and w[200] == 0
    assert frames[130]["views"][graph.nodes[shot].inputs[0]].weight == 1.0    # legs still move
