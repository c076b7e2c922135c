"""Saving a battle mid-turn (each graph instance through its Save, the battle's own state,
the rigs' anchor smoothing) and restoring it into a fresh process continues exactly:
300 frames whose pixels and contents hash the same as the original run's."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from stadium.battle.match import Match, script_setup
from stadium.rig.roster import Roster

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "run_battle.py"
CELLS = (np.array([4.75, 1.5, 7.75]), np.array([7.75, 1.5, 5.25]))
SEED = 3
FRAMES = 300


def run(*args, cwd):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def mid_attack_step(seed: int) -> int:
    """A step in the middle of an attack, before its impact: a turn half played."""
    match = Match(script_setup({"seed": seed}, teams=default_teams()), Roster(), CELLS)
    while not (match.battle.phase == "attack" and match.battle.timer == 8):
        match.update()
    return match.frame


def default_teams():
    from stadium.app.viewer import default_teams as teams

    return teams(Roster())


def hashes(path: Path) -> list[tuple[str, str]]:
    return [tuple(line.split()[1:]) for line in path.read_text().splitlines()]


def test_a_battle_restored_in_a_fresh_process_continues_identically(tmp_path):
    at = mid_attack_step(SEED)
    state = tmp_path / "state.json"
    run("--seed", str(SEED), "--frames", f"{at + 1}:{at + 1 + FRAMES}", "--save-at", str(at),
        "--save", str(state), "--hashes", str(tmp_path / "original.txt"), cwd=tmp_path)
    saved = json.loads(state.read_text())
    assert saved["battle"]["phase"] == "attack" and saved["frame"] == at
    for battler in saved["battlers"]:
        assert bytes.fromhex(battler["graph"])[:4] == b"MAUL"     # a graph instance's Save
    run("--load", str(state), "--frames", f"{at + 1}:{at + 1 + FRAMES}", "--hashes",
        str(tmp_path / "restored.txt"), cwd=tmp_path)
    original, restored = hashes(tmp_path / "original.txt"), hashes(tmp_path / "restored.txt")
    assert len(original) == len(restored) == FRAMES
    differing = [k for k, (a, b) in enumerate(zip(original, restored)) if a != b]
    assert not differing, f"{len(differing)} frames differ, the first {differing[0] + 1} after the load"
    # and the stretch shows something happening: the impact, a hit, the next move
    assert len({h[1] for h in original}) > FRAMES // 2


def test_the_saved_graph_state_is_what_carries_the_animation():
    """Without the graphs' saved state the continuation differs: the check can fail."""
    roster = Roster()
    setup = script_setup({"seed": SEED}, teams=default_teams())
    match = Match(setup, roster, CELLS)
    for _ in range(mid_attack_step(SEED)):
        match.update()
    state = match.save()
    good = Match.load(json.loads(json.dumps(state)), roster, CELLS)
    broken_state = json.loads(json.dumps(state))
    for side, battler in enumerate(broken_state["battlers"]):
        fresh = Match(setup, roster, CELLS)
        fresh.send_out(side, battler["species"])
        battler["graph"] = bytes(fresh.battlers[side].instance.save()).hex()
    broken = Match.load(broken_state, roster, CELLS)
    same, other = 0, 0
    for _ in range(120):
        for m in (match, good, broken):
            m.update()
        same += match.digest() == good.digest()
        other += match.digest() == broken.digest()
    assert same == 120
    assert other < 60
