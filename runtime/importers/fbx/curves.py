"""FBX 7.x animation curves read and evaluated as ufbx reads and evaluates them.

A curve's keys (KeyTime in KTime ticks, KeyValueFloat) take their interpolation and
tangents from the run-length coded KeyAttrFlags / KeyAttrDataFloat / KeyAttrRefCount:
constant (previous or next value), linear, or cubic with user, TCB or automatic tangents
(clamped, time-independent, progressive clamp and auto bias as ufbx solves them), weighted
tangents from the packed 0.4 fixed-point weights. Each key keeps its left and right
tangent (dx, dy); a cubic segment is a Bezier in time and value, its parameter found by
Newton's method. Outside the keys the curve extrapolates (constant, slope, repeat, mirror,
repeat relative) in whole ticks."""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..common import ImportFormatError, ImportReason

__all__ = ["KTIME_SECOND", "Curve", "read_curve", "read_take_curve", "evaluate_curve"]

KTIME_SECOND = 46186158000

CONSTANT_PREV, CONSTANT_NEXT, LINEAR, CUBIC = 0, 1, 2, 3
_CONSTANT, _LINEAR_F, _CUBIC_F = 0x2, 0x4, 0x8
_TCB, _USER, _BROKEN, _CONSTANT_NEXT = 0x200, 0x400, 0x800, 0x100
_CLAMP, _TIME_INDEPENDENT, _CLAMP_PROGRESSIVE = 0x1000, 0x2000, 0x4000
_WEIGHTED_RIGHT, _WEIGHTED_NEXT_LEFT = 0x1000000, 0x2000000
_CLAMP_THRESHOLD = 1e-10
_THIRD = float(np.float32(0.333333))
_EXTRAPOLATION = {ord("C"): "constant", ord("K"): "slope", ord("R"): "repeat",
                  ord("M"): "mirror", ord("A"): "relative"}


def _f32(x) -> float:
    return float(np.float32(x))


@dataclass
class Curve:
    times: np.ndarray          # seconds
    values: np.ndarray
    interpolation: np.ndarray  # per key, of the segment after it
    left: np.ndarray           # (n, 2) dx, dy
    right: np.ndarray          # (n, 2)
    pre: tuple = ("constant", -1)
    post: tuple = ("constant", -1)
    offset: int = 0            # its record (a take's Key), where a refusal of its values points


def _auto(prev_t, t, next_t, prev_v, v, next_v, w_left, w_right, bias, flags) -> float:
    if flags & _CLAMP and min(abs(prev_v - v), abs(next_v - v)) <= _CLAMP_THRESHOLD:
        return 0.0
    slope = (next_v - prev_v) / (next_t - prev_t)
    if not flags & _TIME_INDEPENDENT:
        sl = (v - prev_v) / (t - prev_t)
        sr = (next_v - v) / (next_t - t)
        delta = (t - prev_t) / (next_t - prev_t)
        slope = slope * 0.5 + (sl * (1.0 - delta) + sr * delta) * 0.5
        bias_weight = abs(bias) / 100.0
        if bias_weight > 0.0001:
            target = sr if bias > 0.0 else sl
            bias_delta = target - slope
            slope = slope * (1.0 - bias_weight) + target * bias_weight
            over = bias_weight - 5.0
            if over > 0.0:
                sign = bias_delta if abs(bias_delta) > 0.00001 else bias
                slope += over * over * (1.0 if sign > 0.0 else -1.0) * 40.0
    if flags & _CLAMP_PROGRESSIVE:
        sign = 1.0 if slope >= 0.0 else -1.0
        mag = sign * slope
        rl, rr = w_left * (t - prev_t), w_right * (next_t - t)
        ml = sign * (v - prev_v) / rl if rl > 0.0 else 0.0
        mr = sign * (next_v - v) / rr if rr > 0.0 else 0.0
        ml = ml if ml > 0.0 else 0.0
        mr = mr if mr > 0.0 else 0.0
        slope = sign * min(mag, ml, mr)
    return _f32(slope)


