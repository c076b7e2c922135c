"""Secondary motion in the runtime pose path: what the graph's pose gets after its
evaluation and before the rig is driven, skinned and drawn.

    planted feet   each leg of the species (stadium.rig.species.secondary) bent by a
                   two-bone solve so a foot the animation puts on the ground stays where
                   it touched down, by a contact weight from the foot's height above the
                   ground and its speed; the pelvis is lowered when a planted foot is out
                   of its leg's reach
    look-at        each look chain aimed at the opponent's head by an aim solve within its
                   cone, by a weight that ramps with the battler's role (no pops: the
                   weight moves at a bounded rate and is shown through a smoothstep)
    springs        the species' chains stepped by the runtime's spring state with the
                   frame's seconds (a fixed step inside: the frame rate changes nothing),
                   kept out of the species' colliders, applied to the pose

All of it is in the creature's model space (the rig's, before the battler's placement);
the springs alone see the world, through the placement, so gravity and inertia are the
world's. The per-frame work writes into arrays made once; ``advance`` False (a debugger
re-showing a step) re-applies the step's state without moving it on.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np

import runtime as rt
from runtime.core import jit
from runtime import (ColliderShape, ColliderSource, JointSource, SpringSetSource, SpringSource,
                     build_spring_set)

from ..rig.convert import RuntimeSpecies
from ..rig.species.secondary import Resolved, declared

# Look-at weight by role: full while standing by, half during an attack (the move's own
# aim leads), none while hit, fainting or arriving.
LOOK_WEIGHT = {"standby_intro": 1.0, "standby": 1.0, "attack1": 0.5, "attack2": 0.5,
               "hit": 0.0, "faint": 0.0, "sendout": 0.0}
LOOK_FADE = 0.35            # seconds for the weight to go all the way from 0 to 1
CONTACT_FADE = 0.12         # seconds for a foot's contact weight to go from 0 to 1
# A foot is on the ground within this many body heights of its bind height, and still
# below this speed (body heights a second); each fades out over the same distance above.
CONTACT_HEIGHT = 0.04
CONTACT_SPEED = 0.35
CONTACT_STRETCH = 0.06      # a planted foot this far (body heights) from the animation's lifts
REACH_MARGIN = 0.999        # a planted leg is kept this short of straight
SPRING_STEP_RATE = 120.0


def _smoothstep(x: float) -> float:
    x = 0.0 if x < 0.0 else 1.0 if x > 1.0 else x
    return x * x * (3.0 - 2.0 * x)


def _toward(value: float, goal: float, rate: float, dt: float) -> float:
    """value moved toward goal at `rate` a second: exact at any step size."""
    step = rate * dt
    if value < goal:
        return min(goal, value + step)
    return max(goal, value - step)


def _rotation(q) -> np.ndarray:
    x, y, z, w = (float(v) for v in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@dataclass(eq=False)
class SecondaryRig:
    """What every battler of a species shares: the declaration on runtime bones, the
    look chains' axes in their aiming bone's frame, the legs' measures, the spring set."""

    rts: RuntimeSpecies
    resolved: Resolved
    looks: list                   # (runtime bones, forward local, up local, cone, shares)
    legs: list                    # (start, middle, end, pole, sole height, reach, hinge)
    pelvis: int                   # runtime bone, or -1
    pelvis_parent: int
    spring_set: rt.SpringSet | None
    chain_bones: list             # per chain, its runtime bones
    colliders: list               # (runtime bone, offset, radius, tail or None)
    height: float                 # body height, raw units


def _bind_model(rts: RuntimeSpecies) -> np.ndarray:
    pose = rt.Pose(rts.skeleton)
    pose.compute_model(rts.skeleton)
    return pose.model.astype(np.float64)


def _spring_set(rts: RuntimeSpecies, res: Resolved) -> rt.SpringSet | None:
    if not res.chains:
        return None
    piv = rts.pivot_bones
    colliders = []
    for bone, offset, radius, tail in res.colliders:
        if tail is None:
            colliders.append(ColliderSource(int(piv[bone]), ColliderShape.sphere, offset, radius))
        else:
            colliders.append(ColliderSource(int(piv[bone]), ColliderShape.capsule, offset, radius,
                                            tail))
    groups = [list(range(len(colliders)))] if colliders else []
    springs = []
    for name, bones, stiffness, gravity, drag, radius in res.chains:
        joints = [JointSource(int(piv[b]), radius, stiffness, gravity, (0.0, -1.0, 0.0), drag)
                  for b in bones[:-1]]
        joints.append(JointSource(int(piv[bones[-1]])))
        springs.append(SpringSource(name, joints, [0] if groups else []))
    source = SpringSetSource(rts.skeleton, springs, colliders, groups, 60.0, SPRING_STEP_RATE)
    return rt.SpringSet(build_spring_set(rt.Builder(), source))


