"""Subset plans (maniPlanGraphSubset): evaluating some bones of a graph's pose, bit for bit
as a full evaluation writes them.

A plan holds the bones listed, every ancestor of them (so their model pass is right) and,
to a fixed point, every bone the graph's nodes read to write them. The node kinds of this
release (clips, blends, spaces, masks, additive layers, selects, time scales, seeks,
machines, one-shots, inertialization, pose parameters) write each bone from the same bone
of their inputs, so the fixed point is the ancestors' closure widened by the kinds that
read other bones: under a mirror node each planned bone's partner; for an IK node writing
a planned bone its chain (its end's root path: graph/solving.py); for a springs node
writing a planned bone its set's joints, colliders' bones and centers (graph/springs.py);
for a full-body node whose part holds a planned bone its paths from its top to its
effectors (the effectors' root paths). An IK, full-body or springs node writing no planned
bone does not run under the plan (it passes its input on; a set not stepped). Its memory:

    0   u32 magic b"GSUB", u32 bone count, u64 the graph's identity
    16  u32 reserved 0 (four)
    32  u32[count] the bones, increasing
"""
from __future__ import annotations

import numpy as np

from ..core import args
from ..core.errors import InvalidError
from .binding import GraphBinding
from .evaluate.eval import evaluate
from ..core.limits import NO_BONE
from ..core.memory import caller_block
from .format import SOLVER_KINDS
from .solving import solver_bones
from .springs import read_bones, written_bones
from .source import NodeKind

SUBSET_MAGIC = 0x42555347           # "GSUB"
SUBSET_HEADER = 32


def subset_size(binding: GraphBinding) -> int:
    """maniGraphBinding_GetSubsetSize: the plan's bytes, whatever its bones."""
    return SUBSET_HEADER + 4 * binding.skeleton.bone_count


class GraphSubset:
    """A plan of some bones of a binding's graph (maniGraphSubset)."""

    def __init__(self, binding: GraphBinding, bones, memory=None, size: int | None = None):
        if not isinstance(binding, GraphBinding):
            raise InvalidError("not a graph binding")
        listed = _bones(bones)
        n = binding.skeleton.bone_count
        if listed and (listed[0] < 0 or listed[-1] >= n or any(b <= a for a, b in zip(listed, listed[1:]))):
            raise InvalidError("bones out of range or not increasing")
        size = None if size is None else args.count(size, "size")
        buf = None if memory is None else caller_block(memory, size, subset_size(binding), "a plan")
        self.bones = planned(binding, listed)
        self.binding = binding
        if buf is not None:
            buf[:SUBSET_HEADER] = 0
            buf[0:8].view("<u4")[:] = (SUBSET_MAGIC, self.bones.size)
            buf[8:16].view("<u8")[0] = binding.graph.identity
            buf[SUBSET_HEADER:SUBSET_HEADER + 4 * self.bones.size].view("<u4")[:] = self.bones
        self.buffer = buf
        self.evaluation = None          # graph_eval's steps on these bones, made on first use

    def get_bones(self) -> np.ndarray:
        """maniGraphSubset_GetBones: the bones the plan evaluates and writes, increasing."""
        return self.bones.astype(np.uint32)


def planned(binding: GraphBinding, listed) -> np.ndarray:
    """The bones listed, their ancestors and what the nodes read to write them, to a fixed
    point, increasing."""
    sk = binding.skeleton
    keep = np.zeros(sk.bone_count, dtype=bool)
    kinds = {node.kind for node in binding.graph.nodes}
    partners = binding.mirror_map.partners if NodeKind.mirror in kinds else None
    chains = [solver_bones(sk, node) for node in binding.graph.nodes if node.kind in SOLVER_KINDS]
    sets = [binding.spring_sets[node.data.slot] for node in binding.graph.nodes
            if node.kind == NodeKind.springs]
    springs = [(written_bones(s), read_bones(s)) for s in sets]
    bodies = [(p.part, p.part[p.eff_slot]) for p in binding.bodies.values()]
    todo = list(listed)
    while todo:
        for bone in todo:
            while bone != NO_BONE and not keep[bone]:
                keep[bone] = True
                bone = sk.parent(bone)
        todo = []
        if partners is not None:
            todo += [int(p) for p in partners[keep] if not keep[p]]
        todo += [end for written, end in chains if not keep[end] and keep[written].any()]
        todo += [int(r) for written, read in springs if keep[written].any() for r in read if not keep[r]]
        todo += [int(r) for part, ends in bodies if keep[part].any() for r in ends if not keep[r]]
    return np.flatnonzero(keep).astype(np.intp)


def _bones(bones) -> list[int]:
    """The bones listed, as ints: a flat list, tuple or array of integers."""
    if bones is None or isinstance(bones, (str, bytes, bytearray, memoryview, dict, set)):
        raise InvalidError(f"bones must be a list of bones, not {type(bones).__name__}")
    if isinstance(bones, np.ndarray) and bones.ndim != 1:
        raise InvalidError(f"bones must be a flat list, not of shape {bones.shape}")
    try:
        items = list(bones)
    except TypeError:
        raise InvalidError(f"bones must be a list of bones, not {type(bones).__name__}") from None
    return [args.integer(b, f"bones[{i}]") for i, b in enumerate(items)]


def evaluate_subset(inst, plan: GraphSubset, out, scratch=None) -> None:
    """maniGraphInstance_EvaluateSubset: the plan's bones as Evaluate writes them, every other
    bone of `out` left as it was."""
    if not isinstance(plan, GraphSubset):
        raise InvalidError("no plan")
    if plan.binding is not inst.binding:
        raise InvalidError("a plan of another binding")
    evaluate(inst, out, scratch, plan)
