"""The graph's compiled kernels against plain references, lane by lane: the evaluation's
(graph/evaluate/kernels.py: sampling, blends, masks, one-shots, additive layers) in binary32 scalars,
the update's root-motion blend (graph/motion.py) against clip/rootmotion.py's and its
playheads against the plain formulas (the moves themselves are the clip's: test_clip_kernels), each bit for bit; a lane computed alone equals the
same lane among others; batches of the sample graphs equal their instances alone."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi
from runtime.clip import rootmotion
from runtime.graph.evaluate import kernels as K
from runtime.core.jit import kernel
from runtime.graph import motion as gm
from runtime.graph.batch import evaluate_batch, update_batch
from runtime.graph.update.driver import SPAN_LANES
from runtime.core import threads
from runtime.graph.binding import GraphAssets
from runtime.graph.instance import GraphInstance
from runtime.graph.source import (AdditiveNode, ClipNode, GraphSource, InertializeMethod,
                                  InertializeNode, SelectNode)
from runtime.graph.source import ParameterType as T

from test_graph_fixtures import humanoid, instance_of, locomotion, params, pose_bits, standard_clips
from test_threads import on_threads, same_on_one_and_two
from test_graph_fixtures import slots as clip_slots

F = np.float32
LINEAR = (0, 1, 2, 7, 8, 9)


def random_slots(rng, count, m, nb, special=False):
    """(count + 1, 10, m, nb) poses with unit rotations, the last slot a rest pose; with
    `special`, zeros, huge values and rotations at exact right angles among them."""
    slots = rng.normal(size=(count + 1, 10, m, nb)).astype(F)
    q = slots[:, 3:7]
    q /= np.sqrt((q * q).sum(axis=1, keepdims=True))
    slots[:, 7:10] = np.abs(slots[:, 7:10]) + F(0.5)
    if special:
        slots[0, 0:3, :, 0] = F(3e30)
        slots[1, 3:7, :, 1] = np.array([0, 0, 0, 1], F)[:, None]
        slots[2, 3:7, :, 1] = np.array([1, 0, 0, 0], F)[:, None]     # a dot product of exactly 0
        slots[:, :, :, 2] = 0.0
        slots[:, 6, :, 2] = 1.0
        slots[:, 7:10, :, 2] = 1.0
    return slots


def blend_reference(vals, ws):
    """One bone of poses (10 each) by binary32 weights: pose/blend.py's formula in scalars."""
    out = np.empty(10, F)
    for k in LINEAR:
        acc = vals[0][k] * ws[0]
        for v, w in zip(vals[1:], ws[1:]):
            acc = F(acc + v[k] * w)
        out[k] = acc
    q = [vals[0][3 + c] * ws[0] for c in range(4)]
    for v, w in zip(vals[1:], ws[1:]):
        agree = F(0) + q[0] * v[3] + q[1] * v[4] + q[2] * v[5] + q[3] * v[6]
        s = F(np.copysign(w, agree))
        q = [F(q[c] + v[3 + c] * s) for c in range(4)]
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    with np.errstate(all="ignore"):
        out[3:7] = [x / n for x in q]
    return out