def _auto_side(t0, t1, v0, v1, bias, flags) -> float:
    if flags & _CLAMP_PROGRESSIVE:
        return 0.0
    if flags & _CLAMP and abs(v1 - v0) <= _CLAMP_THRESHOLD:
        return 0.0
    slope = (v1 - v0) / (t1 - t0)
    if not flags & _TIME_INDEPENDENT:
        over = abs(bias) / 100.0 - 5.0
        if over > 0.0:
            slope += over * over * (1.0 if bias > 0.0 else -1.0) * 40.0
    return _f32(slope)


def _extrapolation(rec, name: bytes) -> tuple:
    child = rec.child(name)
    if child is None:
        return ("constant", -1)
    kind = child.child(b"Type")
    code = kind.number(0) if kind is not None else None
    if not isinstance(code, int):
        s = kind.string(0) if kind is not None else None
        code = s[0] if s else None
    mode = _EXTRAPOLATION.get(code, "constant")
    rep = child.child(b"Repetition")
    count = rep.number(0, -1) if rep is not None else -1
    count = int(count) if isinstance(count, (int, float)) and count >= 0 else -1
    return (mode, count)


def _array(rec, name: bytes, dtype, item: int):
    child = rec.child(name)
    if child is None:
        raise ImportFormatError(f"a curve without {name.decode()}", ImportReason.Property,
                                offset=rec.offset, item=item)
    return child.array(dtype)


