"""The Stadium rig: posing, guards, anchoring, shade and texture streams, in numbers."""
from __future__ import annotations

import dataclasses
import importlib.util
import logging
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stadium.rig import pack, rig
from stadium.rig.rig import StadiumRig, euler_matrix

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets" / "species"
LIMIT = 0.5
TICK = 1 / 60


def _load_reference():
    """The straightforward per-vertex port lives beside the benchmark that races it."""
    spec = importlib.util.spec_from_file_location("stadium_rig_bench",
                                                  ROOT / "benchmarks" / "stadium_rig.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.NaiveRig


NaiveRig = _load_reference()


def load(name: str) -> pack.Species:
    """A fresh load: rigs cache per species object, so a test that must see the
    one-time measurement (and its log) needs its own."""
    return pack.load(ASSETS / f"{name}.pack")


@pytest.fixture(scope="module")
def bundled():
    return [pack.load(p) for p in sorted(ASSETS.glob("*.pack"))]


def raw_height(s: pack.Species) -> float:
    return s.height / s.root_scale


def weights(s: pack.Species) -> np.ndarray:
    w = np.zeros(len(s.parents))
    for p in s.prims:
        np.add.at(w, p.bones, 1)
    return w / w.sum()


def centre(r: StadiumRig) -> np.ndarray:
    return weights(r.species) @ r.pivot[:, :, 3]


def local_rotation(r: StadiumRig, bone: int) -> np.ndarray:
    parent = r.species.parents[bone]
    world = r.pivot[bone, :, :3]
    return world if parent < 0 else r.pivot[parent, :, :3].T @ world


def vertices(r: StadiumRig) -> np.ndarray:
    return np.concatenate([p.vertices for p in r.parts])


def find_rotation_pair(s, first, second):
    """(anim, bone, frame) where one bone's rotation is ``first`` then ``second``."""
    for a, anim in enumerate(s.anims):
        for b, track in enumerate(anim.tracks):
            if track is None:
                continue
            rot = np.stack([np.broadcast_to(track[c], (anim.frames,)) for c in (3, 4, 5)], -1)
            for f in range(anim.frames - 1):
                if tuple(rot[f]) == first and tuple(rot[f + 1]) == second:
                    return a, b, f
    raise AssertionError(f"{s.name} has no {first} -> {second}")


# ---------------------------------------------------------------- against the reference


def compare_with_reference(s, frames, limit=None, yaw=0.3):
    ours, theirs = StadiumRig(s), NaiveRig(s)
    assert ours.anchor_ok == theirs.anchor_ok
    for anim, frame, wrap in frames:
        for r in (ours, theirs):
            r.pose(anim, frame, wrap)
            r.anchor(limit)
            r.skin(yaw)
            r.textures(anim)
        assert ours.frame_at == theirs.frame_at
        assert [p.texture for p in ours.parts] == theirs.textures_now
        np.testing.assert_allclose(ours.draw.reshape(-1, 12), np.array(theirs.drawm), atol=1e-9)
        np.testing.assert_allclose(vertices(ours), np.concatenate(theirs.vertices), atol=1e-5,
                                   rtol=0)


def test_vectorised_rig_equals_the_per_vertex_reference(bundled):
    for s in bundled:
        frames = [(None, 0, False)]
        for a, anim in enumerate(s.anims):
            for f in np.arange(0, anim.frames + 3, 0.5 if anim.frames < 40 else 1.5):
                frames.append((a, f, a == s.ctx[pack.STANDBY]))
        compare_with_reference(s, frames, limit=LIMIT)


@st.composite
def synthetic_species(draw):
    """Random skeletons and tracks: scales, big rotation jumps, teleports, loops."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    frames = int(rng.integers(1, 10))
    parents = np.array([-1] + [int(rng.integers(-1, b)) for b in range(1, n)], np.int32)
    tracks = []
    for _ in range(n):
        if rng.random() < 0.2:
            tracks.append(None)
            continue
        comps = []
        for c in range(9):
            if rng.random() < 0.3:
                comps.append(int(rng.integers(-32768, 32768)) if 3 <= c < 6
                             else float(rng.uniform(0.5, 1.5) if c >= 6 else rng.uniform(-1, 1)))
            elif 3 <= c < 6:
                step = 30000 if rng.random() < 0.3 else 9000
                comps.append(((np.cumsum(rng.integers(-step, step, frames)) + 32768) % 65536
                              - 32768).astype(np.int32))
            elif c < 3:
                comps.append(np.cumsum(rng.uniform(-0.8, 0.8, frames)).astype(np.float32))
            else:
                comps.append(rng.uniform(-1.5, 1.5, frames).astype(np.float32))
        tracks.append(tuple(comps))
    count = 12
    normals = rng.normal(size=(count, 3))
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    prim = pack.Primitive(rng.uniform(-1, 1, (count, 3)).astype(np.float32),
                          normals.astype(np.float32), rng.integers(0, n, count).astype(np.int32),
                          rng.uniform(0, 1, (count, 2)).astype(np.float32),
                          np.arange(count, dtype=np.uint16), 0, 0, {1: 1, 2: 0})
    streams = [pack.TextureStreams([rng.integers(0, 3, int(rng.integers(0, 12))).astype(np.uint16)])]
    species = pack.Species(
        "Synthetic", parents, rng.uniform(-1, 1, (n, 3)).astype(np.float32),
        rng.integers(-32768, 32768, (n, 3)).astype(np.int32),
        rng.uniform(0.5, 1.5, (n, 3)).astype(np.float32), 0.5, float(rng.uniform(0.5, 3)),
        [prim], [pack.Animation(frames, int(rng.integers(0, frames)), tracks)],
        [0] + [pack.NO_ANIM] * 5, streams, [np.zeros((1, 1, 4), np.uint8)] * 2)
    times = [(0, float(t), bool(w)) for t, w in
             zip(rng.uniform(-1, frames * 2.5, 12).round(2), rng.integers(0, 2, 12))]
    return pack.loads(pack.dumps(species)), times, draw(st.sampled_from([None, 0.2, 1.0]))


@given(synthetic_species())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_rig_equals_reference_on_random_data(case):
    s, times, limit = case
    compare_with_reference(s, times, limit=limit, yaw=1.1)


# ---------------------------------------------------------------- the frame timeline


def test_whole_frames_show_exactly_the_frame_asked_for(bundled):
    s = bundled[0]
    a = s.ctx[pack.ATTACK1]
    r, ref = StadiumRig(s), NaiveRig(s)
    poses = []
    for f in range(s.anims[a].frames):
        r.pose(a, f, False)
        ref.pose(a, f, False)
        assert r.frame_at == f
        np.testing.assert_allclose(r.pivot.reshape(-1, 12), np.array(ref.pivot), atol=1e-12)
        poses.append(r.pivot.round(9).tobytes())
    assert len(set(poses)) > len(poses) / 2          # the frames really do differ


def test_wrap_goes_to_the_loop_start():
    s = load("flitwren")
    a = s.ctx[pack.STANDBY]
    anim = s.anims[a]
    assert anim.loop_start > 0
    r = StadiumRig(s)
    for j in range(3):
        r.pose(a, anim.loop_start + j, True)
        expected = r.pivot.copy()
        r.pose(a, anim.frames + j, True)
        assert r.frame_at == anim.loop_start + j
        np.testing.assert_array_equal(r.pivot, expected)
    # and the last frame blends toward the loop start, not toward frame 0
    r.pose(a, anim.frames - 0.5, True)
    halfway = r.pivot.copy()
    ref = NaiveRig(s)
    ref.pose(a, anim.frames - 0.5, True)
    np.testing.assert_allclose(halfway.reshape(-1, 12), np.array(ref.pivot), atol=1e-9)
    r.pose(a, anim.frames - 1, True)
    assert np.abs(halfway - r.pivot).max() > 1e-3


def test_a_faint_holds_its_last_frame(bundled):
    for s in bundled:
        a = s.ctx[pack.FAINT]
        last = s.anims[a].frames - 1
        r = StadiumRig(s)
        r.pose(a, last, False)
        held = r.pivot.copy()
        for f in (last + 0.5, last + 1, last + 37.25):
            r.pose(a, f, False)
            assert r.frame_at == last
            np.testing.assert_array_equal(r.pivot, held)


# ---------------------------------------------------------------- interpolation guards


def test_case5_a_re_expressed_rotation_holds_its_frame():
    s = load("emberlisk")
    a, bone, f = find_rotation_pair(s, (0, 20976, 32736), (0, -19936, -5904))
    r = StadiumRig(s)
    r.pose(a, f, False)
    at_frame = local_rotation(r, bone)
    r.pose(a, f + 0.5, False)
    np.testing.assert_allclose(local_rotation(r, bone), at_frame, atol=1e-12)
    # blending the two triples, even the short way round, is a different orientation
    track = s.anims[a].tracks[bone]
    rot = np.stack([np.broadcast_to(track[c], (s.anims[a].frames,)) for c in (3, 4, 5)], -1)
    step = (rot[f + 1] - rot[f] + 32768) % 65536 - 32768
    assert np.abs(step).max() > rig.BREAK_ANGLE
    blended = euler_matrix((rot[f] + step / 2) * rig.ANGLE)
    assert np.abs(blended - at_frame).max() > 0.5
    # while a neighbouring bone keeps moving between the frames
    parent = s.parents[bone]
    r.pose(a, f, False)
    chest = r.pivot[parent].copy()
    r.pose(a, f + 0.5, False)
    assert np.abs(r.pivot[parent] - chest).max() > 1e-3


def test_case6_an_angle_crossing_the_seam_blends_the_short_way():
    s = load("emberlisk")
    anim, bone, comp, f = None, None, None, None
    for a, animation in enumerate(s.anims):
        for b, track in enumerate(animation.tracks):
            for c in (3, 4, 5):
                if track is not None and not isinstance(track[c], int):
                    hits = np.flatnonzero((track[c][:-1] == 32700) & (track[c][1:] == -32700))
                    if hits.size:
                        anim, bone, comp, f = a, b, c, int(hits[0])
    assert anim is not None, "no 32700 -> -32700 step in the set"
    track = s.anims[anim].tracks[bone]
    angles = np.array([float(np.broadcast_to(track[c], (s.anims[anim].frames,))[f])
                       for c in (3, 4, 5)])
    short, long = angles.copy(), angles.copy()
    short[comp - 3] = 32768     # halfway along the 136 units from 32700 to -32700
    long[comp - 3] = 0          # halfway along the 65400 units the long way round
    r = StadiumRig(s)
    r.pose(anim, f + 0.5, False)
    got = local_rotation(r, bone)
    np.testing.assert_allclose(got, euler_matrix(short * rig.ANGLE), atol=1e-9)
    assert np.abs(got - euler_matrix(long * rig.ANGLE)).max() > 1.0


def test_case7_a_teleport_holds_its_frame():
    # height 2: BREAK_MOVE is one unit; the root jumps 1.5 between frames 1 and 2
    s = sliding_species(tx=(0.0, 0.5, 2.0, 2.25), height=2.0)
    assert rig.BREAK_MOVE * raw_height(s) == 1.0
    r = StadiumRig(s)
    r.pose(0, 1.5, False)
    np.testing.assert_array_equal(r.pivot[0, :, 3], (0.5, 0, 0))
    r.pose(0, 2.5, False)                  # an ordinary step still blends
    np.testing.assert_allclose(r.pivot[0, :, 3], (2.125, 0, 0), atol=1e-12)
    r.pose(0, 0.5, False)
    np.testing.assert_allclose(r.pivot[0, :, 3], (0.25, 0, 0), atol=1e-12)


# ---------------------------------------------------------------- the two chains


def folded_chain(s: pack.Species, anim: int, frame: int) -> np.ndarray:
    """The obvious mistake, for contrast: scale folded into the chain, glTF style."""
    track_of = s.anims[anim].tracks
    world = []
    for b, p in enumerate(s.parents):
        comps = [s.rest_t[b], s.rest_r[b], s.rest_s[b]]
        if track_of[b] is not None:
            v = [float(np.broadcast_to(c, (s.anims[anim].frames,))[frame]) for c in track_of[b]]
            comps = [v[0:3], v[3:6], v[6:9]]
        m = np.eye(4)
        m[:3, :3] = euler_matrix(np.asarray(comps[1], float) * rig.ANGLE) @ np.diag(comps[2])
        m[:3, 3] = comps[0]
        world.append(m if p < 0 else world[p] @ m)
    out = []
    for prim in s.prims:
        p4 = np.c_[prim.positions, np.ones(len(prim.positions))]
        out.append(np.einsum("vij,vj->vi", np.array(world)[prim.bones][:, :3], p4))
    return np.concatenate(out)


def test_case4_a_scaled_parent_moves_its_children_without_shearing_them():
    s = load("gloopet")
    a = s.ctx[pack.STANDBY]
    body = next(b for b, t in enumerate(s.anims[a].tracks)
                if t is not None and not isinstance(t[6], float))
    children = [b for b, p in enumerate(s.parents) if p == body]
    assert len(children) >= 4
    track = s.anims[a].tracks[body]
    scale = np.stack([np.broadcast_to(track[c], (s.anims[a].frames,)) for c in (6, 7, 8)], -1)
    f = int(np.argmax(np.ptp(scale, axis=1)))          # the most non-uniform frame
    assert np.ptp(scale[f]) > 0.1
    r = StadiumRig(s)
    r.pose(a, f, True)
    parent = r.pivot[body]
    for c in children:
        # the child's axes are a pure rotation: the parent's scale did not reach them
        axes = r.pivot[c, :, :3]
        np.testing.assert_allclose(axes.T @ axes, np.eye(3), atol=1e-9)
        # its offset is scaled by the parent's accumulated scale
        offset = parent[:, :3] @ (s.rest_t[c] * scale[f]) + parent[:, 3]
        np.testing.assert_allclose(r.pivot[c, :, 3], offset, atol=1e-6)
        # and its draw matrix carries its own accumulated scale on the right
        np.testing.assert_allclose(np.linalg.norm(r.draw[c, :, :3], axis=0),
                                   scale[f] * s.rest_s[c], atol=1e-6)
    # folding the scale into the chain instead gives a measurably different creature
    r.skin(0.0)
    folded = folded_chain(s, a, f)
    difference = np.abs(vertices(r)[:, :3] - folded).max()
    assert difference > 0.02 * raw_height(s), difference


# ---------------------------------------------------------------- the body centre


def wing_bones(s: pack.Species) -> set[int]:
    """Bones under a shoulder: the body's children whose subtrees hold ten or more."""
    children = {b: [c for c, p in enumerate(s.parents) if p == b] for b in range(len(s.parents))}

    def subtree(b):
        return [b] + [x for c in children[b] for x in subtree(c)]
    body = children[0][0]
    return {x for c in children[body] if len(subtree(c)) >= 10 for x in subtree(c)}


def test_case1_weighted_centre_is_smoother_than_the_median_on_a_bird():
    s = load("flitwren")
    a = s.ctx[pack.STANDBY]
    anim = s.anims[a]
    assert len(wing_bones(s)) > len(s.parents) / 2, "the wings carry most of the skeleton"
    r, pinned = StadiumRig(s), StadiumRig(s)
    weighted, median = [], []
    for f in np.arange(anim.loop_start, anim.frames + 0.01, 0.5):
        r.pose(a, f, True)
        weighted.append(centre(r))
        median.append(np.median(r.pivot[:, :, 3], axis=0))
        # the rig's own estimate is this weighted centre: anchoring with a vanishing
        # limit puts exactly it back on the bind centre
        pinned.pose(a, f, True)
        pinned.anchor(1e-9)
        np.testing.assert_allclose(centre(pinned), pinned.bind_centre, atol=1e-6)
    jump_w = np.linalg.norm(np.diff(weighted, axis=0), axis=1).max()
    jump_m = np.linalg.norm(np.diff(median, axis=0), axis=1).max()
    assert jump_w <= 0.5 * jump_m, (jump_w, jump_m)


# a frame of Ripplewyrm's entrance where it rests more than two body heights off its tile
AWAY = 16


def travel(r: StadiumRig) -> float:
    return float(np.linalg.norm(centre(r) - r.bind_centre)) / raw_height(r.species)


def test_case2_an_excursion_is_pulled_back_within_the_limit():
    s = load("ripplewyrm")
    a = s.ctx[pack.ENTRANCE]
    frames = s.anims[a].frames
    free, still = StadiumRig(s), StadiumRig(s)
    assert still.anchor_ok
    loose = []
    for f in range(frames):
        free.pose(a, f, False)
        still.pose(a, f, False)
        still.anchor(LIMIT)
        loose.append(travel(free))
        assert travel(still) <= LIMIT + 1e-9
    assert max(loose) >= 2.0 and loose[-1] <= LIMIT
    # at 60 Hz with the filter: wherever the pose has held still long enough for the
    # filter to settle, the body is back inside the limit
    filtered = StadiumRig(s)
    history, settled = [], 0
    for tick in range(frames * 2):
        t = tick / 2
        free.pose(a, t, False)
        history.append(centre(free))
        filtered.pose(a, t, False)
        filtered.anchor(LIMIT, TICK)
        recent = np.array(history[-12:])
        if len(history) >= 12 and np.ptp(recent, axis=0).max() < 1e-9 and travel(free) > 1:
            settled += 1
            assert travel(filtered) <= LIMIT + 0.02
        else:
            assert travel(filtered) <= max(LIMIT, travel(free)) + 1e-9
    assert settled >= 10


def test_case2_anchoring_leaves_a_species_inside_the_limit_untouched():
    s = load("gloopet")
    plain, anchored, smoothed = StadiumRig(s), StadiumRig(s), StadiumRig(s)
    worst = 0.0
    for a, anim in enumerate(s.anims):
        for f in np.arange(0, anim.frames, 0.5):
            for r in (plain, anchored, smoothed):
                r.pose(a, f, False)
            anchored.anchor(LIMIT)
            smoothed.anchor(LIMIT, TICK)
            for r in (plain, anchored, smoothed):
                r.skin(0.7)
            worst = max(worst, travel(plain))
            assert np.array_equal(vertices(anchored), vertices(plain))
            assert np.array_equal(vertices(smoothed), vertices(plain))
    assert 0.2 < worst < LIMIT


def with_junk_standby(s: pack.Species) -> pack.Species:
    """``s`` as broken source data would have it: three standby frames of nonsense root
    rotation. No shipped species carries such junk; this one exists for the verdict."""
    a = s.ctx[pack.STANDBY]
    anim = s.anims[a]
    root = list(s.anims[a].tracks[0] or (*s.rest_t[0], *s.rest_r[0], *s.rest_s[0]))
    for c in pack.ROTATION:
        root[c] = np.array(np.broadcast_to(root[c], (anim.frames,)), np.int32)
    for frame, turn in ((20, (29000, -3100, 12000)), (21, (-31000, 2200, 15500)),
                        (22, (30500, 0, -9000))):
        for c, value in zip(pack.ROTATION, turn):
            root[c][frame] = value
    anims = list(s.anims)
    anims[a] = pack.Animation(anim.frames, anim.loop_start, [tuple(root)] + anim.tracks[1:])
    return pack.loads(pack.dumps(dataclasses.replace(s, name=f"Junk{s.name}", anims=anims)))


def test_case3_an_untrustworthy_standby_is_judged_and_left_to_travel(caplog):
    assert StadiumRig(load("mosshoof")).anchor_ok
    s = with_junk_standby(load("mosshoof"))
    with caplog.at_level(logging.INFO, logger="stadium.rig"):
        r = StadiumRig(s)
    assert not r.anchor_ok
    assert any("JunkMosshoof" in m and "anchoring disabled" in m for m in caplog.messages)
    # the log is once per species, not once per rig
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="stadium.rig"):
        StadiumRig(s)
    assert not caplog.messages
    free = StadiumRig(s)
    a = s.ctx[pack.ENTRANCE]
    furthest = 0.0
    for f in range(s.anims[a].frames):
        r.pose(a, f, False)
        free.pose(a, f, False)
        r.anchor(LIMIT, TICK)
        furthest = max(furthest, travel(free))
        np.testing.assert_array_equal(r.pivot, free.pivot)
    assert furthest > 1.0


