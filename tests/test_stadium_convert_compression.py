"""Compressed species clips: every species clip compressed at the species' scaled bounds stays
within them (measured by test_clip_compress's own decoding and composition), the report
prints what the files weigh, and the battle plays exactly the compressed clips shipped in
assets/runtime/, which are what the code makes from the bundled packs today (byte for
byte on the CPU family that shipped them, within the bounds on another)."""
from dataclasses import replace

import numpy as np
import pytest

import runtime as rt
from stadium.rig import convert
from stadium.rig.roster import Roster
from clip_measure import models
from test_clip_compress import check_bounds

ROSTER = Roster()


@pytest.fixture(scope="module")
def converted():
    return {name: convert.convert(ROSTER.load(name)) for name in ROSTER.names}


@pytest.mark.parametrize("name", ROSTER.names)
def test_the_bounds_scale_with_the_species_size(converted, name):
    sk = converted[name].skeleton
    size = float(np.abs(models(sk.parents, sk.rests[None])[0, :, :, 3]).max())
    options = convert.compression_options(converted[name])
    assert options.precision == pytest.approx(size * 1e-4, rel=1e-6)   # the pose composes in binary32
    assert options.shell_distance == pytest.approx(size * 0.03, rel=1e-6)   # the pose composes in binary32


@pytest.mark.parametrize("name", ROSTER.names)
def test_every_species_clip_compresses_within_its_bound(converted, name):
    rts = converted[name]
    options = convert.compression_options(rts)
    sizes = {s.role: s for s in convert.compression_report(rts)}
    assert set(sizes) == set(rts.clips)
    for role, rc in rts.clips.items():
        b = rt.Builder()
        rt.compress_clip(b, rc.clip, rts.skeleton, options)
        packed = rt.Clip(b.built())
        err = check_bounds(rc.clip, packed, rts.skeleton, options)
        s = sizes[role]
        assert s.full_bytes == rc.clip.data.size and s.compressed_bytes == packed.data.size
        assert s.compressed_bytes < s.full_bytes
        assert s.worst_error == pytest.approx(err.max(), rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("name", ROSTER.names)
def test_the_battle_plays_the_shipped_clips_which_are_what_the_code_makes(converted, name):
    """A stale assets/runtime/ fails here: run `python -m stadium.rig.convert --ship`."""
    played = convert.runtime_species(ROSTER.load(name))
    made = convert.compressed(converted[name])
    assert set(played.clips) == set(made.clips) == set(converted[name].clips)
    folder = convert.RUNTIME_CLIPS / name.lower()
    assert (folder / convert.DIGEST_FILE).read_text().strip() == ROSTER.load(name).digest
    options = convert.compression_options(converted[name])
    for role, rc in played.clips.items():
        assert rc.clip.is_compressed
        assert bytes(rc.data) == (folder / f"{role}.mclip").read_bytes(), role
        full = converted[name].clips[role]
        if bytes(rc.data) != bytes(made.clips[role].data):
            # shipped from another CPU family: the CPU rig's numpy sin, cos and BLAS are
            # dispatched by the CPU, so its baked clips differ by ulps and so may the
            # compressor's choices; the shipped clip still holds this machine's baking
            # within the species' bound (the ulps' share of it a thousandth at most)
            check_bounds(full.clip, rc.clip, converted[name].skeleton,
                         replace(options, precision=options.precision * 1.001,
                                 float_tolerance=options.float_tolerance * 1.001))
        assert (rc.anim, rc.first, rc.wrap, rc.loop, rc.impact) == \
            (full.anim, full.first, full.wrap, full.loop, full.impact)


def test_a_pack_not_shipped_is_compressed_where_it_loads(converted, tmp_path):
    """A pack whose bytes differ from the shipped one's (a user's, or one edited) is baked
    and compressed in place, never paired with clips made from other bytes."""
    from stadium.rig import pack
    name = ROSTER.names[0]
    data = bytearray(ROSTER.paths[0].read_bytes())
    edited = tmp_path / f"{name}.pack"
    edited.write_bytes(bytes(data))
    same = pack.load(edited)
    assert convert._shipped(same) is not None          # the same bytes find the shipped clips
    species = pack.load(edited)
    species.digest = "0" * 64                          # as if its bytes had changed
    assert convert._shipped(species) is None
    rts = convert.runtime_species(species)
    assert all(rc.clip.is_compressed for rc in rts.clips.values())
    made = convert.compressed(converted[name])
    assert all(bytes(rts.clips[r].data) == bytes(made.clips[r].data) for r in rts.clips)


def test_the_command_prints_the_report(converted, capsys, tmp_path):
    name = ROSTER.names[0]
    assert convert.main([name, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    sizes = convert.compression_report(converted[name])
    for s in sizes:
        line = next(x for x in out if x.split()[:1] == [s.role])
        assert f"{s.full_bytes:,} B full" in line and f"{s.compressed_bytes:,} B compressed" in line
        assert f"{s.full_bytes / s.compressed_bytes:.2f} : 1" in line
    total = next(x for x in out if x.strip().startswith("all clips"))
    assert f"{sum(s.full_bytes for s in sizes):,} B full" in total
    assert f"{sum(s.compressed_bytes for s in sizes):,} B compressed" in total
    written = rt.Clip((tmp_path / name.lower() / "standby.mclip").read_bytes())
    assert not written.is_compressed                # the files written stay full


def test_the_battle_on_compressed_clips_looks_as_on_the_full_ones(monkeypatch):
    """The README's seeded battle (send-out, a turn, a hit, a faint, the next send-out, the
    result) played on the compressed clips and on the full ones: every frame within the
    goldens' own tolerance of the other. (The show's goldens pose the rig itself; this is
    the battle, where the graphs play the clips.) Faints play their clip here, as they do
    off the runtime path: a ragdoll's fall is chaotic, a pose a rounding apart lands
    otherwise and rests at another step, and the battle waits for it, so a fall would
    compare the engine's chaos, not the compression."""
    from stadium.app import goldens
    from stadium.battle import battler
    from stadium.render.gfx import Graphics
    monkeypatch.setattr(battler.Battler, "_falling_path", lambda self: False)
    gfx = Graphics.open_headless((160, 144))
    try:
        compressed_frames = goldens.sheet_frames(gfx, ROSTER)
        full = {}
        monkeypatch.setattr(battler, "runtime_species",
                            lambda species: full.setdefault(species, convert.convert(species)))
        full_frames = goldens.sheet_frames(gfx, ROSTER)
    finally:
        gfx.release()
    assert full and all(not rc.clip.is_compressed for r in full.values() for rc in r.clips.values())
    for moment, a, b in zip(goldens.SHEET_MOMENTS, compressed_frames, full_frames):
        share, _ = goldens.difference(b, a)
        assert share <= goldens.TOLERANCE, f"{moment}: {share:.2%} of pixels differ"
