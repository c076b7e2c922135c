"""pose/lanes.py through the sampling kernels that use it: a row's interpolation in binary32
lanes gives the bits of numpy's scalar binary32 arithmetic, column by column, for any values
(signed zeros, subnormals, infinities, NaN), into a pose's rows or a strided batch's, with
the rotation divided by the norm or not at all (a time on the grid)."""
import math

import numpy as np
import pytest

from runtime.clip import compress_kernels as ck

SPECIALS = np.array([0.0, -0.0, 1e-45, -1e-40, 3e38, -3e38, np.inf, -np.inf, np.nan], np.float32)


def rows(rng, n):
    """(n, 10) binary32 rows, a tenth of their numbers special."""
    a = rng.normal(size=(n, 10)).astype(np.float32)
    hit = rng.uniform(size=a.shape) < 0.1
    a[hit] = rng.choice(SPECIALS, hit.sum())
    return a


def reference(a, b, dots, f, c, rest):
    """The scalar formula in numpy binary32: a + (b - a) f, the rotation over the norm
    sqrt(dots c + rest) (c and rest binary32, the root taken in binary64) unless c is 0."""
    with np.errstate(all="ignore"):
        out = a + (b - a) * np.float32(f)
        if c:
            norm = np.array([np.float32(math.sqrt(d)) if d >= 0 else np.float32(np.nan)
                             for d in (dots * c + rest).tolist()], np.float32)
            out[:, 3:7] = out[:, 3:7] / norm[:, None]
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_pose_interpolated_in_lanes_has_the_scalar_bits(seed):
    rng = np.random.default_rng(seed)
    n = 33
    a, b = rows(rng, n), rows(rng, n)
    dots = rng.uniform(0, 1, n).astype(np.float32)
    f = float(rng.choice([0.0, 1.0, 0.5, rng.uniform()]))
    bones = rng.permutation(n).astype(np.int64)
    out = np.zeros((n, 10), np.float32)
    ck.interpolate(a, b, dots, f, bones, out.copy(), out)
    c = 2.0 * f * (1.0 - f)
    want = reference(a, b, dots, f, np.float32(c) if c else 0, np.float32(1.0 - c))
    np.testing.assert_array_equal(out[bones].view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("seed", range(12))
def test_a_batch_interpolated_in_lanes_has_the_scalar_bits(seed):
    rng = np.random.default_rng(seed)
    m, n = 7, 17
    samples = np.stack([rows(rng, n) for _ in range(5)])
    dots = rng.uniform(0, 1, (4, n)).astype(np.float32)
    i = rng.integers(0, 4, m)
    f = rng.choice([0.0, 1.0, 0.25, 0.5], m).astype(np.float32)
    buffer = np.zeros((m, 4 + 10 * n + 3), np.float32)      # poses apart, as a batch's
    out = buffer[:, 4:4 + 10 * n].reshape(m, n, 10)
    bones = np.arange(n, dtype=np.int64)
    ck.interpolate_batch(samples, samples, dots, i, i + 1, f, 0, m, bones,
                         np.zeros((n, 10), np.float32), np.zeros(0, np.intp), out)
    for k in range(m):
        c = np.float32(2) * f[k] * (np.float32(1) - f[k])     # binary32, divided even at 0
        want = reference(samples[i[k]], samples[i[k] + 1], dots[i[k]], f[k], c, np.float32(1) - c)
        if not c:
            with np.errstate(all="ignore"):
                want[:, 3:7] /= np.float32(1)
        np.testing.assert_array_equal(out[k].view(np.uint32), want.view(np.uint32))
    assert not buffer[:, :4].any() and not buffer[:, 4 + 10 * n:].any()   # nothing beside
