"""The graph's motion matching node against an independent reference: a plain loop over the
same steps calling MotionDatabase.search (the spec's search, tested on its own against a
brute-force scan) and sampling the clip the found entry plays, mirrored for a mirrored entry.
The node's scheduling, continuing frame, jump threshold, exclusions, history, tags and root
motion are worked out here again from the node's documented rules."""
import math
import struct
from functools import lru_cache

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.clip.rootmotion import get_root_motion
from runtime.mapping import MirrorClipSource, build_mirrored_clip
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.source import NodeKind, ParameterRef, ParameterType as T
from runtime.matching import MatchQuery, search_motion_database
from runtime.matching.limits import NO_FRAME

import graph_matching_fixtures as F
from test_graph_fixtures import humanoid, standard_clips
from test_graph_state import _restamp, _sections

DT = 1.0 / 30.0


def _steer(inst, step):
    """Query parameters that wander, so the node jumps now and then."""
    a = 0.35 * step
    inst.set_parameter(0, T.vector2, (0.4 * math.sin(a), 0.3 + 0.3 * math.cos(a)))
    inst.set_parameter(1, T.vector2, (0.8 * math.sin(a), 0.6 + 0.6 * math.cos(a)))
    inst.set_parameter(2, T.vector2, (math.sin(0.5 * a), math.cos(0.5 * a)))


class Reference:
    """The node's rules, written out plainly, over the database's public getters."""

    def __init__(self, node):
        self.db = db = F.database()
        self.node = node
        self.playing, self.entry, self.time, self.since, self.picks = False, 0, 0.0, 0.0, []
        offsets, scales = db.normalization()
        self.offsets, self.scales = offsets, scales
        self.clips = [standard_clips()[n] for n in F.CLIPS]

    def features(self, frame):
        if frame == NO_FRAME:
            return self.offsets.copy()
        return (self.db.frame_features(frame) * self.scales + self.offsets).astype(np.float32)

    def frame_at(self, entry, time):
        first, count = self.db.entry_frames(entry)
        e = self.db.entry(entry)
        return first + min(max(int(np.floor((time - e.start) * self.db.rate + 0.5)), 0), count - 1)

    def step(self, inst, dt, trigger=False):
        """One update: (jumped, the move as (7,) or None)."""
        n, db = self.node, self.db
        move = None
        due = not self.playing
        if self.playing:
            e = db.entry(self.entry)
            clip = self.clips[e.clip]
            old = self.time
            if e.flags & 4:
                new = math.fmod(old + dt, clip.duration)
            else:
                new = min(old + dt, e.end)
            if clip.has_root_motion:        # a mirrored entry's as its clip baked mirrored moves
                moving = _baked_mirrored(e.clip) if e.flags & 2 else clip
                move = get_root_motion(moving, old, dt if e.flags & 4 else new - old)
            self.time = new
            due = due or (not e.flags & 4 and new >= e.end)
        self.since += dt
        due = due or self.since >= float(np.float32(n.get("period", 0.1))) or trigger
        jumped = False
        if due:
            self.since = 0.0
            at_end = self.playing and not db.entry(self.entry).flags & 4 and \
                self.time >= db.entry(self.entry).end
            cont = self.frame_at(self.entry, self.time) if self.playing and not at_end else NO_FRAME
            q = self.features(cont)
            S = inst.scalars
            pb = inst.binding.parameter_base
            f0 = db.channel_first_feature(2)
            q[f0:f0 + 2] = S[pb:pb + 2]
            q[f0 + 2:f0 + 4] = S[pb + 4:pb + 6]
            f1 = db.channel_first_feature(3)
            q[f1:f1 + 2] = S[pb + 8:pb + 10]
            required = n.get("required_tags", 0)
            if isinstance(required, ParameterRef):
                required = int(S[pb + 4 * required.parameter])
            found = search_motion_database(db, MatchQuery(
                q, cont, float(np.float32(n.get("continuing_bias", 0.0)) - np.float32(n.get("jump_threshold", 0.0))),
                n.get("transition_cost", 0.0), required, n.get("excluded_tags", 0),
                n.get("end_exclusion", 0.0), n.get("history_time", 0.0), list(self.picks)))
            if found.frame != NO_FRAME and not found.continuing:
                jumped = self.playing
                self.playing, self.entry, self.time = True, found.entry, found.time
                self.picks = ([found.frame] + self.picks)[:n.get("history_count", 0)]
        return jumped, move

    def pose(self):
        sk = humanoid()
        out = rt.Pose(sk)
        e = self.db.entry(self.entry)
        self.clips[e.clip].sample(sk, self.time, out)
        if e.flags & 2:
            mirrored = rt.Pose(sk)
            F.mirror_map().mirror_pose(sk, out, mirrored)
            return mirrored
        return out