def mix_reference(S, base, at, bases, inputs, direct, slots, out):
    slots = slots.copy()
    rest = slots.shape[0] - 1
    for lane in range(S.shape[0]):
        if not S[lane, base] > 0:
            continue
        used = [(S[lane, at + j], inputs[j]) for j in range(len(inputs))
                if S[lane, at + j] > 0 and S[lane, bases[j]] > 0]
        if not used:
            slots[out, :, lane] = slots[rest, :, lane]
            continue
        if len(used) == 1 and used[0][0] == 1.0:
            slots[out, :, lane] = slots[used[0][1], :, lane]
            continue
        total = sum(v for v, _ in used)
        if direct and 1.0 - total > 0:
            used.append((1.0 - total, rest))
        for b in range(slots.shape[3]):
            slots[out, :, lane, b] = blend_reference([slots[s, :, lane, b] for _, s in used],
                                                     [F(v) for v, _ in used])
    return slots


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 5), st.integers(3, 9), st.booleans(), st.booleans())
def test_mix_is_the_formula_lane_by_lane(seed, m, nb, direct, special):
    rng = np.random.default_rng(seed)
    k = 4
    slots = random_slots(rng, k + 1, m, nb, special)
    slots[k - 1, :, :, :] = np.nan                  # an input no lane weighs is never read
    S = np.zeros((m, 20))
    S[:, 0] = rng.choice([0.0, 0.5, 1.0], m)
    bases = np.array([10, 11, 12, 13], dtype=np.intp)
    S[:, 10:13] = rng.choice([0.0, 1.0], (m, 3), p=[0.2, 0.8])
    shares = rng.choice([0.0, 0.1, 0.25, 0.5, 1.0], (m, 4))
    shares[:, 3] = 0.0
    S[:, 2:6] = shares
    inputs = np.arange(k, dtype=np.intp)
    want = mix_reference(S, 0, 2, bases, inputs, direct, slots, k)
    got = slots.copy()
    K.mix(S, 0, 2, bases, inputs, direct, got, k)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    for lane in range(m):                           # a lane alone is the same lane
        alone = np.ascontiguousarray(slots[:, :, lane:lane + 1])
        K.mix(S[lane:lane + 1], 0, 2, bases, inputs, direct, alone, k)
        assert np.array_equal(alone[k, :, 0].view(np.uint32), got[k, :, lane].view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4), st.integers(3, 9), st.booleans())
def test_masks_and_one_shots_are_the_formula(seed, m, nb, special):
    rng = np.random.default_rng(seed)
    slots = random_slots(rng, 2, m, nb, special)
    over = rng.choice([0.0, 0.3, 1.0], nb).astype(F)
    under = (F(1) - over).astype(F)
    S = np.zeros((m, 12))
    S[:, 0] = rng.choice([0.0, 1.0], m, p=[0.2, 0.8])
    S[:, 8] = rng.choice([0.0, 0.4, 1.0], m)                   # the one-shot's weight
    got = slots.copy()
    K.mask(S, 0, 0, 1, over, under, 1.0, 1.0, got, 2)
    shot = slots.copy()
    K.one_shot(S, 0, 0, 1, over, 1.0, shot, 2)
    for lane in range(m):
        if not S[lane, 0] > 0:
            assert np.array_equal(got[2, :, lane], slots[2, :, lane], equal_nan=True)
            continue
        for b in range(nb):
            vals = [slots[0, :, lane, b], slots[1, :, lane, b]]
            want = blend_reference(vals, [under[b], over[b]])
            assert np.array_equal(got[2, :, lane, b].view(np.uint32), want.view(np.uint32))
            if S[lane, 8] > 0:
                o = over[b] * F(S[lane, 8])
                want = blend_reference(vals, [F(1) - o, o])
            else:
                want = slots[0, :, lane, b]
            assert np.array_equal(shot[2, :, lane, b].view(np.uint32), want.view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4), st.integers(3, 9), st.booleans())
def test_additive_is_the_formula(seed, m, nb, special):
    rng = np.random.default_rng(seed)
    slots = random_slots(rng, 2, m, nb, special)
    slots[1, 6, :, 0] = -slots[1, 6, :, 0]                     # a difference the long way round
    S = np.zeros((m, 12))
    S[:, 0] = 1.0
    S[:, 5] = rng.choice([0.0, 1.0], m, p=[0.2, 0.8])           # the layer's weight
    S[:, 2] = rng.choice([0.0, 0.3, 1.0], m)
    got = slots.copy()
    K.additive(S, 0, 5, 0, 1, got, 2)
    for lane in range(m):
        w = F(S[lane, 2]) if S[lane, 5] > 0 else F(0)
        for b in range(nb):
            a, d = slots[0, :, lane, b], slots[1, :, lane, b]
            if not w > 0:
                want = a
            else:
                want = np.empty(10, F)
                want[0:3] = d[0:3] * w + a[0:3]
                want[7:10] = (d[7:10] * w + (F(1) - w)) * a[7:10]
                sign = F(np.copysign(F(1), d[6]))
                t = [d[3] * w * sign, d[4] * w * sign, d[5] * w * sign, d[6] * w * sign + (F(1) - w)]
                q = [a[6] * t[0] + a[3] * t[3] + a[4] * t[2] - a[5] * t[1],
                     a[6] * t[1] - a[3] * t[2] + a[4] * t[3] + a[5] * t[0],
                     a[6] * t[2] + a[3] * t[1] - a[4] * t[0] + a[5] * t[3],
                     a[6] * t[3] - a[3] * t[0] - a[4] * t[1] - a[5] * t[2]]
                n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
                want[3:7] = [x / n for x in q]
            assert np.array_equal(got[2, :, lane, b].view(np.uint32), want.view(np.uint32))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 4))
