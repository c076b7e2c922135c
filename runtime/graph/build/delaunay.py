"""The Delaunay triangulation of a blend space's points (Bowyer-Watson), for a triangulated
space whose source gives no triangles.

Binary64, the points in source order, so the same points give the same triangles on every
platform. Small counts (a blend space has at most MAX_GRAPH_INPUTS points), so the plain
O(n^2) insertion is the clear choice.
"""
from __future__ import annotations

import math


def _circumcircle(p, a, b, c):
    """Centre and squared radius of the circle through three points (None when flat)."""
    (ax, ay), (bx, by), (cx, cy) = p[a], p[b], p[c]
    d = 2.0 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    if d == 0.0:
        return None
    a2, b2, c2 = ax * ax + ay * ay, bx * bx + by * by, cx * cx + cy * cy
    ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d
    uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d
    return ux, uy, (ax - ux) ** 2 + (ay - uy) ** 2


def _cross(p, a, b, c) -> float:
    """Twice the signed area of a, b, c: above 0 for a left turn at b."""
    (ax, ay), (bx, by), (cx, cy) = p[a], p[b], p[c]
    return (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)


def triangulate(points) -> list[tuple[int, int, int]]:
    """Triangles (counter-clockwise index triples, each from its lowest index, sorted)
    covering the points' convex hull; an empty list when the points are fewer than three,
    repeated or all on one line."""
    pts = [(float(x), float(y)) for x, y in points]
    n = len(pts)
    if n < 3 or len(set(pts)) < n:
        return []
    xs, ys = [q[0] for q in pts], [q[1] for q in pts]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9) * 64.0
    # a super-triangle far outside every point
    work = pts + [(cx - 2 * span, cy - span), (cx + 2 * span, cy - span), (cx, cy + 2 * span)]
    tris = {(n, n + 1, n + 2): _circumcircle(work, n, n + 1, n + 2)}
    for i in range(n):
        px, py = work[i]
        bad = []
        for t, (ux, uy, r2) in tris.items():
            if (px - ux) ** 2 + (py - uy) ** 2 < r2 * (1 + 1e-12):
                bad.append(t)
        edges: dict[tuple[int, int], int] = {}
        for t in bad:
            for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
                key = (min(e), max(e))
                edges[key] = edges.get(key, 0) + 1
            del tris[t]
        for (a, b), seen in edges.items():
            if seen == 1:
                circle = _circumcircle(work, a, b, i)
                if circle is not None:
                    tris[(a, b, i)] = circle
    out = set()
    for a, b, c in tris:
        if max(a, b, c) >= n:
            continue
        area = _cross(pts, a, b, c)
        if area == 0.0 or not math.isfinite(area):
            continue
        out.add((a, b, c) if area > 0 else (a, c, b))
    _fill_pockets(pts, out)
    return sorted(_canonical(t) for t in out)


def _canonical(t):
    k = t.index(min(t))
    return t[k:] + t[:k]


def _fill_pockets(pts, tris: set) -> None:
    """Closes the pockets a finite super-triangle can leave between the triangles and the
    hull: while the boundary turns right at a vertex, the ear outside it is added (when no
    point lies within it)."""
    if not tris:
        return
    while True:
        count: dict[tuple[int, int], int] = {}
        for a, b, c in tris:
            for e in ((a, b), (b, c), (c, a)):
                count[e] = count.get(e, 0) + 1
        following = {a: b for (a, b) in count if (b, a) not in count}
        added = False
        for a, b in list(following.items()):
            c = following.get(b)
            if c is None or c == a or _cross(pts, a, b, c) >= 0:
                continue
            ear = (a, c, b)
            if any(_inside(pts, ear, k) for k in range(len(pts)) if k not in ear):
                continue
            tris.add(ear)
            added = True
            break
        if not added:
            return


def _inside(pts, t, k) -> bool:
    a, b, c = t
    return _cross(pts, a, b, k) >= 0 and _cross(pts, b, c, k) >= 0 and _cross(pts, c, a, k) >= 0