@lru_cache(maxsize=None)
def _baked_mirrored(clip: int) -> rt.Clip:
    source = MirrorClipSource(F.mirror_map(), humanoid(), standard_clips()[F.CLIPS[clip]])
    return rt.Clip.open(build_mirrored_clip(rt.Builder(), source))


NODES = [dict(), dict(jump_threshold=0.5, history_count=4, history_time=0.3),
         dict(period=0.0, transition_cost=0.2, continuing_bias=-0.1, end_exclusion=0.2),
         dict(required_tags=ParameterRef(4), excluded_tags=4)]


@pytest.mark.parametrize("node", NODES)
def test_the_node_plays_what_a_plain_search_loop_plays(node):
    inst = F.instance(F.source(inertialized=False, **node))
    ref = Reference(node)
    sk = humanoid()
    pose = rt.Pose(sk)
    at = inst.binding.layout.nodes[0] + 2
    jumps = 0
    moved = [0, 0]          # moves compared, of plain and mirrored entries
    for step in range(150):
        _steer(inst, step)
        if node.get("required_tags"):
            inst.set_parameter(4, T.int_, 1 if step < 70 else 3)
        trigger = step % 37 == 5
        if trigger:
            inst.set_parameter(3, T.trigger, True)
        _, _, move = inst.update(DT)
        mirrored = ref.playing and bool(ref.db.entry(ref.entry).flags & 2)
        jumped, want_move = ref.step(inst, DT, trigger)
        jumps += jumped
        if want_move is not None and not jumped:
            moved[mirrored] += 1
        assert (inst.scalars[at + 1], inst.scalars[at + 2]) == (ref.entry, np.float64(ref.time)), step
        if want_move is not None and not jumped:
            np.testing.assert_allclose(move, want_move, atol=2e-6)
        inst.evaluate(pose)
        assert np.array_equal(pose.locals, ref.pose().locals), step
        assert inst.scalars[at + 5:at + 5 + int(inst.scalars[at + 4])].tolist() == ref.picks
    assert jumps >= 3            # the steering made it search its way around
    assert all(moved) if not node else any(moved)


def test_a_jump_asks_the_inertialize_node_above_to_blend_over_its_duration():
    inst = F.instance(F.source(inertialized=True, duration=0.3))
    ref = Reference({})
    blended = 0
    for step in range(120):
        _steer(inst, step)
        inst.update(DT)
        jumped, _ = ref.step(inst, DT)
        view = inst.inspect(1)
        if jumped:
            blended += 1
            assert view.transition == 0 and view.playhead == 0.0
            # the inertialize node's own duration (0.2) wins over the node's (0.3)
            assert inst.scalars[inst.binding.layout.nodes[1] + 5] == np.float64(np.float32(0.2))
    assert blended >= 3


def _run(inst, steps, first=0):
    """Each step's (entry, time, event names, move bits, pose bits)."""
    pose = rt.Pose(humanoid())
    at = inst.binding.layout.nodes[0] + 2
    out = []
    for step in range(first, first + steps):
        _steer(inst, step)
        events, count, move = inst.update(DT)
        inst.evaluate(pose)
        out.append((inst.scalars[at + 1], inst.scalars[at + 2], [e.name for e in events],
                    np.asarray(move).tobytes(), pose.locals.tobytes()))
    return out


def test_events_are_the_playing_clips_and_joined_in_node_order():
    inst = F.instance(F.source(inertialized=False, history_count=2))
    db = F.database()
    seen = set()
    at = inst.binding.layout.nodes[0] + 2
    for step in range(200):
        _steer(inst, step)
        before = (inst.scalars[at], int(inst.scalars[at + 1]), inst.scalars[at + 2])
        events, count, _ = inst.update(DT)
        assert count == len(events)
        if not before[0] or inst.scalars[at + 1] != before[1]:
            continue
        e = db.entry(before[1])
        clip = standard_clips()[F.CLIPS[e.clip]]
        played = math.fmod(before[2] + DT, clip.duration) if e.flags & 4 else min(before[2] + DT, e.end)
        if inst.scalars[at + 2] != played:
            continue            # a jump within the entry
        old, new = np.float32(before[2]), np.float32(played)
        times = [clip.event(i) for i in range(clip.event_count)]
        if new >= old:
            want = [v.name for v in times if old <= v.time < new]
        else:           # wrapped
            want = [v.name for v in times if v.time >= old] + [v.name for v in times if v.time < new]
        if e.flags & 2:
            want = [F.mirror_map().mirror_name(n) for n in want]
        assert [v.name for v in events] == want and all(v.node == 0 for v in events)
        assert all(v.clip == e.clip for v in events)
        seen.update(want)
    assert seen            # it played past events on the way


