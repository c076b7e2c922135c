"""runtime.capi's surface is honest: every listed name is a spec function, every pending one
says what it lacks, the README counts them, and no listed function reaches a stub."""
import ast
import inspect
import re
import textwrap
import types
from pathlib import Path

import pytest

import runtime
from runtime import capi

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT.parent / "shared" / "spec" / "functions.tsv"
FOUNDATION = {
    "maniGetVersion", "maniGetSimdBackend", "maniIsCpuBackendSupported", "maniCheckCpu",
    "maniHash64", "maniGetResultName", "maniDefaultBuilderDef", "maniCreateBuilder",
    "maniDestroyBuilder", "maniBuilder_GetMisuse", "maniBuildSkeleton", "maniBuilder_CopyBuilt",
    "maniBuilder_CopySkeletonOrder", "maniOpenSkeleton", "maniSkeleton_GetBoneCount",
    "maniSkeleton_GetIdentity", "maniSkeleton_GetParent", "maniSkeleton_GetSubtreeEnd",
    "maniSkeleton_GetRest", "maniSkeleton_GetBoneName", "maniSkeleton_FindBone",
    "maniSkeleton_GetPoseSize", "maniInitPose", "maniPose_GetBoneCount", "maniPose_GetLocal",
    "maniPose_SetLocal", "maniPose_ReadLocals", "maniPose_WriteLocals", "maniPose_SetRest",
    "maniPose_ComputeModel", "maniPose_IsModelCurrent", "maniPose_IsDifference",
    "maniPose_GetModel", "maniPose_ReadModels", "maniDecomposeAffine",
    "maniPose_GetModelTransform", "maniSkeleton_BlendPoses", "maniSkeleton_BuildMask",
    "maniSkeleton_ComputePoseDifference", "maniPose_AddLayers",
}


def spec_functions() -> dict[str, str]:
    """Function name -> header, from ../shared/spec/functions.tsv."""
    if not SPEC.exists():
        pytest.skip("../shared/spec is absent (it is on the developers' machines only)")
    rows = [line.split("\t") for line in SPEC.read_text().splitlines()[1:] if line.strip()]
    return {name.strip(): header.strip() for header, name in rows}


def test_foundation_is_complete():
    assert FOUNDATION <= set(capi.__all__) - set(capi.PENDING)


def test_listed_names_are_the_spec_functions_and_only_they_exist():
    spec = spec_functions()
    assert len(spec) == 324
    assert set(capi.__all__) <= set(spec)
    assert len(capi.__all__) == len(set(capi.__all__))
    for name in spec:
        assert hasattr(capi, name) == (name in capi.__all__), name


def test_pending_names_listed_functions_with_what_is_missing():
    assert set(capi.PENDING) <= set(capi.__all__)
    for name, missing in capi.PENDING.items():
        assert isinstance(missing, str) and len(missing) > 20, name


def test_readme_counts_complete_and_pending():
    text = (ROOT / "README.md").read_text()
    found = re.findall(r"(\d+) complete, (\d+) pending", text)
    assert found, "README.md must say 'N complete, M pending'"
    pending = len(capi.PENDING)
    assert found == [(str(len(capi.__all__) - pending), str(pending))]


# ---- walking the implementation --------------------------------------------------------------
# Empty on purpose, each with the reason; anything else empty that a listed function reaches
# is a stub.
DELIBERATELY_EMPTY = {
    "runtime.core.builder._default_free": "the default allocator's blocks are Python objects "
                                          "the collector frees: freeing one is nothing",
}
def _is_ours(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("runtime")


def _code_objects(obj):
    """The functions a runtime object carries: itself, or a class's methods and properties."""
    if isinstance(obj, type):
        for value in vars(obj).values():
            if isinstance(value, property):
                yield from (f for f in (value.fget, value.fset) if f is not None)
            elif isinstance(value, (staticmethod, classmethod)):
                yield value.__func__
            elif isinstance(value, types.FunctionType):
                yield value
    elif isinstance(obj, types.FunctionType):
        yield obj
    elif hasattr(obj, "py_func"):          # a numba kernel: its Python source
        yield obj.py_func


def _referenced(fn, tree):
    """Runtime objects a function's body names: globals, their attributes, and modules'."""
    scope = fn.__globals__
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in scope:
            yield scope[node.id]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = scope.get(node.value.id)
            if isinstance(base, (types.ModuleType, type)):
                target = getattr(base, node.attr, None)
                if target is not None:
                    yield target


def _is_stub(fn, tree) -> str | None:
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]         # the docstring
    if not body or all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and
                                                    isinstance(s.value, ast.Constant))
                       for s in body):
        return "an empty body"
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return "raises NotImplementedError"
    return None


def reachable(fn):
    """Every runtime function a capi function can reach through the names it uses."""
    seen, todo = {}, [fn]
    while todo:
        for code in _code_objects(todo.pop()):
            if id(code) in seen or not _is_ours(code):
                continue
            try:
                tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
            except (OSError, TypeError):
                continue
            if not (tree.body and isinstance(tree.body[0], (ast.FunctionDef,
                                                            ast.AsyncFunctionDef))):
                continue        # generated code (a dataclass's __init__): no source of its own
            seen[id(code)] = (code, tree)
            todo.extend(obj for obj in _referenced(code, tree) if _is_ours(obj))
    return list(seen.values())


def test_no_listed_function_reaches_a_stub():
    stubs = []
    walked = 0
    for name in capi.__all__:
        for code, tree in reachable(getattr(capi, name)):
            walked += 1
            why = _is_stub(code, tree)
            if why and f"{code.__module__}.{code.__qualname__}" not in DELIBERATELY_EMPTY:
                stubs.append(f"{name} -> {code.__module__}.{code.__qualname__}: {why}")
    assert not stubs, "\n".join(stubs)
    assert walked > 5 * len(capi.__all__)        # the walk really goes into the runtime


def test_walker_finds_a_stub(monkeypatch):
    """The walk is not blind: a stub two calls below a listed function is reported."""
    src = "def hidden():\n    raise NotImplementedError\n\n\ndef listed():\n    return hidden()\n"
    module = types.ModuleType("runtime._walker_probe")
    exec(compile(src, "<probe>", "exec"), module.__dict__)
    monkeypatch.setattr(inspect, "getsource", lambda obj: textwrap.dedent(
        src.split("\n\n\n")[0] if obj.__name__ == "hidden" else src.split("\n\n\n")[1]))
    found = [c.__name__ for c, tree in reachable(module.listed) if _is_stub(c, tree)]
    assert found == ["hidden"]


def test_pythonic_names_stand():
    for name in runtime.__all__:
        assert getattr(runtime, name) is not None, name
