"""Graph instances (maniGraphInstance): one buffer each, no pointers in it, so copying its
bytes copies the instance.

    offset  size  field
    0       4     magic b"GINS"
    4       4     layout version (1)
    8       8     identity of the graph
    16      8     instance size in bytes
    24      8     u32 s scalars, u32 p poses
    32      32    reserved, 0
    64      8 s   scalars: binary64 (graph/layout.py says which is which)
    ...     40 n p  poses: binary32, (p, n, 10) for n bones

An instance's `scalars` and `poses` are views of those bytes: its parameters, playheads,
machines' chains, timers and weights, and its pose parameters' and inertialize nodes'
poses. What they hold is the layout's business; a caller reads and sets them through the
methods (parameters, playheads, inspect, save and restore), or copies the whole instance
as the bytes of its `buffer`.

Parameters start at their defaults, playheads at 0, machines in their entry states, and
nothing is weighed until the first update.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import args, jit
from ..core.errors import InvalidError
from .binding import INSTANCE_HEADER, GraphBinding
from .build.check import parameter_value, whole
from .format import f32
from .limits import GRAPH_NONE
from .source import ParameterType, NodeKind
from .evaluate.eval import evaluate as _evaluate
from .evaluate.eval import evaluation_kernels
from .state import restore as _restore
from .state import save as _save
from .subset import evaluate_subset as _evaluate_subset
from .update.driver import update as _update
from .update.machine import machine_kernels
from ..core.memory import caller_block
from ..pose.pose import Pose

INSTANCE_MAGIC = 0x534E4947         # "GINS"
LAYOUT_VERSION = 1


@dataclass
class GraphValue:
    """maniGraphValue: b for bool and trigger, i for int, f for float (f[0]), vectors and
    quaternions. Reading a parameter fills the field of its type and leaves the others 0."""

    b: bool = False
    i: int = 0
    f: tuple = (0.0, 0.0, 0.0, 0.0)


@dataclass
class GraphNodeView:
    """maniGraphNodeView: what a node did in its last update. `state` and `transition` are
    a machine's current state and the transition under way (GRAPH_NONE when none or for
    another kind; an inertialize node's blend under way, from a switch beneath it or its
    trigger, is its transition 0); `progress` how far that transition's fade (or blend) has
    come; `playhead` a clip node's playhead, a one-shot's time or the time since an
    inertialize node's switch or a learned node's last projection; `failed` whether a learned
    node's model gave a value past the float range in its last update or evaluation."""

    kind: int = 0
    weight: float = 0.0
    root_weight: float = 0.0
    playhead: float = 0.0
    state: int = GRAPH_NONE
    transition: int = GRAPH_NONE
    progress: float = 0.0
    failed: bool = False


