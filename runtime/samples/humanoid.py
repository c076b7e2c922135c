"""Sample sources to try the library with: a humanoid-shaped skeleton of a chosen size.

Tests, benchmarks and examples share these so their figures describe the same shape.
"""
from __future__ import annotations

import numpy as np

from ..pose.skeleton import BoneSource, SkeletonSource


def humanoid_source(bones: int = 80, seed: int = 0) -> SkeletonSource:
    """A humanoid of `bones` bones: spine, head, arms with twist bones and three-joint
    fingers, legs (78 bones), then face joints on the head; fewer bones keep the first ones.
    Rests get small random turns and slightly non-unit scales so nothing composes trivially."""
    rng = np.random.default_rng(seed)
    out: list[BoneSource] = []

    def add(name: str, parent: int | None, offset) -> int:
        q = np.append(rng.normal(scale=0.15, size=3), 1.0)
        out.append(BoneSource(name, -1 if parent is None else parent, tuple(offset),
                              tuple(q / np.linalg.norm(q)), tuple(rng.uniform(0.95, 1.05, 3))))
        return len(out) - 1

    hips = add("hips", None, (0, 1.0, 0))
    spine = hips
    for i in range(3):
        spine = add(f"spine{i}", spine, (0, 0.12, 0))
    neck = add("neck", spine, (0, 0.15, 0))
    head = add("head", neck, (0, 0.1, 0))
    for side, sx in (("l", 1), ("r", -1)):
        shoulder = add(f"shoulder_{side}", spine, (sx * 0.08, 0.1, 0))
        arm = add(f"arm_{side}", shoulder, (sx * 0.12, 0, 0))
        add(f"arm_twist_{side}", arm, (sx * 0.13, 0, 0))
        fore = add(f"forearm_{side}", arm, (sx * 0.26, 0, 0))
        add(f"forearm_twist_{side}", fore, (sx * 0.12, 0, 0))
        hand = add(f"hand_{side}", fore, (sx * 0.25, 0, 0))
        for f in range(5):
            b = add(f"meta{f}_{side}", hand, (sx * 0.03, 0, 0.02 * (f - 2)))
            for j in range(3):
                b = add(f"finger{f}{j}_{side}", b, (sx * 0.03, 0, 0))
        upleg = add(f"upleg_{side}", hips, (sx * 0.1, -0.05, 0))
        add(f"upleg_twist_{side}", upleg, (0, -0.2, 0))
        leg = add(f"leg_{side}", upleg, (0, -0.42, 0))
        add(f"leg_twist_{side}", leg, (0, -0.2, 0))
        foot = add(f"foot_{side}", leg, (0, -0.42, 0))
        add(f"toe_{side}", foot, (0, -0.05, 0.12))
    face = 0
    while len(out) < bones:
        add(f"face{face}", head, (0.02 * (face % 5 - 2), 0.05, 0.08))
        face += 1
    return SkeletonSource(out[:bones])