def _build(rts: RuntimeSpecies, res: Resolved) -> SecondaryRig:
    model = _bind_model(rts)
    piv = rts.pivot_bones
    looks = []
    for bones, forward, up, cone, shares in res.looks:
        aiming = int(piv[bones[-1]])
        back = model[aiming, :, :3].T            # model to the aiming bone's frame
        f = back @ np.asarray(forward, float)
        u = back @ np.asarray(up, float)
        looks.append(([int(piv[b]) for b in bones], tuple(float(v) for v in f / np.linalg.norm(f)),
                      tuple(float(v) for v in u / np.linalg.norm(u)), float(cone),
                      None if shares is None else [float(s) for s in shares]))
    legs = []
    for upper, lower, foot, pole, hinge in res.legs:
        a, b, c = (int(piv[k]) for k in (upper, lower, foot))
        reach = (np.linalg.norm(model[b, :, 3] - model[a, :, 3])
                 + np.linalg.norm(model[c, :, 3] - model[b, :, 3]))
        knee = model[b, :, :3].T @ np.asarray(hinge, float)     # into the knee's frame
        legs.append((a, b, c, tuple(float(v) for v in pole), float(model[c, 1, 3]), float(reach),
                     tuple(float(v) for v in knee / np.linalg.norm(knee))))
    pelvis = int(piv[res.pelvis]) if res.pelvis >= 0 else -1
    parent = rts.skeleton.parent(pelvis) if pelvis >= 0 else -1
    return SecondaryRig(rts, res, looks, legs, pelvis, parent, _spring_set(rts, res),
                        [[int(piv[b]) for b in bones] for _, bones, *_ in res.chains],
                        [(int(piv[b]), o, r, t) for b, o, r, t in res.colliders],
                        float(rts.raw_height) or 1.0)


_RIGS: "weakref.WeakKeyDictionary[RuntimeSpecies, SecondaryRig | None]" = weakref.WeakKeyDictionary()


def compile_aside() -> None:
    """Starts compiling the kernels the secondary motion and the trainers run each frame in
    another process, those the kernel cache lacks: on a machine's first battle they are
    needed after the graph's update and evaluation, which compile here and aside meanwhile."""
    jit.compile_aside(rt.SpringState.kernels + rt.TwoBoneSolve.kernels + rt.AimSolve.kernels
                      + rt.BlendLayer.kernels)


def secondary_rig(rts: RuntimeSpecies) -> SecondaryRig | None:
    """The species' shared secondary rig (None: it declares no secondary motion)."""
    if rts not in _RIGS:
        res = declared(rts.species)
        _RIGS[rts] = None if res is None else _build(rts, res)
    return _RIGS[rts]


@dataclass(frozen=True)
class Switches:
    """What a developer may turn off (the debugger's IK and springs panel)."""

    look: bool = True
    feet: bool = True
    springs: bool = True
    paused: bool = False          # physics held: springs keep their state, unstepped


@dataclass
class Readout:
    """What the last pose did, for the debugger: goals in model space."""

    look_goal: np.ndarray = field(default_factory=lambda: np.zeros(3))
    look_origins: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    look_forwards: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # as animated
    look_weight: float = 0.0
    look_reached: list = field(default_factory=list)
    foot_goals: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    contact: np.ndarray = field(default_factory=lambda: np.zeros(0))
    foot_reached: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    pelvis_drop: float = 0.0
    steps: int = 0                # spring steps the last call ran


