"""Mirror maps: built, opened, used. Poses against a plain numpy reference of the spec's
formula and against geometry (positions reflected, the reference kept), names by every rule
kind, root motion, every Returns-line refusal with its outputs unchanged, the JSON form."""
import struct

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason
from runtime.core.json_text import GraphForm
from runtime.mapping import (BONE_SCALE_APPROXIMATE, BONE_UNMATCHED, MirrorAxis, MirrorMap,
                             MirrorMapSource, MirrorRule, RulePlace, build_mirror_map)
from runtime.mapping.mirror_json import build_mirror_map_json, read_text, write_mirror_map_json
from runtime.samples.humanoid import humanoid_source

from fuzz_files import reseal
from runtime_fixtures import open_skeleton, random_pose, rotation_matrix

SIDES = [MirrorRule("_l", "_r", RulePlace.suffix), MirrorRule("_r", "_l", RulePlace.suffix)]


def reflection(axis: int) -> np.ndarray:
    m = np.eye(3)
    m[axis, axis] = -1
    return m


def qmul(a, b):
    ax, ay, az, aw = np.moveaxis(np.asarray(a, float), -1, 0)
    bx, by, bz, bw = np.moveaxis(np.asarray(b, float), -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], -1)


def turn(axis, degrees):
    q = np.zeros(4)
    q[axis] = np.sin(np.radians(degrees) / 2)
    q[3] = np.cos(np.radians(degrees) / 2)
    return q


def mirrored_q(q, axis):
    """M R M as a quaternion, from matrices (an independent route)."""
    m = reflection(axis) @ rotation_matrix(q) @ reflection(axis)
    return rt.decompose_affine(np.hstack([m, np.zeros((3, 1))]).astype(np.float32))[3:7]


def symmetric_source(right_turns=None, right_parent_shift=0) -> rt.SkeletonSource:
    """A mirror-symmetric rig across x: a spine turned only about x, arms whose rests are
    exact mirror images (or, with right_turns, turned away from them per bone); with
    right_parent_shift the right arm hangs from a higher spine bone."""
    rng = np.random.default_rng(3)
    bones = [rt.BoneSource("hips", -1, (0, 1, 0), tuple(turn(0, 10)))]
    for i in range(3):
        bones.append(rt.BoneSource(f"spine{i}", i, (0, 0.2, 0.01), tuple(turn(0, -5 + 4 * i))))
    parts = ("shoulder", "arm", "hand")
    left = {name: (q / np.linalg.norm(q)).astype(np.float32)
            for name, q in zip(parts, rng.normal(size=(3, 4)))}
    for side, sx in (("l", 1), ("r", -1)):
        parent = 2 + (right_parent_shift if side == "r" else 0)
        for k, name in enumerate(parts):
            q = left[name]
            if side == "r":
                q = np.array([q[0], -q[1], -q[2], q[3]], np.float32)
                if right_turns and name in right_turns:
                    q = qmul(q, right_turns[name]).astype(np.float32)
            bones.append(rt.BoneSource(f"{name}_{side}", parent, (0.1 * sx, 0.05 * k, 0.02), tuple(q)))
            parent = len(bones) - 1
    return rt.SkeletonSource(bones)


def mirror_of(skeleton, **kw) -> MirrorMap:
    kw.setdefault("rules", SIDES)
    return MirrorMap(build_mirror_map(rt.Builder(), MirrorMapSource(skeleton, **kw)))


def reference_mirror(m: MirrorMap, locals_: np.ndarray) -> np.ndarray:
    """The spec's formula in numpy binary64 over the map's stored partners and corrections."""
    axis = int(m.axis)
    p = m.partners
    src = locals_.astype(np.float64)[p]
    turns = m._turns
    c, e = turns[:, 0:4], turns[:, 4:8]
    t = src[:, 0:3] @ reflection(axis)
    q = src[:, 3:7].copy()
    q[:, [i for i in range(3) if i != axis]] *= -1
    out = np.empty_like(src)
    out[:, 0:3] = np.einsum("bij,bj->bi", np.stack([rotation_matrix(x) for x in e]), t)
    out[:, 3:7] = qmul(qmul(e, q), c)
    out[:, 7:10] = np.take_along_axis(src[:, 7:10], m._bones[:, 1:4], axis=1)
    return out


# ---- poses ------------------------------------------------------------------------------------
def test_mirroring_twice_on_a_symmetric_rig_is_the_pose_bit_for_bit():
    """Partners whose reference axes are mirror images: corrections exactly identities, so a
    mirror only moves signs."""
    sk = open_skeleton(symmetric_source())
    m = mirror_of(sk)
    assert m.unmatched_bone == rt.NO_BONE
    assert all(m.bone_flags(b) == 0 for b in range(sk.bone_count))
    assert np.array_equal(m._turns, np.tile([0, 0, 0, 1.0, 0, 0, 0, 1.0], (sk.bone_count, 1)))
    rng = np.random.default_rng(0)
    for _ in range(20):
        pose, once, twice = random_pose(sk, rng), rt.Pose(sk), rt.Pose(sk)
        m.mirror_pose(sk, pose, once)
        m.mirror_pose(sk, once, twice)
        assert np.array_equal(twice.locals.view(np.uint32), pose.locals.view(np.uint32))


def test_mirroring_twice_with_corrections_is_within_a_few_ulps():
    """Corrections that are not identities: each pass rounds its binary64 result once, so
    translations come back within 3 ulps of their largest component, rotations within 1 ulp
    of 1, scales exactly."""
    sk = open_skeleton(humanoid_source(80))
    rng = np.random.default_rng(1)
    for axis in MirrorAxis:
        m = mirror_of(sk, axis=axis)
        pose, once, twice = random_pose(sk, rng, scale=(1, 1)), rt.Pose(sk), rt.Pose(sk)
        m.mirror_pose(sk, pose, once)
        m.mirror_pose(sk, once, twice)
        d = np.abs(twice.locals.astype(np.float64) - pose.locals)
        largest = np.abs(pose.locals[:, 0:3]).max(axis=1, keepdims=True)
        assert (d[:, 0:3] <= 3 * np.spacing(largest)).all()
        assert (d[:, 3:7] <= np.spacing(np.float32(1))).all()
        assert (d[:, 7:10] == 0).all()


