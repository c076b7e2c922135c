"""The walls between layers (ARCHITECTURE.md), read from the import graph: the ast of every
module, imports inside functions included, relative imports resolved."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GL_AND_WINDOWS = ("moderngl", "pygame", "imgui_bundle", "imgui")
# runtime's packages, top down: each may import only those before it (and itself)
# (mapping and importers take only core, pose and clip; the graph takes mapping)
RUNTIME_LAYERS = ("core", "pose", "clip", "mapping", "deform", "ik", "physics", "matching", "learned", "importers", "graph",
                  "samples", "capi")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names a module imports: each `import a.b` and `from a import b` gives a.b
    (and a); `runtime.capi` used as an attribute of an imported runtime counts too."""
    package = module if is_package else module.rpartition(".")[0]
    found, aliases = set(), {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                found.add(a.name)
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            found.add(origin)
            for a in node.names:
                found.add(f"{origin}.{a.name}")
                aliases[a.asname or a.name] = f"{origin}.{a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            origin = aliases.get(node.value.id)
            if origin:
                found.add(f"{origin}.{node.attr}")
    return found


def breaks(module: str, names: set[str]) -> list[str]:
    """The walls a module's imports break, as sentences."""
    def hits(prefixes):
        return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))

    out = []
    if module.split(".")[0] == "runtime":
        out += [f"runtime imports {n}" for n in hits(("stadium", "mujoco") + GL_AND_WINDOWS)]
        if not module.startswith("runtime.capi"):
            out += [f"a Pythonic module imports {n}" for n in hits(("runtime.capi",))]
        layer = module.split(".")[1] if module.count(".") else None
        if layer in RUNTIME_LAYERS:
            below = RUNTIME_LAYERS[RUNTIME_LAYERS.index(layer) + 1:]
            out += [f"runtime.{layer} imports {n}, a layer below it" for n in
                    hits(tuple(f"runtime.{b}" for b in below))]
    if module.split(".")[0] in ("stadium", "run_battle"):
        out += [f"the product uses {n}" for n in hits(("runtime.capi",))]
    if module.startswith(("stadium.rig", "stadium.battle")):
        out += [f"{module} imports {n}" for n in
                hits(GL_AND_WINDOWS + ("stadium.render", "stadium.app", "stadium.inspect",
                                       "stadium.roam"))]
    if module.startswith("stadium.roam"):
        out += [f"{module} imports {n}" for n in hits(("stadium.app", "stadium.inspect"))]
    if module.split(".")[0] in ("stadium", "run_battle") and not module.startswith("stadium.physics"):
        out += [f"{module} imports {n}, the engine only stadium.physics takes" for n in
                hits(("mujoco",))]
    if module.startswith("stadium.physics"):
        out += [f"{module} imports {n}" for n in
                hits(GL_AND_WINDOWS + ("stadium.render", "stadium.app", "stadium.battle",
                                       "stadium.inspect", "stadium.roam"))]
    if module.startswith("stadium.render"):
        out += [f"{module} imports {n}" for n in hits(("stadium.battle", "stadium.app",
                                                       "stadium.inspect", "stadium.roam"))]
    return out


def test_no_module_breaks_a_wall():
    broken = []
    paths = [p for top in ("runtime", "stadium") for p in (ROOT / top).rglob("*.py")]
    for path in paths + [ROOT / "run_battle.py"]:
        module = module_name(path)
        names = imports(path.read_text(), module, path.name == "__init__.py")
        broken += [f"{path.relative_to(ROOT)}: {why}" for why in breaks(module, names)]
    assert len(paths) > 80
    assert not broken, "\n".join(broken)


def test_each_wall_is_seen():
    """Each rule catches its break, in every import form."""
    cases = {
        ("runtime.pose.blend", False, "import pygame"): "runtime imports pygame",
        ("runtime.clip.clip", False, "def f():\n    from stadium.rig import pack"): "runtime imports stadium",
        ("runtime.graph", True, "from ..capi import maniOpenGraph"): "a Pythonic module imports runtime.capi",
        ("stadium.battle.battler_graph", False, "from runtime import capi"): "the product uses runtime.capi",
        ("stadium.battle.battler_graph", False, "import runtime as rt\nrt.capi.maniOpenGraph"):
            "the product uses runtime.capi",
        ("runtime.pose.pose", False, "from ..clip.clip import Clip"): "a layer below it",
        ("runtime.core.names", False, "def f():\n    import runtime.graph"): "a layer below it",
        ("stadium.rig.rig", False, "from ..render import voxel3d"): "imports stadium.render",
        ("stadium.battle.match", False, "import moderngl"): "imports moderngl",
        ("stadium.render.hud", False, "from ..battle.match import Hud"): "imports stadium.battle",
        ("stadium.roam.scene", False, "from ..app import viewer"): "imports stadium.app",
        ("stadium.battle.match", False, "from ..roam import scene"): "imports stadium.roam",
        ("stadium.render.voxel3d", False, "from stadium.app import viewer"): "imports stadium.app",
        ("stadium.render.voxel3d", False, "from stadium.inspect import figure"):
            "imports stadium.inspect",
        ("stadium.inspect.figure", False, "from runtime import capi"): "the product uses runtime.capi",
        ("runtime.physics.ragdoll", False, "import mujoco"): "runtime imports mujoco",
        ("stadium.battle.match", False, "import mujoco"): "the engine only stadium.physics takes",
        ("stadium.physics.ragdoll_engine", False, "from ..render import voxel3d"):
            "imports stadium.render",
        ("stadium.physics.ragdoll_engine", False, "from stadium.battle import match"):
            "imports stadium.battle",
    }
    for (module, package, source), expected in cases.items():
        found = breaks(module, imports(source, module, package))
        assert any(expected in why for why in found), (module, source, found)
    assert breaks("runtime.capi._graph", imports("from ..graph import Graph", "runtime.capi._graph",
                                                 False)) == []
    assert breaks("stadium.app.viewer", imports("from ..battle import match\nimport moderngl",
                                                "stadium.app.viewer", False)) == []
    assert breaks("stadium.inspect.stage", imports("from ..render.gfx import Graphics\nimport moderngl",
                                                   "stadium.inspect.stage", False)) == []
    assert breaks("stadium.battle.match", imports("from stadium.physics import RagdollEngine",
                                                  "stadium.battle.match", False)) == []
    assert breaks("stadium.physics.ragdoll_engine", imports(
        "import mujoco\nfrom runtime.physics import Ragdoll", "stadium.physics.ragdoll_engine",
        False)) == []
