"""Compiled kernels: the hot loops over bones, vertices and instances, through numba.

At the sizes a frame works on (80 bones, a few thousand vertices, a hundred instances) the
cost of a numpy call (2 to 8 microseconds here) outweighs its arithmetic, and a blend or a
rigid skin is dozens of calls. A kernel is one call that loops in machine code instead.

Every kernel is compiled with the same settings: on its first call (never before), no GIL
held, numpy's error model (a division by zero gives inf or NaN, as the numpy code it
replaced did, rather than raising), strict IEEE arithmetic (no fastmath), so results stay
bit for bit reproducible across ranges, subsets and lane counts, and no C callback wrapper
(kernels are called from Python and from each other, never through a C pointer).

numba compiles a kernel once for each mix of argument types it meets: a C-contiguous
array and a strided view, a writable array and a read-only one, an array and None, an int
and a numpy int are different types. A kernel given a signature (`kernel(signature=...)`)
takes any layout and flags that convert to it, and callers of the others hand each
parameter one type (`array`), so each kernel has the few specialisations it needs:
`python -m runtime.core.jit --report COMMAND` counts them after running COMMAND.

Compiled code is cached per user (cache_dir()), in a directory keyed by the content of the
whole runtime package: every clone or copy of the same sources shares it, and a change to
any source file (a kernel's callee in another module, a constant it folds in) compiles
afresh instead of loading code built from other sources. NUMBA_CACHE_DIR, when set, wins.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import threading
from functools import lru_cache
from pathlib import Path

import numba
import numpy as np
from numba.core import caching, event
from numba.core.registry import CPUDispatcher

PACKAGE = Path(__file__).resolve().parents[1]      # the runtime package
KEPT_SOURCES = 8        # cached source versions kept per user; the oldest go first
KERNELS: list = []      # every kernel's dispatcher, in definition order


# ---- the cache ---------------------------------------------------------------------------

def cache_dir() -> Path:
    """The per-user directory all versions of the runtime's compiled kernels live under."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "maul-anim" / "kernels"


@lru_cache(maxsize=None)
def sources_key() -> str:
    """A digest of every source file of the runtime package, names and contents."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:24]


@lru_cache(maxsize=None)
def _sources_cache() -> Path:
    """This version of the sources' directory, made on first use; older versions beyond
    KEPT_SOURCES are removed (by last use), so the cache does not grow without end."""
    root = cache_dir()
    mine = root / sources_key()
    mine.mkdir(parents=True, exist_ok=True)
    os.utime(mine)
    versions = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for old in versions[:-KEPT_SOURCES]:
        shutil.rmtree(old, ignore_errors=True)
    return mine


class _SharedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba's cache locator for the runtime's kernels: the sources' directory, then the
    module's place in the package (so two kernels.py never meet)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        place = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(_sources_cache() / place)

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if not Path(py_file).resolve().is_relative_to(PACKAGE):
            return None                         # a kernel of some other module
        return super().from_function(py_func, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _numba_locators = caching.CompileResultCacheImpl._locator_classes
    _locator_classes = [_numba_locators[0], _SharedLocator, *_numba_locators[1:]]  # after NUMBA_CACHE_DIR's


class _Cache(caching.FunctionCache):
    _impl_class = _Impl


# ---- the decorator -----------------------------------------------------------------------

_OPTIONS = dict(nopython=True, nogil=True, error_model="numpy", no_cfunc_wrapper=True)


class _Kernel(CPUDispatcher):
    """A kernel called from another with a constant (`_list(out, 0, run, a, b, -1)`) is
    compiled for the constant's plain type, not once for each literal value. One being
    compiled aside (compile_aside) waits while that process compiles it, then loads it."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(numba.types.unliteral(a) for a in args), kws)

    def compile(self, sig):
        aside = _ASIDE.pop(self, None)
        if aside is not None:
            aside.wait(self)
        return super().compile(sig)


