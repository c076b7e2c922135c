"""A battler's animation graph: its source, its JSON text under assets/graphs/, and the
graph built, opened and bound for one species.

    python -m stadium.battle.battler_graph       write assets/graphs/battler.json (and the
                                          crossfading variant battler_crossfade.json)

The graph is one state machine over seven clip nodes, one a role (stadium.rig.convert):

    sendout --finished--> standby_intro --finished--> standby (looping)
    any --attack1 / attack2--> attackN --finished--> standby_intro
    any --hit--> hit --finished--> standby_intro
    any --faint--> faint (final: the faint holds where it fell)
    any --sendOut--> sendout

Triggers start the actions; each attack clip lists "impact" where the blow lands, which
is the battle's cue to strike the defender. A time scale over the machine reads the
"speed" parameter (a developer's slow motion that the playheads obey), and above it an
inertialize node turns every state change into an inertialized blend lasting the
transition's fade. The crossfade variant leaves the inertialize node out, so the machine
crossfades instead, each fade as long.

The text names clip slots by role, so it binds to any species: each species builds its
own graph from the one text against its own skeleton and role clips.
"""
from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass
from pathlib import Path

import runtime as rt
from runtime.graph.source import (ClipLoop, ClipNode, ClipSlotSource, Condition, ConditionKind,
                                  Curve, GraphSource, InertializeNode, NodeKind, ParameterSource,
                                  ParameterType, StateMachineNode, TimeScaleNode, Transition)

from ..rig.convert import ROLES, RuntimeSpecies, runtime_species
from ..paths import ROOT

GRAPHS = ROOT / "assets" / "graphs"
BLENDS = ("inertialize", "crossfade")
FILES = {"inertialize": GRAPHS / "battler.json", "crossfade": GRAPHS / "battler_crossfade.json"}

TRIGGERS = ("sendOut", "attack1", "attack2", "hit", "faint")
SPEED = "speed"
MAX_SPEED = 4.0

# Fades, in seconds: how long each kind of state change blends (inertialized, or
# crossfaded in the variant). A send-out cuts: the creature appears.
SETTLE = 0.25            # back to standby after a send-out, an attack or a hit
STRIKE = 0.12            # into an attack
FLINCH = 0.08            # into a hit: the defender reacts at once
COLLAPSE = 0.2           # into a faint


def source(rts: RuntimeSpecies, blend: str = "inertialize") -> GraphSource:
    """The battler graph against one converted species."""
    if blend not in BLENDS:
        raise ValueError(f"blend is one of {BLENDS}, not {blend!r}")
    state = {role: k for k, role in enumerate(ROLES)}
    param = {name: k for k, name in enumerate(TRIGGERS + (SPEED,))}
    parameters = [ParameterSource(name, ParameterType.trigger) for name in TRIGGERS]
    parameters.append(ParameterSource(SPEED, ParameterType.float_, 1.0, 0.0, MAX_SPEED))
    clips = [ClipSlotSource(role, rts.clip(role)) for role in ROLES]
    nodes = [ClipNode(k, loop=ClipLoop.repeat if role == "standby" else ClipLoop.clamp)
             for k, role in enumerate(ROLES)]

    def trigger(name):
        return [Condition(ConditionKind.trigger, param[name])]

    finished = [Condition(ConditionKind.finished)]
    transitions = [
        Transition(state["sendout"], state["standby_intro"], duration=SETTLE, fade=Curve.smooth,
                   conditions=finished),
        Transition(state["standby_intro"], state["standby"], conditions=finished),
        Transition(None, state["attack1"], priority=1, duration=STRIKE, conditions=trigger("attack1")),
        Transition(None, state["attack2"], priority=1, duration=STRIKE, conditions=trigger("attack2")),
        Transition(None, state["hit"], priority=2, duration=FLINCH, conditions=trigger("hit")),
        Transition(None, state["faint"], priority=3, duration=COLLAPSE, fade=Curve.smooth,
                   conditions=trigger("faint")),
        Transition(None, state["sendout"], priority=4, conditions=trigger("sendOut")),
    ]
    for role in ("attack1", "attack2", "hit"):
        transitions.append(Transition(state[role], state["standby_intro"], duration=SETTLE,
                                      fade=Curve.smooth, conditions=finished))
    machine = len(nodes)
    nodes.append(StateMachineNode(list(range(len(ROLES))), transitions, entry=state["sendout"],
                                  finals=[state["faint"]]))
    nodes.append(TimeScaleNode(machine, 1.0, param[SPEED]))
    if blend == "inertialize":
        nodes.append(InertializeNode(machine + 1))
    return GraphSource(rts.skeleton, nodes, len(nodes) - 1, parameters, clips)