@np.errstate(all="ignore")
def read_curve(rec, item: int) -> Curve:
    """An AnimationCurve record's keys; Property for arrays missing or of mismatched
    counts (item the curve object), Data for values not finite."""
    ticks = _array(rec, b"KeyTime", np.float64, item)
    values = _array(rec, b"KeyValueFloat", np.float64, item)
    flags = _array(rec, b"KeyAttrFlags", np.int64, item)
    attrs = _array(rec, b"KeyAttrDataFloat", np.float64, item)
    refs = _array(rec, b"KeyAttrRefCount", np.int64, item)
    n = ticks.size
    if values.size != n or flags.size != refs.size or attrs.size != 4 * refs.size:
        raise ImportFormatError("a curve's key arrays of mismatched counts",
                                ImportReason.Property, offset=rec.offset, item=item)
    if not (np.isfinite(values).all() and np.isfinite(ticks).all()):
        raise ImportFormatError("a curve's keys not finite", ImportReason.Data,
                                offset=rec.offset, item=item)
    if refs.size and ((refs <= 0).any() or int(refs.sum()) < n):
        raise ImportFormatError("a curve's attribute counts do not cover its keys",
                                ImportReason.Property, offset=rec.offset, item=item)
    if n > 1 and (np.diff(ticks) < 0).any():
        raise ImportFormatError("a curve's key times go back", ImportReason.Data,
                                offset=rec.offset, item=item)
    attrs32 = attrs.astype(np.float32).reshape(-1, 4)
    key_attr = np.searchsorted(np.cumsum(refs), np.arange(n), side="right")
    times = ticks / KTIME_SECOND
    interp = np.zeros(n, dtype=np.int64)
    left = np.zeros((n, 2))
    right = np.zeros((n, 2))
    slope_left, weight_left, prev_t = 0.0, _THIRD, 0.0
    for i in range(n):
        a = key_attr[i]
        f = int(flags[a]) & 0xFFFFFFFF
        attr = attrs32[a]
        t, v = times[i], values[i]
        next_t = times[i + 1] if i + 1 < n else t
        slope_right, weight_right = float(attr[0]), _THIRD
        next_slope_left, next_weight_left = float(attr[1]), _THIRD
        if f & (_WEIGHTED_RIGHT | _WEIGHTED_NEXT_LEFT):
            packed = struct.unpack("<I", struct.pack("<f", attr[2]))[0]
            if f & _WEIGHTED_RIGHT:
                weight_right = _f32((packed & 0xFFFF) * np.float32(0.0001))
            if f & _WEIGHTED_NEXT_LEFT:
                next_weight_left = _f32((packed >> 16) * np.float32(0.0001))
        if f & _CONSTANT:
            interp[i] = CONSTANT_NEXT if f & _CONSTANT_NEXT else CONSTANT_PREV
            weight_right = next_weight_left = _THIRD
            slope_right = next_slope_left = 0.0
        elif f & _CUBIC_F:
            interp[i] = CUBIC
            if f & _TCB:
                tl = tr = 0.0
                edge = False
                if i > 0 and t > prev_t:
                    tl = (v - values[i - 1]) / (t - prev_t)
                else:
                    edge = True
                if i + 1 < n and next_t > t:
                    tr = (values[i + 1] - v) / (next_t - t)
                else:
                    edge = True
                tension, continuity, bias = (float(x) for x in attr[:3])
                k = (1.0 if edge else 0.5) * (1.0 - tension)
                slope_left = _f32(k * (1 + bias) * (1 - continuity) * tl
                                  + k * (1 - bias) * (1 + continuity) * tr)
                slope_right = _f32(k * (1 + bias) * (1 + continuity) * tl
                                   + k * (1 - bias) * (1 - continuity) * tr)
                next_slope_left, next_weight_left = 0.0, _THIRD
            elif f & _USER:
                pass
            else:
                if i > 0 and i + 1 < n and t > prev_t and next_t > t:
                    pv, nv = values[i - 1], values[i + 1]
                    if abs(_f32(slope_left + slope_right)) <= 0.0001:
                        slope_left = slope_right = _auto(prev_t, t, next_t, pv, v, nv,
                                                         weight_left, weight_right,
                                                         slope_right, f)
                    else:
                        sl = _auto(prev_t, t, next_t, pv, v, nv, weight_left, weight_right,
                                   -slope_left, f)
                        slope_right = _auto(prev_t, t, next_t, pv, v, nv, weight_left,
                                            weight_right, slope_right, f)
                        slope_left = sl
                elif i > 0 and t > prev_t:
                    slope_left = slope_right = _auto_side(prev_t, t, values[i - 1], v,
                                                          -slope_left, f)
                elif i + 1 < n and next_t > t:
                    slope_left = slope_right = _auto_side(t, next_t, v, values[i + 1],
                                                          slope_right, f)
                else:
                    slope_left = slope_right = 0.0
        else:
            interp[i] = LINEAR
            weight_right = next_weight_left = _THIRD
            if next_t > t:
                slope_right = next_slope_left = _f32((values[i + 1] - v) / (next_t - t))
            else:
                slope_right = next_slope_left = 0.0
        if t > prev_t:
            dx = _f32(weight_left * (t - prev_t))
            left[i] = (dx, _f32(dx * slope_left))
        if next_t > t:
            dx = _f32(weight_right * (next_t - t))
            right[i] = (dx, _f32(dx * slope_right))
        slope_left, weight_left, prev_t = next_slope_left, next_weight_left, t
    return Curve(times, values, interp, left, right, _extrapolation(rec, b"Pre-Extrapolation"),
                 _extrapolation(rec, b"Post-Extrapolation"), rec.offset)


def _bezier_t(p1, p2, x0):
    """The Bezier parameter whose time is x0 (control times 0, p1, p2, 1): Newton's method
    from x0, three steps, then pairs of steps until every residual is within 4 ulp of 1
    (at most four pairs), as ufbx iterates."""
    a = 3 * p1 - 3 * p2 + 1.0
    b = 3 * p2 - 6 * p1
    c = 3 * p1
    t = x0.copy()
    with np.errstate(all="ignore"):
        for step in range(11):
            x1 = ((a * t + b) * t + c) * t - x0
            t = t - x1 / ((3 * a * t + 2 * b) * t + c)
            if step >= 2 and step % 2 == 0 and (np.abs(x1) <= 8.881784197001252e-16).all():
                break
    return t


