"""A faint as a fall: from the moment a creature faints, the physics engine poses it. Its
bodies start where the graph's pose puts them, moving as that pose was moving; the drives
pull toward the faint clip's pose as it plays and weaken to nothing, so the creature
begins the authored faint and ends wherever gravity and the ground leave it, lying still.

The battle waits for the fall: a fallen creature has fainted once it is at rest (or after
LONGEST seconds, so a fall that keeps rocking never holds the battle up), and from then on
it lies exactly still: the engine is no longer stepped."""
from __future__ import annotations

import weakref

import numpy as np

import runtime as rt

from ..errors import BadInput
from ..physics.ragdoll_engine import RagdollEngine
from ..physics.species_ragdoll import species_ragdoll
from ..rig.convert import RuntimeSpecies

IDENTITY = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], np.float32)   # the battler's model space
FADE = 0.6                  # seconds over which the drives weaken to nothing
SHORTEST = 1.0              # seconds before a fall may count as over
LONGEST = 5.0               # seconds after which it counts as over regardless
REST_SPEED = 0.02           # body heights a second below which a body is still
REST_TURN = 0.3             # radians a second
GRAVITY = 9.81              # world units a second squared; the model's are world / root scale
RATE = 480.0                # the engine's steps a second: a long light chain is unstable at 240

_PROFILES: "weakref.WeakKeyDictionary[RuntimeSpecies, rt.Ragdoll]" = weakref.WeakKeyDictionary()


def profile(rts: RuntimeSpecies) -> rt.Ragdoll:
    """The species' ragdoll profile, made once."""
    found = _PROFILES.get(rts)
    if found is None:
        found = _PROFILES[rts] = species_ragdoll(rts)
    return found


class Fall:
    """One creature's fall, in its own model space (the ground at y = 0)."""

    def __init__(self, rts: RuntimeSpecies, pose: rt.Pose, previous: rt.Pose | None, dt: float):
        self.rts = rts
        self.ragdoll = profile(rts)
        n = self.ragdoll.body_count
        self._bodies = np.zeros((n, 13), np.float32)
        self._targets = np.zeros((n, 7), np.float32)
        moving = previous is not None and dt > 0
        self.ragdoll.bodies_from_pose(pose, IDENTITY, previous if moving else None,
                                      IDENTITY if moving else None, dt if moving else 0.0,
                                      out=self._bodies)
        self.engine = self._engine(0.0)
        # a body that starts below the ground would be thrown out of it: the ground of a
        # creature whose rest sinks into the diorama's is where its lowest body starts
        lowest = float(self.engine.lowest_points().min())
        if lowest < 0.0:
            self.engine = self._engine(lowest)
        self.engine.faint(FADE)
        self.still = False                      # at rest: no longer stepped

    def _engine(self, ground: float) -> RagdollEngine:
        engine = RagdollEngine(self.ragdoll, self.rts.skeleton, rate=RATE, ground=ground,
                               joint_damping=1.0, gravity=GRAVITY / self.rts.species.root_scale)
        engine.set_bodies(self._bodies)
        return engine

    @property
    def seconds(self) -> float:
        return self.engine.time

    def step(self, target: rt.Pose, dt: float) -> None:
        """The drives toward `target` (the faint clip's pose now), then dt of simulation;
        nothing once the fall is still."""
        if self.still:
            return
        self.ragdoll.bodies_from_pose(target, IDENTITY, out=self._bodies)
        self.engine.drive_to(self.ragdoll.joint_targets(self._bodies, out=self._targets))
        self.engine.step(dt)
        self.still = self.seconds >= LONGEST or (self.seconds >= SHORTEST and self.engine.at_rest(
            REST_SPEED * self.rts.raw_height, REST_TURN))

    def pose_into(self, pose: rt.Pose) -> None:
        """The engine's bodies as the pose (its model composed); bones without a body keep
        the pose's own locals."""
        self.engine.pose(IDENTITY, pose, pose)

    def resting(self) -> bool:
        return self.still

    def save(self) -> dict:
        return {**self.engine.save(), "still": self.still}

    def restore(self, saved: dict) -> None:
        """A saved fall (stadium.app.checks has checked its form); one of another species'
        profile is refused."""
        try:
            self.engine.restore(saved)
        except ValueError as error:
            raise BadInput(f"a saved fall of {self.rts.name}: {error}") from None
        self.still = bool(saved["still"])
