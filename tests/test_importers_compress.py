"""The library command, python -m runtime.importers.compress: what it writes opens as compressed
clips within the bound (measured by test_clip_compress's own decoding and composition, not the
command's table), the table adds up, and every refusal is one line, exit code 2 and nothing
half-written in --out."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import runtime as rt
from runtime.importers import compress as command
from runtime.importers.bvh import load_bvh
from runtime.samples import humanoid_source, locomotion_clips
from test_clip_compress import check_bounds

ROOT = Path(__file__).resolve().parents[1]
MOCAP = ROOT.parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
CM = rt.CompressOptions(precision=0.01, shell_distance=3.0)       # the defaults, for centimetres
ENV = {**os.environ, "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / ".numba-cache"))}


def run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = command.main([str(a) for a in argv])
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def refused(argv, capsys, out_dir: Path, before=()) -> str:
    """Runs a refused command: exit 2, one line on stderr, --out holding what it held before."""
    code, _, err = run(argv, capsys)
    assert code == 2
    assert err.endswith("\n") and err.count("\n") == 1, err
    held = sorted(p.name for p in out_dir.iterdir()) if out_dir.is_dir() else []
    assert held == sorted(before)
    return err


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A built humanoid skeleton and two of the sample's built clips as files."""
    folder = tmp_path_factory.mktemp("sample")
    data = rt.build_skeleton(rt.Builder(), humanoid_source(22))
    sk = rt.Skeleton.open(data)
    (folder / "humanoid.mskel").write_bytes(bytes(data))
    clips = locomotion_clips(sk)
    for name in ("walk_f", "jump"):
        (folder / f"{name}.mclip").write_bytes(bytes(clips[name].data))
    return folder, sk, clips


def test_three_staged_mocap_files(tmp_path, capsys):
    if not MOCAP.is_dir():
        pytest.skip(f"{MOCAP} is absent")
    files = sorted(MOCAP.glob("*.bvh"), key=lambda p: p.stat().st_size)[:3]
    out = tmp_path / "made" / "here"
    code, table, err = run([*files, "--out", out], capsys)
    assert code == 0 and err == ""
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f.stem + ".mclip" for f in files] + [f.stem + ".mskel" for f in files])
    lines = table.splitlines()
    raw = packed = 0
    for path in files:
        sk = rt.Skeleton.open((out / (path.stem + ".mskel")).read_bytes())
        clip = rt.Clip((out / (path.stem + ".mclip")).read_bytes())
        assert clip.is_compressed
        source = load_bvh(path)
        assert sk.bone_count == len(source.joint_names)
        full = rt.Clip(rt.build_clip(rt.Builder(), source.clip_source))
        err_max = check_bounds(full, clip, sk, CM).max()
        row = next(line for line in lines if line.startswith(path.name)).split()
        n, s = sk.bone_count, full.sample_count
        assert int(row[1].replace(",", "")) == 40 * n * s
        assert int(row[2].replace(",", "")) == len(clip.data)
        assert float(row[3]) == pytest.approx(40 * n * s / len(clip.data), abs=0.006)
        assert float(row[4]) == pytest.approx(err_max, rel=1e-3)
        raw, packed = raw + 40 * n * s, packed + len(clip.data)
    total = lines[-1].split()
    assert total[:3] == ["total", "(3", "clips)"]
    assert total[3:5] == [f"{raw:,}", f"{packed:,}"]


def test_a_built_sample_clip_with_its_skeleton(tmp_path, capsys, sample):
    folder, sk, clips = sample
    code, table, err = run([folder / "walk_f.mclip", "--skeleton", folder / "humanoid.mskel",
                            "--out", tmp_path], capsys)
    assert code == 0 and err == ""
    assert [p.name for p in tmp_path.iterdir()] == ["walk_f.mclip"]
    packed = rt.Clip((tmp_path / "walk_f.mclip").read_bytes())
    assert packed.is_compressed
    check_bounds(clips["walk_f"], packed, sk, rt.default_compress_options())
    assert " m " in table.splitlines()[2]


def test_the_units_scale_the_defaults_and_given_values_stay():
    args = command.parser().parse_args(["x", "--out", "d"])
    d = rt.default_compress_options()
    bvh, units = command.options_for(args, True)
    assert units == "cm" and (bvh.precision, bvh.shell_distance) == (100 * d.precision, 100 * d.shell_distance)
    clip, units = command.options_for(args, False)
    assert units == "m" and (clip.precision, clip.shell_distance) == (d.precision, d.shell_distance)
    args = command.parser().parse_args(["x", "--out", "d", "--units", "cm", "--precision", "0.5"])
    clip, units = command.options_for(args, False)
    assert units == "cm" and (clip.precision, clip.shell_distance) == (0.5, 100 * d.shell_distance)


def test_a_failure_stops_the_run_with_the_files_before_it_complete(tmp_path, capsys, sample):
    folder, sk, clips = sample
    bad = tmp_path / "notes.bvh"
    bad.write_text("these are my notes\n")
    out = tmp_path / "out"
    err = refused([folder / "walk_f.mclip", folder / "jump.mclip", bad, "--skeleton",
                   folder / "humanoid.mskel", "--out", out], capsys, out, ["walk_f.mclip", "jump.mclip"])
    assert "notes.bvh" in err and "line 1, column 1" in err and "2 of 3 files written" in err
    for name in ("walk_f", "jump"):
        assert rt.Clip((out / f"{name}.mclip").read_bytes()).is_compressed