@pytest.mark.parametrize("axis", list(MirrorAxis))
def test_kernel_matches_the_formula_and_in_place_matches_apart(axis):
    sk = open_skeleton(humanoid_source(80))
    m = mirror_of(sk, axis=axis)
    rng = np.random.default_rng(int(axis))
    pose = random_pose(sk, rng)
    out = rt.Pose(sk)
    m.mirror_pose(sk, pose, out)
    want = reference_mirror(m, pose.locals)
    assert np.abs(out.locals - want).max() < 2e-6 * max(1, np.abs(want).max())
    assert not out.is_model_current and not out.is_difference
    m.mirror_pose(sk, pose, pose)            # in place reads the pose before writing it
    assert np.array_equal(pose.locals, out.locals)


@pytest.mark.parametrize("axis", list(MirrorAxis))
def test_each_model_position_is_its_partners_reflected(axis):
    """Any rig whose hierarchy is mirror-symmetric, the humanoid's random rest turns included:
    model positions reflect, model turns are the partner's mirrored, carried by C."""
    sk = open_skeleton(humanoid_source(80))
    m = mirror_of(sk, axis=axis)
    assert m.unmatched_bone == rt.NO_BONE
    assert m.partner(sk.find_bone("hand_l")) == sk.find_bone("hand_r")
    rng = np.random.default_rng(5)
    pose, out = random_pose(sk, rng, scale=(1, 1)), rt.Pose(sk)
    m.mirror_pose(sk, pose, out)
    pose.compute_model(sk)
    out.compute_model(sk)
    M = reflection(axis)
    p = m.partners
    want = pose.model[p, :, 3] @ M
    assert np.abs(out.model[:, :, 3] - want).max() < 1e-5 * max(1, np.abs(want).max())
    for b in range(sk.bone_count):
        c = rotation_matrix(m._turns[b, 0:4])
        expect = M @ pose.model[p[b], :, :3] @ M @ c
        assert np.abs(out.model[b, :, :3] - expect).max() < 2e-5


def test_a_rig_with_unmirrored_local_axes_mirrors_to_its_reference():
    """Right bones whose rests are turned away from the left's mirror image (the engine bug
    of unmirrored axes): the rest mirrors to the rest's model turns, where swapping and
    negating alone would not."""
    turns = {"shoulder": turn(1, 90), "arm": turn(2, 37), "hand": turn(0, -120)}
    sk = open_skeleton(symmetric_source(right_turns=turns))
    m = mirror_of(sk)
    rest, out = rt.Pose(sk), rt.Pose(sk)
    m.mirror_pose(sk, rest, out)
    out.compute_model(sk)
    assert np.abs(out.model[:, :, :3] - rest.model[:, :, :3]).max() < 1e-6
    assert np.abs(out.model[:, :, 3] - rest.model[m.partners, :, 3] @ reflection(0)).max() < 1e-6
    naive = rest.locals[m.partners].copy()
    naive[:, 0] *= -1
    naive[:, 4:6] *= -1
    wrong = rt.Pose(sk)
    wrong.write_locals(0, naive)
    wrong.compute_model(sk)
    assert np.abs(wrong.model[:, :, :3] - rest.model[:, :, :3]).max() > 0.5


def test_flags_unmatched_and_scale_approximate():
    # right arm hung one spine bone higher: its parent's partner is not its partner's parent
    sk = open_skeleton(symmetric_source(right_parent_shift=1))
    m = mirror_of(sk)
    left, right = sk.find_bone("shoulder_l"), sk.find_bone("shoulder_r")
    assert m.unmatched_bone == min(left, right)
    assert m.bone_flags(left) & BONE_UNMATCHED and m.bone_flags(right) & BONE_UNMATCHED
    assert not m.bone_flags(sk.find_bone("arm_l")) & BONE_UNMATCHED
    # unmatched: the partner's local turn mirrored between the corrections, as the formula
    pose, out = random_pose(sk, np.random.default_rng(2)), rt.Pose(sk)
    m.mirror_pose(sk, pose, out)
    assert np.abs(out.locals - reference_mirror(m, pose.locals)).max() < 1e-5
    # a 45 degree turn takes no axis to an axis; a 90 degree one permutes them
    sk = open_skeleton(symmetric_source(right_turns={"hand": turn(2, 45), "arm": turn(2, 90)}))
    m = mirror_of(sk)
    for name in ("hand_l", "hand_r"):
        assert m.bone_flags(sk.find_bone(name)) == BONE_SCALE_APPROXIMATE
    for name in ("arm_l", "arm_r", "shoulder_l"):
        assert m.bone_flags(sk.find_bone(name)) == 0
    assert capi.maniMirrorMap_GetBoneFlags(m, sk.bone_count) == 0


def test_an_exact_scale_follows_the_axes_the_correction_permutes():
    sk = open_skeleton(symmetric_source(right_turns={"hand": turn(2, 90)}))
    m = mirror_of(sk)
    hl, hr = sk.find_bone("hand_l"), sk.find_bone("hand_r")
    pose, out = rt.Pose(sk), rt.Pose(sk)
    local = pose.get_local(hl)
    local[7:10] = (1.5, 0.5, 2.0)
    pose.set_local(hl, local)
    m.mirror_pose(sk, pose, out)
    pose.compute_model(sk)
    out.compute_model(sk)
    M = reflection(0)
    expect = M @ pose.model[hl, :, :3] @ M @ rotation_matrix(m._turns[hr, 0:4])
    assert np.abs(out.model[hr, :, :3] - expect).max() < 1e-5
    assert sorted(out.get_local(hr)[7:10]) == [0.5, 1.5, 2.0]
    assert out.get_local(hr)[9] == 2.0 and out.get_local(hr)[7] == 0.5


def test_root_motion_mirrored():
    sk = open_skeleton(humanoid_source(12))
    rng = np.random.default_rng(4)
    for axis in MirrorAxis:
        m = mirror_of(sk, axis=axis)
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        move = np.concatenate([rng.normal(size=3), q]).astype(np.float32)
        out = m.mirror_root_motion(move)
        assert np.allclose(out[0:3], reflection(axis) @ move[0:3])
        assert np.allclose(rotation_matrix(out[3:7]), rotation_matrix(mirrored_q(move[3:7], axis)), atol=1e-6)
        assert np.array_equal(m.mirror_root_motion(out), move)
    assert np.array_equal(capi.maniMirrorMap_MirrorRootMotion(None, move), move)


