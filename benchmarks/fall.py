"""Figures for the faint as a fall (stadium.battle.fall): what a falling creature costs a
step and how long each species takes to come to rest.

    fall_step_us_<species>     per 60 Hz step while the creature falls, its battler's whole
                               step: the graph's update and evaluation, the engine (MuJoCo
                               at 480 Hz, drives toward the faint clip), the pose from the
                               bodies, the skin lifted onto the ground, the rig skinned
    fall_rest_seconds_<species>  from the faint's trigger until the fall is at rest and set
                               on the ground (the battle waits this long); bounded by
                               LONGEST + SETTLE
    battle_update_two_falling_us  benchmarks/battle.py's battle_update_two_us pair while
                               Ripplewyrm falls and Flitwren stands by (springs on)

    python benchmarks/fall.py
"""
import statistics
import sys
import time
from pathlib import Path

from _figures import emit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from stadium.battle.fall import LONGEST, SETTLE  # noqa: E402
from stadium.rig.roster import Roster  # noqa: E402
from test_battle_fall import DT, fainting, step  # noqa: E402

from battle import two_battlers  # noqa: E402


def one_fall(name: str) -> tuple[list[float], float]:
    """Each falling step's seconds, and the seconds until the fall is over."""
    b = fainting(name)
    steps = []
    while not b.fainted():
        start = time.perf_counter()
        step(b)
        steps.append(time.perf_counter() - start)
    return steps, len(steps) * DT


def falling_pair_us(repeats: int = 5, frames: int = 60) -> float:
    """Two battlers a step, the first (Ripplewyrm) falling: the median over repeats of
    the mean of its first `frames` falling steps."""
    runs = []
    for _ in range(repeats):
        pair = two_battlers("runtime")
        battlers = pair.battlers
        battlers[0].trigger("faint")
        while battlers[0].fall is None:
            pair()
        start = time.perf_counter()
        for _ in range(frames):
            pair()
        runs.append((time.perf_counter() - start) / frames * 1e6)
    return statistics.median(runs)


def main():
    for name in Roster().names:
        runs = [one_fall(name) for _ in range(3)]
        seconds = runs[0][1]
        assert all(r[1] == seconds for r in runs), "a fall took another time on another run"
        cost = statistics.median(statistics.mean(r[0]) for r in runs) * 1e6
        print(f"{name}: {cost:.0f} us a falling step, at rest after {seconds:.2f} s")
        emit(f"fall_step_us_{name}", cost, "us", "lower")
        emit(f"fall_rest_seconds_{name}", seconds, "s", "lower", LONGEST + SETTLE)
    emit("battle_update_two_falling_us", falling_pair_us(), "us", "lower", 1500)


if __name__ == "__main__":
    main()
