"""Figures for compiling: what a new user waits for, and how many specialisations numba
makes of the kernels.

    first_run_s            `run_battle.py --headless` on the bundled default, in a fresh
                           `git clone` of this repository's HEAD with an empty kernel cache
                           (XDG_CACHE_HOME pointed at a new folder, NUMBA_CACHE_DIR unset),
                           the interpreter and its packages already installed: wall time
                           from start until its frames are written
    jit_specialisations    the specialisations of every kernel (`python -m runtime.core.jit
                           --report`) after the runtime's own tests, run in a fresh clone
                           with an empty cache, so the kernels a caller compiles count too

    python benchmarks/first_run.py
"""
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _figures import emit

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_TESTS = ["tests/test_skin*.py", "tests/test_pose.py",
                 "tests/test_blend.py", "tests/test_skeleton.py", "tests/test_clip_*.py",
                 "tests/test_rootmotion.py", "tests/test_morph.py", "tests/test_graph_*.py"]


def fresh_clone(folder: Path) -> tuple[Path, dict]:
    """A clone of HEAD in `folder`, and an environment whose kernel cache is empty."""
    clone = folder / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(folder / "cache")
    return clone, env


def first_run_s() -> float:
    with tempfile.TemporaryDirectory() as folder:
        clone, env = fresh_clone(Path(folder))
        start = time.perf_counter()
        subprocess.run([sys.executable, "run_battle.py", "--headless", "--out",
                        str(Path(folder) / "frames")], cwd=clone, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def jit_specialisations() -> int:
    with tempfile.TemporaryDirectory() as folder:
        clone, env = fresh_clone(Path(folder))
        tests = sorted({str(p.relative_to(clone)) for pattern in RUNTIME_TESTS
                        for p in clone.glob(pattern)})
        done = subprocess.run([sys.executable, "-m", "runtime.core.jit", "--report", "-m",
                               "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                              cwd=clone, env=env, check=True, capture_output=True, text=True)
        return int(re.search(r"^\s*(\d+)\s+specialisations of", done.stdout, re.M).group(1))


if __name__ == "__main__":
    emit("first_run_s", first_run_s(), "s", "lower", 10)
    emit("jit_specialisations", jit_specialisations(), "count", "lower")