def test_anchor_filter_closes_half_the_gap_per_half_life():
    s = load("ripplewyrm")
    a = s.ctx[pack.ENTRANCE]
    r = StadiumRig(s)
    r.pose(a, s.anims[a].frames - 1, False)    # home on its tile
    r.anchor(LIMIT, TICK)                  # first call: the offset starts where it is
    r.pose(a, AWAY, False)
    start = travel(r)
    r.anchor(LIMIT, rig.ANCHOR_HALF_LIFE)
    # the offset closes half the gap toward the one that would leave it at the limit
    assert travel(r) == pytest.approx(start - (start - LIMIT) / 2, rel=1e-9)


@pytest.mark.parametrize("dt", [rig.ANCHOR_HALF_LIFE / 2, rig.ANCHOR_HALF_LIFE * 2, TICK])
def test_anchor_filter_decays_exponentially_at_any_step(dt):
    # a linear filter agrees with the half-life only at dt equal to it: here it would
    # close 1/2 (not 0.29) of the gap at half the half-life and all of it at twice
    s = load("ripplewyrm")
    a = s.ctx[pack.ENTRANCE]
    r = StadiumRig(s)
    r.pose(a, s.anims[a].frames - 1, False)
    r.anchor(LIMIT, TICK)
    r.pose(a, AWAY, False)
    start = travel(r)
    r.anchor(LIMIT, dt)
    closed = 1.0 - 2.0 ** (-dt / rig.ANCHOR_HALF_LIFE)
    assert travel(r) == pytest.approx(start - (start - LIMIT) * closed, rel=1e-9)