class GraphInstance:
    """An instance of a bound graph, in caller memory or its own: `buffer` its bytes,
    `scalars` and `poses` the state in them (the module's layout)."""

    def __init__(self, binding: GraphBinding, memory=None, size: int | None = None):
        if not isinstance(binding, GraphBinding):
            raise InvalidError("not a graph binding")
        need = binding.instance_bytes
        size = None if size is None else args.count(size, "size")
        buf = caller_block(memory, size, need, "an instance")
        head = buf[:INSTANCE_HEADER]
        head[...] = 0
        head[0:8].view("<u4")[:] = (INSTANCE_MAGIC, LAYOUT_VERSION)
        head[8:24].view("<u8")[:] = (binding.graph.identity, need)
        head[24:32].view("<u4")[:] = (binding.layout.size, binding.layout.pose_count)
        self._views(binding, buf)
        self.scalars[:] = binding.initial
        self.poses[...] = binding.rests
        for first in binding.layout.inertial_poses.values():
            self.poses[first + 3] = 0.0         # no velocity

    @classmethod
    def attach(cls, binding: GraphBinding, memory) -> "GraphInstance":
        """An instance over bytes that already hold one of this binding's graph."""
        if not isinstance(binding, GraphBinding):
            raise InvalidError("not a graph binding")
        buf = caller_block(memory, None, binding.instance_bytes, "an instance")
        magic, version = buf[0:8].view("<u4")
        identity, size = buf[8:24].view("<u8")
        if magic != INSTANCE_MAGIC or version != LAYOUT_VERSION or identity != binding.graph.identity \
                or size != binding.instance_bytes:
            raise InvalidError("not the bytes of an instance of this graph")
        self = cls.__new__(cls)
        self._views(binding, buf)
        return self

    def _views(self, binding: GraphBinding, buf: np.ndarray) -> None:
        L = binding.layout
        n = binding.skeleton.bone_count
        self.binding = binding
        self.buffer = buf[:binding.instance_bytes]
        end = INSTANCE_HEADER + 8 * L.size
        self.scalars = self.buffer[INSTANCE_HEADER:end].view("<f8")
        self.poses = self.buffer[end:end + 40 * n * L.pose_count].view("<f4").reshape(L.pose_count, n, 10)

    @property
    def size(self) -> int:
        return self.buffer.size

    # ---- parameters
    def _parameter(self, parameter) -> int:
        g = self.binding.graph
        k = args.integer(parameter, "parameter")
        if not 0 <= k < len(g.parameters):
            raise InvalidError(f"parameter {k} past the count")
        return k

    def set_parameter(self, parameter, type_, value) -> None:
        """maniGraphInstance_SetParameter: bool and trigger 0 or 1, int and float clamped to
        their bounds, vectors finite, a quaternion normalized; nothing changed on failure."""
        k = self._parameter(parameter)
        p = self.binding.graph.parameters[k]
        try:
            t = ParameterType(args.integer(type_, "type"))
        except ValueError:
            raise InvalidError(f"type {type_!r} unknown") from None
        if t != p.type:
            raise InvalidError(f"parameter {k} is a {p.type.name.rstrip('_')}, not a {t.name.rstrip('_')}")
        if t == ParameterType.pose:
            raise InvalidError("a pose parameter is set with set_pose")
        if isinstance(value, GraphValue):
            value = value.b if t in (ParameterType.bool_, ParameterType.trigger) else \
                value.i if t == ParameterType.int_ else value.f[0] if t == ParameterType.float_ else \
                value.f[:{ParameterType.vector2: 2, ParameterType.vector3: 3}.get(t, 4)]
        if t == ParameterType.float_ and not isinstance(value, (list, tuple, np.ndarray)):
            x = args.finite(value, "value")
            if p.bounds is not None:
                x = min(max(x, p.bounds[0]), p.bounds[1])
            v = parameter_value(t, f32(x) if abs(x) < 3.4e38 else x)
        elif t == ParameterType.int_:
            x = whole(value)
            if x is not None and p.bounds is not None:
                x = min(max(x, int(p.bounds[0])), int(p.bounds[1]))
            v = None if x is None else parameter_value(t, x)
        else:
            v = parameter_value(t, value)
        if v is None:
            raise InvalidError(f"a value out of form for a {t.name.rstrip('_')}")
        at = self.binding.parameter_base + 4 * k
        self.scalars[at:at + 4] = v

    def get_parameter(self, parameter) -> GraphValue:
        """maniGraphInstance_GetParameter (a pose parameter's b: whether one is set)."""
        k = self._parameter(parameter)
        t = self.binding.graph.parameters[k].type
        at = self.binding.parameter_base + 4 * k
        v = self.scalars[at:at + 4].tolist()
        if t in (ParameterType.bool_, ParameterType.trigger, ParameterType.pose):
            return GraphValue(b=bool(v[0]))
        if t == ParameterType.int_:
            return GraphValue(i=int(v[0]))
        return GraphValue(f=tuple(v))

    def set_pose(self, parameter, pose: Pose) -> None:
        """maniGraphInstance_SetPose: a pose parameter takes the pose's locals (copied)."""
        k = self._pose_parameter(parameter)
        if not isinstance(pose, Pose) or not pose.of(self.binding.skeleton):
            raise InvalidError("not a pose of the graph's skeleton")
        if pose.is_difference:
            raise InvalidError("a difference")
        self.poses[self.binding.layout.pose_parameters[k]] = pose.locals
        self.scalars[self.binding.parameter_base + 4 * k] = 1.0

    def get_pose(self, parameter, out: Pose) -> None:
        """maniGraphInstance_GetPose: a pose parameter's locals (the rest pose until set)."""
        k = self._pose_parameter(parameter)
        if not isinstance(out, Pose) or not out.of(self.binding.skeleton):
            raise InvalidError("not a pose of the graph's skeleton")
        out.locals[...] = self.poses[self.binding.layout.pose_parameters[k]]
        out.mark_kind(False)

    def _pose_parameter(self, parameter) -> int:
        k = self._parameter(parameter)
        if self.binding.graph.parameters[k].type != ParameterType.pose:
            raise InvalidError(f"parameter {k} is not a pose parameter")
        return k

    # ---- playheads
    def playhead(self, node) -> float:
        """A clip node's playhead: seconds into its clip, in [0, the clip's duration]."""
        return float(self.scalars[self._playhead_at(node)])

    def set_playhead(self, node, seconds) -> None:
        """Puts a clip node's playhead at `seconds` into its clip, in [0, the clip's duration].
        It is a jump, not play: the playhead is also where the next update moves it from, so
        that update lists the events and moves the root motion of its own step only, none of
        the time jumped over. A sync group's
        follower is put back at its leader's phase by the next update (listing what it passes
        on the way, as a follower does), and a seek reaching the node puts it at the seek's
        time. Refused (InvalidError, nothing changed): a node that is not a clip node,
        seconds not a number, not finite or outside the clip."""
        at = self._playhead_at(node)
        t = args.finite(seconds, "seconds")
        run = self.binding.runs[self._node(node)]
        if not 0.0 <= t <= run.duration:
            raise InvalidError(f"seconds {t} outside the clip's [0, {run.duration}]")
        self.scalars[at] = t

    def _playhead_at(self, node) -> int:
        k = self._node(node)
        kind = self.binding.graph.nodes[k].kind
        if kind != NodeKind.clip:
            raise InvalidError(f"node {k} is a {kind.name} node, not a clip node")
        return self.binding.layout.nodes[k] + 2

    def _node(self, node) -> int:
        k = args.integer(node, "node")
        if not 0 <= k < len(self.binding.graph.nodes):
            raise InvalidError(f"node {k} past the count")
        return k

    # ---- inspection
    def inspect(self, node) -> GraphNodeView:
        """maniGraphInstance_InspectNode."""
        g = self.binding.graph
        k = self._node(node)
        base = self.binding.layout.nodes[k]
        kind = g.nodes[k].kind
        view = GraphNodeView(int(kind), float(self.scalars[base]), float(self.scalars[base + 1]))
        if kind == NodeKind.clip:
            view.playhead = float(self.scalars[base + 2])
        elif kind == NodeKind.one_shot:
            view.playhead = float(self.scalars[base + 3])
        elif kind == NodeKind.motion_matching:          # the playing entry's clip time
            view.playhead = float(self.scalars[base + 4])
        elif kind == NodeKind.learned_motion_matching:     # the time since its last projection
            r = self.binding.runs[k]
            view.playhead = float(self.scalars[r.since])
            view.failed = bool(self.scalars[r.failed])
        elif kind == NodeKind.inertialize:
            at = base + 2
            if self.scalars[at] or self.scalars[at + 1]:        # active, or pending its first evaluation
                time, duration = float(self.scalars[at + 2]), float(self.scalars[at + 3])
                view.transition = 0
                view.playhead = time
                view.progress = min(1.0, time / duration) if duration > 0 else 1.0
        elif kind == NodeKind.state_machine:
            m = self.binding.runs[k]
            L = int(self.scalars[m.at["length"]])
            view.state = int(self.scalars[m.at["states"] + L])
            if L:
                t = int(self.scalars[m.at["transitions"] + L - 1])
                view.transition = t
                duration = m.transitions[t].duration
                view.progress = min(1.0, float(self.scalars[m.at["elapsed"] + L - 1]) / duration) if duration > 0 else 1.0
        return view

    # ---- time and poses
    def update(self, delta, capacity=None):
        """maniGraphInstance_Update: (events, event count, root move)."""
        return _update(self, delta, capacity)

    def evaluate(self, out: Pose, scratch=None) -> None:
        """maniGraphInstance_Evaluate."""
        _evaluate(self, out, scratch)

    def evaluate_subset(self, plan, out: Pose, scratch=None) -> None:
        """maniGraphInstance_EvaluateSubset."""
        _evaluate_subset(self, plan, out, scratch)

    def save(self, out=None):
        """maniGraphInstance_Save: the state's bytes, or into `out` its size."""
        return _save(self, out)

    def restore(self, data) -> None:
        """maniGraphInstance_Restore."""
        _restore(self, data)


def compile_graph_aside(graph) -> None:
    """Starts compiling the kernels of one declared signature an update and an evaluation of
    `graph` call, those the kernel cache lacks, in another process (jit.compile_aside), in
    the order an update and an evaluation first need them: a program's first run on a
    machine compiles the update's other kernels here meanwhile, on two cores."""
    jit.compile_aside(machine_kernels(graph) + evaluation_kernels(graph))
