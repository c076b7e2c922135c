"""The trainer: a 24-bone stylised humanoid of its own (short legs, a long body and a big
head; bone names, proportions and local axes unlike the Bandai Namco mocap's, one spine
bone more), and the retargeting map source that carries that mocap onto it.

Units are centimetres, model space is Y up, Z forward, X to the figure's left (as the
mocap's). Each bone's local Y runs along the bone toward its child (the mocap's bones run
along local X), turned about it by a twist of its own, so no local axis agrees with the
mocap's.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import NO_BONE
from ..mapping.kernels import qconj, qmatrix, qmul
from ..mapping.retarget_build import (RetargetChain, RetargetChainMode, RetargetMapSource,
                                      RetargetPair, RetargetPelvis)
from ..pose.skeleton import BoneSource, Skeleton, SkeletonSource

# name, parent, model position of the joint, the direction the bone runs, its twist (rad)
_JOINTS = [
    ("root", None, (0, 0, 0), (0, 0, 1), 0.0),
    ("pelvis", "root", (0, 49, 0), (0, 1, 0), 0.3),
    ("spine_lower", "pelvis", (0, 56, 0.5), (0, 1, 0), -0.2),
    ("spine_middle", "spine_lower", (0, 63, 0.5), (0, 1, 0), 0.5),
    ("spine_upper", "spine_middle", (0, 70, 0), (0, 1, 0), 0.1),
    ("neck", "spine_upper", (0, 78, 0), (0, 1, 0), -0.4),
    ("head", "neck", (0, 82, 0.5), (0, 1, 0), 0.7),
    ("hat", "head", (0, 112, 0), (0, 1, 0), 0.0),
]
for _side, _x in (("L", 1), ("R", -1)):
    _JOINTS += [
        (f"clavicle.{_side}", "spine_upper", (_x * 2, 76, 0), (_x, 0, 0), 0.2 * _x),
        (f"upper_arm.{_side}", f"clavicle.{_side}", (_x * 11, 76, 0), (_x * 0.08, -1, 0), 0.6),
        (f"forearm.{_side}", f"upper_arm.{_side}", (_x * 12.2, 61, 0), (_x * 0.07, -1, 0.05), -0.3),
        (f"hand.{_side}", f"forearm.{_side}", (_x * 13.2, 47, 0.7), (0, -1, 0), 0.9),
    ]
for _side, _x in (("L", 1), ("R", -1)):
    _JOINTS += [
        (f"thigh.{_side}", "pelvis", (_x * 3.5, 47, 0), (0, -1, 0), -0.5 * _x),
        (f"shin.{_side}", f"thigh.{_side}", (_x * 3.5, 27, 0), (0, -1, 0), 0.4),
        (f"foot.{_side}", f"shin.{_side}", (_x * 3.5, 6, 0), (0, -0.5, 1), -0.8),
        (f"toe.{_side}", f"foot.{_side}", (_x * 3.5, 1.5, 9), (0, 0, 1), 0.25),
    ]

# the mocap's bones (BVH joint names) each trainer bone follows
MOCAP_PAIRS = [("joint_Root", "root"), ("Neck", "neck"), ("Head", "head")] + [
    (f"{a}_{s}", f"{b}.{s}") for s in "LR" for a, b in (
        ("Shoulder", "clavicle"), ("UpperArm", "upper_arm"), ("LowerArm", "forearm"),
        ("Hand", "hand"), ("UpperLeg", "thigh"), ("LowerLeg", "shin"), ("Foot", "foot"),
        ("Toes", "toe"))]
# mocap bone -> (child whose direction is aimed, the trainer bone whose direction it takes)
_AIMS = {"Hips": ("Spine", "pelvis"), "Spine": ("Chest", "spine_lower"),
         "Chest": ("Neck", "spine_upper"), "Neck": ("Head", "neck")}
for _s in "LR":
    _AIMS.update({f"Shoulder_{_s}": (f"UpperArm_{_s}", f"clavicle.{_s}"),
                  f"UpperArm_{_s}": (f"LowerArm_{_s}", f"upper_arm.{_s}"),
                  f"LowerArm_{_s}": (f"Hand_{_s}", f"forearm.{_s}"),
                  f"UpperLeg_{_s}": (f"LowerLeg_{_s}", f"thigh.{_s}"),
                  f"LowerLeg_{_s}": (f"Foot_{_s}", f"shin.{_s}"),
                  f"Foot_{_s}": (f"Toes_{_s}", f"foot.{_s}")})


def _frame(direction, twist: float) -> np.ndarray:
    """The turn taking +Y onto `direction`, after a twist about +Y."""
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    return qmul(_arc(np.array([0.0, 1.0, 0.0]), d), [0.0, np.sin(twist / 2), 0.0, np.cos(twist / 2)])


def _arc(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The shortest turn taking unit u onto unit v (a half turn about z for opposites)."""
    c, w = np.cross(u, v), 1.0 + float(u @ v)
    if w < 1e-9:
        axis = np.cross(u, [1.0, 0, 0]) if abs(u[0]) < 0.9 else np.cross(u, [0, 0, 1.0])
        return np.append(axis / np.linalg.norm(axis), 0.0)
    q = np.append(c, w)
    return q / np.linalg.norm(q)