def _inside(c: Curve, time: np.ndarray) -> np.ndarray:
    """Values at times within the keys (vectorised)."""
    n = c.times.size
    nxt = np.searchsorted(c.times, time, side="right")
    out = np.empty(time.shape)
    first = nxt == 0
    last = nxt >= n
    out[first] = c.values[0]
    out[last] = c.values[-1]
    mid = ~(first | last)
    if mid.any():
        j = nxt[mid]
        i = j - 1
        t = time[mid]
        t0, t1 = c.times[i], c.times[j]
        v0, v1 = c.values[i], c.values[j]
        rcp = 1.0 / (t1 - t0)
        u = (t - t0) * rcp
        kind = c.interpolation[i]
        res = np.where(kind == CONSTANT_PREV, v0, v1)
        lin = kind == LINEAR
        res = np.where(lin, v0 * (1.0 - u) + v1 * u, res)
        cub = kind == CUBIC
        if cub.any():
            x1 = c.right[i, 0] * rcp
            x2 = 1.0 - c.left[j, 0] * rcp
            s = _bezier_t(x1, x2, u)
            s2, s3 = s * s, s * s * s
            w = 1.0 - s
            y1 = v0 + c.right[i, 1]
            y2 = v1 - c.left[j, 1]
            bez = w * w * w * v0 + 3.0 * (w * w * s * y1 + w * s2 * y2) + s3 * v1
            res = np.where(cub, bez, res)
        res = np.where(t0 == t, v0, res)
        out[mid] = res
    return out


@np.errstate(all="ignore")
def evaluate_curve(c: Curve, time: np.ndarray, default: float) -> np.ndarray:
    """The curve at `time` (seconds, an array), as ufbx_evaluate_curve gives it."""
    time = np.asarray(time, dtype=np.float64)
    n = c.times.size
    if n == 0:
        return np.full(time.shape, float(default))
    if n == 1:
        return np.full(time.shape, c.values[0])
    out = _inside(c, time)
    for pre in (True, False):
        sel = time < c.times[0] if pre else time > c.times[-1]
        if sel.any():
            out[sel] = _extrapolate(c, time[sel], pre)
    return out


def _extrapolate(c: Curve, time: np.ndarray, pre: bool) -> np.ndarray:
    k = 0 if pre else -1
    mode, count = c.pre if pre else c.post
    value, key_t = c.values[k], c.times[k]
    if mode == "constant":
        return np.full(time.shape, value)
    if mode == "slope":
        dx, dy = (c.right[k] if pre else c.left[k])
        with np.errstate(all="ignore"):
            return value + dy * ((time - key_t) / dx)
    if count == 0:
        return np.full(time.shape, value)
    lo = np.rint(c.times[0] * KTIME_SECOND)
    hi = np.rint(c.times[-1] * KTIME_SECOND)
    ticks = time * KTIME_SECOND
    delta = lo - ticks if pre else ticks - hi
    duration = hi - lo
    if not duration >= 1.0:
        return np.full(time.shape, value)
    rep_n = np.floor(delta / duration)
    rep_d = delta - rep_n * duration
    if count > 0:
        over = rep_n >= count
        rep_n = np.where(over, count - 1, rep_n)
        rep_d = np.where(over, duration, rep_d)
    if mode == "mirror":
        parity = rep_n * 0.5 - np.floor(rep_n * 0.5)
        rep_d = np.where(parity <= 0.25, duration - rep_d, rep_d)
    if pre:
        rep_d = duration - rep_d
    out = _inside(c, (lo + rep_d) / KTIME_SECOND)
    if mode == "relative":
        d = c.values[-1] - c.values[0]
        out = out + (-d if pre else d) * (rep_n + 1.0)
    return out