def test_sampling_is_the_clips_interpolation_dense_or_gathered(seed, m):
    rng = np.random.default_rng(seed)
    clip = standard_clips()["f"]                               # tracks some bones only
    n = humanoid().bone_count
    samples = K.soa(clip.samples)
    dots = np.vstack([clip.segment_dots, np.ones((1, clip.tracked_bone_count), F)])
    tracked = clip.tracked_bones
    rate, duration, last = clip.sample_rate, clip.duration, clip.sample_count - 1
    S = np.zeros((m, 6))
    S[:, 0] = 1.0
    S[:, 2] = rng.uniform(-0.2, duration + 0.2, m)
    fill = rng.normal(size=(10, n)).astype(F)
    where = np.full(n, -1, dtype=np.intp)
    where[tracked] = np.arange(tracked.size)
    got = np.zeros((2, 10, m, n), F)
    K.sample_clip(S, 0, samples, dots, 0, rate, duration, last, where, False, fill, got, 0)
    dense = np.zeros((2, 10, m, tracked.size), F)
    K.sample_clip(S, 0, samples, dots, 0, rate, duration, last, np.arange(tracked.size), True,
                  np.ascontiguousarray(fill[:, :tracked.size]), dense, 0)
    for lane in range(m):
        i, j, f = clip.segment(S[lane, 2])
        c = 2.0 * f * (1.0 - f)
        for b in range(n):
            r = where[b]
            if r < 0:
                want = fill[:, b]
            else:
                a, z = samples[:, i, r], samples[:, j, r]
                want = (z - a) * F(f) + a
                want[3:7] /= np.sqrt(dots[i, r] * F(c) + F(1.0 - c))
            assert np.array_equal(got[0, :, lane, b].view(np.uint32), want.view(np.uint32))
        assert np.array_equal(dense[0, :, lane], got[0, :, lane][:, tracked])


# ---- the update's playheads and root motion -----------------------------------------------------------------
moves = st.tuples(*[st.floats(-3, 3, allow_nan=False)] * 7).filter(lambda m: sum(x * x for x in m[3:]) > 0.01)


def unit_move(m):
    q = np.array(m[3:], dtype=np.float64)
    return tuple(m[:3]) + tuple((q / np.sqrt((q * q).sum())).tolist())


@kernel
def _blend_moves(moves, weights, count, out):
    gm.blend(moves, weights, count, out)         # an inner kernel, called from a kernel


@kernel
def _advance(duration, repeat, old, step):
    return gm.advance(duration, repeat, old, step)


@settings(max_examples=100, deadline=None)
@given(st.lists(moves, min_size=1, max_size=5), st.lists(st.sampled_from([0.0, 0.1, 0.5, 1.0, 3.0]), min_size=5,
                                                          max_size=5))
def test_move_blend_is_rootmotions_formula(items, weights):
    items = [unit_move(m) for m in items]
    weights = weights[:len(items)]
    out = np.empty(7, F)
    _blend_moves(np.array(items), np.array(weights), len(items), out)
    np.testing.assert_allclose(out, rootmotion.blend(items, weights), atol=2e-6)


