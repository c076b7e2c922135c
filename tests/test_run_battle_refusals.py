"""Every bad input to run_battle.py: one line on stderr naming the option or the file, exit
code 2, no traceback, and nothing written; and a bug in our code still shows its
traceback (only the project's own bad-input errors are caught)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stadium.app import launch
from stadium.app.viewer import Options
from stadium.battle.match import Match, Setup
from stadium.errors import BadFile
from stadium.rig.roster import Roster

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "run_battle.py"
SAVED_AT = 200


def run(*args, cwd):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.fixture(scope="module")
def saved():
    """A battle saved mid-way, as plain data (what --save writes)."""
    match = Match(Setup((("emberlisk",), ("mosshoof",)), 1, ("ai", "ai")), Roster(),
                  ((0.0, 0.0, 0.0), (4.0, 0.0, 4.0)))
    for _ in range(SAVED_AT):
        match.update()
    return match.save()


def edited(saved, change):
    state = json.loads(json.dumps(saved))
    change(state)
    return json.dumps(state)


def _set(*keys_and_value):
    *keys, last, value = keys_and_value

    def change(state):
        for key in keys:
            state = state[key]
        state[last] = value
    return change


# (name, files to put in the folder first: name -> text or a callable of the save, args,
#  what the one line must name)
CASES = [
    ("seed 1e400", {"s.json": '{"seed": 1e400}'}, ["--script", "s.json"], "seed"),
    ("script's empty team", {"s.json": '{"teams": [[], ["gloopet"]]}'}, ["--script", "s.json"],
     "teams[0]"),
    ("script not JSON", {"s.json": "{teams"}, ["--script", "s.json"], "s.json"),
    ("script's unknown key", {"s.json": '{"sead": 3}'}, ["--script", "s.json"], "sead"),
    ("script missing", {}, ["--script", "nosuch.json"], "nosuch.json"),
    ("load of []", {"l.json": "[]"}, ["--load", "l.json"], "l.json"),
    ("load: bogus phase", {"l.json": lambda s: edited(s, _set("battle", "phase", "bogus"))},
     ["--load", "l.json"], "battle.phase"),
    ("load: turn x", {"l.json": lambda s: edited(s, _set("battle", "turn", "x"))},
     ["--load", "l.json"], "battle.turn"),
    ("load: empty team", {"l.json": lambda s: edited(s, _set("setup", "teams", [[], ["gloopet"]]))},
     ["--load", "l.json"], "setup.teams[0]"),
    ("load: a key missing", {"l.json": lambda s: edited(s, lambda state: state.pop("battle"))},
     ["--load", "l.json"], "'battle'"),
    ("load: a graph state not the runtime's",
     {"l.json": lambda s: edited(s, lambda state: state["battlers"][0].update(graph="00" * 64))},
     ["--load", "l.json"], "l.json"),
    ("load: frames before the save", {"l.json": lambda s: json.dumps(s)},
     ["--load", "l.json", "--frames", "0"], "--frames"),
    ("scale past the context", {}, ["--scale", "150", "--frames", "0"], "--scale"),
    ("scale 0", {}, ["--scale", "0"], "--scale"),
    ("out is a file", {"taken": "x"}, ["--out", "taken", "--frames", "0"], "--out"),
    ("save is a folder", {"folder/keep": "x"},
     ["--save-at", "5", "--save", "folder", "--frames", "10"], "--save"),
    ("gif is a folder", {"folder/keep": "x"}, ["--gif", "folder", "--frames", "0"], "--gif"),
    ("frames 10:5", {}, ["--frames", "10:5"], "--frames"),
    ("frames x", {}, ["--frames", "x"], "--frames"),
    ("frames without bound", {}, ["--frames", "0:100000000"], "--frames"),
    ("frames far away", {}, ["--frames", "99999999999"], "--frames"),
    ("a GIF too long to hold", {}, ["--gif", "g.gif", "--frames", "0:20000:2"], "--gif"),
    ("save-at 0", {}, ["--save-at", "0", "--save", "a.json"], "--save-at"),
    ("save-at negative", {}, ["--save-at", "-5", "--save", "a.json"], "--save-at"),
    ("save-at past the last frame", {}, ["--save-at", "50", "--save", "a.json", "--frames", "10"],
     "--save-at"),
    ("save-at with the show", {}, ["--show", "--save-at", "5", "--save", "a.json"], "--save-at"),
    ("save-at without save", {}, ["--save-at", "5"], "--save"),
    ("teams and species", {}, ["--teams", "gloopet/mosshoof", "--species", "gloopet,mosshoof"],
     "--species"),
    ("script's teams and --teams", {"s.json": '{"teams": [["gloopet"], ["mosshoof"]]}'},
     ["--script", "s.json", "--teams", "gloopet/mosshoof"], "--teams"),
    ("script's seed and --seed", {"s.json": '{"seed": 4}'}, ["--script", "s.json", "--seed", "2"],
     "--seed"),
    ("load and teams", {"l.json": lambda s: json.dumps(s)},
     ["--load", "l.json", "--teams", "gloopet/mosshoof"], "--teams"),
    ("load and seed", {"l.json": lambda s: json.dumps(s)}, ["--load", "l.json", "--seed", "2"],
     "--seed"),
    ("show and load", {"l.json": lambda s: json.dumps(s)}, ["--show", "--load", "l.json"], "--load"),
    ("show and script", {"s.json": "{}"}, ["--show", "--script", "s.json"], "--script"),
    ("an unknown species", {}, ["--species", "nosuchthing,emberlisk", "--frames", "0"],
     "nosuchthing"),
    ("a bad pose path", {}, ["--pose-path", "sideways"], "--pose-path"),
]


@pytest.mark.parametrize("name, files, args, named", CASES, ids=[c[0] for c in CASES])
def test_a_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, saved, name, files, args, named):
    for file, text in files.items():
        path = tmp_path / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text(saved) if callable(text) else text)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    done = run("--headless", *args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr and named in lines[0], lines[0]
    assert lines[0].startswith("run_battle: ")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before, "something was written"


def test_messages_say_what_is_wrong_in_words(tmp_path, saved):
    (tmp_path / "s.json").write_text('{"teams": [[], ["gloopet"]]}')
    (tmp_path / "l.json").write_text(edited(saved, _set("battle", "turn", "x")))
    for args, leaks in ((["--script", "s.json"], "tuple index"),
                        (["--load", "l.json"], "invalid literal"),
                        (["--frames", "10:5"], "parse_frames")):
        done = run("--headless", *args, cwd=tmp_path)
        assert leaks not in done.stderr and done.returncode == 2, done.stderr


def test_frames_after_a_load_count_from_the_battle_start(tmp_path, saved):
    (tmp_path / "l.json").write_text(json.dumps(saved))
    done = run("--load", "l.json", "--frames", f"{SAVED_AT + 1},{SAVED_AT + 20}", "--out", "o",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == \
        [f"frame_{SAVED_AT + 1:04d}.png", f"frame_{SAVED_AT + 20:04d}.png"]
    assert "also after --load" in run("--help", cwd=tmp_path).stdout


def _failing_viewer(error):
    class Viewer:
        def __init__(self, *args, **kwargs):
            raise error
    return Viewer


def test_our_bad_input_error_is_one_line_but_a_bug_shows_its_traceback(monkeypatch, capsys):
    options = Options(mode="battle", controllers=("ai", "ai"))
    monkeypatch.setattr(launch, "BattleViewer", _failing_viewer(BadFile("x.json", "no good")))
    assert launch.run(options, headless_only=True, scale=1, frames=[0]) == 2
    assert capsys.readouterr().err == "run_battle: x.json: no good\n"
    for bug in (KeyError("a key our code got wrong"), ValueError("ours"), OSError("ours")):
        monkeypatch.setattr(launch, "BattleViewer", _failing_viewer(bug))
        with pytest.raises(type(bug)):
            launch.run(options, headless_only=True, scale=1, frames=[0])


def test_a_window_scale_past_the_screen_opens_what_fits_and_says_so(capsys):
    from stadium.app.launch import window_size
    from stadium.render.battlecam import FRAME
    assert window_size(4, False, (1920, 1080)) == (FRAME[0] * 4, FRAME[1] * 4)
    assert capsys.readouterr().err == ""
    w, h = window_size(150, False, (1366, 768))
    assert w <= 1366 and h <= 768
    err = capsys.readouterr().err
    assert "--scale 150" in err and err.count("\n") == 1
    assert window_size(150, False, None) == (FRAME[0] * 150, FRAME[1] * 150)
