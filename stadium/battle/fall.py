"""A faint as a fall: from the moment a creature faints, the physics engine poses it. Its
bodies start where the graph's pose puts them, moving as that pose was moving (no faster
than a creature moves: a pose that jumped, an entrance cut short, would throw it); the
drives pull toward the faint clip's pose as it plays and weaken to nothing, so the
creature begins the authored faint and ends wherever gravity and the ground leave it.

The engine's bodies are boxes about the bulkiest bones: the skin reaches past them (the
smaller bones follow their parents without touching anything), so the figure is lifted
along up by what its lowest skinned vertex sinks below the ground, and once the bodies are
at rest it is eased over SETTLE seconds until that vertex touches the ground.

Should MuJoCo warn (a step so violent it resets the data), the fall is not shown as that
reset: from then on the creature plays the faint clip itself, on the ground as above.

The battle waits for the fall: a fall is over once its bodies are at rest (or after
LONGEST seconds, so a fall that keeps rocking never holds the battle up), then settles,
and from then on it lies exactly still: the engine is no longer stepped."""
from __future__ import annotations

import logging
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
SETTLE = 0.25               # seconds over which a fall at rest is set on the ground
REST_SPEED = 0.02           # body heights a second below which a body is still
REST_TURN = 0.3             # radians a second
FASTEST = 3.0               # body heights a second: the most a body starts with
FASTEST_TURN = 12.0         # radians a second
GRAVITY = 9.81              # world units a second squared; the model's are world / root scale
LIMP = 0.3                  # the share of the drives' damping a fainted body keeps
RATE = 240.0                # the engine's steps a second (a wyrm once went unstable here:
                            # its springs read as motion threw it; 480 costs a half more)

_log = logging.getLogger(__name__)
_PROFILES: "weakref.WeakKeyDictionary[RuntimeSpecies, rt.Ragdoll]" = weakref.WeakKeyDictionary()
_SKINS: "weakref.WeakKeyDictionary[RuntimeSpecies, Skin]" = weakref.WeakKeyDictionary()


def profile(rts: RuntimeSpecies) -> rt.Ragdoll:
    """The species' ragdoll profile, made once."""
    found = _PROFILES.get(rts)
    if found is None:
        found = _PROFILES[rts] = species_ragdoll(rts)
    return found


class Skin:
    """The species' opaque vertices (each distinct one once) in their bones' frames, to
    find how low a pose puts its skin as StadiumRig.skin would draw it (pivot matrix,
    draw bone's scale); flames cast no shadow and do not touch the ground either."""

    def __init__(self, rts: RuntimeSpecies):
        prims = [p for p in rts.species.prims if not p.additive]
        rows = np.unique(np.concatenate([np.c_[p.positions.astype(np.float64), p.bones]
                                         for p in prims]), axis=0)
        self.points = rows[:, 0:3]
        bones = rows[:, 3].astype(np.intp)
        self.pivots = np.asarray(rts.pivot_bones, np.intp)[bones]
        self.draws = np.asarray(rts.draw_bones, np.intp)[bones]

    @classmethod
    def of(cls, rts: RuntimeSpecies) -> "Skin":
        found = _SKINS.get(rts)
        if found is None:
            found = _SKINS[rts] = cls(rts)
        return found

    def lowest(self, pose: rt.Pose) -> float:
        """The lowest skinned vertex's height (model y) in the pose (its model current)."""
        rows = pose.model[self.pivots, 1, :].astype(np.float64)
        scaled = self.points * pose.locals[self.draws, 7:10]
        return float((np.einsum("ij,ij->i", rows[:, 0:3], scaled) + rows[:, 3]).min())


def _limit(vectors: np.ndarray, most: float) -> None:
    """Each row shortened to at most `most`, in place."""
    length = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors *= np.minimum(1.0, most / np.maximum(length, 1e-30))


