"""What the inspector draws over the rendered figure, into an RGBA layer of the frame's
pixels by code: the skeleton and its bone names, the spring chains with their hit radii and
colliders, and the ragdoll's bodies (boxes, capsules, spheres) where the pose puts them.

Everything is projected by the frame's own camera from the figure's model space, through
the actor's matrix, so the lines sit on the pixels the renderer drew. It is a debugging
overlay of a few dozen bones and bodies: plain numpy per shape, not a hot path."""
from __future__ import annotations

import numpy as np

import runtime as rt

from ..render import pixelfont

BONE, JOINT, TEXT = (120, 255, 160, 220), (255, 255, 255, 235), (255, 240, 200, 255)
CHAIN, HIT, COLLIDER, BODY = ((255, 150, 60, 235), (255, 200, 120, 160), (90, 200, 255, 220),
                              (255, 90, 200, 235))
ROUND = 24                       # points around a circle of a shape
IDENTITY = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], np.float64)   # t, q (x y z w), s


def project(stage, points: np.ndarray) -> np.ndarray:
    """(k, 2) frame pixels of (k, 3) points in the figure's model space."""
    p = np.asarray(points, np.float64).reshape(-1, 3)
    world = np.c_[p, np.ones(len(p))] @ np.asarray(stage.actor.matrix, np.float64)
    clip = world @ np.asarray(stage.renderer.view_proj, np.float64).T
    ndc = clip[:, :2] / clip[:, 3:4]
    h, w = stage.rgb.shape[:2]
    return np.c_[(ndc[:, 0] + 1) * 0.5 * w, (1 - ndc[:, 1]) * 0.5 * h]


def joint_pixels(stage) -> np.ndarray:
    """(n, 2) frame pixels of every bone's joint in the figure's current pose."""
    return project(stage, np.asarray(stage.figure.pose_.model, np.float64)[:, :, 3])


def line(image: np.ndarray, a, b, colour) -> None:
    steps = int(min(max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1), 4 * sum(image.shape[:2])))
    t = np.linspace(0.0, 1.0, steps + 1)
    x = np.round(a[0] + (b[0] - a[0]) * t).astype(int)
    y = np.round(a[1] + (b[1] - a[1]) * t).astype(int)
    keep = (x >= 0) & (x < image.shape[1]) & (y >= 0) & (y < image.shape[0])
    image[y[keep], x[keep]] = colour


def polyline(image: np.ndarray, pixels: np.ndarray, colour) -> None:
    for a, b in zip(pixels[:-1], pixels[1:]):
        if np.isfinite(a).all() and np.isfinite(b).all():
            line(image, a, b, colour)


def paint_bones(layer: np.ndarray, stage, names: list[str] | None = None) -> None:
    """Each bone from its parent's joint, the joints as dots, their names when given."""
    sk = stage.figure.skeleton
    points = joint_pixels(stage)
    for b in range(sk.bone_count):
        p = sk.parent(b)
        if p < len(points):
            line(layer, points[p], points[b], BONE)
    for b, (x, y) in enumerate(points):
        xi, yi = int(round(x)), int(round(y))
        layer[max(yi - 1, 0):yi + 2, max(xi - 1, 0):xi + 2] = JOINT
        if names is not None:
            pixelfont.draw(layer, names[b], xi + 3, yi - 3, TEXT)


# ---- shapes as model-space polylines ---------------------------------------------------
_T = np.linspace(0.0, 2 * np.pi, ROUND + 1)
_RING = np.stack([np.cos(_T), np.sin(_T)], 1)


def _circle(centre, u, v, radius) -> np.ndarray:
    return centre + radius * (_RING[:, :1] * u + _RING[:, 1:] * v)


def sphere_lines(centre, axes: np.ndarray, radius: float) -> list[np.ndarray]:
    """Three great circles about `centre` across the columns of `axes`."""
    x, y, z = axes.T
    return [_circle(centre, x, y, radius), _circle(centre, y, z, radius),
            _circle(centre, z, x, radius)]


def capsule_lines(a, b, axes: np.ndarray, radius: float) -> list[np.ndarray]:
    """A capsule from cap centre `a` to `b`: a ring at each, and four lines between."""
    x, _, z = axes.T
    out = [_circle(a, x, z, radius), _circle(b, x, z, radius)]
    for side in (x, -x, z, -z):
        out.append(np.stack([a + radius * side, b + radius * side]))
    out += sphere_lines(a, axes, radius)[1:] + sphere_lines(b, axes, radius)[1:]
    return out


_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
_EDGES = [(i, j) for i in range(8) for j in range(i + 1, 8)
          if bin(i ^ j).count("1") == 1]


def box_lines(centre, axes: np.ndarray, half) -> list[np.ndarray]:
    """A box's twelve edges: half extents `half` along the columns of `axes`."""
    corners = centre + (_CORNERS * half) @ axes.T
    return [np.stack([corners[i], corners[j]]) for i, j in _EDGES]