# ---- names ------------------------------------------------------------------------------------
def test_names_by_every_rule_kind_and_by_pairs():
    sk = open_skeleton(rt.SkeletonSource([
        rt.BoneSource("Root"), rt.BoneSource("LeftLeg", 0), rt.BoneSource("RightLeg", 0),
        rt.BoneSource("arm.L", 0), rt.BoneSource("arm.R", 0), rt.BoneSource("x_l_y", 0),
        rt.BoneSource("x_r_y", 0), rt.BoneSource("tail", 0), rt.BoneSource("Lefty", 0)]))
    rules = [MirrorRule("Left", "Right", RulePlace.prefix), MirrorRule("Right", "Left", RulePlace.prefix),
             MirrorRule(".L", ".R", RulePlace.suffix), MirrorRule(".R", ".L", RulePlace.suffix),
             MirrorRule("_l_", "_r_"), MirrorRule("_r_", "_l_")]
    names = ["LeftStep", "RightStep", "kick.L", "x_l_wave", "alone", "Leftover"]
    m = mirror_of(sk, rules=rules, names=names, name_pairs=[("smile", "frown")])
    partner = {sk.bone_name(b): sk.bone_name(m.partner(b)) for b in range(sk.bone_count)}
    assert partner == {"Root": "Root", "LeftLeg": "RightLeg", "RightLeg": "LeftLeg", "arm.L": "arm.R",
                       "arm.R": "arm.L", "x_l_y": "x_r_y", "x_r_y": "x_l_y", "tail": "tail",
                       "Lefty": "Lefty"}      # "Righty" is no bone: Lefty stays itself
    for a, b in [("LeftStep", "RightStep"), ("kick.L", "kick.R"), ("x_l_wave", "x_r_wave"),
                 ("smile", "frown"), ("Leftover", "Rightover")]:
        assert m.mirror_name(a) == b and m.mirror_name(b) == a
        assert m.mirror_name(a.encode()) == b.encode()
        assert capi.maniMirrorMap_MirrorName(m, a) == (b.encode(), len(b))
        ha, hb = rt.hash64(0x4D414E49, a.encode()), rt.hash64(0x4D414E49, b.encode())
        assert m.mirror_name_hash(ha) == hb and m.mirror_name_hash(hb) == ha
    assert m.mirror_name("alone") == "alone" and m.mirror_name("unheard") == "unheard"
    assert m.mirror_name_hash(12345) == 12345
    assert capi.maniMirrorMap_MirrorName(None, "smile") == (b"smile", 5)
    assert m.name_count == 10


# ---- refusals ---------------------------------------------------------------------------------
def _good_source(sk, **kw):
    base = dict(rules=list(SIDES), names=["step_l"], name_pairs=[("smile", "frown")])
    base.update(kw)
    return MirrorMapSource(sk, **base)


LONG = "n" * 256


@pytest.mark.parametrize("change,error,reason,item,other", [
    (dict(axis=3), rt.InvalidError, BuildReason.Option, 0, 0),
    (dict(axis=True), rt.InvalidError, BuildReason.Option, 0, 0),
    (dict(reference=np.zeros((3, 10))), rt.InvalidError, BuildReason.MirrorReference, rt.NO_BONE, 0),
    ("reference nan at 5", rt.InvalidError, BuildReason.MirrorReference, 5, 0),
    ("reference zero turn at 2", rt.InvalidError, BuildReason.MirrorReference, 2, 0),
    (dict(rules=[SIDES[0], "x"]), rt.InvalidError, BuildReason.MirrorRule, 1, 0),
    (dict(rules=[MirrorRule("", "_r")]), rt.InvalidError, BuildReason.MirrorRule, 0, 0),
    (dict(rules=[MirrorRule("_l", 5)]), rt.InvalidError, BuildReason.MirrorRule, 0, 0),
    (dict(rules=[MirrorRule("_l", "_r", 7)]), rt.InvalidError, BuildReason.MirrorRule, 0, 0),
    (dict(rules=[MirrorRule(LONG, "_r")]), rt.LimitError, BuildReason.MirrorRule, 0, 0),
    (dict(pairs=[(1, 99)]), rt.InvalidError, BuildReason.MirrorPair, 1, 99),
    (dict(pairs=[(1, 2), (1, 3)]), rt.InvalidError, BuildReason.MirrorPair, 1, 3),
    ("a rule partner that does not pair back", rt.InvalidError, BuildReason.MirrorPair, None, None),
    ("a rule partner the pairs pair", rt.InvalidError, BuildReason.MirrorPair, None, None),
    (dict(names=["step_l", "step_l"]), rt.InvalidError, BuildReason.MirrorName, 3, 2),
    (dict(names=["smile"]), rt.InvalidError, BuildReason.MirrorName, 2, 0),
    (dict(names=[7]), rt.InvalidError, BuildReason.MirrorName, 2, 0),
    (dict(names=["step_l"], rules=[MirrorRule("step", "hop", RulePlace.prefix)]), rt.InvalidError,
     BuildReason.MirrorName, 2, 2),
    (dict(names=[LONG]), rt.LimitError, BuildReason.MirrorName, 2, 0),
    (dict(names=["a" * 254 + "_l"], rules=[MirrorRule("_l", "_rr", RulePlace.suffix)]),
     rt.LimitError, BuildReason.MirrorName, 2, 0),
])
def test_build_refusals_leave_the_builder_holding_what_it_held(change, error, reason, item, other):
    sk = open_skeleton(humanoid_source(80))
    if isinstance(change, dict):
        source = _good_source(sk, **change)
    else:
        source = _good_source(sk)
        ref = sk.rests.astype(np.float64)
        if change == "reference nan at 5":
            ref[5, 1] = np.nan
            source.reference = ref
        elif change == "reference zero turn at 2":
            ref[2, 3:7] = 0
            source.reference = ref
        elif change == "a rule partner that does not pair back":
            source.rules = [SIDES[0], MirrorRule("_r", "_x", RulePlace.suffix)]
            item, other = sk.find_bone("shoulder_l"), sk.find_bone("shoulder_r")
        else:
            source.pairs = [(sk.find_bone("shoulder_r"), sk.find_bone("hips"))]
            item, other = sk.find_bone("shoulder_l"), sk.find_bone("shoulder_r")
    builder = rt.Builder()
    good = build_mirror_map(builder, _good_source(sk))
    with pytest.raises(error) as info:
        build_mirror_map(builder, source)
    e = info.value
    assert (e.reason, e.item, e.other) == (reason, item, other), str(e)
    assert bytes(capi.maniBuilder_CopyBuilt(builder)) == good
    assert builder.misuse == 0