def text(blend: str = "inertialize", rts: RuntimeSpecies | None = None) -> str:
    """The JSON text of the battler graph (written against any species: it names roles)."""
    if rts is None:
        from ..rig.roster import Roster

        roster = Roster()
        rts = runtime_species(roster.load(roster.names[0]))
    return rt.write_graph_json(rt.Builder(), source(rts, blend))


def write_assets(folder: Path = GRAPHS) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for blend in BLENDS:
        path = folder / FILES[blend].name
        path.write_text(text(blend))
        written.append(path)
    return written


_TEXT: dict[str, bytes] = {}


def graph_text(blend: str = "inertialize") -> bytes:
    """The bundled JSON text (read once)."""
    found = _TEXT.get(blend)
    if found is None:
        path = FILES[blend]
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: run python -m stadium.battle.battler_graph")
        found = _TEXT[blend] = path.read_bytes()
    return found


@dataclass(eq=False)
class BattlerGraph:
    """The battler graph built for one species and bound to its role clips, with the
    places a battle and a debugger look things up by."""

    rts: RuntimeSpecies
    blend: str
    data: bytes
    graph: rt.Graph
    binding: rt.GraphBinding
    machine: int                 # file index of the state machine node
    states: list                 # file index of each state's node, in ROLES order
    clip_nodes: dict             # role -> file index of its clip node
    parameters: dict             # name -> parameter index
    places: list                 # file index -> the source's place

    def new_instance(self) -> rt.GraphInstance:
        return rt.GraphInstance(self.binding)


def build(rts: RuntimeSpecies, blend: str = "inertialize", text_bytes: bytes | None = None) -> BattlerGraph:
    """The graph from its JSON text, built against the species' skeleton, opened and bound."""
    named = rt.GraphNamedAssets(rts.skeleton, clips={role: rts.clip(role) for role in ROLES})
    data = rt.build_graph_json(rt.Builder(), text_bytes or graph_text(blend), named)
    graph = rt.Graph(data)
    rt.compile_graph_aside(graph)     # a first run: compiled there while updates compile here
    binding = rt.bind(graph, rt.GraphAssets(rts.skeleton, [rts.clip(r) for r in ROLES]))
    places = [graph.node_place(k) for k in range(graph.node_count)]
    machine = next(k for k in range(graph.node_count)
                   if graph.node_kind(k) == NodeKind.state_machine)
    states = graph.node_inputs(machine)
    clip_nodes = {}
    for k in states:
        assert graph.node_kind(k) == NodeKind.clip
        clip_nodes[graph.clip_name(graph.nodes[k].data.slot)] = k
    parameters = {graph.parameter_name(k): k for k in range(graph.parameter_count)}
    return BattlerGraph(rts, blend, data, graph, binding, machine, states, clip_nodes,
                        parameters, places)


_BUILT: "weakref.WeakKeyDictionary[RuntimeSpecies, dict]" = weakref.WeakKeyDictionary()


def battler_graph(rts: RuntimeSpecies, blend: str = "inertialize") -> BattlerGraph:
    """The species' battler graph, built once per blend."""
    found = _BUILT.setdefault(rts, {})
    if blend not in found:
        found[blend] = build(rts, blend)
    return found[blend]


def main(argv=None) -> int:
    for path in write_assets():
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
