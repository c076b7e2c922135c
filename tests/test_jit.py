"""runtime.core.jit: the one kernel decorator, and the word a program gets before it compiles."""
import importlib.util
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import numpy as np
import pytest

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


def kernel_module(tmp_path, body: str):
    """A module of kernels under a new name, importable by that name from tmp_path (as
    compile_aside's other process imports it), nothing of it cached yet."""
    name = f"fresh_{uuid.uuid4().hex}"
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nfrom runtime.core.jit import kernel, reads\n\n" + body)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


def test_a_constant_argument_compiles_the_plain_type_once(tmp_path):
    module = kernel_module(tmp_path, (
        "@kernel\ndef pick(a, k):\n    return a[k]\n\n\n"
        "@kernel\ndef ends(a):\n    return pick(a, 0) + pick(a, -1) + pick(a, a.size - 1)\n"))
    assert module.ends(np.array([1.0, 2.0, 4.0])) == 9.0
    assert [str(t) for t in module.pick.signatures[0]][1] == "int64"
    assert len(module.pick.signatures) == 1         # not one per literal 0, -1


def _begun(aside, k) -> None:
    """Until the other process has taken k from its queue."""
    with aside.changed:
        aside.changed.wait_for(lambda: k not in aside.queue or aside.ended)
    assert not aside.ended


@pytest.fixture
def own_aside(monkeypatch):
    """A new other process for the test, started with its PYTHONPATH, stopped after it."""
    monkeypatch.setattr(jit, "_aside", [])
    yield
    for aside in jit._aside:
        aside.stop()


def test_a_kernel_compiled_aside_is_loaded_here_not_compiled(tmp_path, monkeypatch, own_aside):
    module = kernel_module(tmp_path, (
        "@kernel(signature=(reads(np.float64, 1),))\ndef total(a):\n    return a.sum()\n"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    jit.compile_aside([module.total, module.total])
    aside = jit._ASIDE[module.total]
    _begun(aside, module.total)
    said = []
    jit.on_first_compile(lambda: said.append("compiling"))
    assert module.total(np.ones(3)) == 3.0          # waits for the other process, then loads
    jit.on_first_compile(None)
    assert said == [] and module.total not in jit._ASIDE
    jit.compile_aside([module.total])               # held here already: nothing queued
    assert module.total not in jit._ASIDE and module.total not in aside.queue


def test_a_kernel_compiled_aside_waits_for_itself_not_for_the_queue(tmp_path, monkeypatch, own_aside):
    """While the other process stalls on one kernel, one queued behind it is compiled here
    (not waited for), and one it has cached is loaded though the process is still busy."""
    first = kernel_module(tmp_path, (
        "@kernel(signature=(reads(np.float64, 1),))\ndef total(a):\n    return a.sum()\n"))
    slow = kernel_module(tmp_path, (
        "import os, time\nif os.environ.get('SLOW_ASIDE'):\n    time.sleep(300)\n\n\n"
        "@kernel(signature=(reads(np.float64, 1),))\ndef total(a):\n    return a.max()\n"))
    behind = kernel_module(tmp_path, (
        "@kernel(signature=(reads(np.float64, 1),))\ndef total(a):\n    return a.min()\n"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("SLOW_ASIDE", "1")          # the other process stalls on the second
    jit.compile_aside([first.total, slow.total, behind.total])
    aside = jit._ASIDE[first.total]
    _begun(aside, slow.total)                       # first is cached, slow begun
    said = []
    jit.on_first_compile(lambda: said.append("compiling"))
    assert first.total(np.ones(3)) == 3.0 and said == []     # loaded from the cache
    assert behind.total(np.arange(3.0)) == 0.0 and said == ["compiling"]   # compiled here
    jit.on_first_compile(None)
    assert aside.current is slow.total and aside.queue == []
    del jit._ASIDE[slow.total]


def test_only_declared_kernels_compile_aside(tmp_path):
    module = kernel_module(tmp_path, "@kernel\ndef total(a):\n    return a.sum()\n")
    try:
        jit.compile_aside([module.total])
    except ValueError as refused:
        assert "declared signature" in str(refused)
    else:
        raise AssertionError("a kernel of no declared signature was sent aside")


def test_a_declared_kernel_is_dispatched_without_python_after_its_first_call(tmp_path, monkeypatch):
    """The first call (compiling) and each first call of another type than declared (to be
    converted) reach the Python side of the dispatch; every other call is numba's own."""
    module = kernel_module(tmp_path, (
        "from runtime.core.jit import scalar\n\n\n"
        "@kernel(signature=(reads(np.float64, 1), scalar(np.int64)))\n"
        "def pick(a, k):\n    return a[k]\n"))
    entered = []
    python_side = jit._Declared._compile_for_args
    monkeypatch.setattr(jit._Declared, "_compile_for_args",
                        lambda self, *args: entered.append(args) or python_side(self, *args))
    writable, read_only = np.arange(4.0), jit.array(np.arange(4.0) * 2, np.float64)
    for _ in range(3):          # of the declared type exactly, and converted to it
        assert module.pick(read_only, 1) == 2.0 and module.pick(writable, 1) == 1.0
    assert len(entered) == 2


def test_the_per_frame_kernels_classes_list_can_compile_aside():
    """What a first battle sends aside (stadium.battle.secondary.compile_aside): each of one
    declared signature, else compile_aside refuses it."""
    import runtime as rt

    listed = (rt.SpringState.kernels + rt.AimSolve.kernels + rt.TwoBoneSolve.kernels
              + rt.BlendLayer.kernels)
    assert len(listed) == 5
    for k in listed:
        assert isinstance(k, jit._Declared) and k.declared is not None, k.py_func.__qualname__
