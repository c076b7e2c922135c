"""Every function in runtime.capi.__all__, called with hostile values in each argument
position (the others valid), under warnings as errors: the result is the function's own or
a ManiError, never a Python error, a numpy warning or a hang (DESIGN.md)."""
import inspect
import signal
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import capi

from hostile_world import World, valid_calls

WORLD = World()
CALLS = valid_calls(WORLD)


def _strided():
    return np.arange(12.0)[::2]


def _read_only():
    a = np.zeros((4, 10), np.float32)
    a.flags.writeable = False
    return a


HOSTILE = {
    "None": lambda: None, "1.5": lambda: 1.5, "-1": lambda: -1, "2**64": lambda: 2 ** 64,
    "10**400": lambda: 10 ** 400, "nan": lambda: float("nan"), "inf": lambda: float("inf"),
    "-inf": lambda: -float("inf"), "1e39": lambda: 1e39, "1e300": lambda: 1e300,
    "np.int64(1)": lambda: np.int64(1), "np.float32(0.5)": lambda: np.float32(0.5),
    "True": lambda: True, "'x'": lambda: "x", "surrogate": lambda: "\ud800",
    "bad utf-8": lambda: b"\xff\xfe", "[]": lambda: [], "[0]*7": lambda: [0] * 7,
    "[1e39]*10": lambda: [1e39] * 10, "[[nan]*10]": lambda: [[float("nan")] * 10],
    "(1, 2, 3)": lambda: (1, 2, 3), "object()": lambda: object(), "{}": lambda: {},
    "a strided array": _strided, "a read-only array": _read_only,
    "a 0-d array": lambda: np.array(3.0), "an empty array": lambda: np.zeros((0,)),
    "a huge list": lambda: list(range(100_000)),
}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def outcome(fn, args) -> str | None:
    """None when the call returned or refused with a ManiError, else what escaped."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 20.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fn(*args)
    except rt.ManiError:
        return None
    except Hang:
        return "a hang (over 20 s)"
    except BaseException as e:          # noqa: BLE001 - what escapes is the finding
        return f"{type(e).__name__}: {str(e)[:120]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return None


def _compiled(fn, args) -> None:
    """One call, untimed and unjudged, so the kernels it reaches are compiled before a call
    is timed: a first run compiling under load must not read as a hang."""
    try:
        fn(*args)
    except BaseException:       # noqa: BLE001 - judged by outcome() right after
        pass


def test_every_listed_function_has_a_valid_call_that_succeeds():
    assert set(CALLS) == set(capi.__all__)
    for name in capi.__all__:
        _compiled(getattr(capi, name), CALLS[name]())
    failures = [f"{name}: {why}" for name in capi.__all__
                if (why := outcome(getattr(capi, name), CALLS[name]()))]
    assert not failures, "\n".join(failures)


def test_hostile_values_in_every_position():
    escaped = []
    for name in capi.__all__:
        fn = getattr(capi, name)
        params = list(inspect.signature(fn).parameters.values())
        for k in range(len(params)):            # optional ones (outputs, memory) too
            for label, make in HOSTILE.items():
                args = list(CALLS[name]())
                args += [p.default for p in params[len(args):k + 1]]
                args[k] = make()
                why = outcome(fn, args)
                if why:
                    param = list(inspect.signature(fn).parameters)[k]
                    escaped.append(f"{name}({param}={label}): {why}")
    assert not escaped, f"{len(escaped)} escapes:\n" + "\n".join(escaped)


numbers = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                    st.floats(width=32), st.integers(-2 ** 70, 2 ** 70).map(np.int64
                                                                          if False else int))
values = st.one_of(numbers, st.none(), st.text(max_size=4), st.binary(max_size=8),
                   st.lists(numbers, max_size=12), st.lists(st.lists(numbers, max_size=11),
                                                            max_size=3))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(capi.__all__)), st.integers(0, 5), values)
def test_random_values_in_any_position(name, position, value):
    args = list(CALLS[name]())
    if not args:
        return
    args[position % len(args)] = value
    why = outcome(getattr(capi, name), args)
    assert why is None, f"{name} with {value!r} at {position % len(args)}: {why}"
