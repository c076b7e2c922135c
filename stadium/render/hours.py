"""The hours of the day: where the sun is and what colour the world turns.

A battle happens at an hour; the renderer reads the sun direction for the shadow pass
and the rest for the view pass. The night is a moon: weak, blue, with soft shadows and
the windows lit from inside.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def _toward(azimuth_deg: float, elevation_deg: float) -> tuple[float, float, float]:
    """Unit vector toward a sky point; azimuth 0 is north (-Z), 90 east (+X)."""
    az, el = math.radians(azimuth_deg), math.radians(elevation_deg)
    return (math.cos(el) * math.sin(az), math.sin(el), -math.cos(el) * math.cos(az))


@dataclass(frozen=True)
class Hour:
    name: str
    sun: tuple[float, float, float]      # unit vector toward the sun (or the moon)
    tint: tuple[float, float, float]     # multiplies every lit colour
    shadow_floor: float                  # light a shadowed surface keeps, 0 to 1
    sky: tuple[float, float, float]      # what shows past the map's edge
    glass_tint: tuple[float, float, float]
    glass_glow: float                    # windows lit from inside
    water_tint: tuple[float, float, float]   # multiplies water in place of tint

    @property
    def sun_dir(self) -> np.ndarray:
        return np.asarray(self.sun, float)


HOURS = {
    hour.name: hour for hour in (
        Hour("dawn", _toward(80, 28), (1.02, 0.86, 0.86), 0.62,
             (0.98, 0.74, 0.66), (1.0, 0.80, 0.78), 0.10, (0.86, 0.86, 1.04)),
        Hour("day", _toward(115, 50), (1.0, 1.0, 1.0), 0.58,
             (0.55, 0.78, 0.98), (0.80, 0.92, 1.0), 0.0, (1.0, 1.0, 1.0)),
        Hour("dusk", _toward(255, 20), (1.05, 0.74, 0.52), 0.60,
             (0.93, 0.52, 0.36), (1.0, 0.70, 0.45), 0.25, (0.66, 0.70, 1.04)),
        Hour("night", _toward(200, 48), (0.36, 0.44, 0.78), 0.72,
             (0.06, 0.08, 0.20), (0.30, 0.36, 0.62), 1.0, (0.36, 0.44, 0.78)),
    )
}
HOUR_ORDER = ("dawn", "day", "dusk", "night")