def test_name_hash_and_name_bytes_refusals(monkeypatch):
    """Neither a 64-bit hash collision nor 4 GiB of names is at hand, so the hash and the
    bound are made small for the build."""
    import runtime.mapping.mirror_build as mb
    sk = open_skeleton(humanoid_source(12))
    source = MirrorMapSource(sk, name_pairs=[("a", "b")], names=["x_l", "y"],
                             rules=[MirrorRule("_l", "_r", RulePlace.suffix),
                                    MirrorRule("_r", "_l", RulePlace.suffix)])
    build_mirror_map(rt.Builder(), source)
    monkeypatch.setattr(mb, "MAX_NAME_TABLE_BYTES", 7)
    with pytest.raises(rt.InvalidError) as info:
        build_mirror_map(rt.Builder(), source)
    assert info.value.reason == BuildReason.Count
    monkeypatch.setattr(mb, "MAX_NAME_TABLE_BYTES", 8)
    build_mirror_map(rt.Builder(), source)              # a b x_l x_r: 8 bytes
    monkeypatch.setattr(mb.names, "hash_name", lambda raw: len(raw))
    with pytest.raises(rt.InvalidError) as info:
        build_mirror_map(rt.Builder(), source)
    assert (info.value.reason, info.value.item, info.value.other) == (BuildReason.NameHash, 1, 0)


def test_misuses_are_counted():
    sk = open_skeleton(humanoid_source(12))
    b = rt.Builder()
    for bad in (None, "source", MirrorMapSource(None), MirrorMapSource(sk, rules="x"),
                MirrorMapSource(sk, names=5)):
        with pytest.raises(rt.InvalidError) as info:
            build_mirror_map(b, bad)
        assert info.value.reason == BuildReason.None_
    assert b.misuse == 5
    with pytest.raises(rt.InvalidError):
        build_mirror_map(None, MirrorMapSource(sk))


def test_mirror_pose_refusals_leave_the_output_unchanged():
    sk = open_skeleton(humanoid_source(30))
    other = open_skeleton(humanoid_source(30, seed=9))
    m = mirror_of(sk)
    rng = np.random.default_rng(0)
    good_in = random_pose(sk, rng)
    difference = rt.Pose(sk)
    rt.compute_pose_difference(sk, good_in, rt.Pose(sk), difference)
    out = random_pose(sk, rng)
    before = out.buffer.copy()
    for args in [(None, good_in, out), (other, good_in, out), (sk, None, out), (sk, good_in, None),
                 (sk, rt.Pose(other), out), (sk, good_in, rt.Pose(other)), (sk, difference, out)]:
        with pytest.raises(rt.InvalidError):
            m.mirror_pose(*args)
        assert np.array_equal(out.buffer, before)
    with pytest.raises(rt.InvalidError):
        capi.maniMirrorMap_MirrorPose(None, sk, good_in, out)
    with pytest.raises(rt.InvalidError):
        MirrorMap.__new__(MirrorMap).mirror_pose(sk, good_in, out)
    assert np.array_equal(out.buffer, before)


# ---- the open ---------------------------------------------------------------------------------
def _file(sk=None):
    sk = sk or open_skeleton(humanoid_source(80))
    return sk, build_mirror_map(rt.Builder(), _good_source(sk))


def _section(data: bytes, tag: bytes) -> int:
    count = struct.unpack_from("<H", data, 10)[0]
    for i in range(count):
        t, _, _, off, _ = struct.unpack_from("<4sHHQQ", data, 32 + 24 * i)
        if t == tag:
            return off
    raise KeyError(tag)


def test_the_open_reads_what_the_build_wrote():
    sk, data = _file()
    m = capi.maniOpenMirrorMap(data)
    assert capi.maniMirrorMap_GetSkeletonIdentity(m) == sk.identity
    assert capi.maniMirrorMap_GetIdentity(m) == struct.unpack_from("<Q", data, 16)[0] != 0
    assert capi.maniMirrorMap_GetAxis(m) == capi.maniMirrorAxisX
    assert capi.maniMirrorMap_GetUnmatchedBone(m) == rt.NO_BONE
    assert capi.maniMirrorMap_GetPartner(m, 80) == rt.NO_BONE
    for getter, none in [(capi.maniMirrorMap_GetIdentity, 0), (capi.maniMirrorMap_GetAxis, 0),
                         (capi.maniMirrorMap_GetSkeletonIdentity, 0),
                         (capi.maniMirrorMap_GetUnmatchedBone, rt.NO_BONE)]:
        assert getter(None) == none


def _corrupt(data: bytes, at: int, fmt: str, value) -> bytes:
    d = bytearray(data)
    struct.pack_into(fmt, d, at, value)
    return reseal(d)