def _key_tokens(rec) -> list:
    """A 6.x `Key:` list: numbers as floats, bare letters as one-character strings
    (binary: D and L gathered from the bytes at once, C bytes as letters)."""
    doc = rec.doc
    props = rec.props
    if doc.binary:
        if not props:
            return []
        kinds = np.fromiter((p[0] for p in props), dtype=np.int64, count=len(props))
        offs = np.fromiter((p[1] for p in props), dtype=np.int64, count=len(props))
        order = ">" if doc.big_endian else "<"
        raw = np.frombuffer(doc.data, dtype=np.uint8)
        out = np.empty(len(props), dtype=object)
        known = kinds == 67                                   # C: a letter
        if known.any():
            out[known] = [chr(c) for c in raw[offs[known]].tolist()]
        for kind, code in ((ord("D"), "f8"), (ord("L"), "i8"), (ord("F"), "f4"),
                           (ord("I"), "i4")):
            sel = kinds == kind
            if not sel.any():
                continue
            size = int(code[1])
            values = raw[offs[sel][:, None] + np.arange(size)].copy().view(order + code)
            out[sel] = values.reshape(-1).astype(np.float64).tolist()
            known |= sel
        if not known.all():
            k = int(np.flatnonzero(~known)[0])
            raise ImportFormatError("a key list holding a string", ImportReason.Data,
                                    offset=int(offs[k]), item=0)
        return out.tolist()
    data = doc.data
    out = []
    for kind, start, end in props:
        if kind == 2:
            out.append(float(data[start:end]))
        elif kind == 3 and end - start == 1:
            out.append(chr(data[start]))
        else:
            raise ImportFormatError("a key list holding what is not a number or a letter",
                                    ImportReason.Data, offset=start, item=0)
    return out


