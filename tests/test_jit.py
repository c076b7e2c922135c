"""runtime.core.jit: the one kernel decorator, and the word a program gets before it compiles."""
import importlib.util
import uuid

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