def test_anchoring_the_same_pose_twice_is_the_same_pose():
    s = load("ripplewyrm")
    a = s.ctx[pack.ENTRANCE]
    r = StadiumRig(s)
    r.pose(a, AWAY, False)
    r.anchor(LIMIT)
    once = r.pivot.copy()
    r.pose(a, AWAY, False)
    r.anchor(LIMIT)
    np.testing.assert_allclose(r.pivot, once, atol=1e-12)
    assert travel(r) == pytest.approx(LIMIT)


def test_posing_again_without_anchoring_drops_the_anchor():
    # as the Lua rig, which rebuilds its matrices on every pose() call
    s = load("ripplewyrm")
    a = s.ctx[pack.ENTRANCE]
    r, free = StadiumRig(s), StadiumRig(s)
    free.pose(a, AWAY, False)
    free.skin(0.2)
    r.pose(a, AWAY, False)
    r.anchor(LIMIT)
    r.skin(0.2)
    assert travel(r) == pytest.approx(LIMIT) and travel(free) > 2 * LIMIT
    r.pose(a, AWAY, False)
    r.skin(0.2)
    np.testing.assert_array_equal(r.pivot, free.pivot)
    np.testing.assert_array_equal(vertices(r), vertices(free))


# ---------------------------------------------------------------- shade


