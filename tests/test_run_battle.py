"""run_battle.py end to end, in subprocesses: headless frames and GIFs that repeat
byte for byte, the fallback when no window can open, and a bad pack's clear message."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from stadium.rig import pack

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "run_battle.py"


def run(*args, cwd=None, environment=None, **env):
    environment = environment or dict(os.environ, SDL_VIDEODRIVER="dummy", **env)
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=environment, timeout=300)


def test_headless_frames_are_written_as_pngs(tmp_path):
    done = run("--headless", "--frames", "0,15,30", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["frame_0000.png", "frame_0015.png", "frame_0030.png"]
    image = Image.open(tmp_path / "frame_0030.png")
    assert image.size == (160, 144)
    assert str(tmp_path) in done.stdout
    # something is drawn: the diorama is not one flat colour
    assert len(np.unique(np.asarray(image).reshape(-1, 3), axis=0)) > 50


def test_headless_output_is_byte_identical_from_run_to_run(tmp_path):
    for name in ("a", "b"):
        done = run("--frames", "0,90,200", "--out", str(tmp_path / name),
                   "--gif", str(tmp_path / name / "battle.gif"), "--hour", "dusk")
        assert done.returncode == 0, done.stderr
    first = sorted((tmp_path / "a").iterdir())
    assert [p.name for p in first] == sorted(p.name for p in (tmp_path / "b").iterdir())
    for path in first:
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name


def test_a_gif_holds_the_frames_in_order(tmp_path):
    gif = tmp_path / "battle.gif"
    done = run("--gif", str(gif), "--frames", "0:60:6", "--scale", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Image.open(gif) as image:
        assert image.size == (320, 288)
        assert image.n_frames == 10
    assert not (tmp_path / "out").exists(), "a GIF alone writes no PNG frames"


def test_scale_makes_bigger_whole_pixels(tmp_path):
    done = run("--headless", "--frames", "100", "--scale", "3", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    pixels = np.asarray(Image.open(tmp_path / "frame_0100.png"))
    assert pixels.shape == (432, 480, 3)
    # every 3 x 3 block is one colour: a whole-number upscale of the 160 x 144 frame
    blocks = pixels.reshape(144, 3, 160, 3, 3)
    assert (blocks == blocks[:, :1, :, :1]).all()


BARE = {k: v for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}


@pytest.mark.parametrize("environment", [None, BARE], ids=["dummy driver", "no display at all"])
def test_without_a_display_it_falls_back_to_headless_and_says_where(tmp_path, environment):
    # with nothing set SDL picks its "offscreen" driver, where a window would run unseen
    done = run(cwd=tmp_path, environment=environment)
    assert done.returncode == 0, done.stderr
    written = sorted((tmp_path / "out" / "battle").glob("*.png"))
    assert len(written) > 2
    assert "headless" in done.stdout and "out/battle" in done.stdout
    # nobody can press a key headless, so the battle plays on: its message box changes
    boxes = [np.asarray(Image.open(path))[-18:] for path in written[1:]]
    assert any(not np.array_equal(boxes[0], box) for box in boxes[1:])


def test_a_corrupt_pack_ends_with_its_message_and_no_traceback(tmp_path):
    bad = tmp_path / "broken.pack"
    bad.write_bytes(b"STPK" + bytes(40))
    with pytest.raises(pack.PackError) as expected:
        pack.load(bad)
    done = run("--headless", "--species", f"{bad},emberlisk", "--frames", "0",
               "--out", str(tmp_path / "out"))
    assert done.returncode != 0
    assert str(expected.value) in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_an_unknown_species_names_the_bundled_ones():
    done = run("--headless", "--species", "nosuchthing,emberlisk", "--frames", "0")
    assert done.returncode != 0
    assert "nosuchthing" in done.stderr and "emberlisk" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_lists_the_keys_and_options():
    done = run("--help")
    assert done.returncode == 0
    for word in ("--hour", "--species", "--scale", "--frames", "--gif", "tab", "space", "f12"):
        assert word in done.stdout


def gif_delays(path):
    with Image.open(path) as image:
        delays = []
        for k in range(image.n_frames):
            image.seek(k)
            delays.append(image.info["duration"])
    return delays


def test_a_gif_plays_for_as_long_as_its_frames_last(tmp_path):
    # 300 steps of 1/60 s are five seconds; 1/60 s is below what a GIF (or its viewers)
    # can show, so frames are left out, never the time
    gif = tmp_path / "battle.gif"
    done = run("--gif", str(gif), "--frames", "0:300", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    delays = gif_delays(gif)
    assert sum(delays) == 5000
    assert min(delays) >= 20 and len(delays) > 100


@pytest.mark.parametrize("frames", [range(0, 300), range(0, 90, 2), range(7, 100, 3),
                                    [0, 1, 2, 50, 51, 52, 200], range(0, 61, 5)])
def test_gif_delays_add_up_to_the_true_duration(frames):
    from stadium.app.headless import DT, gif_timing

    frames = list(frames)
    timing = gif_timing(frames)
    step = frames[-1] - frames[-2]
    true_ms = (frames[-1] + step - frames[0]) * DT * 1000
    assert abs(sum(timing.values()) - true_ms) <= 10      # a GIF counts in hundredths
    assert min(timing.values()) >= 20 and all(d % 10 == 0 for d in timing.values())
    assert set(timing) <= set(frames) and frames[0] in timing
    # each kept frame starts within a hundredth of a second of when it truly does
    elapsed = 0
    for frame in sorted(timing):
        assert abs(elapsed - (frame - frames[0]) * DT * 1000) <= 10
        elapsed += timing[frame]


def test_a_long_headless_run_reports_its_progress_and_a_short_one_does_not():
    import io

    from stadium.app.headless import LONG_RUN, Progress

    for last, lines in ((LONG_RUN * 2, 10), (LONG_RUN // 2, 0)):
        stream = io.StringIO()
        progress = Progress(0, last, stream)
        for frame in range(1, last + 1):
            progress(frame)
        shown = stream.getvalue().splitlines()
        assert len(shown) == lines
        if lines:
            assert shown[-1] == f"run_battle: frame {last} of {last} (100%)"