class _Declared(_Kernel):
    """A kernel of one declared signature, None allowed for any argument: compiled when
    first called for the declared types, with None where None is given (numba then drops
    the code for that argument: an absent stream costs nothing per vertex), never for
    other types; arguments that convert safely (a C-contiguous array to a strided one, a
    writable one to read-only, a narrower int) run that code through numba's exact, fast
    dispatch, entered for their own types; others are refused as numba refuses them."""

    declared = None

    def _target(self, types) -> tuple:
        return tuple(t if t == numba.types.none else d for t, d in zip(types, self.declared))

    def _compile_for_args(self, *args, **kws):
        types = [self.typeof_pyval(a) for a in args]
        target = self._target(types)
        if kws or len(types) != len(target) or not self.typingctx.install_possible_conversions(
                types, target):
            self._can_compile = False           # numba's own error for what does not fit
            try:
                return super()._compile_for_args(*args, **kws)
            finally:
                self._can_compile = True
        entry = self.compile(target)
        if tuple(types) != tuple(target):       # dispatched as the target from now on (the
            self._insert([t._code for t in types], entry)   # target itself is in already)
        return entry

    def get_call_template(self, args, kws):
        self.compile(self._target(args))
        self._can_compile = False               # typing picks a compiled one, converting
        try:
            return super().get_call_template(args, kws)
        finally:
            self._can_compile = True


def kernel(fn=None, *, signature=None, inner=False, inline=False):
    """The one decorator of the runtime's compiled code (see the module's description):
    @kernel compiles for each mix of argument types met; @kernel(signature=(type, ...)),
    with types from `scalar`, `reads` and `writes`, for that one signature alone.
    @kernel(inner=True) is a kernel only other kernels call: compiled without the entry
    from Python, which costs a first run a sixth of its compiling; inline=True (inner
    kernels only) is compiled into each caller instead, for small helpers in a hot loop:
    numba does not inline across kernels, and a call per bone or per vertex then costs more
    than its arithmetic (the arithmetic is the same, so are the bits). Work for both cores
    is cut into spans of calls on threads (core.threads), not numba's parallel loops."""
    if fn is None:
        return lambda fn: kernel(fn, signature=signature, inner=inner, inline=inline)
    if inline and not inner:
        raise ValueError("only an inner kernel is inlined")
    options = dict(_OPTIONS, no_cpython_wrapper=True) if inner else dict(_OPTIONS)
    if inline:
        options["inline"] = "always"
    dispatcher = (_Declared if signature else _Kernel)(fn, targetoptions=dict(options))
    dispatcher.declared = signature
    dispatcher._cache = _Cache(fn)              # what njit(cache=True) does, with our locator
    KERNELS.append(dispatcher)
    return dispatcher


def scalar(dtype):
    """The type of a number parameter: a Python int is an int64, a float a float64."""
    return numba.from_dtype(np.dtype(dtype))


def reads(dtype, ndim: int, layout: str = "C"):
    """The type of an array parameter a kernel only reads: layout "C" (C-contiguous) or "A"
    (any strides and alignment); writable arrays are taken too."""
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, layout, readonly=True,
                             aligned=layout == "C")


def writes(dtype, ndim: int, layout: str = "C"):
    """The type of an array parameter a kernel writes."""
    return numba.types.Array(numba.from_dtype(np.dtype(dtype)), ndim, layout,
                             aligned=layout == "C")


# ---- one type per parameter --------------------------------------------------------------

def array(a, dtype, *, written: bool = False) -> np.ndarray:
    """`a` as the one array type a kernel parameter is compiled for: C-contiguous of
    `dtype` (a copy only where it is not already), read-only unless the kernel writes it
    (a read-only view of a writable array costs no copy)."""
    if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous):
        a = np.ascontiguousarray(a, dtype=dtype)
    if written or not a.flags.writeable:
        return a
    view = a.view()
    view.flags.writeable = False
    return view


# ---- compiling aside ------------------------------------------------------------------------

_ASIDE: dict = {}       # kernel -> the _Aside that will compile it, or is compiling it


def _name(k) -> str:
    return f"{k.py_func.__module__}:{k.py_func.__qualname__}"


