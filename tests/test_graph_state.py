"""Saving and restoring instances: a restored instance continues bit for bit, and bytes
that are wrong are refused at their byte with the instance left as it was."""
import struct
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.base import hash64
from runtime.core.container import ENTRY
from runtime.graph.binding import GraphAssets
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.graph.state import ABI_VERSION

from test_graph_fixtures import humanoid, instance_of, locomotion, params, pose_bits, slots
from test_graph_locomotion import DT, script


@pytest.fixture(scope="module")
def loco():
    sk, clips, source, graph = locomotion()
    binding, _ = capi.maniBindGraph(graph, GraphAssets(sk, list(clips.values())))
    return graph, binding


def _advance(inst, frames, start=0, pose=None):
    out = []
    for frame in range(start, start + frames):
        script(frame, inst)
        events, count, move = capi.maniGraphInstance_Update(inst, DT)
        capi.maniGraphInstance_Evaluate(inst, None, pose)
        out.append((events, count, move.tobytes(), pose_bits(pose).tobytes()))
    return out


def test_save_mid_transition_restore_continues_bit_for_bit(loco):
    graph, binding = loco
    sk = humanoid()
    inst = capi.maniInitGraphInstance(binding)
    pose = rt.Pose(sk)
    _advance(inst, 63, 0, pose)                         # mid-way through the jump's fade
    machine = next(k for k, n in enumerate(graph.nodes) if n.kind == NodeKind.state_machine)
    assert capi.maniGraphInstance_InspectNode(inst, machine).transition == 0
    saved = capi.maniGraphInstance_Save(inst)
    other = capi.maniInitGraphInstance(binding)
    capi.maniGraphInstance_Restore(other, saved)
    assert bytes(other.buffer) == bytes(inst.buffer)
    a = _advance(inst, 300, 63, rt.Pose(sk))
    b = _advance(other, 300, 63, rt.Pose(sk))
    assert a == b
    assert bytes(other.buffer) == bytes(inst.buffer)


def test_inertialization_state_is_saved_too():
    nodes = [ClipNode(0), ClipNode(1), SelectNode(0, [0, 1]),
             InertializeNode(2, method=InertializeMethod.dead_blending, duration=0.4)]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 3, params(("i", T.int_)), slots("a", "c")))
    pose = rt.Pose(humanoid())
    for frame in range(10):
        if frame == 6:
            capi.maniGraphInstance_SetParameter(inst, 0, T.int_, 1)
        capi.maniGraphInstance_Update(inst, 1 / 30)
        capi.maniGraphInstance_Evaluate(inst, None, pose)
    saved = capi.maniGraphInstance_Save(inst)
    other = capi.maniInitGraphInstance(b)
    capi.maniGraphInstance_Restore(other, saved)
    p1, p2 = rt.Pose(humanoid()), rt.Pose(humanoid())
    for _ in range(20):
        capi.maniGraphInstance_Update(inst, 1 / 30)
        capi.maniGraphInstance_Update(other, 1 / 30)
        capi.maniGraphInstance_Evaluate(inst, None, p1)
        capi.maniGraphInstance_Evaluate(other, None, p2)
        assert np.array_equal(pose_bits(p1), pose_bits(p2))


def test_save_sizes_and_capacity(loco):
    graph, binding = loco
    inst = capi.maniInitGraphInstance(binding)
    data = capi.maniGraphInstance_Save(inst)
    out = bytearray(len(data))
    assert capi.maniGraphInstance_Save(inst, out) == len(data) and bytes(out) == data
    small = bytearray(len(data) - 1)
    with pytest.raises(rt.CapacityError) as info:
        capi.maniGraphInstance_Save(inst, small)
    assert info.value.size == len(data) and not any(small)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Save(inst, None, 10)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Save(None)
    with pytest.raises(rt.InvalidError):
        capi.maniGraphInstance_Restore(inst, None)


def _sections(data):
    count = struct.unpack_from("<H", data, 10)[0]
    return {ENTRY.unpack_from(data, 32 + 24 * i)[0]: ENTRY.unpack_from(data, 32 + 24 * i)[3]
            for i in range(count)}


def _restamp(d: bytearray) -> bytes:
    kind, version, minor = struct.unpack_from("<HHH", d, 4)
    struct.pack_into("<Q", d, 16, hash64(kind | version << 16 | minor << 32, bytes(d[32:])))
    return bytes(d)


def _refused(inst, data, error=rt.FormatError):
    before = bytes(inst.buffer)
    with pytest.raises(error) as info:
        capi.maniGraphInstance_Restore(inst, data)
    assert bytes(inst.buffer) == before
    return info.value


