"""The asset dropped as a ragdoll: its OMI bodies put where the pose holds them, handed to
the product's MuJoCo engine (stadium.physics.ragdoll_engine) on the ground the figure stands
on, the drives fainting, and the engine's bodies turned back into the pose each frame.

All in the figure's model space (the placement is the identity), the ground at the lowest
point the figure reaches over its clips, up +Y (glTF's, which the inspector keeps)."""
from __future__ import annotations

import numpy as np

import runtime as rt

from .figure import Figure
from .overlay import IDENTITY

FAINT = 0.25            # seconds the drives take to let go
UP = (0.0, 1.0, 0.0)


def available() -> bool:
    """Whether the ragdoll engine (stadium.physics, on MuJoCo) can be imported here."""
    try:
        from ..physics import ragdoll_engine  # noqa: F401
    except ImportError:
        return False
    return True


class Drop:
    """One fall from the figure's current pose."""

    def __init__(self, figure: Figure, ground: float):
        from ..physics.ragdoll_engine import RagdollEngine
        self.figure = figure
        ragdoll = figure.asset.ragdoll
        self.reference = rt.Pose(figure.skeleton)
        self.reference.copy_from(figure.pose_)
        self.engine = RagdollEngine(ragdoll, figure.skeleton, up=UP, ground=ground)
        self.engine.set_bodies(ragdoll.bodies_from_pose(figure.pose_, IDENTITY))
        self.engine.faint(FAINT)

    def step(self, seconds: float) -> None:
        """Run the engine `seconds` on and show the bodies' pose in the figure's rows."""
        self.engine.step(seconds)
        self.show()

    def show(self) -> None:
        figure = self.figure
        self.engine.pose(IDENTITY, self.reference, figure.pose_)
        figure.skin_pose(figure.pose_)

    @property
    def bodies(self) -> np.ndarray:
        return self.engine.bodies()