def test_a_saved_state_restored_plays_on_bit_for_bit():
    src = F.source(history_count=4, history_time=0.2, duration=0.1)
    a = F.instance(src)
    _run(a, 50)
    saved = a.save()
    tail = _run(a, 60, 50)
    b = F.instance(src)
    b.restore(saved)
    assert _run(b, 60, 50) == tail


def test_a_restore_checks_the_nodes_state():
    inst = F.instance(F.source(history_count=4))
    _run(inst, 20)
    saved = inst.save()
    at = inst.binding.layout.nodes[0] + 2
    for index, value in ((at + 1, 5.0), (at + 2, 2.5), (at + 4, 5.0), (at + 5, float(F.database().frame_count)),
                         (at, 0.5)):
        d = bytearray(saved)
        off = _sections(saved)[b"SCAL"] + 8 * index
        struct.pack_into("<d", d, off, value)
        bad = _restamp(d)
        before = bytes(inst.buffer)
        with pytest.raises(rt.FormatError) as info:
            inst.restore(bad)
        assert info.value.offset == off and bytes(inst.buffer) == before


def test_a_batch_is_each_instance_alone():
    from runtime.graph import evaluate_batch, update_batch
    from runtime.pose.pose import PoseBatch
    src = F.source(history_count=3, history_time=0.3)
    alone = [F.instance(src) for _ in range(3)]
    binding = alone[0].binding
    lanes = [GraphInstance(binding) for _ in range(3)]
    batch = PoseBatch(humanoid(), 3)
    pose = rt.Pose(humanoid())
    for step in range(60):
        for k in range(3):
            _steer(alone[k], step + 11 * k)
            _steer(lanes[k], step + 11 * k)
        results = update_batch(lanes, DT)
        evaluate_batch(lanes, batch)
        for k in range(3):
            events, count, move = alone[k].update(DT)
            alone[k].evaluate(pose)
            assert [e.name for e in results[k][0]] == [e.name for e in events]
            assert np.asarray(results[k][2]).tobytes() == np.asarray(move).tobytes()
            assert batch.locals[k].tobytes() == pose.locals.tobytes()
            assert lanes[k].scalars.tobytes() == alone[k].scalars.tobytes()


def test_a_subset_is_the_full_evaluation_on_its_bones():
    from runtime.graph import GraphSubset, evaluate_subset
    inst = F.instance()
    sk = humanoid()
    plan = GraphSubset(inst.binding, sorted([sk.find_bone("hand_l"), sk.find_bone("head")]))
    full, part = rt.Pose(sk), rt.Pose(sk)
    bones = plan.get_bones()
    for step in range(80):
        _steer(inst, step)
        inst.update(DT)
        inst.evaluate(full)
        evaluate_subset(inst, plan, part)
        assert part.locals[bones].tobytes() == full.locals[bones].tobytes()


def test_root_motion_joins_the_clip_nodes_in_node_order():
    """A blend of the node and a clip node: the move is rootmotion.blend of the two moves."""
    from runtime.clip.rootmotion import blend as blend_moves
    from runtime.graph.source import BlendInput, BlendNode, ClipNode
    src = F.source(inertialized=False)
    src.nodes = [src.nodes[0], ClipNode(2), BlendNode([BlendInput(0, 0.25), BlendInput(1, 0.75)])]
    src.output = 2
    both = F.instance(src)
    alone = F.instance(F.source(inertialized=False))
    clip = standard_clips()["c"]
    t = 0.0
    for step in range(40):
        _steer(both, step)
        _steer(alone, step)
        _, _, move = both.update(DT)
        _, _, mine = alone.update(DT)
        theirs = get_root_motion(clip, t, DT)
        t = math.fmod(t + DT, clip.duration)
        want = blend_moves(np.array([mine, theirs]), np.array([0.25, 0.75]))
        np.testing.assert_allclose(move, want, atol=1e-6)


def test_inspect_gives_the_playing_time():
    inst = F.instance()
    _run(inst, 7)
    at = inst.binding.layout.nodes[0] + 2
    view = capi.maniGraphInstance_InspectNode(inst, 0)
    assert view.kind == NodeKind.motion_matching and view.playhead == inst.scalars[at + 2]
    assert view.weight == 1.0