class SecondaryMotion:
    """One battler's secondary motion: its weights, planted feet and spring state."""

    def __init__(self, rig: SecondaryRig, position, yaw: float, scale: float):
        self.rig = rig
        self.skeleton = rig.rts.skeleton
        self.switches = Switches()
        legs = len(rig.legs)
        self.look_level = 0.0                        # the ramped weight, before the smoothstep
        self.contact_level = np.zeros(legs)
        self.locks = np.zeros((legs, 3))
        self.locked = np.zeros(legs, bool)
        self.last_feet = np.zeros((legs, 3))
        self.has_last = False
        looks = len(rig.looks)
        self.readout = Readout(np.zeros(3), np.zeros((looks, 3)), np.zeros((looks, 3)), 0.0,
                               [False] * looks, np.zeros((legs, 3)), np.zeros(legs),
                               np.zeros(legs, bool))
        self._forwards = [f for _, f, _, _, _ in rig.looks]
        self._aims = [rt.AimSolve(bones, (0.0, 0.0, 1.0), forward, up, cone=cone, shares=shares)
                      for bones, forward, up, cone, shares in rig.looks]
        self._legs = [rt.TwoBoneSolve(a, b, c, (0.0, 0.0, 0.0), pole, hinge)
                      for a, b, c, pole, _, _, hinge in rig.legs]
        self._yaw = float(yaw)
        self._cos, self._sin = math.cos(yaw), math.sin(yaw)
        self._position = np.asarray(position, float).copy()
        self._origin = tuple(float(v) for v in self._position)
        self._scale = float(scale) if scale > 0 else 1.0
        self.placement = np.array([*self._position, 0.0, math.sin(yaw / 2), 0.0,
                                   math.cos(yaw / 2), self._scale, self._scale, self._scale])
        self.springs = (rt.SpringState(rig.spring_set, self.skeleton)
                        if rig.spring_set is not None else None)

    # ------------------------------------------------------------ placement

    def to_model(self, world) -> tuple[float, float, float]:
        """A world point in the creature's model space (the battler's placement undone)."""
        x, y, z = world
        px, py, pz = self._origin
        k = self._scale
        dx, dy, dz = (x - px) / k, (y - py) / k, (z - pz) / k
        return self._cos * dx - self._sin * dz, dy, self._sin * dx + self._cos * dz

    def point_to_world(self, point) -> tuple[float, float, float]:
        """One model point in the world, as plain numbers (to_world's, for one)."""
        x, y, z = point
        k = self._scale
        px, py, pz = self._origin
        return (k * (self._cos * x + self._sin * z) + px, k * y + py,
                k * (self._cos * z - self._sin * x) + pz)

    def to_world(self, model: np.ndarray) -> np.ndarray:
        """Model points (..., 3) in the world."""
        m = np.asarray(model, float) * self._scale
        out = np.empty_like(m)
        out[..., 0] = self._cos * m[..., 0] + self._sin * m[..., 2] + self._position[0]
        out[..., 1] = m[..., 1] + self._position[1]
        out[..., 2] = -self._sin * m[..., 0] + self._cos * m[..., 2] + self._position[2]
        return out

    # ------------------------------------------------------------ the step

    def reset(self) -> None:
        """A teleport or a send-out: the springs start again from the pose, no foot is
        planted, no velocity is remembered."""
        if self.springs is not None:
            self.springs.reset()
        self.locked[:] = False
        self.contact_level[:] = 0.0
        self.has_last = False

    @property
    def look_weight(self) -> float:
        return _smoothstep(self.look_level)

    def apply(self, pose: rt.Pose, dt: float, role: str, target, advance: bool = True) -> None:
        """Look-at, feet and springs on `pose` (the graph's evaluation, model current);
        leaves the model current. `target` is the opponent's head in the world (None:
        nobody to look at).

        Every solver composes the frames it needs from the locals, so the model is
        composed once, at the end: the look and the feet both read the evaluation's model
        (the look turns no leg, and the feet turn no bone of a look chain; the pelvis
        drop, a few millimetres, moves the head after it has aimed), the springs read
        the locals the solvers wrote."""
        sw = self.switches
        changed = False
        if self._aims:
            changed |= self._look(pose, dt, role, target, advance)
        if self._legs:
            changed |= self._plant(pose, dt, advance and dt > 0, sw.feet)
        if self.springs is not None and sw.springs:
            if advance and not sw.paused:
                self.readout.steps = self.springs.step(pose, self.placement, None, dt)
            if self.springs.has_motion:
                self.springs.apply(pose)
                changed = True
        if changed or not pose.is_model_current:
            pose.compute_model(self.skeleton)

    def _look(self, pose: rt.Pose, dt: float, role: str, target, advance: bool) -> bool:
        if advance:
            goal = LOOK_WEIGHT.get(role, 0.0) if target is not None else 0.0
            self.look_level = _toward(self.look_level, goal, 1.0 / LOOK_FADE, dt)
        out = self.readout
        for k, (bones, *_) in enumerate(self.rig.looks):
            (a, b, c, x), (d, e, f, y), (g, h, i, z) = pose.model[bones[-1]].tolist()
            u, v, w = self._forwards[k]
            out.look_origins[k] = x, y, z
            out.look_forwards[k] = a * u + b * v + c * w, d * u + e * v + f * w, g * u + h * v + i * w
        out.look_weight = 0.0
        if target is None:
            return False
        goal = self.to_model(target)
        out.look_goal[:] = goal
        weight = self.look_weight * self._in_reach(goal) if self.switches.look else 0.0
        out.look_weight = weight
        if not weight > 0.0:
            return False
        for k, solve in enumerate(self._aims):
            solve.goal = goal
            solve.weight = weight
            out.look_reached[k] = rt.solve_aim(pose, self.skeleton, solve)
        return True

    def _in_reach(self, goal) -> float:
        """1 while the goal lies within the first look chain's cone of where the animation
        points it, fading to 0 at twice the cone: a goal swinging behind (a spin, a turn
        away) lets go smoothly instead of flipping from one edge of the cone to the other."""
        out = self.readout
        ox, oy, oz = out.look_origins[0].tolist()
        fx, fy, fz = out.look_forwards[0].tolist()
        dx, dy, dz = goal[0] - ox, goal[1] - oy, goal[2] - oz
        norm = math.sqrt((dx * dx + dy * dy + dz * dz) * (fx * fx + fy * fy + fz * fz))
        if not norm > 0.0:
            return 0.0
        angle = math.acos(max(-1.0, min(1.0, (dx * fx + dy * fy + dz * fz) / norm)))
        cone = self.rig.looks[0][3]
        return 1.0 - _smoothstep((angle - cone) / cone)

    def _plant(self, pose: rt.Pose, dt: float, advance: bool, on: bool) -> bool:
        rig = self.rig
        model = pose.model
        out = self.readout
        feet = [model[end, :, 3].tolist() for _, _, end, *_ in rig.legs]
        if advance:
            height = rig.height
            for k, (_, _, _, _, sole, _, _) in enumerate(rig.legs):
                x, y, z = feet[k]
                above = (y - sole) / (CONTACT_HEIGHT * height)
                speed = 0.0
                if self.has_last:
                    lx, ly, lz = self.last_feet[k].tolist()
                    speed = math.sqrt((x - lx) ** 2 + (y - ly) ** 2 + (z - lz) ** 2) / dt / height
                goal = (1.0 - _smoothstep(above - 1.0 if above > 1.0 else 0.0)) * \
                    (1.0 - _smoothstep(speed / CONTACT_SPEED - 1.0))
                if self.locked[k]:
                    px, _, pz = self.locks[k].tolist()
                    if math.sqrt((x - px) ** 2 + (z - pz) ** 2) > CONTACT_STRETCH * height:
                        goal = 0.0          # the body has moved on: lift the foot
                goal = 1.0 if goal >= 0.5 else 0.0
                level = _toward(float(self.contact_level[k]), goal, 1.0 / CONTACT_FADE, dt)
                self.contact_level[k] = level
                if level <= 0.0:
                    self.locked[k] = False
                elif not self.locked[k]:
                    self.locked[k] = True
                    self.locks[k] = x, sole, z
                self.last_feet[k] = x, y, z
            self.has_last = True
        out.contact[:] = 0.0
        out.pelvis_drop = 0.0
        out.foot_goals[:] = feet
        if not on:
            return False
        drop = 0.0
        goals = []
        for k, (start, _, _, _, _, reach, _) in enumerate(rig.legs):
            c = _smoothstep(float(self.contact_level[k])) if self.locked[k] else 0.0
            out.contact[k] = c
            (x, y, z), (px, py, pz) = feet[k], self.locks[k].tolist()
            g = (x + c * (px - x), y + c * (py - y), z + c * (pz - z))
            goals.append(g)
            hx, hy, hz = model[start, :, 3].tolist()
            d = math.sqrt((g[0] - hx) ** 2 + (g[1] - hy) ** 2 + (g[2] - hz) ** 2) - reach * REACH_MARGIN
            if d > 0.0:
                drop = max(drop, c * d)
        out.foot_goals[:] = goals
        if not out.contact.any():
            return False
        if drop > 0.0 and rig.pelvis >= 0:
            # lower the pelvis along the model's down, in its parent's frame
            if rig.pelvis_parent >= 0:
                pose.locals[rig.pelvis, 0:3] -= drop * model[rig.pelvis_parent, 1, :3]
            else:
                pose.locals[rig.pelvis, 1] -= drop
            pose.mark_stale()
            out.pelvis_drop = drop
        sk = self.skeleton
        for k, solve in enumerate(self._legs):
            c = float(out.contact[k])
            if c <= 0.0:
                out.foot_reached[k] = False
                continue
            solve.goal = goals[k]
            solve.weight = c
            out.foot_reached[k] = rt.solve_two_bone(pose, sk, solve)
        return True

    # ------------------------------------------------------------ saving

    def save(self) -> dict:
        return {"look_level": self.look_level, "contact": self.contact_level.tolist(),
                "locks": self.locks.tolist(), "locked": self.locked.tolist(),
                "last_feet": self.last_feet.tolist(), "has_last": self.has_last,
                "springs": None if self.springs is None else bytes(self.springs.save()).hex()}

    def restore(self, state: dict) -> None:
        self.look_level = float(state["look_level"])
        self.contact_level[:] = state["contact"]
        self.locks[:] = np.asarray(state["locks"], float).reshape(self.locks.shape)
        self.locked[:] = state["locked"]
        self.last_feet[:] = np.asarray(state["last_feet"], float).reshape(self.last_feet.shape)
        self.has_last = bool(state["has_last"])
        if self.springs is not None and state["springs"] is not None:
            self.springs.restore(bytes.fromhex(state["springs"]))
