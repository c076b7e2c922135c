"""Big jobs on both cores: a range of independent items (vertices, poses, joints) cut into
spans, one a thread, each span run by a nogil kernel.

Only for work whose items are each computed on their own, by the same operations whatever
span holds them, into outputs no other item writes: then the result is the same bits for
any number of spans, and so for any number of threads (numba.get_num_threads(), which
numba.set_num_threads changes, as it does for numba's own parallel loops). Spans are cut
only for ranges of at least `grain` items a span, so small calls stay on the caller's
thread and pay nothing.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba

_pool: ThreadPoolExecutor | None = None


def spans(first: int, end: int, grain: int) -> list[tuple[int, int]]:
    """[first, end) cut into at most numba.get_num_threads() spans of at least `grain`
    (a range too short for two is one span, without asking numba: that costs microseconds)."""
    if end - first < 2 * max(grain, 1):
        return [(first, end)]
    count = min(numba.get_num_threads(), max(1, (end - first) // max(grain, 1)))
    cuts = [first + (end - first) * i // count for i in range(count + 1)]
    return list(zip(cuts[:-1], cuts[1:]))


def _extent(a, lo: int, hi: int) -> tuple[int, int]:
    """The bytes rows [lo, hi) of a 2-D array of positive strides lie within."""
    base = a.__array_interface__["data"][0]
    s0, s1 = a.strides
    return base + lo * s0, base + (hi - 1) * s0 + (a.shape[1] - 1) * s1 + a.itemsize


def apart(parts, targets, arrays) -> bool:
    """Whether no span writes (rows of `targets`) bytes another span reads or writes (rows
    of `arrays`, targets among them): then the spans cannot see each other's work, as a
    target that is its own source, or beside it in an interleaved buffer, does not."""
    for i, (lo, hi) in enumerate(parts):
        written = [_extent(t, lo, hi) for t in targets]
        for j, (lo2, hi2) in enumerate(parts):
            if i != j:
                for a in arrays:
                    start, stop = _extent(a, lo2, hi2)
                    if any(w0 < stop and start < w1 for w0, w1 in written):
                        return False
    return True


def run_spans(work, first: int, end: int, grain: int, targets=(), arrays=()) -> None:
    """work(lo, hi) for each span of [first, end): the first on this thread, the others on
    the pool's threads at the same time; returns when all are done, raising the first
    span's error should any fail. Rows of 2-D `targets` (written) and `arrays` (all the
    rows work reads or writes) are checked apart() first: one span on this thread if not."""
    global _pool
    parts = spans(first, end, grain)
    if len(parts) > 1 and targets and not apart(parts, targets, arrays):
        parts = [(first, end)]
    if len(parts) == 1:
        work(first, end)
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="maul-span")
    others = [_pool.submit(work, lo, hi) for lo, hi in parts[1:]]
    try:
        work(*parts[0])
    finally:
        for f in others:
            f.result()
