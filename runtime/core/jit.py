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
from numba.core import event

kernel = numba.njit(cache=True, nogil=True, error_model="numpy")


class _NextCompile(event.Listener):
    """Calls its `say` once, when numba next starts compiling (loading from the cache is not
    compiling)."""

    say = None

    def on_start(self, ev):
        say, self.say = self.say, None
        if say is not None:
            say()

    def on_end(self, ev):
        pass


_next_compile = _NextCompile()
event.register("numba:compile", _next_compile)


def on_first_compile(say) -> None:
    """Calls say() once, if and when this process compiles a kernel rather than loading it
    from the cache: on a machine's first run, so a program can tell its user why it waits."""
    _next_compile.say = say
