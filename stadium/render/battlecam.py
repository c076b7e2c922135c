"""BattleCam: the one camera of a battle, solved so two map cells land on two frame pixels.

The frame is fixed (160 x 144) and so are the pitch and the field of view: they are the
look. What is left, the yaw and the eye position, is four unknowns for the four pixel
coordinates of two cells, and it has a closed form (see `solve`), so no placement is
ever tuned by hand and moving a cell or a target pixel moves the camera with it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from pyglm import glm
import numpy as np

FRAME = (160, 144)

# The battle's framing: the near (left) creature's cell low on the left, the far (right)
# one's higher on the right, seen from a fixed pitch through a fixed lens.
BATTLE_PIXELS = ((42.0, 120.0), (118.0, 84.0))
BATTLE_PITCH = math.radians(-37.0)
BATTLE_FOV = math.radians(36.0)


def _yaw_matrix(yaw: float) -> np.ndarray:
    """Rotation about +Y by `yaw` radians."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _camera_axes(pitch: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right, up and forward of a camera at yaw 0 (looking toward -Z), pitched by `pitch`."""
    sp, cp = math.sin(pitch), math.cos(pitch)
    return np.array([1.0, 0.0, 0.0]), np.array([0.0, cp, sp]), np.array([0.0, sp, -cp])


class NoSolution(ValueError):
    """No camera with this pitch and field of view puts both cells on their pixels."""


@dataclass
class BattleCam:
    eye: np.ndarray           # world position
    yaw: float                # radians about +Y; 0 looks toward -Z
    pitch: float              # radians; negative looks down
    fov_y: float              # vertical field of view, radians
    size: tuple[int, int] = FRAME
    near: float = 0.1
    far: float = 100.0
    cells: tuple = ()         # the world points it was solved to frame

    @property
    def aspect(self) -> float:
        return self.size[0] / self.size[1]

    @property
    def forward(self) -> np.ndarray:
        return _yaw_matrix(self.yaw) @ _camera_axes(self.pitch)[2]

    def view(self) -> glm.mat4:
        eye = glm.vec3(*self.eye)
        return glm.lookAt(eye, eye + glm.vec3(*self.forward), glm.vec3(0.0, 1.0, 0.0))

    def projection(self) -> glm.mat4:
        return glm.perspective(self.fov_y, self.aspect, self.near, self.far)

    def view_proj(self) -> glm.mat4:
        return self.projection() * self.view()

    def distance(self, points) -> np.ndarray:
        """Distance along the view axis (what the depth buffer measures) of (n, 3) points."""
        return (np.asarray(points, float) - self.eye) @ self.forward

    def fit_depth(self, points, margin: float = 0.05) -> None:
        """Set near and far to enclose `points` (say, the corners of the map)."""
        along = self.distance(points)
        self.far = float(along.max()) * (1.0 + margin)
        self.near = max(float(along.min()) * (1.0 - margin), self.far * 1e-3)

    def project(self, points) -> np.ndarray:
        """Frame pixel coordinates (x right, y down, pixel centres at +0.5) of (n, 3) points."""
        points = np.atleast_2d(np.asarray(points, float))
        clip = np.asarray(self.view_proj(), float) @ np.c_[points, np.ones(len(points))].T
        ndc = clip[:2] / clip[3]
        width, height = self.size
        return np.stack([(ndc[0] + 1.0) * 0.5 * width, (1.0 - ndc[1]) * 0.5 * height], axis=1)

    @classmethod
    def solve(cls, cell_a, cell_b, pixel_a, pixel_b, *, pitch: float, fov_y: float,
              size: tuple[int, int] = FRAME, prefer_yaw: float = 0.0) -> "BattleCam":
        """The camera that shows world point `cell_a` at `pixel_a` and `cell_b` at `pixel_b`.

        At a fixed pitch and field of view a target pixel is a fixed ray in the camera's
        own frame; turned by the yaw it must run from the eye through its cell. Both rays
        leave the same eye, so the vector between the cells must lie in the plane the two
        rays span: n . R(yaw)^T (A - B) = 0 with n the rays' cross product. That is
        a cos(yaw) + b sin(yaw) + c = 0, solved exactly; the distances along the two rays
        then follow by least squares on a consistent system, and the eye from either.
        Of the (at most two) yaws, the ones with both cells in front and the eye above
        them qualify, and the one nearest `prefer_yaw` wins.
        """
        a, b = np.asarray(cell_a, float), np.asarray(cell_b, float)
        right, up, forward = _camera_axes(pitch)
        half = math.tan(fov_y / 2.0)
        aspect = size[0] / size[1]

        def ray(pixel):
            x = 2.0 * pixel[0] / size[0] - 1.0
            y = 1.0 - 2.0 * pixel[1] / size[1]
            return forward + x * half * aspect * right + y * half * up

        ray_a, ray_b = ray(pixel_a), ray(pixel_b)
        n, v = np.cross(ray_a, ray_b), a - b
        # n . R(-yaw) v, written out: R(-yaw) v = (c vx - s vz, vy, s vx + c vz)
        cos_k = n[0] * v[0] + n[2] * v[2]
        sin_k = n[2] * v[0] - n[0] * v[2]
        const = n[1] * v[1]
        reach = math.hypot(cos_k, sin_k)
        if reach < 1e-12 or abs(const) > reach:
            raise NoSolution(f"cells {a} and {b} cannot land on pixels {pixel_a} and {pixel_b} "
                             f"at pitch {math.degrees(pitch):.1f} and fov {math.degrees(fov_y):.1f}")
        base = math.atan2(sin_k, cos_k)
        spread = math.acos(-const / reach)
        candidates = []
        for yaw in (base + spread, base - spread):
            turn = _yaw_matrix(yaw)
            (along_a, along_b), *_ = np.linalg.lstsq(np.c_[ray_a, -ray_b], turn.T @ v, rcond=None)
            eye = a - along_a * (turn @ ray_a)
            if along_a > 0 and along_b > 0 and eye[1] > max(a[1], b[1]):
                turned = math.remainder(yaw - prefer_yaw, math.tau)
                candidates.append((abs(turned), prefer_yaw + turned, eye))
        if not candidates:
            raise NoSolution(f"cells {a} and {b} would be behind or above the camera that puts "
                             f"them on pixels {pixel_a} and {pixel_b}")
        _, yaw, eye = min(candidates, key=lambda c: c[0])
        return cls(eye=eye, yaw=yaw, pitch=pitch, fov_y=fov_y, size=size, cells=(a, b))

    @classmethod
    def battle(cls, left_cell, right_cell) -> "BattleCam":
        """The battle's own framing (BATTLE_PIXELS, BATTLE_PITCH, BATTLE_FOV) of two cells."""
        return cls.solve(left_cell, right_cell, *BATTLE_PIXELS, pitch=BATTLE_PITCH,
                         fov_y=BATTLE_FOV)