FACE_SHADE = {(0, 1, 0): 1.00, (0, -1, 0): 0.55, (1, 0, 0): 0.84, (-1, 0, 0): 0.72,
              (0, 0, 1): 0.90, (0, 0, -1): 0.68}


def one_bone_species(rest_r=(0, 0, 0), scale=(1, 1, 1)) -> pack.Species:
    """One vertex per axis normal, on a single bone."""
    normals = np.array(list(FACE_SHADE), np.float32)
    prim = pack.Primitive(normals.copy(), normals, np.zeros(6, np.int32), np.zeros((6, 2), np.float32),
                          np.arange(6, dtype=np.uint16), 0)
    return pack.Species("Faces", np.array([-1], np.int32), np.zeros((1, 3), np.float32),
                        np.array([rest_r], np.int32), np.array([scale], np.float32), 1.0, 1.0,
                        [prim], [], [pack.NO_ANIM] * 6, [], [np.zeros((1, 1, 4), np.uint8)])


def sliding_species(tx=(0.0,), sx=(1.0,), height=2.0) -> pack.Species:
    """One bone whose only animation (the standby) moves along x and scales along x
    frame by frame, root scale 1, so the body estimate is the bone's origin."""
    base = one_bone_species()
    frames = max(len(tx), len(sx))
    def channel(values):
        return values[0] if len(values) == 1 else np.asarray(values, np.float32)

    track = (channel(tx), 0.0, 0.0, 0, 0, 0, channel(sx), 1.0, 1.0)
    species = pack.Species("Slider", base.parents, base.rest_t, base.rest_r, base.rest_s, 1.0,
                           height, base.prims, [pack.Animation(frames, 0, [track])],
                           [0] + [pack.NO_ANIM] * 5, [], base.images)
    return pack.loads(pack.dumps(species))


