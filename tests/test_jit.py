"""runtime.core.jit: the one kernel decorator, and the word a program gets before it compiles."""
import importlib.util
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np

from runtime.core import jit


def fresh_kernel_module(tmp_path):
    """A module of one kernel under a new name, so nothing of it is cached yet."""
    name = f"fresh_{uuid.uuid4().hex}"
    path = tmp_path / f"{name}.py"
    path.write_text("from runtime.core.jit import kernel\n\n\n@kernel\ndef twice(a):\n    return a.sum() * 2\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_first_compile_is_announced_once(tmp_path):
    said = []
    jit.on_first_compile(lambda: said.append("compiling"))
    module = fresh_kernel_module(tmp_path)
    assert said == []                       # compiling waits for the first call
    assert module.twice(np.ones(3)) == 6.0
    assert said == ["compiling"]
    module.twice(np.ones(3, dtype=np.int64))   # another compile: nothing more said
    fresh_kernel_module(tmp_path).twice(np.ones(2))
    assert said == ["compiling"]


def test_a_cached_kernel_is_not_announced(tmp_path):
    fresh = fresh_kernel_module(tmp_path)
    fresh.twice(np.ones(3))                 # compiled and written to the cache
    said = []
    jit.on_first_compile(lambda: said.append("compiling"))
    spec = importlib.util.spec_from_file_location(fresh.__name__ + "_again", fresh.__file__)
    again = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(again)
    assert again.twice(np.ones(3)) == 6.0   # loaded from the cache beside the file
    assert said == []
    jit.on_first_compile(None)


PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from runtime.core import jit
compiled = []
jit.on_first_compile(lambda: compiled.append(True))
from runtime.pose.blend import _inherit
subtree = np.array([1.0, np.nan])
_inherit(np.array([0, 0], np.uint32), subtree)
assert jit.__file__.startswith(sys.argv[1]) and subtree[1] == 1.0
print("compiled" if compiled else "loaded")
"""


def probe(copy, cache) -> str:
    """Whether a process importing the runtime from `copy` compiles a kernel or loads it."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(cache)
    done = subprocess.run([sys.executable, "-c", PROBE, str(copy)], env=env, check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def test_clones_of_the_same_sources_share_the_cache_and_others_do_not(tmp_path):
    source = Path(jit.__file__).resolve().parents[1]
    copies = []
    for name in ("first", "second"):
        shutil.copytree(source, tmp_path / name / "runtime",
                        ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(tmp_path / name)
    cache = tmp_path / "cache"
    assert probe(copies[0], cache) == "compiled"
    assert probe(copies[1], cache) == "loaded"          # another clone, the same sources
    with open(copies[1] / "runtime" / "core" / "limits.py", "a") as f:
        f.write("\n# another version of the sources\n")
    assert probe(copies[1], cache) == "compiled"        # never code built from other sources
    assert probe(copies[0], cache) == "loaded"          # both versions kept
    assert len(list((cache / "maul-anim" / "kernels").iterdir())) == 2
    assert not list(copies[0].rglob("*.nbi"))           # nothing written beside the sources