@pytest.mark.parametrize("case", ["missing", "directory", "bad precision", "zero precision",
                                  "negative shell", "nan tolerance", "infinite precision",
                                  "out is a file", "out under a file", "no skeleton",
                                  "not a skeleton", "skeleton as a clip", "one stem twice",
                                  "over an input", "bad units"])
def test_refusals_before_any_work(tmp_path, capsys, sample, case):
    folder, _, _ = sample
    clip, skel = folder / "walk_f.mclip", folder / "humanoid.mskel"
    out = tmp_path / "out"
    out.mkdir()
    (out / "kept.txt").write_text("mine")
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    twin = tmp_path / "walk_f.bvh"
    twin.write_text("HIERARCHY")
    own = tmp_path / "own" / "walk_f.mclip"
    own.parent.mkdir()
    own.write_bytes(clip.read_bytes())
    argv = {"missing": [tmp_path / "absent.bvh"],
            "directory": [tmp_path],
            "bad precision": [clip, "--precision", "fine"],
            "zero precision": [clip, "--precision", "0"],
            "negative shell": [clip, "--shell", "-3"],
            "nan tolerance": [clip, "--float-tolerance", "nan"],
            "infinite precision": [clip, "--precision", "inf"],
            "out is a file": [clip, "--out", a_file],
            "out under a file": [clip, "--out", a_file / "deeper"],
            "no skeleton": [clip],
            "not a skeleton": [clip, "--skeleton", clip],
            "skeleton as a clip": [skel],
            "one stem twice": [clip, twin],
            "over an input": [own, "--out", own.parent],
            "bad units": [clip, "--units", "inch"]}[case]
    if "--skeleton" not in argv and case != "no skeleton":
        argv = argv + ["--skeleton", skel]
    if "--out" not in argv:
        argv = argv + ["--out", out]
    err = refused(argv, capsys, out, ["kept.txt"])
    assert twin.read_text() == "HIERARCHY" and own.read_bytes() == clip.read_bytes()
    assert err.startswith("python -m runtime.importers.compress: ")
    assert not (a_file.parent / "a_file" / "deeper").exists() and a_file.read_text() == "x"


@pytest.mark.parametrize("case", ["compressed already", "another skeleton's clip"])
def test_refusals_of_a_file_while_compressing(tmp_path, capsys, sample, case):
    folder, sk, clips = sample
    if case == "compressed already":
        b = rt.Builder()
        rt.compress_clip(b, clips["jump"], sk, rt.default_compress_options())
        (tmp_path / "packed.mclip").write_bytes(bytes(b.built()))
        argv = [tmp_path / "packed.mclip", "--skeleton", folder / "humanoid.mskel"]
    else:
        other = tmp_path / "other.mskel"
        other.write_bytes(bytes(rt.build_skeleton(rt.Builder(), humanoid_source(23))))
        argv = [folder / "jump.mclip", "--skeleton", other]
    out = tmp_path / "out"
    err = refused(argv + ["--out", out], capsys, out)
    assert "0 of 1 files written" in err


def test_a_write_that_fails_leaves_no_part_of_it(tmp_path, capsys, sample, monkeypatch):
    folder, _, _ = sample
    real = Path.write_bytes

    def full_disk(self, data):
        real(self, bytes(data)[:10])
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    out = tmp_path / "out"
    err = refused([folder / "jump.mclip", "--skeleton", folder / "humanoid.mskel", "--out", out],
                  capsys, out)
    assert "No space left on device" in err


def test_python_m_runs_it_cleanly(tmp_path, sample):
    folder, _, _ = sample
    help_ = subprocess.run([sys.executable, "-m", "runtime.importers.compress", "--help"], cwd=ROOT,
                           env=ENV, capture_output=True, text=True)
    assert help_.returncode == 0 and help_.stderr == ""
    assert "a hundred times larger for a rig in centimetres" in " ".join(help_.stdout.split())
    done = subprocess.run([sys.executable, "-m", "runtime.importers.compress", folder / "jump.mclip",
                           "--skeleton", folder / "humanoid.mskel", "--out", tmp_path], cwd=ROOT,
                          env=ENV, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines()[-1].startswith("total (1 clips)")
    absent = subprocess.run([sys.executable, "-m", "runtime.importers.compress", tmp_path / "absent.bvh",
                             "--out", tmp_path], cwd=ROOT, env=ENV, capture_output=True, text=True)
    assert absent.returncode == 2 and absent.stderr.count("\n") == 1 and "absent.bvh" in absent.stderr


def test_the_progress_bar_shows_on_a_terminal(tmp_path, sample):
    pty = pytest.importorskip("pty")
    folder, _, _ = sample
    import fcntl
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))   # 100 columns
    done = subprocess.run([sys.executable, "-m", "runtime.importers.compress", folder / "walk_f.mclip",
                           folder / "jump.mclip", "--skeleton", folder / "humanoid.mskel",
                           "--out", tmp_path], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                          stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    shown = b""
    try:
        while chunk := os.read(master, 4096):
            shown += chunk
    except OSError:         # the terminal's other end is closed: all was read
        pass
    os.close(master)
    assert done.returncode == 0
    assert b"compressing" in shown and b"2/2" in shown and b"100%" in shown