def test_anchor_steady_is_a_strict_limit():
    # height 2, root scale 1: a one-unit step is exactly ANCHOR_STEADY body-heights
    assert rig.ANCHOR_STEADY * 2.0 == 1.0
    assert StadiumRig(sliding_species(tx=(0.0, 1.0))).anchor_ok
    assert not StadiumRig(sliding_species(tx=(0.0, 1.0 + 2.0 ** -20))).anchor_ok


def test_scale_blends_between_frames_on_its_own():
    # nothing moves or turns: only the scale, 1 to 3 along x, so a held scale shows
    s = sliding_species(sx=(1.0, 3.0))
    r = StadiumRig(s)
    rest = s.prims[0].positions[:, 0].astype(np.float64)
    for f, expect in ((0.0, 1.0), (0.25, 1.5), (0.5, 2.0), (1.0, 3.0), (1.75, 1.5)):
        r.pose(0, f, True)       # wrapping: 1.75 blends frame 1 back toward frame 0
        r.skin(0.0)
        np.testing.assert_allclose(r.draw[0, :, :3], np.diag([expect, 1.0, 1.0]), atol=1e-12)
        np.testing.assert_allclose(vertices(r)[:, 0], rest * expect, atol=1e-6)


def test_shade_at_the_six_axis_normals_matches_the_face_values():
    r = StadiumRig(one_bone_species())
    r.skin(0.0)
    shade = r.parts[0].vertices[:, 5]
    np.testing.assert_allclose(shade, list(FACE_SHADE.values()), atol=0.03)


