"""Species packs: the format, its checks, and the bundled species it carries."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stadium.rig import pack, species
from stadium.rig.species.build import FACES, SpeciesBuilder

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "species"


@pytest.fixture(scope="module")
def bundled():
    return {p.stem: pack.load(p) for p in sorted(ASSETS.glob("*.pack"))}


def tiny_species(**changes) -> pack.Species:
    """A two-bone, one-box species that loads cleanly; ``changes`` spoil one thing."""
    b = SpeciesBuilder("Tiny", root_scale=0.5)
    b.image(np.full((8, 8, 4), 200, np.uint8))
    b.primitive("body", 0)
    b.bone("root")
    b.bone("arm", "root", at=(0, 1, 0))
    b.box("body", "arm", (-0.5, 0, -0.5), (0.5, 1, 0.5), (0, 0, 1, 1))
    b.animation(pack.STANDBY, 4).turn("arm", z=np.arange(4) * 1000.0)
    b.texture_streams(pack.STANDBY, [1, 2, 3])
    return dataclasses.replace(b.build(), **changes)


def vertex_count(s: pack.Species) -> int:
    return sum(len(p.positions) for p in s.prims)


# ---------------------------------------------------------------- round trips


def test_bundled_packs_round_trip_byte_for_byte(bundled):
    for name, s in bundled.items():
        assert pack.dumps(s) == (ASSETS / f"{name}.pack").read_bytes(), name


def test_species_are_written_where_they_are_loaded_from():
    assert species.ASSETS.resolve() == ASSETS.resolve()


def test_species_regenerate_byte_identically(tmp_path):
    written = species.write_all(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in ASSETS.glob("*.pack"))
    for path in written:
        assert path.read_bytes() == (ASSETS / path.name).read_bytes(), path.name


def test_loaded_fields_keep_their_meaning():
    s = pack.loads(pack.dumps(tiny_species()))
    assert s.name == "Tiny" and s.parents.tolist() == [-1, 0]
    assert s.rest_t.shape == s.rest_r.shape == s.rest_s.shape == (2, 3)
    assert s.ctx == [0] + [pack.NO_ANIM] * 5
    arm = s.anims[0].tracks[1]
    assert s.anims[0].tracks[0] is None               # a bone the animation never touches
    assert arm[5].tolist() == [0, 1000, 2000, 3000]   # one value a frame
    assert arm[3] == 0 and isinstance(arm[3], int)    # folded to a constant
    assert [c.tolist() for c in s.aux_anims[0].channels] == [[1, 2, 3]]
    assert s.images[0].shape == (8, 8, 4) and s.images[0].dtype == np.uint8
    assert s.height > 0 and s.root_scale == 0.5


finite = st.floats(-100, 100, allow_nan=False, width=32)


@st.composite
def random_species(draw):
    n = draw(st.integers(1, 6))
    parents = [-1] + [draw(st.integers(-1, b - 1)) for b in range(1, n)]
    frames = draw(st.integers(1, 5))

    def component(c):
        if draw(st.booleans()):
            return draw(st.integers(-32768, 32767)) if 3 <= c < 6 else float(draw(finite))
        if 3 <= c < 6:
            return np.array(draw(st.lists(st.integers(-32768, 32767), min_size=frames,
                                          max_size=frames)), np.int32)
        return np.array(draw(st.lists(finite, min_size=frames, max_size=frames)), np.float32)

    tracks = [None if draw(st.booleans()) else tuple(component(c) for c in range(9))
              for _ in range(n)]
    count = draw(st.integers(1, 5))
    normals = np.zeros((count, 3), np.float32)
    normals[:, 1] = 1
    prim = pack.Primitive(
        np.array(draw(st.lists(st.tuples(finite, finite, finite), min_size=count,
                               max_size=count)), np.float32),
        normals, np.array([draw(st.integers(0, n - 1)) for _ in range(count)], np.int32),
        np.zeros((count, 2), np.float32), np.zeros(3, np.uint16), 0,
        draw(st.integers(-1, 3)), {draw(st.integers(0, 9)): 0}, draw(st.booleans()))
    return pack.Species(
        draw(st.text(min_size=1, max_size=20).filter(lambda t: len(t.encode()) < 256)),
        np.array(parents, np.int32), np.zeros((n, 3), np.float32), np.zeros((n, 3), np.int32),
        np.ones((n, 3), np.float32), 1.0, 1.0, [prim],
        [pack.Animation(frames, draw(st.integers(0, frames - 1)), tracks)],
        [0] + [pack.NO_ANIM] * 5,
        [pack.TextureStreams([np.array(draw(st.lists(st.integers(0, 0xFFFF), max_size=4)),
                                       np.uint16)])],
        [np.zeros((2, 3, 4), np.uint8)])


@given(random_species())
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_any_valid_species_survives_a_round_trip(s):
    back = pack.loads(pack.dumps(s))
    assert back.name == s.name and back.ctx == s.ctx
    np.testing.assert_array_equal(back.parents, s.parents)
    (p, q) = (s.prims[0], back.prims[0])
    np.testing.assert_array_equal(q.positions, p.positions)
    np.testing.assert_array_equal(q.bones, p.bones)
    assert (q.tex_channel, q.tex_map, q.additive) == (p.tex_channel, p.tex_map, p.additive)
    for mine, theirs in zip(s.anims[0].tracks, back.anims[0].tracks):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            for a, b in zip(mine, theirs):
                np.testing.assert_array_equal(np.broadcast_to(b, np.shape(a)), a)
    assert back.aux_anims[0].channels[0].tolist() == s.aux_anims[0].channels[0].tolist()


# ---------------------------------------------------------------- refusing bad packs


def _patch(data: bytes, offset: int, raw: bytes) -> bytes:
    return data[:offset] + raw + data[offset + len(raw):]


def _bad_packs():
    """Ten distinct ways a pack can be wrong, each with the field it must name."""
    good = pack.dumps(tiny_species())
    s = tiny_species()
    prim = s.prims[0]
    anim = s.anims[0]

    def spoil_prim(**kw):
        return pack.dumps(dataclasses.replace(s, prims=[dataclasses.replace(prim, **kw)]))

    bad_normals = prim.normals.copy()
    bad_normals[3] *= 2
    bad_indices = prim.indices.copy()
    bad_indices[7] = len(prim.positions)
    bad_bones = prim.bones.copy()
    bad_bones[0] = 9
    return {
        "magic": (b"GLTF" + good[4:], "magic"),
        "version": (_patch(good, 4, np.uint16(9).tobytes()), "version"),
        "truncated": (good[:-10], "images[0].pixels"),
        "trailing": (good + b"\0\0", "end"),
        "parent order": (pack.dumps(dataclasses.replace(
            s, parents=np.array([1, -1], np.int32))), "parents[0]"),
        "height": (pack.dumps(dataclasses.replace(s, height=float("nan"))), "height"),
        "normals": (spoil_prim(normals=bad_normals), "prims[0].normals"),
        "indices": (spoil_prim(indices=bad_indices), "prims[0].indices"),
        "vertex bone": (spoil_prim(bones=bad_bones), "prims[0].bones"),
        "loop start": (pack.dumps(dataclasses.replace(
            s, anims=[dataclasses.replace(anim, loop_start=4)])), "anims[0].loop start"),
        "context": (pack.dumps(dataclasses.replace(s, ctx=[3] + [pack.NO_ANIM] * 5)),
                    "context[STANDBY]"),
        "texture": (spoil_prim(texture=5), "prims[0].texture"),
    }


def test_corrupt_packs_give_clear_distinct_messages(tmp_path):
    messages = set()
    for label, (data, field) in _bad_packs().items():
        path = tmp_path / f"{label.replace(' ', '_')}.pack"
        path.write_bytes(data)
        with pytest.raises(pack.PackError) as caught:
            pack.load(path)
        err = caught.value
        assert isinstance(err, ValueError)
        assert (err.path, err.field) == (str(path), field), label
        assert str(err) == f"{path}: {field}: {err.problem}"
        messages.add(f"{err.field}: {err.problem}")
    assert len(messages) == len(_bad_packs()) >= 10


def test_truncation_names_what_was_being_read():
    with pytest.raises(pack.PackError, match=r"truncated: needs \d+ bytes at offset \d+"):
        pack.loads(pack.dumps(tiny_species())[:30], "cut.pack")


def test_missing_file_is_a_pack_error(tmp_path):
    with pytest.raises(pack.PackError) as caught:
        pack.load(tmp_path / "absent.pack")
    assert caught.value.field == "file"


def test_save_refuses_bad_data_and_writes_nothing(tmp_path):
    path = tmp_path / "bad.pack"
    with pytest.raises(pack.PackError) as caught:
        pack.save(tiny_species(height=-1.0), path)
    assert caught.value.path == str(path) and caught.value.field == "height"
    assert not path.exists() and not list(tmp_path.iterdir())


def test_writer_refuses_values_the_format_cannot_hold():
    s = tiny_species()
    anim = s.anims[0]
    track = list(anim.tracks[1])
    track[5] = np.array([0, 1000, 40000, 0])
    bad = dataclasses.replace(s, anims=[dataclasses.replace(
        anim, tracks=[None, tuple(track)])])
    with pytest.raises(pack.PackError, match="int16"):
        pack.dumps(bad)


# ---------------------------------------------------------------- the bundled set


def test_set_sizes_and_skeletons(bundled):
    counts = [vertex_count(s) for s in bundled.values()]
    assert len(bundled) >= 6
    assert 250 <= min(counts) <= 400 and max(counts) >= 1300
    assert 600 <= np.mean(counts) <= 800
    for s in bundled.values():
        assert 12 <= len(s.parents) <= 60, s.name
        assert all(p.bones.shape == (len(p.positions),) for p in s.prims)


def test_every_species_has_every_context_animation(bundled):
    for s in bundled.values():
        assert all(slot != pack.NO_ANIM for slot in s.ctx), s.name
        assert len(set(s.ctx)) == len(pack.CONTEXT_SLOTS)
        assert s.anims[s.ctx[pack.STANDBY]].frames > 1
    assert any(s.anims[s.ctx[pack.STANDBY]].loop_start > 0 for s in bundled.values())


def test_textures_are_small_rgba_pixel_art(bundled):
    for s in bundled.values():
        assert len(s.images) >= 2, s.name
        for image in s.images:
            assert image.dtype == np.uint8 and image.shape[2] == 4
            assert max(image.shape[:2]) <= 64
            # pixel art: a handful of flat colours, not a gradient
            assert len(np.unique(image.reshape(-1, 4), axis=0)) <= 48


def test_uv_stay_inside_one_tile_of_their_image(bundled):
    for s in bundled.values():
        for p in s.prims:
            image = s.images[p.texture]
            assert np.all((p.uv >= 0) & (p.uv <= 1)), s.name
            tile = 8 if image.shape[0] == image.shape[1] == 32 else image.shape[0]
            texel = p.uv[p.indices.reshape(-1, 3)] * np.array(image.shape[1::-1])
            block = np.floor(texel / tile)
            assert np.all(block.min(axis=1) == block.max(axis=1)), s.name


def test_stored_normals_agree_with_triangle_winding(bundled):
    for s in bundled.values():
        for p in s.prims:
            tri = p.positions[p.indices.reshape(-1, 3)].astype(np.float64)
            face = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
            face /= np.linalg.norm(face, axis=1, keepdims=True)
            stored = p.normals[p.indices.reshape(-1, 3)[:, 0]]
            assert np.all(np.einsum("ij,ij->i", face, stored) > 0.999), s.name


@pytest.mark.parametrize("axis", ["+y", "-y", "+x", "-x", "+z", "-z"])
@pytest.mark.parametrize("end", [(1, 1), (0.5, 0.7), (1, 0), (0, 0)])
def test_blocks_face_outward(axis, end):
    b = SpeciesBuilder("Block", 1.0)
    b.bone("root")
    b.primitive("p", 0)
    b.block("p", "root", (0.3, 0.2, 0.1), 1.0, 0.4, 0.6, {face: (0, 0, 1, 1) for face in FACES},
            axis=axis, end=end)
    draft = b.drafts["p"]
    points = np.array(draft.positions)
    centre = points.mean(axis=0)
    for tri in np.array(draft.indices).reshape(-1, 3):
        t = points[tri]
        normal = np.cross(t[1] - t[0], t[2] - t[0])
        assert normal @ (t.mean(axis=0) - centre) > 0
        assert normal @ draft.normals[tri[0]] > 0


def test_folded_constants_and_untouched_bones_are_in_the_set(bundled):
    folded = untouched = 0
    for s in bundled.values():
        for anim in s.anims:
            for track in anim.tracks:
                if track is None:
                    untouched += 1
                else:
                    folded += sum(isinstance(c, (int, float)) for c in track)
    assert folded > 100 and untouched > 20


def test_a_pack_the_rig_would_compose_past_binary32_is_refused_at_its_bone():
    """Finite values are not enough: scales multiply down a chain. A pack opens only when
    every bone's reach stays under REACH_LIMIT, and one that opens skins without a warning."""
    import warnings
    from render_fixtures import boxling
    from stadium.rig.rig import StadiumRig

    s = boxling()
    s.rest_s[0] = 3.4e38
    with pytest.raises(pack.PackError, match="bone 0"):
        pack.loads(pack.dumps(s))
    s = boxling()
    s.anims[1].tracks[1] = (-3.4e38, 70.0, 0.0, 0, 0, 0, 1.0, 1.0, 1.0)
    with pytest.raises(pack.PackError, match="bone 1"):
        pack.loads(pack.dumps(s))
    s = boxling()
    s.rest_s[0], s.rest_s[1] = 2.0 ** 19, 2.0 ** 19          # 2^38 of reach: opens
    species = pack.loads(pack.dumps(s))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rig = StadiumRig(species)
        rig.pose(1, 2.0, True)
        rig.skin(0.3)