@np.errstate(all="ignore")
def read_take_curve(rec, version: int, item: int) -> Curve | None:
    """A 6.x Take channel's keys (`Key:`, `KeyCount:`, `KeyVer:`) as ufbx reads them: L
    linear, C constant (n: the next value), U cubic with slope modes s/b (two slopes), a,
    p, q, t, d (automatic, progressive clamp, time independent) and weight modes n, a, l,
    r, c; None without keys. Property (item the clip) for a list that ends early or runs
    on, or a letter where a number should be. The tangents' float32 steps are taken at
    the end, over all keys at once."""
    key = rec.child(b"Key")
    if key is None:
        return None
    count_rec = rec.child(b"KeyCount")
    n = count_rec.number(0) if count_rec is not None else None
    ver_rec = rec.child(b"KeyVer")
    ver = ver_rec.number(0, 0) if ver_rec is not None else 0
    ver = int(ver) if isinstance(ver, (int, float)) else 0
    if ver <= 0:
        ver = 4003 if version < 5000 else 4004 if version < 6000 else 4005
    data = _key_tokens(key)
    end = len(data)
    if not isinstance(n, int) or n < 0 or 3 * n > end:
        raise ImportFormatError("a key count the keys do not hold", ImportReason.Property,
                                offset=rec.offset, item=item)

    def fail(what):
        return ImportFormatError(what, ImportReason.Property, offset=key.offset, item=item)

    numbers = [isinstance(v, float) for v in data]
    times, values, interp = [0.0] * n, [0.0] * n, [LINEAR] * n
    slopes_l, weights_l, slopes_r, weights_r = [0.0] * n, [_THIRD] * n, [0.0] * n, [_THIRD] * n
    slope_left, weight_left, prev_t = 0.0, _THIRD, 0.0
    pos = 0
    for i in range(n):
        if pos + 3 > end or not (numbers[pos] and numbers[pos + 1]):
            raise fail("a key list that ends early or holds a letter for a number")
        t, v, mode = data[pos] / KTIME_SECOND, data[pos + 1], data[pos + 2]
        pos += 3
        times[i], values[i] = t, v
        slope_right = next_slope_left = 0.0
        weight_right = next_weight_left = _THIRD
        auto = False
        if mode == "U":
            interp[i] = CUBIC
            if pos >= end:
                raise fail("a key list that ends early")
            slope_mode = data[pos]
            pos += 1
            weights = 1
            if slope_mode == "s" or slope_mode == "b":
                if pos + 2 > end or not (numbers[pos] and numbers[pos + 1]):
                    raise fail("a slope that is not two numbers")
                slope_right, next_slope_left = data[pos], data[pos + 1]
                pos += 2
                if ver == 4003:
                    weights = 0
            elif slope_mode == "a":
                auto = True
                if ver <= 4004:
                    weights = 0
            elif slope_mode == "p" or slope_mode == "q":
                auto = True
                pos += 2
                weights = 1 if ver <= 4004 else 2
            elif slope_mode == "t":
                auto = True
                pos += 3
                weights = 0
            elif slope_mode == "d":
                auto = True
                pos += 1
            else:
                raise fail(f"an unknown slope mode {slope_mode!r}")
            for _ in range(weights):
                if pos >= end:
                    raise fail("a key list that ends early")
                wm = data[pos]
                pos += 1
                if wm == "a":
                    if pos + 2 > end or not (numbers[pos] and numbers[pos + 1]):
                        raise fail("weights that are not two numbers")
                    weight_right, next_weight_left = _f32(data[pos]), _f32(data[pos + 1])
                    pos += 2
                elif wm == "l" or wm == "r":
                    if pos >= end or not numbers[pos]:
                        raise fail("a weight that is not a number")
                    if wm == "l":
                        next_weight_left = _f32(data[pos])
                    else:
                        weight_right = _f32(data[pos])
                    pos += 1
                elif wm != "n" and wm != "c":
                    raise fail(f"an unknown weight mode {wm!r}")
        elif mode == "L":
            interp[i] = LINEAR
        elif mode == "C":
            interp[i] = CONSTANT_PREV
            if ver >= 4004:
                if pos >= end:
                    raise fail("a key list that ends early")
                if data[pos] == "n":
                    interp[i] = CONSTANT_NEXT
                pos += 1
        else:
            raise fail(f"an unknown key mode {mode!r}")
        if i + 1 < n:
            if pos + 2 > end or not (numbers[pos] and numbers[pos + 1]):
                raise fail("a key list that ends early or holds a letter for a number")
            next_t, next_v = data[pos] / KTIME_SECOND, data[pos + 1]
        else:
            next_t, next_v = t, v
        if auto:
            if i > 0:
                slope_left = slope_right = _auto(prev_t, t, next_t, values[i - 1], v, next_v,
                                                 weight_left, weight_right, 0.0,
                                                 _CLAMP_PROGRESSIVE | _TIME_INDEPENDENT)
            else:
                slope_left = slope_right = 0.0
        if interp[i] == LINEAR:
            slope_right = next_slope_left = (next_v - v) / (next_t - t) if next_t > t else 0.0
        slopes_l[i], weights_l[i], slopes_r[i], weights_r[i] = \
            slope_left, weight_left, slope_right, weight_right
        slope_left, weight_left, prev_t = next_slope_left, next_weight_left, t
    if pos != end:
        raise fail("a key list longer than its keys")
    times_a, values_a = np.array(times), np.array(values)
    if not (np.isfinite(values_a).all() and np.isfinite(times_a).all()) or \
            (n > 1 and (np.diff(times_a) < 0).any()):
        raise ImportFormatError("a take's keys not finite or going back", ImportReason.Data,
                                offset=key.offset, item=item)
    left, right = _tangents(times_a, np.array(slopes_l), np.array(weights_l),
                            np.array(slopes_r), np.array(weights_r))
    return Curve(times_a, values_a, np.array(interp, dtype=np.int64), left, right,
                 _extrapolation(rec, b"Pre-Extrapolation"),
                 _extrapolation(rec, b"Post-Extrapolation"), key.offset)


def _tangents(times, slope_l, weight_l, slope_r, weight_r):
    """Each key's left and right tangents (dx, dy) in float32 steps, as ufbx forms them:
    dx = weight * the time to the neighbour, dy = dx * slope, slopes in float32."""
    n = times.size
    prev = np.concatenate(([0.0], times[:-1])) if n else times
    nxt = np.concatenate((times[1:], times[-1:])) if n else times
    sl, sr = slope_l.astype(np.float32), slope_r.astype(np.float32)
    left = np.zeros((n, 2))
    right = np.zeros((n, 2))
    has_l, has_r = times > prev, nxt > times
    dxl = (weight_l * (times - prev)).astype(np.float32)
    dxr = (weight_r * (nxt - times)).astype(np.float32)
    left[:, 0] = np.where(has_l, dxl, 0.0)
    left[:, 1] = np.where(has_l, (dxl.astype(np.float64) * sl.astype(np.float64)).astype(np.float32), 0.0)
    right[:, 0] = np.where(has_r, dxr, 0.0)
    right[:, 1] = np.where(has_r, (dxr.astype(np.float64) * sr.astype(np.float64)).astype(np.float32), 0.0)
    return left, right
