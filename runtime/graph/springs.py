"""What a springs node's evaluation, update and restore share about its bound spring set: the
state values it keeps in the instance's scalars (physics/spring.py's values, the scratch
left to the evaluation), and the bones its step reads and writes (for subset plans)."""
from __future__ import annotations

import numpy as np

from ..physics import kernels as spring_kernels
from ..physics.spring import SpringSet


def spring_values(spring_set: SpringSet) -> int:
    """The values of a set's state (physics/spring.py's layout)."""
    return spring_kernels.AT_LOCALS + 10 * spring_set.bone_count + 6 * spring_set.joint_count


def written_bones(spring_set: SpringSet) -> np.ndarray:
    """The joints a set's apply turns."""
    return np.unique(np.asarray(spring_set.joint_bones, dtype=np.int64))


def read_bones(spring_set: SpringSet) -> np.ndarray:
    """What its step reads besides: its joints, colliders' bones and springs' centers."""
    centers = np.asarray(spring_set.springs)[:, 4].tolist()
    bones = list(np.asarray(spring_set.joint_bones).tolist()) + \
        list(np.asarray(spring_set.collider_bones).tolist()) + centers
    return np.unique(np.array([b for b in bones if 0 <= b < spring_set.bone_count], dtype=np.int64))
