"""An evaluation's plain nodes as one compiled call: the clip nodes sampling the binding's
side-by-side samples, blends, spaces, machines, masks, one-shots, additive layers, selects,
time scales and seeks, run in node order by one kernel over a table made once per binding
(or subset plan), so a frame does not pay a kernel call, its argument checks and its
Python per node.

Each op calls the node's own kernel (graph/evaluate/kernels.py) with the arguments its
step would have given it, so the bits are the same as calling the kernels one by one.
A run of consecutive plain nodes is one call; other nodes (solvers, inertialization, pose
parameters, mapped clips, clips with their own samples, matching and learned nodes) stay
steps of their own between runs.
"""
from __future__ import annotations

import numpy as np

from . import kernels
from ...core.jit import kernel, reads, scalar, writes

CLIP, MIX, MASK, ONE_SHOT, ADDITIVE, SELECT, COPY = range(7)
WIDTH = 7       # an op's ints: kind, weight's place, slot written, then the kind's own four

_S, _SLOTS, _IDS = writes(np.float64, 2), writes(np.float32, 4), writes(np.int64, 1)
_I, _B = scalar(np.int64), scalar(np.bool_)


@kernel(signature=(_S, _SLOTS, reads(np.int64, 2), reads(np.float64, 2), _IDS, _IDS, writes(np.float32, 2),
                   writes(np.float32, 3), writes(np.float32, 2), _IDS, _B, reads(np.float32, 2), _I, _I, _I,
                   writes(np.float32, 3, "A")))
def run(S, slots, ops, reals, bases, ids, weights, samples, dots, rows, dense, fill, first, end, output,
        locals_):
    """Ops first to end: each row of `ops` (kind, base, slot, then a to d below) and of
    `reals` (two numbers) one node's kernel call, skipped when no lane weighs the node (a
    node's kernel writes the lanes that weigh it alone); bases and ids hold inputs' weights'
    places and slots (a mix's and a select's [a, b)), weights the masks' bone weights. Then,
    when `output` is the output's op (else -1), the lanes' poses into locals_
    (kernels.write_out).
        CLIP      a offset, b last sample; reals: rate, duration
        MIX       a shares' place, [b, c) inputs, d direct
        MASK      a base slot, b overlay slot, c over row, d under row; reals: most, base_most
        ONE_SHOT  a base slot, b shot slot, c mask row; reals: most
        ADDITIVE  a layer's weight's place, b base slot, c difference slot
        SELECT    [a, b) inputs
        COPY      a input slot"""
    for x in range(first, end):
        kind, base, out, a, b, c, d = ops[x, 0], ops[x, 1], ops[x, 2], ops[x, 3], ops[x, 4], ops[x, 5], ops[x, 6]
        if not _weighed(S, base):
            continue
        if kind == CLIP:
            kernels.sample_clip(S, base, samples, dots, a, reals[x, 0], reals[x, 1], b, rows, dense, fill,
                                slots, out)
        elif kind == MIX:
            kernels.mix(S, base, a, bases[b:c], ids[b:c], d != 0, slots, out)
        elif kind == MASK:
            kernels.mask(S, base, a, b, weights[c], weights[d], reals[x, 0], reals[x, 1], slots, out)
        elif kind == ONE_SHOT:
            kernels.one_shot(S, base, a, b, weights[c], reals[x, 0], slots, out)
        elif kind == ADDITIVE:
            kernels.additive(S, base, a, b, c, slots, out)
        elif kind == SELECT:
            kernels.select(S, base, ids[a:b], slots, out)
        else:
            kernels.copy_input(S, base, slots, a, out)
    if output >= 0:
        kernels.write_out(S, ops[output, 1], slots, ops[output, 2], rows, locals_)


@kernel(inner=True)
def _weighed(S, base):
    """Whether some lane weighs the node whose weight is at `base`."""
    for lane in range(S.shape[0]):
        if S[lane, base] > 0.0:
            return True
    return False


class Program:
    """The ops of an evaluation's plain nodes, filled while its steps are made: add() puts a
    node's op in the table and gives back its number; runs() then turns each run of
    consecutive ops into one step."""

    def __init__(self, b, rows: np.ndarray, fill: np.ndarray):
        self.ops, self.reals, self.bases, self.ids, self.weights = [], [], [], [], []
        self.samples, self.dots = b.all_samples, b.all_dots
        self.rows = np.asarray(rows, dtype=np.int64)
        self.dense = bool(np.array_equal(self.rows, np.arange(self.samples.shape[2])))
        self.fill = np.ascontiguousarray(fill, dtype=np.float32)

    def inputs(self, bases, ids) -> tuple:
        """[a, b) of these inputs' weights' places and slots."""
        a = len(self.ids)
        self.bases += list(bases)
        self.ids += list(ids)
        return a, len(self.ids)

    def bone_weights(self, w) -> int:
        """The row of a mask's bone weights."""
        self.weights.append(np.asarray(w, dtype=np.float32))
        return len(self.weights) - 1

    def add(self, kind, base, slot, a=0, b=0, c=0, d=0, reals=(0.0, 0.0)) -> int:
        self.ops.append((kind, base, slot, a, b, c, d))
        self.reals.append((float(reals[0]), float(reals[-1]) if len(reals) > 1 else 0.0))
        return len(self.ops) - 1

    def runs(self, steps: list) -> list:
        """The steps with each run of consecutive ops (ints) made one call; the last, when
        it ends with the output's op, writes the poses (`writes` then True)."""
        ops = np.array(self.ops, dtype=np.int64).reshape(-1, WIDTH)
        reals = np.array(self.reals, dtype=np.float64).reshape(-1, 2)
        bases, ids = (np.array(v, dtype=np.int64) for v in (self.bases, self.ids))
        nb = self.rows.size
        weights = np.array(self.weights, dtype=np.float32).reshape(-1, nb)
        head = (ops, reals, bases, ids, weights, self.samples, self.dots, self.rows, self.dense, self.fill)
        out, at = [], 0
        while at < len(steps):
            if not isinstance(steps[at], int):
                out.append(steps[at])
                at += 1
                continue
            end = at
            while end < len(steps) and isinstance(steps[end], int):
                end += 1
            first, last = steps[at], steps[end - 1] + 1
            output = last - 1 if end == len(steps) else -1
            out.append(lambda e, first=first, last=last, output=output:
                       run(e.S, e.slots, *head, first, last, output, e.locals))
            at = end
        self.writes = isinstance(steps[-1], int)
        return out
