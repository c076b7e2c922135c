"""Roam quality in numbers: on a scripted walk-turn-run-stop path, the trainer's foot
sliding (cm of the trainer per planted frame), its jumps a second (searches that switched
frames), and the trajectory error (how far its root is from the desired path the keys'
springs draw); and the same foot sliding measured on the source mocap itself, every baked
clip played straight through with its own root motion.

    python -m stadium.roam.quality              prints them, one JSON object a line
    python -m stadium.roam.quality --learned    ... and the same path driven by the shipped
                                                learned model (or --learned MODEL's)

A foot is planted on a frame when its ankle is within PLANT_HEIGHT of the ground in
consecutive frames; it slides by how far it moved along the ground between them.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass

import numpy as np

from runtime.clip.rootmotion import get_root_motion
from runtime.core.transform import quat_rotate

from ..render import diorama
from .locomotion import yaw_quat
from .motion import RoamMotion, roam_motion

FEET = ("foot.L", "foot.R")
PLANT_HEIGHT = 7.5         # cm of the trainer: its ankle stands 6 above the floor at rest
DT = 1.0 / 60.0
# walk left, turn and walk up, run left, stop (from the roam's start; clear of the walls)
PATH = [[0, "left"], [120, "up"], [240, "left+shift"], [330, ""]]
PATH_STEPS = 450


class FootSlide:
    """Accumulates planted frames and the ground distance planted feet moved."""

    def __init__(self):
        self.last = None
        self.planted = 0
        self.slide = 0.0

    def add(self, feet: np.ndarray) -> None:
        """feet: (2, 3) world positions, cm, y up."""
        if self.last is not None:
            down = (feet[:, 1] < PLANT_HEIGHT) & (self.last[:, 1] < PLANT_HEIGHT)
            moved = np.hypot(*(feet[:, [0, 2]] - self.last[:, [0, 2]]).T)
            self.planted += int(down.sum())
            self.slide += float(moved[down].sum())
        self.last = feet.copy()

    def reset(self) -> None:
        self.last = None

    @property
    def per_frame(self) -> float:
        return self.slide / max(self.planted, 1)


def feet_in_world(motion: RoamMotion, pose, position_cm, yaw: float) -> np.ndarray:
    """The ankles of a computed trainer pose, its root at (x, z) `position_cm` of the
    trainer turned by `yaw`."""
    sk = motion.trainer
    local = np.array([pose.model[sk.find_bone(f), 0:3, 3] for f in FEET], np.float64)
    world = quat_rotate(yaw_quat(yaw), local)
    world[:, 0] += position_cm[0]
    world[:, 2] += position_cm[1]
    return world


def source_sliding(motion: RoamMotion | None = None) -> float:
    """The mocap's own foot sliding: every baked clip played through at
    60 Hz, carried by its root motion (the trainer's cm); not the idle, which is one
    frame held."""
    import runtime as rt

    from runtime.core.transform import quat_mul

    motion = motion or roam_motion()
    pose = rt.Pose(motion.trainer)
    slide = FootSlide()
    for name, clip in zip(motion.staged.names, motion.baked):
        if name == "idle":             # held, not captured: it would only dilute the figure
            continue
        if True:
            slide.reset()
            at, q = np.zeros(3), yaw_quat(0.0)
            for k in range(int(clip.duration / DT) + 1):
                t = min(k * DT, clip.duration)
                clip.sample(motion.trainer, t, pose)
                pose.compute_model(motion.trainer)
                yaw = math.atan2(*quat_rotate(q, np.array([0.0, 0, 1]))[[0, 2]])
                slide.add(feet_in_world(motion, pose, at[[0, 2]], yaw))
                move = get_root_motion(clip, t, DT).astype(np.float64)
                at = at + quat_rotate(q, move[0:3])
                q = quat_mul(q, move[3:7])
    return slide.per_frame


@dataclass
class RoamQuality:
    foot_slide_cm: float           # per planted frame, the trainer's cm
    planted_frames: int
    jumps_per_second: float
    trajectory_error_cm: float     # mean distance root to desired, the trainer's cm
    trajectory_error_max_cm: float
    seconds: float


def roam_quality(path=PATH, steps: int = PATH_STEPS, model=None,
                 driver: str = "database") -> RoamQuality:
    """The roam scene played by `path`'s keys for `steps` steps, measured every step; the
    trainer driven by `driver` (the learned one `model`)."""
    from .scene import RoamScene

    world = diorama.build()
    scene = RoamScene(world, (world.cell("left"), world.cell("right")), path, model, driver)
    motion, loc = scene.motion, scene.locomotion
    slide = FootSlide()
    errors = []
    for _ in range(steps):
        scene.update(DT)
        slide.add(feet_in_world(motion, loc.pose, loc.position, loc.yaw))
        errors.append(float(np.linalg.norm(loc.position - loc.simulation.position[[0, 2]])))
    scene.release()
    seconds = steps * DT
    return RoamQuality(slide.per_frame, slide.planted, loc.jumps / seconds,
                       float(np.mean(errors)), float(np.max(errors)), seconds)


def _rows(prefix: str, q: RoamQuality, source: float) -> list[dict]:
    return [
        {"figure": f"{prefix}_foot_slide_cm", "value": round(q.foot_slide_cm, 4),
         "unit": "cm/planted frame", "target": f"<= 1.5 x the source's {source:.4f}"},
        {"figure": f"{prefix}_jumps_per_s", "value": round(q.jumps_per_second, 3), "unit": "1/s",
         "target": "report"},
        {"figure": f"{prefix}_trajectory_error_cm", "value": round(q.trajectory_error_cm, 3),
         "unit": "cm", "target": f"report (max {q.trajectory_error_max_cm:.2f})"},
    ]


def figures(model=None) -> list[dict]:
    """The database's rows and the source's; with a learned model, its rows too."""
    source = source_sliding()
    rows = _rows("roam", roam_quality(), source)
    rows.insert(1, {"figure": "roam_source_foot_slide_cm", "value": round(source, 4),
                    "unit": "cm/planted frame", "target": "report"})
    if model is not None:
        rows += _rows("roam_learned", roam_quality(model=model, driver="learned"), source)
    return rows


def main(argv=None) -> int:
    import argparse
    from pathlib import Path

    from ..errors import BadInput
    from .learned import SHIPPED, open_model

    p = argparse.ArgumentParser(prog="python -m stadium.roam.quality",
                                description="Roam's quality in numbers, one JSON object a line.")
    p.add_argument("--learned", type=Path, nargs="?", const=SHIPPED, metavar="MODEL",
                   help=f"also the path driven by this learned model (default {SHIPPED.name})")
    a = p.parse_args(argv)
    try:
        model = None if a.learned is None else open_model(a.learned)
    except BadInput as error:
        print(error, file=sys.stderr)
        return 2
    for row in figures(model):
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
