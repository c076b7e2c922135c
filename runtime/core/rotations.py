"""Vector and quaternion arithmetic for the kernels of the IK solvers and the springs:
binary64, on tuples (no allocation), quaternions x y z w, each an inner kernel. Directions
need not be of length 1 unless stated; a degenerate input gives the identity rather than
NaN, so a solver's "turns nothing" cases are the arithmetic's own."""
import math

from .jit import kernel

TINY = 1e-12        # lengths and sines below this count as 0


@kernel(inner=True)
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel(inner=True)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel(inner=True)
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@kernel(inner=True)
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@kernel(inner=True)
def scaled(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@kernel(inner=True)
def length(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@kernel(inner=True)
def unit(a):
    """a / |a|, or (0, 0, 0) for a length below TINY."""
    n = length(a)
    if n < TINY:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@kernel(inner=True)
def across(a, axis):
    """The part of a perpendicular to the unit axis."""
    return sub(a, scaled(axis, dot(a, axis)))


@kernel(inner=True)
def perpendicular(a):
    """Some unit direction perpendicular to the unit a: the one across a of the axis a
    leans on least."""
    ax, ay, az = abs(a[0]), abs(a[1]), abs(a[2])
    if ax <= ay and ax <= az:
        other = (1.0, 0.0, 0.0)
    elif ay <= az:
        other = (0.0, 1.0, 0.0)
    else:
        other = (0.0, 0.0, 1.0)
    return unit(cross(a, other))


@kernel(inner=True)
def qmul(a, b):
    """Hamilton product a * b (apply b, then a)."""
    return (a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
            a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
            a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
            a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2])


@kernel(inner=True)
def qconj(q):
    return (-q[0], -q[1], -q[2], q[3])


@kernel(inner=True)
def qunit(q):
    """q / |q|; the identity for a length below TINY (or NaN)."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if not n >= TINY:
        return (0.0, 0.0, 0.0, 1.0)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


@kernel(inner=True)
def rotate(q, v):
    """v turned by the unit quaternion q."""
    u = (q[0], q[1], q[2])
    t = scaled(cross(u, v), 2.0)
    return add(add(v, scaled(t, q[3])), cross(u, t))


@kernel(inner=True)
def axis_angle(axis, angle):
    """The turn by `angle` about the unit axis."""
    s = math.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(0.5 * angle))


@kernel(inner=True)
def angle_of(q):
    """The unit quaternion's angle of turn, in [0, pi]."""
    return 2.0 * math.atan2(math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]), abs(q[3]))


@kernel(inner=True)
def shortest(q):
    """The same turn with w >= 0 (angle at most pi)."""
    if q[3] < 0.0:
        return (-q[0], -q[1], -q[2], -q[3])
    return q


@kernel(inner=True)
def arc(u, v):
    """The shortest turn taking direction u onto direction v; the identity when either has
    no length; a half turn about a perpendicular of u when they are opposite."""
    nu, nv = length(u), length(v)
    if nu < TINY or nv < TINY:
        return (0.0, 0.0, 0.0, 1.0)
    a, b = scaled(u, 1.0 / nu), scaled(v, 1.0 / nv)
    c = cross(a, b)
    w = 1.0 + dot(a, b)
    if w < 1e-10 and length(c) < 1e-5:
        p = perpendicular(a)
        return (p[0], p[1], p[2], 0.0)
    return qunit((c[0], c[1], c[2], w))


@kernel(inner=True)
def partial(q, t):
    """The turn q taken a fraction t of the way from the identity (slerp), the short way."""
    q = shortest(q)
    s = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2])
    if s < TINY:
        return (0.0, 0.0, 0.0, 1.0)
    angle = 2.0 * math.atan2(s, q[3])
    return axis_angle((q[0] / s, q[1] / s, q[2] / s), angle * t)


@kernel(inner=True)
def bounded(q, limit):
    """The turn q, its angle cut to `limit` (radians) about the same axis."""
    q = shortest(q)
    angle = angle_of(q)
    if angle <= limit:
        return q
    return partial(q, limit / angle)


@kernel(inner=True)
def signed_angle(a, b, axis):
    """The angle turning a onto b about the unit axis, both across it, in [-pi, pi]."""
    return math.atan2(dot(axis, cross(a, b)), dot(a, b))


@kernel(inner=True)
def wrap(angle):
    """An angle in (-pi, pi]."""
    return math.atan2(math.sin(angle), math.cos(angle))


@kernel(inner=True)
def twist_about(q, axis):
    """The twist of the unit q about the unit axis (swing-twist decomposition: q = swing *
    twist, twist about axis), as its signed angle in (-pi, pi]; 0 when q is a half turn
    across the axis."""
    p = dot((q[0], q[1], q[2]), axis)
    if abs(p) < TINY and abs(q[3]) < TINY:
        return 0.0
    return wrap(2.0 * math.atan2(p, q[3]))
