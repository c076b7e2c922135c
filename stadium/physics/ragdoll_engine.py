"""A ragdoll profile (runtime.Ragdoll) on MuJoCo: the profile's bodies, shapes, masses,
swing-twist limits and drives become an MJCF model built here, on a ground plane; bodies go
in from runtime's ComputeBodiesFromPose, the model steps at a fixed rate whatever the
host's, and bodies come back out for ComputePoseFromBodies. The library never simulates;
this is the product's engine.

The mapping:
- each ragdoll body is a MuJoCo body whose frame is the body's joint frame (the child side),
  nested under its parent body, placed where the parent side of the joint is at rest, so a
  joint's angles are 0 at the profile's rest and its rotation is ComputeJointTargets' own;
  the root has a free joint;
- a swing-twist joint is three hinges at that point, about the joint frame's z (a swing),
  y (the other swing) and x (the twist), in that order, so the turn is Rz Ry Rx with the
  twist nearest the child; each hinge is limited by the profile (twist min..max, swings
  +-y, +-z). MuJoCo's ball joint limits only one cone angle, which would lose the twist's
  and the other swing's own limits;
- a drive is a position servo on each hinge (stiffness as kp, damping as kv, max force as
  the force range), toward targets the host sets (the angles the body held when it
  fainted, or ComputeJointTargets'); drive_strength scales kp and kv, and a faint takes
  the strength from 1 to 0 over its seconds of simulated time; `limp_damping` keeps that
  share of kv when the strength is below it (a fainted body's joints are viscous, not
  free: its light limbs would otherwise rock on for seconds);
- shapes are the profile's (a capsule's axis, the body frame's y, turned onto MuJoCo's z),
  each carrying its body's mass; they meet the ground (and, with self_collision, each
  other but not their parent);
- the world is the character's world: gravity (9.81 unless the host's units say otherwise)
  pulls along -`up`, the plane's normal.

Deterministic: the same inputs and calls give the same bits (MuJoCo steps on one thread).

MuJoCo's warnings (an unstable step it has reset, among them) are counted in the data
(`unstable`) and go to this module's logger rather than to MUJOCO_LOG.TXT in whatever
directory the program runs in: the host decides what an unstable fall becomes.
"""
from __future__ import annotations

import logging
import math

import mujoco
import numpy as np

from runtime.core.transform import quat_conj, quat_mul, quat_rotate
from runtime.physics import Ragdoll, RagdollShape
from runtime.pose.skeleton import Skeleton

Z_TO_Y = np.array([-math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)])     # x y z w: -90 deg about x
HINGES = ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0))      # swing z, swing y, twist x
MAX_STEPS = 256                 # most steps one call runs (a stalled host does not spiral)

_log = logging.getLogger(__name__)
mujoco.set_mju_user_warning(lambda text: _log.debug("MuJoCo: %s", text))


def _wxyz(q) -> str:
    return f"{q[3]:.9g} {q[0]:.9g} {q[1]:.9g} {q[2]:.9g}"


def _vec(v) -> str:
    return " ".join(f"{x:.9g}" for x in v)