def test_shade_turns_with_the_yaw_and_the_bone_but_not_the_scale():
    r = StadiumRig(one_bone_species())
    r.skin(math.pi / 2)
    shade = r.parts[0].vertices[:, 5]
    # rotateY(90 degrees) sends +Z to +X, +X to -Z, -Z to -X and -X to +Z
    turned = {(0, 0, 1): 0.84, (1, 0, 0): 0.68, (0, 0, -1): 0.72, (-1, 0, 0): 0.90,
              (0, 1, 0): 1.00, (0, -1, 0): 0.55}
    np.testing.assert_allclose(shade, [turned[k] for k in FACE_SHADE], atol=0.03)
    positions = r.parts[0].vertices[:, :3].copy()
    r.skin(0.0)
    np.testing.assert_array_equal(r.parts[0].vertices[:, :3], positions)  # the matrix turns
    # a bone turned a quarter about z shows its +X face to the sky
    r = StadiumRig(one_bone_species(rest_r=(0, 0, 16384), scale=(3, 0.2, 1)))
    r.skin(0.0)
    order = list(FACE_SHADE)
    shade = r.parts[0].vertices[:, 5]
    np.testing.assert_allclose(shade[order.index((1, 0, 0))], FACE_SHADE[(0, 1, 0)], atol=0.03)
    np.testing.assert_allclose(shade[order.index((-1, 0, 0))], FACE_SHADE[(0, -1, 0)], atol=0.03)