def test_open_refusals_name_the_first_wrong_byte():
    sk, data = _file()
    head, bones, pairs = _section(data, b"MHDR"), _section(data, b"MBON"), _section(data, b"MNPR")
    hand, other_hand = sk.find_bone("hand_l"), sk.find_bone("hand_r")
    cases = [
        (_corrupt(data, head + 8, "<I", 0), head + 8),                       # bone count
        (_corrupt(data, head + 12, "<I", 3), head + 12),                     # axis
        (_corrupt(data, head + 20, "<I", 4), head + 20),                     # first unmatched
        (_corrupt(data, head + 24, "<Q", 1), head + 24),                     # reserved
        (_corrupt(data, bones + 40 * hand, "<I", hand), bones + 40 * other_hand),  # not back
        (_corrupt(data, bones + 40 * 2, "<I", 99), bones + 80),              # partner past
        (_corrupt(data, bones + 40 * 2 + 4, "<I", 1 << 12), bones + 84),     # unknown flag bit
        (_corrupt(data, bones + 40 * 2 + 4, "<I", 0), bones + 84),           # axes no permutation
        (_corrupt(data, bones + 40 * 2 + 8, "<f", 2.0), bones + 88),         # correction length
        (_corrupt(data, bones + 40 * 2 + 28, "<f", np.nan), bones + 104),    # parent correction
        (_corrupt(data, pairs, "<I", 0), pairs),                             # a name its own partner
        (_corrupt(data, pairs, "<I", 9), pairs),                             # past the names
    ]
    for bad, at in cases:
        with pytest.raises(rt.FormatError) as info:
            MirrorMap(bad)
        assert info.value.offset == at, (str(info.value), at)
    with pytest.raises(rt.FormatError) as info:
        MirrorMap(data[:-8])
    unsealed = bytearray(data)
    unsealed[bones + 8] ^= 1                # a correction's lowest bit: only the identity sees it
    with pytest.raises(rt.FormatError) as info:
        MirrorMap(bytes(unsealed))
    assert info.value.offset == 16
    with pytest.raises(rt.VersionError):
        MirrorMap(_corrupt(data, 6, "<H", 2))
    with pytest.raises(rt.InvalidError):
        MirrorMap(None)
    buf = np.zeros(len(data) + 8, np.uint8)
    buf[1:1 + len(data)] = np.frombuffer(data, np.uint8)
    with pytest.raises(rt.InvalidError):
        MirrorMap(buf[1:1 + len(data)])
    with pytest.raises(rt.FormatError):
        MirrorMap(rt.build_skeleton(rt.Builder(), humanoid_source(3)))     # another kind


# ---- JSON -------------------------------------------------------------------------------------
def _json_source(sk):
    ref = sk.rests.copy()
    ref[3, 0] += 0.25
    ref[5, 3:7] = (0.1, 0.2, 0.3, 0.9)
    return MirrorMapSource(sk, MirrorAxis.z, reference=ref, pairs=[(1, 1)],
                           rules=[SIDES[0], MirrorRule("_r", "_l", RulePlace.suffix),
                                  MirrorRule("mid", "dim")],
                           name_pairs=[("a", "b")], names=["foot_l", "hand_r", "x", "ümlaut_l"])


def test_json_round_trip_is_a_fixed_point_and_builds_the_same_file():
    sk = open_skeleton(humanoid_source(30))
    source = _json_source(sk)
    b = rt.Builder()
    first = write_mirror_map_json(b, source)
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == first.encode()
    again = write_mirror_map_json(rt.Builder(), read_text(first, sk))
    assert again == first
    assert build_mirror_map_json(rt.Builder(), first, sk) == build_mirror_map(rt.Builder(), source)
    assert '"rotation": [\n        0.1,' in first         # shortest binary32 text
    assert first.count('"bone"') == 2                       # only bones off their rest
    minimal = '{"format": "maul-anim mirror map", "version": 1, "axis": "y"}'
    m = MirrorMap(build_mirror_map_json(rt.Builder(), minimal, sk))
    assert m.axis == MirrorAxis.y and all(m.partner(b) == b for b in range(30))


def _offset_of(text: str, fragment: str) -> int:
    return len(text[:text.index(fragment)].encode())


@pytest.mark.parametrize("edit,error,reason,form,where", [
    (('"axis": "z"', '"axis": "w"'), rt.InvalidError, BuildReason.Form, GraphForm.value, '"axis": "w"'),
    (('"axis": "z"', '"axes": "z"'), rt.InvalidError, BuildReason.Form, GraphForm.member, '"axes"'),
    (('"axis": "z"', '"axis": 3'), rt.InvalidError, BuildReason.Form, GraphForm.type, '"axis": 3'),
    (('"version": 1', '"version": 2'), rt.VersionError, BuildReason.Form, GraphForm.version, '2,\n  "axis"'),
    (('"format": "maul-anim mirror map"', '"format": "graph"'), rt.InvalidError, BuildReason.Form,
     GraphForm.value, '"graph"'),
    (('"bone": "head"', '"bone": "nobody"'), rt.InvalidError, BuildReason.Form, GraphForm.name, '"nobody"'),
    (('"bone": "head"', '"bone": "spine2"'), rt.InvalidError, BuildReason.Form, GraphForm.duplicate,
     None),
    (('"place": "suffix"', '"place": "middle"'), rt.InvalidError, BuildReason.Form, GraphForm.value,
     '"place": "middle"'),
    (('"find": "_l",', '"find": "_l", "find": "_l",'), rt.InvalidError, BuildReason.Form,
     GraphForm.duplicate, None),
    (('"find": "mid",', ''), rt.InvalidError, BuildReason.Form, GraphForm.missing, None),
    (('"a",', '"a" "c",'), rt.InvalidError, BuildReason.Json, None, '"c"'),
    (('"foot_l"', '"x"'), rt.InvalidError, BuildReason.MirrorName, None, None),
])
def test_json_refusals_at_byte_offsets(edit, error, reason, form, where):
    sk = open_skeleton(humanoid_source(30))
    text = write_mirror_map_json(rt.Builder(), _json_source(sk))
    old, new = edit
    assert old in text
    bad = text.replace(old, new, 1)
    b = rt.Builder()
    with pytest.raises(error) as info:
        build_mirror_map_json(b, bad, sk)
    e = info.value
    assert e.reason == reason, str(e)
    if form is not None:
        assert e.other == form, str(e)
    if where is not None:
        assert e.item == _offset_of(bad, where), str(e)
    assert b.misuse == 0


def test_json_duplicate_offsets_point_at_the_second():
    sk = open_skeleton(humanoid_source(30))
    text = write_mirror_map_json(rt.Builder(), _json_source(sk))
    bad = text.replace('"bone": "head"', '"bone": "spine2"')
    with pytest.raises(rt.InvalidError) as info:
        build_mirror_map_json(rt.Builder(), bad, sk)
    assert info.value.item == len(bad[:bad.rindex('"spine2"')].encode())
    bad = text.replace('"find": "_l",', '"find": "_l", "find": "_l",', 1)
    with pytest.raises(rt.InvalidError) as info:
        build_mirror_map_json(rt.Builder(), bad, sk)
    first = bad.index('"find": "_l"')
    assert info.value.item == len(bad[:bad.index('"find"', first + 1)].encode())