class _Aside:
    """The other process, compiling kernels into the cache one at a time from a queue that a
    thread here feeds it in order. A kernel needed here that it is compiling is waited for
    (that one alone); one it has not begun is taken off the queue and compiled here, so
    both cores stay busy whatever order the program needs its kernels in."""

    def __init__(self, env):
        self.args = [sys.executable, "-c", "from runtime.core import jit; jit._compile_declared()"]
        self.process = subprocess.Popen(self.args, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.queue: list = []
        self.current = None             # the kernel the process is compiling
        self.ended = False              # the process gone (failed, or stopped)
        self.changed = threading.Condition()
        threading.Thread(target=self._feed, daemon=True).start()

    def add(self, kernels) -> None:
        with self.changed:
            self.queue += kernels
            self.changed.notify_all()

    def _feed(self) -> None:
        """Sends the first kernel queued, reads its name back once cached, and so on."""
        while True:
            with self.changed:
                self.changed.wait_for(lambda: self.queue)
                self.current = self.queue.pop(0)
            try:
                self.process.stdin.write(_name(self.current) + "\n")
                self.process.stdin.flush()
                cached = self.process.stdout.readline() != ""
            except (OSError, ValueError):
                cached = False
            with self.changed:
                self.current, self.ended = None, not cached
                self.changed.notify_all()
            if not cached:
                return

    def wait(self, k) -> None:
        """Until k is cached; at once when it is still queued (taken off to compile here) or
        the process has ended (k then compiles here after all)."""
        with self.changed:
            if k in self.queue:
                self.queue.remove(k)
            self.changed.wait_for(lambda: self.current is not k or self.ended)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


_aside: list = []       # the one _Aside of this process, once started


def compile_aside(kernels) -> None:
    """Queues those of `kernels` (each of one declared signature) that neither this process
    nor the cache holds yet for one other process to compile into the cache, in their order
    after those queued before, while this one goes on to compile what it needs first: a
    first run on a machine compiles on two cores at once. A kernel of them called here waits
    while that process compiles it, then loads it; one it has not begun (or all, should it
    have failed) is compiled here. What it has not finished when this process exits is
    stopped, nothing half-written (numba replaces a cache file whole)."""
    wanted = [k for k in dict.fromkeys(kernels) if not k.signatures and k not in _ASIDE
              and not os.path.exists(k._cache._cache_file._index_path)]
    if not wanted:
        return
    for k in wanted:
        if k.declared is None:
            raise ValueError(f"{k.py_func.__qualname__} has no declared signature to compile")
    if not _aside:
        _aside.append(_Aside(dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(PACKAGE.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))))
    for k in wanted:
        _ASIDE[k] = _aside[0]
    _aside[0].add(wanted)


@atexit.register
def _stop_aside() -> None:
    for aside in _aside:
        aside.stop()


def _compile_declared() -> None:
    """compile_aside's other process: each kernel named on its input (MODULE:NAME) compiled
    for its declared signature into the cache, its name written back once cached."""
    for line in sys.stdin:
        name = line.strip()
        module, qualname = name.split(":")
        k = getattr(importlib.import_module(module), qualname)
        k.compile(k.declared)
        print(name, flush=True)


# ---- the word before compiling, and the count ---------------------------------------------

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
    from the cache: the first run of these sources on a machine, so a program can tell its
    user why it waits."""
    _next_compile.say = say


def specialisations() -> dict:
    """Each kernel compiled or loaded from the cache in this process (a callee is compiled
    with its caller, and loaded within it): its specialisations, those of kernels made by
    one maker (skinning's passes) summed."""
    counts = {}
    for d in KERNELS:
        if d.signatures:
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            counts[name] = counts.get(name, 0) + len(d.signatures)
    return counts


def report(out=sys.stdout) -> int:
    """Prints specialisations() a line a kernel, most first, and the total; the total."""
    counts = specialisations()
    for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{count:4d}  {name}", file=out)
    total = sum(counts.values())
    print(f"{total:4d}  specialisations of {sum(1 for d in KERNELS if d.signatures)} kernels",
          file=out)
    return total


def _main(argv) -> int:
    """--report [-m MODULE | SCRIPT] [ARGS]: runs the workload, then report()."""
    import runpy

    if len(argv) < 2 or argv[0] != "--report":
        print("usage: python -m runtime.core.jit --report (-m MODULE | SCRIPT) [ARGS...]",
              file=sys.stderr)
        return 2
    module = argv[1] == "-m"
    target, args = (argv[2], argv[3:]) if module else (argv[1], argv[2:])
    sys.argv = [target, *args]
    code = 0
    try:
        if module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, str(Path(target).resolve().parent))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 0
    report()
    return code


if __name__ == "__main__":
    from runtime.core import jit    # the module the kernels registered with, not __main__

    sys.exit(jit._main(sys.argv[1:]))
