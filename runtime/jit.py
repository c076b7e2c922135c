"""Compiled kernels: the hot loops over bones, vertices and instances, through numba.

At the sizes a frame works on (80 bones, a few thousand vertices, a hundred instances) the
cost of a numpy call (2 to 8 microseconds here) outweighs its arithmetic, and a blend or a
rigid skin is dozens of calls. A kernel is one call that loops in machine code instead.

Every kernel is compiled with the same settings: cached beside its module so a process
compiles it once per machine, no GIL held, numpy's error model (a division by zero gives
inf or NaN, as the numpy code it replaced did, rather than raising), and strict IEEE
arithmetic (no fastmath), so results stay bit for bit reproducible across ranges, subsets
and lane counts: a kernel's operations per element never depend on how many it is given.
"""
from __future__ import annotations

import numba

kernel = numba.njit(cache=True, nogil=True, error_model="numpy")