def advance_reference(duration, repeat, old, step):
    t = old + step
    if not repeat or duration <= 0:
        return (0.0 if t < 0 else duration if t > duration else t), 0
    if 0.0 <= t < duration:
        return t, 0
    wraps = math.floor(t / duration)
    t -= wraps * duration
    if not 0.0 <= t < duration:
        t = 0.0
    return t, wraps


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([0.0, 0.5, 0.8, 2.0]), st.booleans(), st.floats(0, 2),
       st.one_of(st.floats(-10, 10), st.floats(-1e300, 1e300)))
def test_playheads_move_as_the_plain_formula(duration, repeat, old, step):
    new, wraps = _advance(duration, repeat, old, step)
    want, wants = advance_reference(duration, repeat, old, step)
    assert new == want and wraps == wants


def test_a_step_too_long_to_count_its_periods_still_updates():
    g, b, inst = instance_of(GraphSource(humanoid(), [ClipNode(0, speed=64.0)], 0, clips=clip_slots("a")))
    events, count, move = capi.maniGraphInstance_Update(inst, 1.7e308)     # 64 x that is no number
    assert count > 0 and 0.0 <= capi.maniGraphInstance_InspectNode(inst, 0).playhead < 1.0
    assert _advance(1.0, True, 0.5, math.inf)[1] == 1.7976931348623157e308