# ---------------------------------------------------------------- texture streams


def eye_part(r: StadiumRig):
    return next(p for p, prim in zip(r.parts, r.species.prims) if prim.tex_channel == 0)


def test_case8_the_blink_plays_once_per_loop():
    s = load("scrapkit")
    a = s.ctx[pack.STANDBY]
    anim, streams = s.anims[a], s.aux_anims[a]
    assert anim.frames == 40 and anim.loop_start == 0
    assert streams.channels[0].tolist() == [6, 8, 7, 8, 6]
    closed = s.prims[[p.tex_channel for p in s.prims].index(0)].tex_map[7]
    r = StadiumRig(s)
    eye = eye_part(r)
    for step in (1.0, 0.5):                      # 30 Hz and 60 Hz playback
        shut, blinks, was = 0, 0, False
        for t in np.arange(0, 3 * anim.frames, step):
            r.pose(a, t, True)
            r.textures(a)
            now = eye.texture == closed
            shut += now
            blinks += now and not was
            was = now
        assert blinks == 3
        assert shut == 3 / step


def test_textures_step_with_the_whole_skeletal_frame():
    s = load("scrapkit")
    a = s.ctx[pack.STANDBY]
    r = StadiumRig(s)
    eye = eye_part(r)
    for t in np.arange(0, 12, 0.25):
        r.pose(a, t, True)
        r.textures(a)
        assert r.frame_at == math.floor(t)
        seen = eye.texture
        r.pose(a, math.floor(t), True)
        r.textures(a)
        assert eye.texture == seen           # never half a frame ahead of the skeleton