def test_json_misuses():
    sk = open_skeleton(humanoid_source(12))
    b = rt.Builder()
    for args in [(None, sk), ("{}", None)]:
        with pytest.raises(rt.InvalidError):
            build_mirror_map_json(b, *args)
    with pytest.raises(rt.InvalidError) as info:        # as the graph's: refused at byte 1
        build_mirror_map_json(b, "[\ud800]", sk)
    assert (info.value.reason, info.value.item) == (BuildReason.Json, 1)
    assert b.misuse == 2


# ---- mirrored clips ---------------------------------------------------------------------------
from runtime.clip import rootmotion  # noqa: E402
from runtime.clip.clip import sample_times  # noqa: E402
from runtime.mapping import MirrorClipSource, build_mirrored_clip  # noqa: E402
from runtime_fixtures import random_quats  # noqa: E402


def _clip_on(sk, *, root_motion=True, additive=rt.AdditiveBasis.none, seed=0, root="hips",
             axes=rt.RootAxes.x | rt.RootAxes.z, rotation=rt.RootRotation.about_y,
             uniform_scale=False):
    """A clip animating the root, an arm and a hand, with a linear and a step float track,
    two discrete tracks, events and markers (names with sides and without)."""
    rng = np.random.default_rng(seed)
    times = np.linspace(0, 1, 7)
    animated = [0] + [sk.find_bone(n) for n in ("arm_l", "hand_r") if sk.find_bone(n) != rt.NO_BONE]
    channels = [rt.ChannelSource(b, rt.ChannelPath.rotation, times, random_quats(rng, (7,)))
                for b in animated]
    channels.append(rt.ChannelSource(0, rt.ChannelPath.translation, times,
                                     np.outer(times, [1, 0.1, 2]) + sk.rests[0, :3]))
    channels.append(rt.ChannelSource(animated[1], rt.ChannelPath.translation, times,
                                     rng.normal(size=(7, 3))))
    channels.append(rt.ChannelSource(animated[1], rt.ChannelPath.scale, times,
                                     np.repeat(rng.uniform(0.5, 2, (7, 1)), 3, axis=1)
                                     if uniform_scale else rng.uniform(0.5, 2, (7, 3))))
    floats = [rt.FloatTrackSource("smile_l", times, rng.normal(size=7)),
              rt.FloatTrackSource("blink", [0, 0.33, 0.8], [0, 1, 0.25], rt.Interpolation.step)]
    discretes = [rt.DiscreteTrackSource("grip_r", [0, 0.4, 0.9], [3, -7, 2]),
                 rt.DiscreteTrackSource("mood", [0.2], [5])]
    source = rt.ClipSource(sk, channels, floats, discretes,
                           events=[rt.ClipEvent("step_l", 0.5), rt.ClipEvent("hop", 0.7)],
                           markers=[rt.ClipEvent("arm_l", 0.25)], sample_rate=30,
                           loop=rt.LoopPolicy.repeat, additive=additive,
                           root_motion=rt.RootMotionSource(sk.find_bone(root), axes, rotation)
                           if root_motion else None)
    return rt.Clip.open(rt.build_clip(rt.Builder(), source))


NAMES = ["step_l", "arm_l", "smile_l", "grip_l"]


def _grid(clip):
    return sample_times(clip.sample_count, clip.duration, clip.sample_rate)


def _mirrored(m, sk, clip):
    return rt.Clip.open(build_mirrored_clip(rt.Builder(), MirrorClipSource(m, sk, clip)))


def _in_place(clip, sk, times):
    batch = rt.PoseBatch(sk, times.size)
    clip.sample_batch(sk, times, batch)
    return batch.locals.copy()


def _mirror_poses(m, sk, locals_):
    out = np.empty_like(locals_)
    for k, row in enumerate(locals_):
        pose, mirrored = rt.Pose(sk), rt.Pose(sk)
        pose.locals[:] = row
        m.mirror_pose(sk, pose, mirrored)
        out[k] = mirrored.locals
    return out


ULP1 = float(np.spacing(np.float32(1)))


def _assert_close_to(got, want, rotation_ulps=1):
    """Translations and scales bit for bit; rotations within `rotation_ulps` ulps of 1 (the
    clip build normalizes each rotation key in binary64 and rounds it once)."""
    assert np.array_equal(got[..., 0:3], want[..., 0:3])
    assert np.array_equal(got[..., 7:10], want[..., 7:10])
    assert np.abs(got[..., 3:7].astype(np.float64) - want[..., 3:7]).max() <= rotation_ulps * ULP1


@pytest.mark.parametrize("rig", ["humanoid", "symmetric"])
@pytest.mark.parametrize("root", ["hips", "arm_l"])
def test_a_mirrored_clip_is_mirror_pose_at_every_sample(rig, root):
    sk = open_skeleton(humanoid_source(80) if rig == "humanoid" else symmetric_source())
    m = mirror_of(sk, names=NAMES)
    clip = _clip_on(sk, root=root)
    mc = _mirrored(m, sk, clip)
    assert (mc.sample_count, mc.sample_rate, mc.duration, mc.loop_policy, mc.additive_basis) == \
        (clip.sample_count, clip.sample_rate, clip.duration, clip.loop_policy, clip.additive_basis)
    grid = _grid(clip)
    # in place (as stored): each sample is MirrorPose of the clip's
    _assert_close_to(_in_place(mc, sk, grid), _mirror_poses(m, sk, _in_place(clip, sk, grid)))
    # restored: the motion put back into the partner is MirrorPose of the motion restored
    worst = 0.0
    for t in grid:
        a, want, got = rt.Pose(sk), rt.Pose(sk), rt.Pose(sk)
        clip.sample(sk, t, a)
        rootmotion.restore(clip, sk, t, a)
        m.mirror_pose(sk, a, want)
        mc.sample(sk, t, got)
        rootmotion.restore(mc, sk, t, got)
        worst = max(worst, np.abs(got.locals - want.locals).max())
    assert worst <= 4e-7
    # channels at rest are left out: on the symmetric rig (whose rest mirrors to itself) only
    # the animated bones' partners are tracked; the humanoid's asymmetric rests all move
    tracked = {sk.bone_name(b) for b in mc.tracked_bones}
    partner = sk.bone_name(m.partner(sk.find_bone(root)))
    assert {"hips", "arm_r", "hand_l", partner} <= tracked
    if rig == "symmetric":
        assert tracked == {"hips", "arm_r", "hand_l", partner}
    assert [mc.event(i) for i in range(2)] == [rt.ClipEvent("step_r", 0.5), rt.ClipEvent("hop", clip.event(1).time)]
    assert mc.marker(0) == rt.ClipEvent("arm_r", clip.marker(0).time)