def _then(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.concatenate([a[..., 0:3] + quat_rotate(a[..., 3:7], b[..., 0:3]),
                           quat_mul(a[..., 3:7], b[..., 3:7])], axis=-1)


def _inverse(a: np.ndarray) -> np.ndarray:
    q = quat_conj(a[..., 3:7])
    return np.concatenate([-quat_rotate(q, a[..., 0:3]), q], axis=-1)


def _arc(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    w = 1.0 + float(u @ v)
    q = np.array([1.0, 0.0, 0.0, 0.0]) if w < 1e-9 else np.append(np.cross(u, v), w)
    return q / np.linalg.norm(q)


def euler_zyx(q: np.ndarray) -> np.ndarray:
    """(..., 4) x y z w turns as the hinge angles (z, y, x) of Rz(a) Ry(b) Rx(c)."""
    x, y, z, w = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    a = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    b = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    c = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    return np.stack([a, b, c], axis=-1)


def _axis_angle(v: np.ndarray) -> np.ndarray:
    """(..., 3) rotation vectors as turns."""
    angle = np.linalg.norm(v, axis=-1, keepdims=True)
    safe = np.where(angle > 0, angle, 1.0)
    return np.concatenate([v / safe * np.sin(angle / 2), np.cos(angle / 2)], axis=-1)


class RagdollEngine:
    """One ragdoll in its own MuJoCo world (model, data), stepped at `rate` Hz."""

    def __init__(self, ragdoll: Ragdoll, skeleton: Skeleton, *, rate: float = 240.0,
                 up=(0.0, 1.0, 0.0), ground: float = 0.0, self_collision: bool = False,
                 friction: float = 1.0, joint_damping: float = 0.02, gravity: float = 9.81,
                 limp_damping: float = 0.0):
        if not (isinstance(ragdoll, Ragdoll) and ragdoll.is_open):
            raise ValueError("an opened ragdoll profile")
        self.ragdoll, self.skeleton = ragdoll, skeleton
        self.rate = float(rate)
        self.up = np.asarray(up, dtype=np.float64) / np.linalg.norm(up)
        self.gravity = float(gravity)
        self.limp_damping = min(max(float(limp_damping), 0.0), 1.0)
        self.count = ragdoll.body_count
        body = [ragdoll.body(k) for k in range(self.count)]
        self.frames = np.array([b.frame for b in body], dtype=np.float64)
        self.joint_frames = np.array([b.joint_frame for b in body], dtype=np.float64)
        self.model = mujoco.MjModel.from_xml_string(
            self._mjcf(body, ground, self_collision, friction, joint_damping))
        self.data = mujoco.MjData(self.model)
        self.body_ids = np.array([mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, f"b{k}")
                                  for k in range(self.count)])
        self._kp = self.model.actuator_gainprm[:, 0].copy()
        self._kv = -self.model.actuator_biasprm[:, 2].copy()
        self.remainder = 0.0
        self.time = 0.0
        self._faint = None              # (start time, seconds)
        self.strength = 1.0
        self._serial = 0                # counts the states set from outside (bodies, restore)
        self._read = None               # (time, serial) and the states read then

    # ---- the model
    def _mjcf(self, body, ground, self_collision, friction, joint_damping) -> str:
        plane = _arc(np.array([0.0, 0.0, 1.0]), self.up)
        gravity = -self.gravity * self.up
        contype, conaffinity = (1, 1) if self_collision else (2, 1)
        out = [f'<mujoco model="ragdoll"><compiler angle="radian"/>'
               f'<option timestep="{1.0 / self.rate:.12g}" gravity="{_vec(gravity)}" '
               f'integrator="implicitfast"/>'
               f'<worldbody><geom name="ground" type="plane" size="0 0 1" '
               f'pos="{_vec(self.up * ground)}" quat="{_wxyz(plane)}" contype="1" '
               f'conaffinity="2" friction="{friction} 0.005 0.0001"/>']
        actuators = []
        children = {k: [] for k in range(self.count)}
        for k, b in enumerate(body):
            if k:
                children[b.parent].append(k)

        def emit(k):
            b = body[k]
            joint = self.joint_frames[k]
            if k == 0:
                place, joints = joint, '<freejoint name="root"/>'
            else:
                parent_joint = self.joint_frames[b.parent]
                place = _then(_inverse(parent_joint), np.asarray(b.parent_frame, np.float64))
                limits = ((-b.swing_z, b.swing_z), (-b.swing_y, b.swing_y),
                          (b.twist_min, b.twist_max))
                joints = ""
                for h, (axis, (lo, hi)) in enumerate(zip(HINGES, limits)):
                    name = f"j{k}_{h}"
                    joints += (f'<joint name="{name}" type="hinge" axis="{_vec(axis)}" '
                               f'limited="true" range="{lo:.9g} {hi:.9g}" '
                               f'damping="{joint_damping * b.mass:.9g}" armature="0.01"/>')
                    if b.stiffness > 0 or b.damping > 0:
                        force = (f'forcelimited="true" forcerange="{-b.max_force:.9g} '
                                 f'{b.max_force:.9g}"' if math.isfinite(b.max_force) else "")
                        actuators.append(
                            f'<general name="{name}" joint="{name}" gainprm="{b.stiffness:.9g}" '
                            f'biastype="affine" biasprm="0 {-b.stiffness:.9g} {-b.damping:.9g}" '
                            f'{force}/>')
            shape_at = _inverse(joint)                      # the body frame in the joint's
            q = shape_at[3:7]
            size = b.size
            if b.shape == RagdollShape.sphere:
                geom = f'type="sphere" size="{size[0]:.9g}"'
            elif b.shape == RagdollShape.capsule:
                geom = f'type="capsule" size="{size[0]:.9g} {size[1]:.9g}"'
                q = quat_mul(q, Z_TO_Y)
            else:
                geom = f'type="box" size="{_vec(size)}"'
            out.append(f'<body name="b{k}" pos="{_vec(place[0:3])}" quat="{_wxyz(place[3:7])}">'
                       f'{joints}<geom {geom} pos="{_vec(shape_at[0:3])}" quat="{_wxyz(q)}" '
                       f'mass="{b.mass:.9g}" contype="{contype}" conaffinity="{conaffinity}" '
                       f'friction="{friction} 0.005 0.0001"/>')
            for c in children[k]:
                emit(c)
            out.append("</body>")
        emit(0)
        out.append("</worldbody>")
        if actuators:
            out.append("<actuator>" + "".join(actuators) + "</actuator>")
        out.append("</mujoco>")
        return "".join(out)

    # ---- bodies in
    def _qpos(self, bodies: np.ndarray) -> np.ndarray:
        qpos = np.zeros(self.model.nq)
        joint = _then(bodies[:, 0:7].astype(np.float64), self.joint_frames)
        qpos[0:3] = joint[0, 0:3]
        qpos[3:7] = np.roll(joint[0, 3:7], 1)
        targets = self.ragdoll.joint_targets(bodies)
        qpos[7:] = euler_zyx(targets[1:, 0:4].astype(np.float64)).reshape(-1)
        return qpos

    def set_bodies(self, bodies) -> None:
        """Puts the ragdoll where the body states (ComputeBodiesFromPose's) are, moving at
        their velocities (the joints' rates by a central difference of the states moved a
        small step either way), the drives holding these angles."""
        bodies = np.asarray(bodies, dtype=np.float64)[:self.count]
        h = 1e-4
        qpos = self._qpos(bodies)
        ends = []
        for dt in (-h, h):                  # the states moved on a little either way
            moved = bodies.copy()
            moved[:, 0:3] += bodies[:, 7:10] * dt
            moved[:, 3:7] = quat_mul(_axis_angle(bodies[:, 10:13] * dt), bodies[:, 3:7])
            ends.append(self._qpos(moved))
        qvel = np.zeros(self.model.nv)
        mujoco.mj_differentiatePos(self.model, qvel, 2 * h, ends[0], ends[1])
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        self.data.ctrl[:] = self._hinge_angles(qpos)
        mujoco.mj_forward(self.model, self.data)
        self._serial += 1

    def _hinge_angles(self, qpos: np.ndarray) -> np.ndarray:
        """The actuated hinges' angles in qpos (the drives' targets)."""
        joints = self.model.actuator_trnid[:, 0]
        return qpos[self.model.jnt_qposadr[joints]]

    def drive_to(self, targets) -> None:
        """Drive targets from ComputeJointTargets' rotations (bodies, 7)."""
        qpos = np.zeros(self.model.nq)
        qpos[7:] = euler_zyx(np.asarray(targets, np.float64)[1:self.count, 0:4]).reshape(-1)
        self.data.ctrl[:] = self._hinge_angles(qpos)

    # ---- drives
    def set_drive_strength(self, factor: float) -> None:
        factor = min(max(float(factor), 0.0), 1.0)
        if factor == self.strength:
            return
        self.strength = factor
        self.model.actuator_gainprm[:, 0] = self._kp * self.strength
        self.model.actuator_biasprm[:, 1] = -self._kp * self.strength
        self.model.actuator_biasprm[:, 2] = -self._kv * max(self.strength, self.limp_damping)

    def faint(self, seconds: float) -> None:
        """The drives weaken from their strength now to 0 over `seconds` of simulated time."""
        self._faint = (self.time, max(float(seconds), 1e-9), self.strength)

    # ---- time
    def step(self, seconds: float) -> int:
        """Runs the fixed steps due in `seconds` (at most MAX_STEPS), keeping the time short
        of a step for the next call; returns how many ran."""
        self.remainder += max(float(seconds), 0.0)
        h = 1.0 / self.rate
        steps = min(int(self.remainder * self.rate + 1e-9), MAX_STEPS)
        self.remainder = min(self.remainder - steps * h, h) if steps < MAX_STEPS else 0.0
        self.remainder = max(self.remainder, 0.0)
        for ran in range(steps):
            if self._faint is not None:
                start, length, was = self._faint
                self.set_drive_strength(was * max(0.0, 1.0 - (self.time - start) / length))
            mujoco.mj_step(self.model, self.data)
            self.time += h
            if self.unstable:               # MuJoCo has reset the data: stepping on is moot
                self.remainder = 0.0
                return ran + 1
        return steps

    @property
    def unstable(self) -> bool:
        """Whether MuJoCo has warned since the model was made (a bad acceleration it reset
        the data for, a contact or constraint buffer full): what it shows since is not the
        fall that was asked for."""
        return bool(self.data.warning.number.any())

    # ---- saving
    def save(self) -> dict:
        """The engine's whole state (MuJoCo's integration state, warm start included, and
        the host-side clock and faint), exactly: restore continues bit for bit."""
        spec = mujoco.mjtState.mjSTATE_INTEGRATION
        state = np.empty(mujoco.mj_stateSize(self.model, spec))
        mujoco.mj_getState(self.model, self.data, state, spec)
        return {"state": state.tobytes().hex(), "time": self.time, "remainder": self.remainder,
                "strength": self.strength,
                "faint": None if self._faint is None else list(self._faint)}

    def restore(self, saved: dict) -> None:
        spec = mujoco.mjtState.mjSTATE_INTEGRATION
        state = np.frombuffer(bytes.fromhex(saved["state"]), np.float64)
        if state.size != mujoco.mj_stateSize(self.model, spec):
            raise ValueError("a saved ragdoll state of another model")
        mujoco.mj_setState(self.model, self.data, state, spec)
        self.time, self.remainder = float(saved["time"]), float(saved["remainder"])
        self.set_drive_strength(float(saved["strength"]))
        self._faint = None if saved["faint"] is None else tuple(float(v) for v in saved["faint"])
        mujoco.mj_forward(self.model, self.data)
        self._serial += 1

    # ---- bodies out
    def bodies(self, out=None) -> np.ndarray:
        """The bodies' states (bodies, 13) binary32, for ComputePoseFromBodies (and joint
        targets): each body's frame from its MuJoCo body's (the joint frame) with the
        joint frame taken off, and its velocities in the world's axes."""
        states = self._states()
        if out is None:
            return states.astype(np.float32)
        out[:self.count] = states
        return out

    def _states(self) -> np.ndarray:
        """The bodies' states in binary64, read from the data once a step (a host asks
        whether they are at rest and for the pose from them on the same step)."""
        key = (self.time, self._serial)
        if self._read is not None and self._read[0] == key:
            return self._read[1]
        d = self.data
        joint = np.concatenate([d.xpos[self.body_ids], np.roll(d.xquat[self.body_ids], -1, axis=1)],
                               axis=1)
        frame = _then(joint, _inverse(self.joint_frames))
        states = np.zeros((self.count, 13))
        states[:, 0:7] = frame
        # cvel: each body's (angular, linear) velocity in world axes at its tree's centre of
        # mass; a point p of the body moves at linear + angular x (p - that centre)
        cvel = d.cvel[self.body_ids]
        centre = d.subtree_com[self.model.body_rootid[self.body_ids]]
        states[:, 10:13] = cvel[:, 0:3]
        states[:, 7:10] = cvel[:, 3:6] + np.cross(cvel[:, 0:3], frame[:, 0:3] - centre)
        self._read = (key, states)
        return states

    def pose(self, placement, reference, out) -> None:
        """The engine's bodies as a pose (runtime.Ragdoll.pose_from_bodies)."""
        self.ragdoll.pose_from_bodies(self.skeleton, self.bodies(), placement, reference, out)

    def at_rest(self, speed: float = 0.05, turn: float = 0.25) -> bool:
        """Whether every body moves slower than `speed` (length a second) and turns slower
        than `turn` (radians a second): a fall that has come to rest."""
        bodies = self._states()
        return bool((np.linalg.norm(bodies[:, 7:10], axis=1) < speed).all()
                    and (np.linalg.norm(bodies[:, 10:13], axis=1) < turn).all())

    def lowest_points(self) -> np.ndarray:
        """Each body's shape's lowest point along up, from MuJoCo's bounding of its geom."""
        m, d = self.model, self.data
        heights = []
        for i in self.body_ids:
            g = int(m.body_geomadr[i])
            centre = d.geom_xpos[g]
            axes = d.geom_xmat[g].reshape(3, 3)
            size = m.geom_size[g]
            kind = m.geom_type[g]
            along = np.abs(axes.T @ self.up)
            if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
                reach = size[0]
            elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
                reach = size[0] + size[1] * along[2]
            else:
                reach = float(size @ along)
            heights.append(float(centre @ self.up) - reach)
        return np.array(heights)