def trainer_skeleton_source() -> SkeletonSource:
    """The trainer's 24 bones at rest: standing, arms hanging, feet forward."""
    index = {name: i for i, (name, *_rest) in enumerate(_JOINTS)}
    model = [_frame(d, tw) for _, _, _, d, tw in _JOINTS]
    bones = []
    for i, (name, parent, at, _, _) in enumerate(_JOINTS):
        if parent is None:
            bones.append(BoneSource(name, NO_BONE, tuple(at), tuple(model[i])))
            continue
        p = index[parent]
        inverse = qconj(model[p])
        t = qmatrix(inverse) @ (np.asarray(at, float) - np.asarray(_JOINTS[p][2], float))
        bones.append(BoneSource(name, p, tuple(t), tuple(qmul(inverse, model[i]))))
    return SkeletonSource(bones)


def _model(skeleton: Skeleton, locals_: np.ndarray):
    """Model rotations (n, 4) and positions (n, 3), binary64 (scales taken as 1)."""
    n = skeleton.bone_count
    q, x = np.zeros((n, 4)), np.zeros((n, 3))
    for b in range(n):
        p = skeleton.parent(b)
        if p == NO_BONE:
            q[b], x[b] = locals_[b, 3:7], locals_[b, 0:3]
        else:
            q[b] = qmul(q[p], locals_[b, 3:7])
            x[b] = x[p] + qmatrix(q[p]) @ locals_[b, 0:3]
    return q, x


def mocap_reference(mocap: Skeleton, pose_locals, trainer: Skeleton, ankle_height: float) -> np.ndarray:
    """A reference pose of the mocap skeleton in the trainer's rest posture: `pose_locals`
    (a frame of the mocap) with each bone of _AIMS turned, parents first, the shortest way
    so its child lies in the direction the trainer's bone runs at rest (the hips also turned
    about that so the hip joints lie along the trainer's left), standing with straight legs,
    the ankles `ankle_height` above the floor under the hips. (n, 10) binary64."""
    locals_ = np.array(pose_locals, dtype=np.float64)
    rest_q, rest_x = _model(trainer, np.asarray(trainer.rests, dtype=np.float64))
    for b in range(mocap.bone_count):
        name = mocap.bone_name(b)
        if name not in _AIMS:
            continue
        child, bone = _AIMS[name]
        c, tb = mocap.find_bone(child), trainer.find_bone(bone)
        want = rest_x[[i for i in range(trainer.bone_count) if trainer.parent(i) == tb][0]] - rest_x[tb]
        q, x = _model(mocap, locals_)
        turn = _arc(_unit(x[c] - x[b]), _unit(want))
        if name == "Hips":
            q2, x2 = _model(mocap, _turned(mocap, locals_, b, turn, q))
            across = x2[mocap.find_bone("UpperLeg_L")] - x2[mocap.find_bone("UpperLeg_R")]
            up = _unit(want)
            flat = _unit(across - (across @ up) * up)
            left = _unit(np.array([1.0, 0, 0]) - up[0] * up)
            turn = qmul(_arc(flat, left), turn)
        locals_ = _turned(mocap, locals_, b, turn, q)
    hips = mocap.find_bone("Hips")
    q, x = _model(mocap, locals_)
    ankles = min(x[mocap.find_bone("Foot_L"), 1], x[mocap.find_bone("Foot_R"), 1])
    locals_[hips, 0:3] = (0.0, x[hips, 1] - ankles + ankle_height, 0.0)
    return locals_


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _turned(skeleton: Skeleton, locals_: np.ndarray, b: int, turn: np.ndarray, q: np.ndarray):
    """locals_ with bone b's model rotation turned by `turn` (model space)."""
    out = locals_.copy()
    p = skeleton.parent(b)
    parent = np.array([0, 0, 0, 1.0]) if p == NO_BONE else q[p]
    local = qmul(qconj(parent), qmul(turn, q[b]))
    out[b, 3:7] = local / np.linalg.norm(local)
    return out


def mocap_retarget_source(mocap: Skeleton, reference, trainer: Skeleton) -> RetargetMapSource:
    """The map from the mocap skeleton (its reference from mocap_reference) onto the
    trainer: the limbs, neck and head paired, the mocap's two spine bones onto the trainer's
    three by an interpolated chain, the hips onto the pelvis by the pelvis rule; the hat
    unmapped. The pelvis's horizontal factor makes its horizontal scale the legs' ratio (the
    hip joints' heights) rather than the pelvis's: strides scale with the legs, so planted
    feet stay where they are."""
    s, t = mocap.find_bone, trainer.find_bone
    _, xs = _model(mocap, np.asarray(reference, dtype=np.float64))
    _, xt = _model(trainer, np.asarray(trainer.rests, dtype=np.float64))
    pelvis_ratio = xt[t("pelvis"), 1] / xs[s("Hips"), 1]
    legs_ratio = xt[t("thigh.L"), 1] / xs[s("UpperLeg_L"), 1]
    pairs = [RetargetPair(s(a), t(b)) for a, b in MOCAP_PAIRS]
    chains = [RetargetChain(s("Spine"), s("Chest"), t("spine_lower"), t("spine_upper"),
                            RetargetChainMode.interpolated)]
    return RetargetMapSource(mocap, trainer, reference, None, pairs, chains,
                             RetargetPelvis(s("Hips"), t("pelvis"), horizontal=legs_ratio / pelvis_ratio))