def test_float_and_discrete_tracks_are_carried_and_renamed():
    sk = open_skeleton(humanoid_source(80))
    m = mirror_of(sk, names=NAMES)
    clip = _clip_on(sk)
    mc = _mirrored(m, sk, clip)
    assert [mc.float_track_name(k) for k in range(mc.float_track_count)] == ["smile_r", "blink"]
    assert [mc.float_track_is_step(k) for k in range(2)] == [False, True]
    assert [mc.discrete_track_name(k) for k in range(mc.discrete_track_count)] == ["grip_l", "mood"]
    for k in range(2):
        for got, want in zip(mc.discrete_track_keys(k), clip.discrete_track_keys(k)):
            assert got.dtype == want.dtype and np.array_equal(got, want)
    # samples bit for bit, and between samples the same interpolation
    assert np.array_equal(mc.decoded_floats().view(np.uint32), clip.decoded_floats().view(np.uint32))
    at = np.linspace(-0.1, clip.duration + 0.1, 97)
    assert np.array_equal(mc.sample_floats_batch(at), clip.sample_floats_batch(at))
    assert all(mc.discrete_value(k, t) == clip.discrete_value(k, t) for k in range(2) for t in at)
    # the accessors answer as for nothing past the counts
    assert clip.float_track_is_step(2) is False and clip.float_track_is_step(-1) is False
    assert [a.size for a in clip.discrete_track_keys(2)] == [0, 0]


def _move_reference(m, partner, moves):
    """E M t and E (M R M) E^T from matrices: MirrorRootMotion, then the partner's parent
    correction E (an independent route)."""
    e = rotation_matrix(m._turns[partner, 4:8])
    out = []
    for move in moves:
        r = m.mirror_root_motion(move).astype(np.float64)
        out.append((e @ r[0:3], e @ rotation_matrix(r[3:7]) @ e.T))
    return out


@pytest.mark.parametrize("rig", ["humanoid", "symmetric"])
@pytest.mark.parametrize("root", ["hips", "arm_l"])
def test_each_root_move_is_the_stored_move_reflected(rig, root):
    """Where the partner's parent correction is the identity (every root, the symmetric
    rig's arms) each move is MirrorRootMotion of the stored one bit for bit; elsewhere it is
    that turned by the correction, within 2 ulps of the move's largest translation
    component and 2 ulps of 1 on the rotation matrix."""
    sk = open_skeleton(humanoid_source(80) if rig == "humanoid" else symmetric_source())
    m = mirror_of(sk, names=NAMES)
    clip = _clip_on(sk, root=root)
    mc = _mirrored(m, sk, clip)
    bone, axes, rotation = clip.root_motion_fields
    partner = m.partner(bone)
    e = m._turns[partner, 4:8]
    assert mc.root_motion_fields[0] == partner
    if np.array_equal(e, [0, 0, 0, 1]):
        assert mc.root_motion_fields == (partner, axes, rotation)
        assert np.array_equal(mc.moves, np.array([m.mirror_root_motion(v) for v in clip.moves]))
    else:       # this correction takes axes off the axes: all of them, the whole rotation
        assert rig == "humanoid" and root == "arm_l"
        assert mc.root_motion_fields == (partner, rt.RootAxes.all, rt.RootRotation.whole)
    for got, (t, r) in zip(mc.moves.astype(np.float64), _move_reference(m, partner, clip.moves)):
        assert np.abs(got[0:3] - t).max() <= 2 * np.spacing(np.float32(np.abs(t).max()))
        assert np.abs(rotation_matrix(got[3:7]) - r).max() <= 2 * ULP1
    # the moves carried through a whole period compose to the period's reflected
    period = rootmotion.get_root_motion(mc, 0.0, mc.duration)
    t, r = _move_reference(m, partner, [rootmotion.get_root_motion(clip, 0.0, clip.duration)])[0]
    assert np.abs(period[0:3] - t).max() < 1e-5
    assert np.abs(rotation_matrix(period[3:7]) - r).max() < 1e-5


@pytest.mark.parametrize("rig", ["symmetric", "corrected", "humanoid"])
def test_mirrored_twice_is_the_clip(rig):
    """On the symmetric rig bit for bit (the corrections are identities, every sign flip
    exact) but for each rotation the build rounds once more (1 ulp of 1); with corrections
    translations within 3 ulps of their bone's largest component, rotations within 3 ulps of
    1, and scales exactly but on scale-approximate bones (every humanoid bone: their
    non-uniform rests are carried as the nearest axis scale, which no second pass undoes);
    moves as the samples. Names, tracks, events, markers and the root motion source come
    back."""
    if rig == "humanoid":
        source = humanoid_source(80)
    else:
        source = symmetric_source({"arm": turn(1, 90), "hand": turn(2, -90)} if rig == "corrected" else None)
    sk = open_skeleton(source)
    m = mirror_of(sk, names=NAMES)
    clip = _clip_on(sk, root="arm_l", uniform_scale=True)
    back = _mirrored(m, sk, _mirrored(m, sk, clip))
    grid = _grid(clip)
    a, b = _in_place(clip, sk, grid).astype(np.float64), _in_place(back, sk, grid)
    d = np.abs(b - a)
    if rig == "symmetric":
        _assert_close_to(b, a.astype(np.float32))
        assert np.array_equal(back.moves, clip.moves)
    else:
        largest = np.abs(a[..., 0:3]).max(axis=-1, keepdims=True)
        assert (d[..., 0:3] <= 3 * np.spacing(largest.astype(np.float32))).all()
        assert (d[..., 3:7] <= 3 * ULP1).all()
        exact = np.array([not m.bone_flags(x) & BONE_SCALE_APPROXIMATE for x in range(sk.bone_count)])
        assert (d[:, exact, 7:10] == 0).all() and (rig == "humanoid" or exact.sum() >= 8)
        mv = np.abs(back.moves.astype(np.float64) - clip.moves)
        assert (mv[:, 0:3] <= 3 * np.spacing(np.abs(clip.moves[:, 0:3]).max(axis=1, keepdims=True))).all()
        assert (mv[:, 3:7] <= 3 * ULP1).all()
    assert back.root_motion_fields[0] == clip.root_motion_fields[0]
    assert np.array_equal(back.decoded_floats(), clip.decoded_floats())
    assert [back.float_track_name(k) for k in range(2)] == [clip.float_track_name(k) for k in range(2)]
    assert [back.discrete_track_name(k) for k in range(2)] == [clip.discrete_track_name(k) for k in range(2)]
    assert [back.event(i) for i in range(2)] == [clip.event(i) for i in range(2)]
    assert back.marker(0) == clip.marker(0)


