"""The learned motion matching node's update and evaluation (graph/update/learned.py's rules)
against a plain loop calling LearnedModel.project, step and decompress on the same schedule;
a model whose weights overflow (FormatError, the rest of the update complete); saved states,
batches, subsets, the jump's inertialization and hostile calls."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.graph.binding import GraphAssets, GraphBinding
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.source import AssetSlotSource, ParameterType as T
from runtime.learned import LearnedModel, LearnedOutput
from runtime.learned.model_build import LearnedLayer, LearnedNetwork

import graph_learned_fixtures as F
import graph_matching_fixtures as M
from test_graph_fixtures import humanoid, standard_clips

DT = 1.0 / 60.0


def _instance(src=None, model=None):
    model = model or F.model()
    src = src or F.source(inertialized=False)
    return GraphInstance(GraphBinding(Graph(build(src)), GraphAssets(
        humanoid(), list(standard_clips().values()), models=[model])))


def _params(step):
    """Query parameters that wander, on eighths (exact in binary32)."""
    a = 0.35 * step
    near = (round(3.2 * math.sin(a)) / 8, round(2.4 + 2.4 * math.cos(a)) / 8)
    far = (round(6.4 * math.sin(a)) / 8, round(4.8 + 4.8 * math.cos(a)) / 8)
    facing = (round(8 * math.sin(0.5 * a)) / 8, round(8 * math.cos(0.5 * a)) / 8)
    return near, far, facing


def _steer(inst, step, trigger=False):
    for p, v in enumerate(_params(step)):
        inst.set_parameter(p, T.vector2, v)
    if trigger:
        inst.set_parameter(3, T.trigger, True)


def _quat_mul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


class Reference:
    """The node's rules as a plain loop over the model's own calls."""

    def __init__(self, model, period=0.1, projector=0):
        self.m, self.period, self.projector = model, period, projector
        self.state, self.since, self.left, self.above = None, 0.0, 0.0, np.zeros(model.event_count, bool)
        db = M.database()
        offsets, scales = model.normalization()
        self.norm = offsets.astype(np.float64), scales.astype(np.float64)
        self.places = [db.channel_first_feature(q.channel) + 2 * q.time for q in F.QUERY]
        self.out = LearnedOutput(rt.Pose(humanoid()), np.zeros(6, np.float32),
                                 np.zeros(model.float_track_count, np.float32),
                                 np.zeros(model.event_count, np.float32))

    def update(self, dt, params, trigger=False):
        m = self.m
        self.since = min(self.since + dt, 1.0e6)
        if self.state is None or self.since >= self.period or trigger:
            q = np.zeros(m.feature_count, np.float32) if self.state is None else self.state[:m.feature_count].copy()
            for place, q_in in zip(self.places, F.QUERY):
                v = np.array(params[q_in.parameter], np.float64)
                q[place:place + 2] = (v - self.norm[0][place:place + 2]) / self.norm[1][place:place + 2]
            self.state = m.project(self.projector, q)
            self.since = self.left = 0.0
        else:
            self.left += dt
            steps = min(int(self.left * m.rate), 8)
            for _ in range(steps):
                m.step(self.state)
            self.left = 0.0 if steps == 8 else max(self.left - steps / m.rate, 0.0)
        m.decompress(self.state, self.out)
        fired = [m.event_name(e) for e in range(m.event_count) if self.out.events[e] > 0.5 and not self.above[e]]
        self.above = self.out.events > 0.5
        v = self.out.root_motion.astype(np.float64)
        a = v[3:] * dt
        angle = float(np.linalg.norm(a))
        q = np.array([0, 0, 0, 1.0]) if angle == 0 else np.array([*(a / angle * math.sin(angle / 2)), math.cos(angle / 2)])
        return fired, np.concatenate([v[:3] * dt, q])


@pytest.mark.parametrize("deltas", [[DT] * 40, [0.013, 0.2, 0.0, 1.0, 0.05, -0.02, 0.3] * 4])
def test_update_and_evaluation_are_the_model_calls_on_the_schedule(deltas):
    inst, ref = _instance(), Reference(F.model())
    pose = rt.Pose(humanoid())
    for step, dt in enumerate(deltas):
        trigger = step % 9 == 5
        _steer(inst, step, trigger)
        events, count, move = inst.update(dt)
        fired, want = ref.update(max(dt, 0.0), _params(step), trigger)
        inst.evaluate(pose)
        r = inst.binding.runs[0]
        assert inst.scalars[r.state:r.state + ref.m.state_count].tobytes() == \
            ref.state.astype(np.float64).tobytes(), step
        assert pose.locals.tobytes() == ref.out.pose.locals.tobytes(), step
        assert [e.name for e in events] == fired and count == len(fired)
        np.testing.assert_allclose(np.asarray(move, np.float64), want, atol=2e-7)
        assert not inst.inspect(0).failed


def test_at_most_the_limit_of_steps_an_update():
    from runtime.graph.limits import GRAPH_LEARNED_MAX_STEPS
    assert capi.MANI_GRAPH_LEARNED_MAX_STEPS == GRAPH_LEARNED_MAX_STEPS == 8
    inst = _instance(F.source(inertialized=False, period=100.0))
    m = F.model()
    _steer(inst, 0)
    inst.update(DT)
    r = inst.binding.runs[0]
    state = inst.scalars[r.state:r.state + m.state_count].astype(np.float32)
    inst.update(10.0)                   # 300 steps due: 8 taken, the rest dropped
    for _ in range(8):
        m.step(state)
    assert inst.scalars[r.state:r.state + m.state_count].tobytes() == state.astype(np.float64).tobytes()
    assert inst.scalars[r.due] == 0.0


def _overflowing(role: str) -> LearnedModel:
    """The fixture's model with one network's weights scaled by 1e20 (its outputs past the
    float range)."""
    import runtime as rt_
    src = F.model_source()
    net = src.decompressor if role == "decompressor" else src.projectors[0].network
    big = LearnedNetwork([LearnedLayer(layer.weights * np.float32(1e20), layer.biases * np.float32(1e20))
                          for layer in net.layers],
                         net.input_offset, net.input_scale, net.output_offset, net.output_scale)
    if role == "decompressor":
        src.decompressor = big
    else:
        src.projectors[0].network = big
    b = rt_.Builder()
    capi.maniBuildLearnedModel(b, src)
    return LearnedModel(bytes(b.copy_built()))


def test_a_model_past_the_float_range_fails_its_node_and_the_update_completes():
    from runtime.graph.source import BlendInput, BlendNode, ClipNode
    bad = _overflowing("projector")
    src = F.source(inertialized=False, models=[AssetSlotSource("brain", bad)])
    # the learned node blended with a clip node: the clip's update completes
    src.nodes = [src.nodes[0], ClipNode(0), BlendNode([BlendInput(0, 0.5), BlendInput(1, 0.5)])]
    src.output = 2
    src.clips = M.slots(*M.CLIPS)
    inst = _instance(src, bad)
    before = inst.scalars.copy()
    out = []
    with pytest.raises(rt.FormatError) as info:
        capi.maniGraphInstance_Update(inst, DT, out, 8)
    events, count, move = info.value.written
    assert out == events and np.isfinite(np.asarray(move)).all()
    assert capi.maniGraphInstance_InspectNode(inst, 0).failed
    assert not capi.maniGraphInstance_InspectNode(inst, 1).failed
    r = inst.binding.runs[0]
    assert inst.scalars[r.has] == 0.0               # still without a state
    assert inst.scalars[inst.binding.layout.nodes[1] + 2] != before[inst.binding.layout.nodes[1] + 2]
    pose = rt.Pose(humanoid())
    capi.maniGraphInstance_Evaluate(inst, None, pose)       # no state: the rest pose, no failure
    assert np.isfinite(pose.locals).all()


def test_a_decompressor_past_the_float_range_gives_the_rest_pose_and_format():
    bad = _overflowing("decompressor")
    inst = _instance(F.source(inertialized=False, models=[AssetSlotSource("brain", bad)]), bad)
    with pytest.raises(rt.FormatError):
        inst.update(DT)
    r = inst.binding.runs[0]
    assert inst.scalars[r.has] == 0.0 and inst.inspect(0).failed
    # a state (of another model's, say) the Decompressor fails at: the evaluation completes on
    # the rest pose
    good = _instance()
    _steer(good, 0)
    good.update(DT)
    inst.scalars[:] = good.scalars
    inst.scalars[r.cached] = 0.0
    pose = rt.Pose(humanoid())
    pose.locals[:] = 7.0
    with pytest.raises(rt.FormatError):
        capi.maniGraphInstance_Evaluate(inst, None, pose)
    assert pose.locals.tobytes() == inst.binding.rests.tobytes()
    assert inst.inspect(0).failed


def test_the_evaluation_reads_the_cache_when_the_states_bytes_are_equal():
    inst = _instance()
    _steer(inst, 0)
    inst.update(DT)
    r = inst.binding.runs[0]
    pose = rt.Pose(humanoid())
    inst.poses[r.pose][0, 0] = 0.25              # a mark only the cache carries
    inst.evaluate(pose)
    assert pose.locals[0, 0] == np.float32(0.25)
    inst.scalars[r.state] = np.nextafter(inst.scalars[r.state], 2.0)     # no longer the cached state
    inst.evaluate(pose)
    assert pose.locals[0, 0] != np.float32(0.25)


def test_a_saved_state_goes_on_as_the_original():
    a, b = _instance(F.source()), _instance(F.source())
    pa, pb = rt.Pose(humanoid()), rt.Pose(humanoid())
    for step in range(7):
        _steer(a, step)
        a.update(DT)
    b.restore(a.save())
    assert b.scalars.tobytes() == a.scalars.tobytes() and b.poses.tobytes() == a.poses.tobytes()
    for step in range(7, 40):
        for inst in (a, b):
            _steer(inst, step, step % 11 == 0)
        ra, rb = a.update(DT), b.update(DT)
        a.evaluate(pa)
        b.evaluate(pb)
        assert np.asarray(ra[2]).tobytes() == np.asarray(rb[2]).tobytes()
        assert pa.locals.tobytes() == pb.locals.tobytes()


def test_a_restore_refuses_a_cached_pose_not_of_unit_rotations():
    a = _instance()
    _steer(a, 0)
    a.update(DT)
    r = a.binding.runs[0]
    a.poses[r.pose][3, 3:7] = 0.5 * a.poses[r.pose][3, 3:7]
    data = a.save()
    b = _instance()
    before = bytes(b.buffer)
    with pytest.raises(rt.FormatError):
        b.restore(data)
    assert bytes(b.buffer) == before


def test_a_projection_after_the_first_is_a_jump_the_inertialize_node_blends():
    inst = _instance(F.source())
    _steer(inst, 0)
    inst.update(DT)
    assert inst.inspect(1).transition == capi.MANI_GRAPH_NONE      # the first: no jump
    _steer(inst, 1, trigger=True)
    inst.update(DT)
    view = inst.inspect(1)
    assert view.transition == 0 and view.playhead == 0.0


def test_a_batch_is_each_instance_alone_and_a_subset_the_full_evaluation():
    from runtime.graph import GraphSubset, evaluate_batch, evaluate_subset, update_batch
    from runtime.pose.pose import PoseBatch
    binding = _instance(F.source()).binding
    alone = [GraphInstance(binding) for _ in range(3)]
    lanes = [GraphInstance(binding) for _ in range(3)]
    batch, pose, part = PoseBatch(humanoid(), 3), rt.Pose(humanoid()), rt.Pose(humanoid())
    sk = humanoid()
    plan = GraphSubset(alone[0].binding, sorted([sk.find_bone("hand_l"), sk.find_bone("head")]))
    bones = plan.get_bones()
    for step in range(30):
        for k in range(3):
            _steer(alone[k], step + 5 * k, step % 7 == k)
            _steer(lanes[k], step + 5 * k, step % 7 == k)
        results = update_batch(lanes, DT)
        evaluate_batch(lanes, batch)
        for k in range(3):
            events, count, move = alone[k].update(DT)
            alone[k].evaluate(pose)
            evaluate_subset(alone[k], plan, part)
            assert [e.name for e in results[k][0]] == [e.name for e in events]
            assert np.asarray(results[k][2]).tobytes() == np.asarray(move).tobytes()
            assert batch.locals[k].tobytes() == pose.locals.tobytes()
            assert lanes[k].scalars.tobytes() == alone[k].scalars.tobytes()
            assert part.locals[bones].tobytes() == pose.locals[bones].tobytes()


def test_hostile_calls_change_nothing():
    from test_hostile_arguments import HOSTILE
    inst = _instance(F.source())
    _steer(inst, 0)
    inst.update(DT)
    escaped = []
    for label, make in HOSTILE.items():
        before = bytes(inst.buffer)
        for call, argv in ((capi.maniGraphInstance_Update, (inst, make())),
                           (capi.maniGraphInstance_Update, (inst, DT, make(), 3)),
                           (capi.maniGraphInstance_Evaluate, (inst, make(), rt.Pose(humanoid()))),
                           (capi.maniGraphInstance_Evaluate, (inst, None, make())),
                           (capi.maniGraphInstance_Restore, (inst, make())),
                           (capi.maniGraphInstance_InspectNode, (inst, make()))):
            try:
                call(*argv)
            except rt.FormatError:
                # a huge step's move passes the float range: the update completed (the spec)
                if call is capi.maniGraphInstance_Update and not inst.inspect(0).failed:
                    escaped.append(f"Update({label}): FormatError without a failed node")
            except rt.ManiError:
                if bytes(inst.buffer) != before:
                    escaped.append(f"{call.__name__}({label}) refused but changed the instance")
            except Exception as exc:  # noqa: BLE001
                escaped.append(f"{call.__name__}({label}): {type(exc).__name__}: {exc}")
            before = bytes(inst.buffer)
    assert not escaped, "\n".join(escaped)


def test_a_batch_whose_model_fails_completes_every_instance():
    from runtime.graph import update_batch
    bad = _overflowing("projector")
    binding = _instance(F.source(models=[AssetSlotSource("brain", bad)]), bad).binding
    lanes = [GraphInstance(binding) for _ in range(3)]
    with pytest.raises(rt.FormatError) as info:
        update_batch(lanes, DT)
    assert len(info.value.written) == 3
    for inst in lanes:
        assert inst.inspect(0).failed and inst.scalars[0] == 1.0       # updated, the node failed