class Fall:
    """One creature's fall, in its own model space (the ground at y = 0)."""

    def __init__(self, rts: RuntimeSpecies, pose: rt.Pose, previous: rt.Pose | None, dt: float):
        self.rts = rts
        self.ragdoll = profile(rts)
        self.skin = Skin.of(rts)
        self.height = rts.raw_height if rts.raw_height > 0 else 1.0
        n = self.ragdoll.body_count
        self._bodies = np.zeros((n, 13), np.float32)
        self._targets = np.zeros((n, 7), np.float32)
        moving = previous is not None and dt > 0
        self.ragdoll.bodies_from_pose(pose, IDENTITY, previous if moving else None,
                                      IDENTITY if moving else None, dt if moving else 0.0,
                                      out=self._bodies)
        _limit(self._bodies[:, 7:10], FASTEST * self.height)
        _limit(self._bodies[:, 10:13], FASTEST_TURN)
        self.ground = 0.0
        self.engine = self._engine()
        # a body that starts below the ground would be thrown out of it: the engine's ground
        # for a creature whose bodies sink into the diorama's is where its lowest one starts
        lowest = float(self.engine.lowest_points().min())
        if lowest < 0.0:
            self.ground = lowest
            self.engine = self._engine()
        self.engine.faint(FADE)
        self.seconds = 0.0                      # since the faint
        self.settling = None                    # seconds since the fall came to rest
        self.kinematic = False                  # the engine warned: the clip plays instead
        self.lift = 0.0                         # what the figure was last lifted by
        self.still = False                      # at rest and set down: no longer stepped

    def _engine(self) -> RagdollEngine:
        engine = RagdollEngine(self.ragdoll, self.rts.skeleton, rate=RATE, ground=self.ground,
                               joint_damping=1.0, gravity=GRAVITY / self.rts.species.root_scale,
                               limp_damping=LIMP)
        engine.set_bodies(self._bodies)
        return engine

    def step(self, target: rt.Pose, dt: float) -> None:
        """The drives toward `target` (the faint clip's pose now), then dt of simulation;
        nothing once the fall is still."""
        if self.still:
            return
        self.seconds += dt
        if self.settling is not None:
            self.settling += dt
            self.still = self.settling >= SETTLE
            return
        if not self.kinematic:
            self.ragdoll.bodies_from_pose(target, IDENTITY, out=self._bodies)
            self.engine.drive_to(self.ragdoll.joint_targets(self._bodies, out=self._targets))
            self.engine.step(dt)
            if self.engine.unstable:
                _log.info("%s's fall went unstable at %.3f s: the faint clip plays instead",
                          self.rts.name, self.seconds)
                self.kinematic = True
        if self._over():
            self.settling = 0.0

    def _over(self) -> bool:
        if self.seconds >= LONGEST:
            return True
        if self.kinematic:
            return self.seconds >= self.rts.clip("faint").duration
        return self.seconds >= SHORTEST and self.engine.at_rest(REST_SPEED * self.height, REST_TURN)

    def pose_into(self, pose: rt.Pose) -> None:
        """The engine's bodies as the pose (bones without a body keep the pose's own
        locals; after a warning, the pose is left the clip's), lifted onto the ground."""
        if not self.kinematic:
            self.engine.pose(IDENTITY, pose, pose)
        low = self.skin.lowest(pose)
        lift = max(0.0, -low)
        if self.settling is not None:
            lift += (-low - lift) * min(1.0, self.settling / SETTLE)
        self.lift = lift
        pose.locals[0, 1] += np.float32(lift)
        pose.model[:, 1, 3] += np.float32(lift)

    def resting(self) -> bool:
        return self.still

    def save(self) -> dict:
        return {**self.engine.save(), "ground": self.ground, "seconds": self.seconds,
                "settling": self.settling, "kinematic": self.kinematic, "still": self.still}

    def restore(self, saved: dict) -> None:
        """A saved fall (stadium.app.checks has checked its form); one of another species'
        profile is refused."""
        if float(saved["ground"]) != self.ground:
            self.ground = float(saved["ground"])
            self.engine = self._engine()
        try:
            self.engine.restore(saved)
        except ValueError as error:
            raise BadInput(f"a saved fall of {self.rts.name}: {error}") from None
        self.seconds = float(saved["seconds"])
        self.settling = None if saved["settling"] is None else float(saved["settling"])
        self.kinematic = bool(saved["kinematic"])
        self.still = bool(saved["still"])