def _matrix(q) -> np.ndarray:
    x, y, z, w = np.asarray(q, np.float64) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# ---- spring bones ----------------------------------------------------------------------
def spring_chains(figure) -> list[np.ndarray]:
    """Each spring's joints from the root down, in the model, as the pose now holds them."""
    s = figure.asset.springs
    origins = np.asarray(figure.pose_.model, np.float64)[:, :, 3]
    return [origins[s.joint_bones[first:first + count]] for first, count in s.springs[:, :2]]


def spring_lines(figure) -> list[tuple[np.ndarray, tuple]]:
    """(model-space polyline, colour) for the chains, their joints' hit radii and the
    colliders, each on its bone as the pose holds it (radii by the bone's scale)."""
    s = figure.asset.springs
    model = np.asarray(figure.pose_.model, np.float64)
    out = [(chain, CHAIN) for chain in spring_chains(figure)]
    for first, count in s.springs[:, :2]:
        for j in range(first, first + count - 1):
            m = model[s.joint_bones[j]]
            scale = abs(np.linalg.det(m[:, :3])) ** (1 / 3)
            radius = float(s.joint_values[j, 0]) * scale
            if radius > 0:
                out += [(c, HIT) for c in sphere_lines(m[:, 3], np.eye(3), radius)]
    for kind, bone, v in zip(s.collider_kinds, s.collider_bones, s.collider_values):
        m = model[bone]
        scale = abs(np.linalg.det(m[:, :3])) ** (1 / 3)
        head = m[:, :3] @ v[0:3] + m[:, 3]
        radius = float(v[3]) * scale
        if kind in (rt.ColliderShape.sphere, rt.ColliderShape.inside_sphere):
            out += [(c, COLLIDER) for c in sphere_lines(head, np.eye(3), radius)]
        elif kind in (rt.ColliderShape.capsule, rt.ColliderShape.inside_capsule):
            tail = m[:, :3] @ v[4:7] + m[:, 3]
            out += [(c, COLLIDER) for c in capsule_lines(head, tail, _across(tail - head),
                                                         radius)]
        else:                       # a plane: a square across its normal at the offset
            n = m[:, :3] @ v[7:10]
            axes = _across(n)
            size = 0.25 * figure_size(figure)
            out += [(c, COLLIDER) for c in box_lines(head, axes, (size, 0.0, size))]
    return out


def _across(direction) -> np.ndarray:
    """Columns x, y, z with y along `direction` (any x and z across it)."""
    length = np.linalg.norm(direction)
    y = direction / length if length > 0 else np.array([0.0, 1.0, 0.0])
    helper = np.array([1.0, 0, 0]) if abs(y[0]) < 0.9 else np.array([0, 0, 1.0])
    z = np.cross(helper, y)
    z /= np.linalg.norm(z)
    return np.stack([np.cross(y, z), y, z], 1)


def figure_size(figure) -> float:
    p = figure.vertices[:, :3]
    return float(np.ptp(p, axis=0).max()) if len(p) else 1.0


# ---- ragdoll bodies --------------------------------------------------------------------
def body_states(figure) -> np.ndarray:
    """(bodies, 13) each body's state where the current pose puts it in the model."""
    return figure.asset.ragdoll.bodies_from_pose(figure.pose_, IDENTITY)


def body_lines(figure) -> list[np.ndarray]:
    """Every body's shape as model-space polylines at the current pose."""
    ragdoll, out = figure.asset.ragdoll, []
    for k, state in enumerate(body_states(figure)):
        body = ragdoll.body(k)
        centre, axes = state[0:3].astype(np.float64), _matrix(state[3:7])
        size = np.asarray(body.size, np.float64)
        if body.shape == rt.RagdollShape.box:
            out += box_lines(centre, axes, size)
        elif body.shape == rt.RagdollShape.sphere:
            out += sphere_lines(centre, axes, size[0])
        else:                           # a capsule along the body's y
            half = axes[:, 1] * size[1]
            out += capsule_lines(centre - half, centre + half, axes, size[0])
    return out


def paint(layer: np.ndarray, stage, *, bones: bool = True, names: list[str] | None = None,
          springs: bool = True, bodies: bool = True) -> None:
    """The overlay of the figure's current pose (what there is of it) into `layer`."""
    figure = stage.figure
    if bones:
        paint_bones(layer, stage, names)
    if springs and figure.asset.springs is not None:
        for points, colour in spring_lines(figure):
            polyline(layer, project(stage, points), colour)
    if bodies and figure.asset.ragdoll is not None:
        for points in body_lines(figure):
            polyline(layer, project(stage, points), BODY)


def over(rgb: np.ndarray, layer: np.ndarray) -> np.ndarray:
    """`layer` (RGBA) blended over `rgb` by its alpha, into `rgb`."""
    a = layer[:, :, 3:4].astype(np.float32) / 255.0
    rgb[:] = np.round(rgb * (1 - a) + layer[:, :, :3] * a).astype(np.uint8)
    return rgb
