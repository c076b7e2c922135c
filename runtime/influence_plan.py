"""How the skinning kernels blend a file's influences, worked out once at the open.

Every method blends per-joint rows (palette rows, dual quaternion parts) at each vertex's
weights. Two ways, chosen once per block of BLOCK vertices counted from vertex 0:

- dense: the block's vertices use few joints (at most DENSE_JOINTS, as a mesh's nearby
  vertices do), so its weights are kept as a (joints, vertices) matrix and a matrix product
  blends the whole block at once; numpy hands it to BLAS, several times faster than
  gathering a row per vertex and influence;
- sparse: slot by slot, each vertex's joint row gathered and added at its weight.

A block is always blended whole and the same way, whatever range a job covers, so jobs over
disjoint ranges give the same bits as one job over all. The dense weights are copies taken
at the open: bytes changed after it skin those vertices as they were (some vertices,
within the file, as the spec allows).

Dual quaternion parts are summed in the hemisphere of each vertex's first joint. The plan
keeps every (first joint, other joint) pair the vertices have and, vertex by vertex, which
pair each influence past the first makes and where its weight sits in its dense block; a
job finds the pairs whose quaternions point apart (few, usually none) and blends just those
influences at their weights negated.
"""
from __future__ import annotations

import numpy as np

BLOCK = 1024
DENSE_JOINTS = 32
# Multiply-adds one matrix product may take: under the size at which OpenBLAS starts its
# threads, whose wake-ups stall a busy machine for milliseconds. A block's products take
# as many table rows at once as stay under it.
PRODUCT_SIZE = 1 << 18
RUN_LENGTH = 8           # a rigid file copies runs when they average at least this long


class BlendPlan:
    """Blocks, their dense weights, the hemisphere pairs, and the facts the kernels branch
    on: `active` (slots any vertex weights), `weightless` (vertices copied as they are) and
    `rigid` (every vertex one joint at weight 1)."""

    def __init__(self, counts: np.ndarray, joints: np.ndarray, weights: np.ndarray,
                 joint_count: int):
        k, n = joints.shape
        counts = counts.astype(np.int64)
        self.vertex_count = n
        self.active = int(counts.max())
        self.weightless = np.flatnonzero(counts == 0)
        self.rigid = self.active <= 1 and bool((weights[0][counts == 1] == 1).all())
        if self.rigid:
            self._runs(np.where(counts > 0, joints[0], joint_count).astype(np.intp))
        live = np.arange(k)[:, None] < counts[None, :]
        slot, vertex = np.nonzero(live)
        joint = joints[slot, vertex].astype(np.int64)
        weight = weights[slot, vertex]
        where = self._blocks(vertex, joint, weight, joint_count)
        self._pairs(slot, vertex, joint, where, joints[0].astype(np.int64), joint_count)

    def _runs(self, joint):
        """A rigid file's vertices as runs of one joint (weightless ones the sentinel joint):
        meshes list a part's vertices together, and copying a run's rows beats gathering
        them vertex by vertex."""
        starts = np.flatnonzero(np.diff(joint)) + 1
        self.run_start = np.concatenate([[0], starts, [joint.size]])
        self.run_joint = joint[self.run_start[:-1]]
        self.run_length = np.diff(self.run_start)
        self.runs_pay = self.run_joint.size * RUN_LENGTH <= joint.size

    def _blocks(self, vertex, joint, weight, joint_count):
        n = self.vertex_count
        count = -(-n // BLOCK)
        block = vertex // BLOCK
        keys, inverse = np.unique(block * joint_count + joint, return_inverse=True)
        owner = keys // joint_count
        per_block = np.bincount(owner, minlength=count)
        first = np.concatenate([[0], np.cumsum(per_block)])
        self.dense = per_block <= DENSE_JOINTS
        lengths = np.minimum(BLOCK, n - np.arange(count) * BLOCK)
        sizes = np.where(self.dense, per_block * lengths, 0)
        at = np.concatenate([[0], np.cumsum(sizes)])
        flat = np.zeros(int(at[-1]), dtype=np.float32)
        local = inverse - first[block]
        mine = self.dense[block]
        where = at[block] + local * lengths[block] + (vertex - block * BLOCK)
        flat[where[mine]] = weight[mine]
        self.local_joints: list[np.ndarray | None] = []
        self.block_weights: list[np.ndarray | None] = []
        self.product_rows = np.maximum(1, PRODUCT_SIZE // np.maximum(1, per_block * lengths))
        for b in range(count):
            if self.dense[b]:
                used = keys[first[b]:first[b + 1]] % joint_count
                self.local_joints.append(used.astype(np.intp))
                self.block_weights.append(flat[at[b]:at[b + 1]].reshape(per_block[b], lengths[b]))
            else:
                self.local_joints.append(None)
                self.block_weights.append(None)
        self.widest = int(per_block[self.dense].max(initial=0))
        # every dense block's joints end to end, so a chunk's are one gather
        self.local_at = np.concatenate([[0], np.cumsum(np.where(self.dense, per_block, 0))])
        self.local_all = np.concatenate([j for j in self.local_joints if j is not None] or
                                        [np.zeros(0, np.intp)]).astype(np.intp)
        return np.where(mine, where - at[block], -1)

    def _pairs(self, slot, vertex, joint, where, first_joint, joint_count):
        """The influences past each vertex's first, vertex by vertex: their vertex, slot,
        (first joint, joint) pair and place in their block's dense weights (-1: sparse)."""
        other = slot > 0
        order = np.lexsort((slot[other], vertex[other]))
        self.entry_vertex = vertex[other][order]
        self.entry_slot = slot[other][order]
        self.entry_place = where[other][order]
        key = first_joint[self.entry_vertex] * joint_count + joint[other][order]
        pairs, self.entry_pair = np.unique(key, return_inverse=True)
        self.pair_first = (pairs // joint_count).astype(np.intp)
        self.pair_other = (pairs % joint_count).astype(np.intp)

    def flipped(self, pair_flipped: np.ndarray, a: int, b: int):
        """The influences of vertices [a, b) whose pair is flipped: (vertex, slot, place in
        the dense block) sorted by vertex, or None."""
        lo, hi = np.searchsorted(self.entry_vertex, (a, b))
        mine = np.flatnonzero(pair_flipped[self.entry_pair[lo:hi]])
        if not mine.size:
            return None
        mine += lo
        return self.entry_vertex[mine], self.entry_slot[mine], self.entry_place[mine]