def test_an_additive_clip_mirrors_through_the_rest():
    sk = open_skeleton(symmetric_source())
    m = mirror_of(sk)
    clip = _clip_on(sk, root_motion=False, additive=rt.AdditiveBasis.rest)
    mc = _mirrored(m, sk, clip)
    assert mc.additive_basis == rt.AdditiveBasis.rest
    for t in _grid(clip):
        d, md = rt.Pose(sk), rt.Pose(sk)
        clip.sample(sk, t, d)
        mc.sample(sk, t, md)
        full, mirrored, got = rt.Pose(sk), rt.Pose(sk), rt.Pose(sk)
        rt.add_layers(full, sk, [rt.BlendLayer(d, 1.0)])
        m.mirror_pose(sk, full, mirrored)                   # the rest mirrors to itself here
        rt.add_layers(got, sk, [rt.BlendLayer(md, 1.0)])
        assert np.abs(got.locals - mirrored.locals).max() < 1e-5
    assert np.array_equal(mc.decoded_floats(), clip.decoded_floats())


def test_mirrored_clip_refusals():
    """Every Returns line, the builder holding what it held after each."""
    sk = open_skeleton(humanoid_source(80))
    other = open_skeleton(humanoid_source(80, seed=4))
    m = mirror_of(sk)
    clip, foreign = _clip_on(sk), _clip_on(other)
    b = rt.Builder()
    good = build_mirrored_clip(b, MirrorClipSource(m, sk, clip))
    for source, other_code in [(MirrorClipSource(m, other, foreign), 0),
                               (MirrorClipSource(m, other, clip), 0),
                               (MirrorClipSource(m, sk, foreign), 1)]:
        with pytest.raises(rt.InvalidError) as info:
            build_mirrored_clip(b, source)
        assert (info.value.reason, info.value.other) == (BuildReason.MirrorClip, other_code)
        assert bytes(capi.maniBuilder_CopyBuilt(b)) == good
    assert b.misuse == 0
    for source in (None, MirrorClipSource(None, sk, clip), MirrorClipSource(m, None, clip),
                   MirrorClipSource(m, sk, None), MirrorClipSource(m, sk, "clip")):
        with pytest.raises(rt.InvalidError) as info:
            build_mirrored_clip(b, source)
        assert info.value.reason == BuildReason.None_
    assert b.misuse == 5
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == good


def test_an_additive_difference_not_finite_mirrored_is_refused_basis():
    """A rest scale of 0 on a bone the clip leaves alone: the clip builds (its unanimated
    parts are the identity), but that bone's mirrored full pose over the rest mirrored is
    0 / 0."""
    source = symmetric_source()
    source.bones[sk_index := 2].scale = (0.0, 1.0, 1.0)
    sk = open_skeleton(source)
    m = mirror_of(sk)
    clip = _clip_on(sk, root_motion=False, additive=rt.AdditiveBasis.rest)
    assert sk_index not in set(clip.tracked_bones.tolist())
    b = rt.Builder()
    good = build_mirrored_clip(b, MirrorClipSource(m, sk, _clip_on(sk)))
    with pytest.raises(rt.InvalidError) as info:
        build_mirrored_clip(b, MirrorClipSource(m, sk, clip))
    assert info.value.reason == BuildReason.Basis
    assert bytes(capi.maniBuilder_CopyBuilt(b)) == good and b.misuse == 0


def test_given_root_moves_are_stored_as_given_and_refused_when_wrong():
    """ClipSource.root_moves: the build keeps the moves (turned into one hemisphere) and
    takes nothing out of the bone; moves of the wrong count, not finite, not unit, or with
    no root motion source are refused (RootMotion, other 3)."""
    sk = open_skeleton(humanoid_source(12))
    rng = np.random.default_rng(9)
    times = np.linspace(0, 1, 31)
    channel = rt.ChannelSource(0, rt.ChannelPath.translation, times, rng.normal(size=(31, 3)))
    moves = np.concatenate([rng.normal(size=(31, 3)), random_quats(rng, (31,))], axis=1)
    moves[5, 3:7] *= -1
    source = rt.ClipSource(sk, [channel], sample_rate=30, root_motion=rt.RootMotionSource(0),
                           root_moves=moves)
    clip = rt.Clip.open(rt.build_clip(rt.Builder(), source))
    sign = np.where(np.einsum("ij,ij->i", clip.moves[:, 3:7], moves[:, 3:7]) < 0, -1.0, 1.0)
    assert np.array_equal(clip.moves[:, 0:3], moves[:, 0:3].astype(np.float32))
    assert np.array_equal(clip.moves[:, 3:7], (moves[:, 3:7] * sign[:, None]).astype(np.float32))
    assert (np.einsum("ij,ij->i", clip.moves[1:, 3:7], clip.moves[:-1, 3:7]) >= 0).all()
    assert np.array_equal(_in_place(clip, sk, _grid(clip))[:, 0, 0:3],
                          np.asarray(channel.values, np.float32))
    report = rt.measure_clip(rt.Builder(), source, clip)
    assert report.translation_max < 1e-6
    bad_unit = moves.copy()
    bad_unit[3, 3:7] *= 2
    bad_finite = moves.copy()
    bad_finite[0, 1] = np.nan
    for given, root in [(moves[:30], rt.RootMotionSource(0)), (bad_unit, rt.RootMotionSource(0)),
                        (bad_finite, rt.RootMotionSource(0)), ("moves", rt.RootMotionSource(0)),
                        (moves, None)]:
        with pytest.raises(rt.InvalidError) as info:
            rt.build_clip(rt.Builder(), rt.ClipSource(sk, [channel], sample_rate=30,
                                                      root_motion=root, root_moves=given))
        assert (info.value.reason, info.value.other) == (BuildReason.RootMotion, 3)
