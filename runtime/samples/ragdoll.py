"""A sample ragdoll profile: 20 bodies on the sample humanoid (samples/humanoid.py), so tests,
benchmarks and the product's engine share one shape.

Each limb body is a capsule from its bone toward a named bone below (its frame's y along
the bone, centred half way), its joint at the bone's origin with the twist axis (the joint
frame's x) along the bone; the hips, hands and feet are boxes, the head a sphere.
"""
from __future__ import annotations

import numpy as np

from ..core.transform import quat_conj, quat_mul, quat_rotate
from ..physics.ragdoll_build import BodySource, RagdollShape, RagdollSource, rest_frames
from ..pose.skeleton import Skeleton

# body bone, the bone it reaches toward (or a model-space offset), shape, radius, mass,
# twist, swing y, swing z
LIMBS = [
    ("hips", "spine0", RagdollShape.box, 0.12, 10.0, 0.0, 0.0, 0.0),
    ("spine0", "spine1", RagdollShape.capsule, 0.1, 5.0, 0.3, 0.3, 0.3),
    ("spine1", "spine2", RagdollShape.capsule, 0.1, 5.0, 0.3, 0.3, 0.3),
    ("spine2", "neck", RagdollShape.capsule, 0.11, 6.0, 0.3, 0.3, 0.3),
    ("neck", "head", RagdollShape.capsule, 0.04, 1.0, 0.5, 0.5, 0.5),
    ("head", (0.0, 0.2, 0.0), RagdollShape.sphere, 0.1, 4.0, 0.6, 0.6, 0.6),
]
for _side in "lr":
    LIMBS += [
        (f"shoulder_{_side}", f"arm_{_side}", RagdollShape.capsule, 0.04, 1.5, 0.2, 0.3, 0.3),
        (f"arm_{_side}", f"forearm_{_side}", RagdollShape.capsule, 0.045, 2.0, 0.8, 1.3, 1.3),
        (f"forearm_{_side}", f"hand_{_side}", RagdollShape.capsule, 0.04, 1.5, 0.8, 0.3, 1.8),
        (f"hand_{_side}", f"meta2_{_side}", RagdollShape.box, 0.03, 0.5, 0.5, 0.7, 0.7),
        (f"upleg_{_side}", f"leg_{_side}", RagdollShape.capsule, 0.07, 8.0, 0.5, 1.2, 1.0),
        (f"leg_{_side}", f"foot_{_side}", RagdollShape.capsule, 0.05, 4.0, 0.3, 0.2, 1.8),
        (f"foot_{_side}", f"toe_{_side}", RagdollShape.box, 0.04, 1.0, 0.3, 0.4, 0.6),
    ]
del _side
TWIST_ALONG_Y = np.array([0.0, 0.0, np.sqrt(0.5), np.sqrt(0.5)])   # x onto y: 90 deg about z


def _arc(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The shortest turn taking unit u onto unit v (about x when they are opposite)."""
    w = 1.0 + float(u @ v)
    q = np.array([1.0, 0.0, 0.0, 0.0]) if w < 1e-9 else np.append(np.cross(u, v), w)
    return q / np.linalg.norm(q)


def humanoid_ragdoll_source(skeleton: Skeleton, stiffness: float = 200.0,
                            damping: float = 20.0) -> RagdollSource:
    """The 20-body profile on a skeleton of samples.humanoid (80 bones or at least 70)."""
    rest = rest_frames(skeleton)
    bodies = []
    for name, toward, shape, radius, mass, twist, swing_y, swing_z in LIMBS:
        b = skeleton.find_bone(name)
        t, q = rest[b, 0:3], rest[b, 3:7]
        if isinstance(toward, str):
            offset = rest[skeleton.find_bone(toward), 0:3] - t
        else:
            offset = np.array(toward, dtype=np.float64)
        d = quat_rotate(quat_conj(q), offset)              # in the bone's frame
        length = float(np.linalg.norm(d))
        turn = _arc(np.array([0.0, 1.0, 0.0]), d / length)
        half = 0.5 * length
        if shape == RagdollShape.capsule:
            size = (radius, max(half - radius, 0.25 * half), 0.0)
        elif shape == RagdollShape.sphere:
            size = (radius, 0.0, 0.0)
        else:
            size = (radius * 1.5, half, radius)
        bodies.append(BodySource(name, b, shape, size, mass, tuple(d * 0.5), tuple(turn),
                                 (0.0, -half, 0.0), tuple(TWIST_ALONG_Y), -twist, twist,
                                 swing_y, swing_z, stiffness * mass / 5.0, damping * mass / 5.0))
    hips_turn = quat_mul(rest[0, 3:7], np.array(bodies[0].rotation))
    facing = quat_rotate(quat_conj(hips_turn), np.array([0.0, 0.0, 1.0]))
    up = quat_rotate(quat_conj(hips_turn), np.array([0.0, 1.0, 0.0]))
    return RagdollSource(skeleton, bodies, tuple(facing), tuple(up))
