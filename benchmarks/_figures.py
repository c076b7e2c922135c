"""What every benchmark shares: timing by median of repeats, and the JSON figure lines."""
import json
import statistics
import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def median_us(fn, *, number: int = 100, repeat: int = 15) -> float:
    """Median over `repeat` runs of the mean time of `number` calls, in microseconds."""
    fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number * 1e6)
    return statistics.median(runs)


def emit(figure: str, value: float, unit: str, better: str, target=None) -> None:
    print(json.dumps({"figure": figure, "value": round(value, 3), "unit": unit,
                      "better": better, "target": target}))


def on_threads(count: int, fn):
    """fn() with numba's thread count set to `count` (the runtime's spans follow it)."""
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        return fn()
    finally:
        numba.set_num_threads(before)
