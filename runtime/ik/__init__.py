"""Inverse kinematics: the full-body solvers (runtime.ik.body)."""
from .body import *  # noqa: F401,F403
from .body import __all__