# ---- batches ------------------------------------------------------------------------------------------------
def _script(inst, lane, frame):
    if (frame + lane) % 29 == 0:
        capi.maniGraphInstance_SetParameter(inst, 2, T.trigger, True)
    if (frame + 2 * lane) % 37 == 0:
        capi.maniGraphInstance_SetParameter(inst, 3, T.bool_, bool((frame // 37 + lane) % 2))
    if (frame + lane) % 23 == 0:
        capi.maniGraphInstance_SetParameter(inst, 4, T.trigger, True)
    capi.maniGraphInstance_SetParameter(inst, 1, T.float_, (lane * 0.37 + frame * 0.01) % 4.0)
    capi.maniGraphInstance_SetParameter(inst, 0, T.float_, lane * 0.61 + frame * 0.02)


def _agree(binding, script, frames, lanes, deltas):
    sk = binding.skeleton
    insts = [GraphInstance(binding) for _ in range(lanes)]
    alone = [GraphInstance(binding) for _ in range(lanes)]
    batch, pose = rt.PoseBatch(sk, lanes), rt.Pose(sk)
    for frame in range(frames):
        d = deltas[frame % len(deltas)]
        for lane in range(lanes):
            script(insts[lane], lane, frame)
            script(alone[lane], lane, frame)
        results = update_batch(insts, d)
        evaluate_batch(insts, batch)
        for lane, inst in enumerate(alone):
            events, count, move = capi.maniGraphInstance_Update(inst, d)
            assert results[lane][0] == events and results[lane][1] == count
            assert np.array_equal(results[lane][2].view(np.uint32), move.view(np.uint32))
            capi.maniGraphInstance_Evaluate(inst, None, pose)
            assert np.array_equal(batch.locals[lane].view(np.uint32), pose_bits(pose)), (frame, lane)
            assert bytes(inst.buffer) == bytes(insts[lane].buffer)


def test_locomotion_batches_are_their_instances_alone():
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    _agree(binding, _script, 150, 9, [1 / 60, 1 / 30, 0.0, -0.02, 0.4])


def _inertialized(method):
    """A select beneath an inertialize node, and an additive layer: its binding and script."""
    nodes = [ClipNode(0), ClipNode(5), ClipNode(1), SelectNode(0, [0, 1, 2]),
             InertializeNode(3, trigger=1, method=method, duration=0.3), ClipNode(4), AdditiveNode(4, 5, 0.5)]
    g, binding, _ = instance_of(GraphSource(humanoid(), nodes, 6, params(("i", T.int_), ("go", T.trigger)),
                                            clip_slots("a", "b", "c", "d", "e", "f")))

    def script(inst, lane, frame):
        if (frame + lane) % 7 == 0:
            capi.maniGraphInstance_SetParameter(inst, 0, T.int_, (frame // 7 + lane) % 3)
        if (frame + 3 * lane) % 11 == 0:
            capi.maniGraphInstance_SetParameter(inst, 1, T.trigger, True)
    return binding, script


def test_inertialized_batches_are_their_instances_alone():
    """A select beneath an inertialize node (both methods), the node's kept poses and state
    written back from the batch's lanes."""
    for method in (InertializeMethod.inertialization, InertializeMethod.dead_blending):
        _agree(*_inertialized(method), 60, 4, [1 / 30, 0.05, 0.0])


CUT = 2 * SPAN_LANES + 5        # lanes enough for two spans


def test_batches_cut_across_two_threads_are_their_instances_alone():
    """Batches cut into spans, one a thread (update and evaluation), each lane as its instance
    alone gives it, events, root motion, pose and state."""
    assert on_threads(2, lambda: threads.spans(0, CUT, SPAN_LANES)) == [(0, CUT // 2), (CUT // 2, CUT)]
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    on_threads(2, lambda: _agree(binding, _script, 40, CUT, [1 / 60, 0.4, -0.02]))
    on_threads(2, lambda: _agree(*_inertialized(InertializeMethod.dead_blending), 30, CUT, [1 / 30, 0.0]))


@pytest.mark.parametrize("scratch", [False, True])
def test_batches_on_one_thread_and_two_are_the_same_bits(scratch):
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))

    def run():
        insts = [GraphInstance(binding) for _ in range(CUT)]
        batch = rt.PoseBatch(sk, CUT)
        memory = np.zeros(binding.scratch_bytes * CUT, np.uint8) if scratch else None
        out = []
        for frame in range(45):
            for lane, inst in enumerate(insts):
                _script(inst, lane, frame)
            results = update_batch(insts, [1 / 60, 0.3][frame % 2])
            evaluate_batch(insts, batch, memory)
            out += [r[2] for r in results] + [batch.locals.copy()]
        return out + [inst.buffer for inst in insts]
    same_on_one_and_two(run)


@pytest.mark.parametrize("lanes", [1, 3])
def test_a_lane_weighing_nothing_gives_the_rest_pose(lanes):
    g, b, inst = instance_of(GraphSource(humanoid(), [ClipNode(0)], 0, clips=clip_slots("a")))
    insts = [GraphInstance(b) for _ in range(lanes)]
    batch = rt.PoseBatch(humanoid(), lanes)
    batch.locals[...] = 7.0
    evaluate_batch(insts, batch)
    assert np.array_equal(batch.locals, np.broadcast_to(humanoid().rests, batch.locals.shape))


def test_a_graph_sends_aside_the_declared_kernels_its_nodes_run():
    """compile_graph_aside's list: the machine's update kernel first when there is one, the
    plain nodes' program, each evaluation kernel once in node order, an inertialize node's by its method, the output's
    last; every one of one declared signature (else compile_aside refuses it)."""
    from runtime.graph.evaluate import program
    from runtime.graph.evaluate.eval import evaluation_kernels
    from runtime.graph.update import machine
    sk, clips, source, graph = locomotion()
    assert machine.machine_kernels(graph) == [machine._machine]
    ks = evaluation_kernels(graph)
    assert ks[-1] is K.write_out and len(set(ks)) == len(ks) and K.sample_clip in ks
    assert all(k.declared is not None for k in ks + machine.machine_kernels(graph))
    sk = humanoid()
    for method, kernel_ in ((InertializeMethod.inertialization, K.inertialization),
                            (InertializeMethod.dead_blending, K.dead_blending)):
        nodes = [ClipNode(0), ClipNode(1), SelectNode(0, [0, 1]), InertializeNode(2, trigger=1, method=method)]
        g, _, _ = instance_of(GraphSource(sk, nodes, 3, params(("i", T.int_), ("go", T.trigger)),
                                          clip_slots("a", "b")))
        assert machine.machine_kernels(g) == []
        assert evaluation_kernels(g) == [program.run, K.sample_clip, K.select, kernel_, K.write_out]