def test_a_stream_longer_than_its_animation_never_shows_its_tail():
    s = load("scrapkit")
    a = s.ctx[pack.ATTACK1]
    frames = s.anims[a].frames
    stream = s.aux_anims[a].channels[0]
    assert len(stream) > frames
    prim = s.prims[[p.tex_channel for p in s.prims].index(0)]
    tail = {prim.tex_map[v] for v in stream[frames:].tolist()} - \
           {prim.tex_map[v] for v in stream[:frames].tolist()}
    assert tail, "the unreachable tail should look different"
    r = StadiumRig(s)
    eye = eye_part(r)
    for t in np.arange(0, frames + 20, 0.5):
        r.pose(a, t, False)
        r.textures(a)
        assert eye.texture not in tail
        assert eye.texture == prim.tex_map[int(stream[r.frame_at])]


def test_textures_start_on_each_parts_own_image_and_return_to_it():
    s = load("scrapkit")
    r = StadiumRig(s)
    assert [p.texture for p in r.parts] == [prim.texture for prim in s.prims]
    a = s.ctx[pack.HIT]
    r.pose(a, 0, False)
    r.textures(a)
    assert eye_part(r).texture != s.prims[1].texture
    r.textures(None)
    assert [p.texture for p in r.parts] == [prim.texture for prim in s.prims]


# ---------------------------------------------------------------- what the renderer reads


def test_no_nan_anywhere(bundled):
    for s in bundled:
        r = StadiumRig(s)
        for a, anim in enumerate(s.anims):
            for t in np.arange(0, anim.frames + 2, 0.5):
                r.pose(a, t, a == s.ctx[pack.STANDBY])
                r.anchor(LIMIT, TICK)
                r.skin(t * 0.1)
                r.textures(a)
                assert np.isfinite(vertices(r)).all(), (s.name, a, t)


def test_parts_buffers_and_passes():
    s = load("emberlisk")
    r = StadiumRig(s)
    assert [p.additive for p in r.parts] == [prim.additive for prim in s.prims]
    assert r.additive_parts() and all(p.additive for p in r.additive_parts())
    assert set(map(id, r.opaque_parts())) | set(map(id, r.additive_parts())) == set(map(id, r.parts))
    assert not any(p.additive for p in r.caster_parts())
    buffers = [(p.vertices, p.vertices.ctypes.data) for p in r.parts]
    uv = [p.vertices[:, 3:5].copy() for p in r.parts]
    for t in (3.5, 7.0):
        r.pose(s.ctx[pack.STANDBY], t, True)
        r.skin(0.2)
    for part, (array, address), before in zip(r.parts, buffers, uv):
        assert part.vertices is array and part.vertices.ctypes.data == address
        assert part.vertices.dtype == np.float32 and part.vertices.flags.c_contiguous
        assert part.vertices.shape[1] == 6
        assert part.indices.dtype in (np.uint16, np.uint32)
        np.testing.assert_array_equal(part.vertices[:, 3:5], before)
        for prim in s.prims:
            if len(prim.positions) == len(part.vertices):
                np.testing.assert_array_equal(part.vertices[:, 3:5], prim.uv)
                break


def test_an_unchanged_frame_skips_the_work():
    s = load("emberlisk")
    a = s.ctx[pack.STANDBY]
    r = StadiumRig(s)
    r.pose(a, 3.5, True)
    r.anchor(LIMIT, TICK)
    r.skin(0.4)
    version = r.version
    r.pose(a, 3.5, True)
    r.anchor(LIMIT, TICK)
    r.skin(0.4)
    assert r.version == version                  # neither moved nor turned
    r.skin(0.5)
    assert r.version == version + 1              # turned
    r.pose(a, 4.0, True)
    r.skin(0.5)
    assert r.version == version + 2              # moved


def test_release_lets_go_of_the_parts():
    r = StadiumRig(load("gloopet"))
    version = r.version
    r.release()
    assert r.parts == [] and r.opaque_parts() == () and r.additive_parts() == ()
    r.pose(0, 2.5, True)
    r.skin(0.3)
    assert r.version == version


def test_bad_requests_are_refused_clearly():
    r = StadiumRig(load("gloopet"))
    with pytest.raises(ValueError, match="no animation 99"):
        r.pose(99, 0, True)
    with pytest.raises(ValueError, match="not finite"):
        r.pose(0, float("nan"), True)
    r.pose(pack.NO_ANIM, 5, True)                 # a missing context slot: the bind pose
    assert r.frame_at == 0