def test_restore_refusals_name_their_byte(loco):
    graph, binding = loco
    inst = capi.maniInitGraphInstance(binding)
    _advance(inst, 30, 0, rt.Pose(humanoid()))
    data = capi.maniGraphInstance_Save(inst)
    s = _sections(data)
    target = capi.maniInitGraphInstance(binding)
    # another ABI version, another state format version
    d = bytearray(data)
    struct.pack_into("<I", d, s[b"GSAV"], ABI_VERSION + 1)
    _refused(target, _restamp(d), rt.VersionError)
    d = bytearray(data)
    struct.pack_into("<H", d, 6, 2)
    _refused(target, _restamp(d), rt.VersionError)
    # a state of another graph
    d = bytearray(data)
    struct.pack_into("<Q", d, s[b"GSAV"] + 8, 12345)
    assert _refused(target, _restamp(d)).offset == s[b"GSAV"] + 8
    # a weight past 1, a playhead past its clip, a machine state past its states
    machine = next(k for k, n in enumerate(graph.nodes) if n.kind == NodeKind.state_machine)
    clip = next(k for k, n in enumerate(graph.nodes) if n.kind == NodeKind.clip)
    m = binding.runs[machine]
    for index, value in ((binding.layout.nodes[3], 1.5), (binding.layout.nodes[clip] + 2, 99.0),
                         (m.at["states"], 7.0), (m.at["length"], 0.5), (0, float("nan")),
                         (binding.parameter_base + 4 * 1, 9.0)):
        d = bytearray(data)
        at = s[b"SCAL"] + 8 * index
        struct.pack_into("<d", d, at, value)
        assert _refused(target, _restamp(d)).offset == at, index
    # any other change: the identity
    d = bytearray(data)
    d[-3] ^= 0x40
    _refused(target, bytes(d))
    assert bytes(target.buffer) == bytes(capi.maniInitGraphInstance(binding).buffer)


def test_poses_and_quaternions_in_a_state_are_checked():
    nodes = [PoseParameterNode(0)]
    g, b, inst = instance_of(GraphSource(humanoid(), nodes, 0, params(("p", T.pose), ("q", T.quaternion)),
                                         slots("a")))
    capi.maniGraphInstance_SetPose(inst, 0, rt.Pose(humanoid()))
    data = capi.maniGraphInstance_Save(inst)
    s = _sections(data)
    target = capi.maniInitGraphInstance(b)
    d = bytearray(data)
    at = s[b"POSE"] + 4 * (10 * 5 + 3)                  # bone 5's rotation
    x = struct.unpack_from("<ffff", d, at)
    struct.pack_into("<ffff", d, at, *(v * 1.01 for v in x))
    assert _refused(target, _restamp(d)).offset == at
    struct.pack_into("<ffff", d, at, *(v * 1.0004 for v in x))
    capi.maniGraphInstance_Restore(target, _restamp(d))   # within a thousandth
    d = bytearray(data)
    at = s[b"SCAL"] + 8 * (b.parameter_base + 4 + 3)
    struct.pack_into("<d", d, at, 0.5)                   # q's w: no longer of unit length
    assert _refused(target, _restamp(d)).offset == b.parameter_base * 8 + s[b"SCAL"] + 8 * 4


def test_random_corruption_never_restores_and_changes_nothing(loco):
    graph, binding = loco
    inst = capi.maniInitGraphInstance(binding)
    _advance(inst, 20, 0, rt.Pose(humanoid()))
    data = capi.maniGraphInstance_Save(inst)
    target = capi.maniInitGraphInstance(binding)
    before = bytes(target.buffer)
    rng = np.random.default_rng(7)
    for trial in range(300):
        d = bytearray(data)
        if trial % 3 == 0:
            d = d[:int(rng.integers(0, len(d)))]
        else:
            for _ in range(int(rng.integers(1, 4))):
                d[int(rng.integers(0, len(d)))] ^= int(rng.integers(1, 256))
        with pytest.raises(rt.ManiError):
            capi.maniGraphInstance_Restore(target, bytes(d))
        assert bytes(target.buffer) == before


@pytest.mark.parametrize("bits", [0x7FF0000000000001, 0xFFF0000000000001, 0x7FF8000000000000,
                                  0x7FF0000000000000, 0xFFF0000000000000])
def test_a_scalar_not_finite_is_refused_at_its_byte_without_a_warning(loco, bits):
    """A signalling NaN (or any NaN or infinity) at any scalar, whole ones included, is refused
    on its bits before any arithmetic could raise numpy's invalid-value warning."""
    graph, binding = loco
    inst = capi.maniInitGraphInstance(binding)
    _advance(inst, 10, 0, rt.Pose(humanoid()))
    data = capi.maniGraphInstance_Save(inst)
    at = _sections(data)[b"SCAL"]
    target = capi.maniInitGraphInstance(binding)
    whole = np.flatnonzero(binding.whole)
    for index in sorted({0, int(whole[0]), int(whole[-1]), binding.layout.size - 1}):
        d = bytearray(data)
        struct.pack_into("<Q", d, at + 8 * index, bits)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert _refused(target, _restamp(d)).offset == at + 8 * index, index
