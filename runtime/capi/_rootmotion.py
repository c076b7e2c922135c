"""rootmotion.h."""
from ..clip.rootmotion import (blend, compose, get_root_motion, identity_move, restore,
                               root_motion_source)

__all__ = ["maniMakeRootMoveIdentity", "maniClip_GetRootMotion", "maniComposeRootMotion",
           "maniBlendRootMotion", "maniClip_RestoreRootMotion", "maniClip_GetRootMotionSource"]


def maniMakeRootMoveIdentity():
    """A move: float32 translation x y z then rotation x y z w."""
    return identity_move()


def maniClip_GetRootMotion(clip, time: float, step: float):
    return get_root_motion(clip, time, step)


def maniComposeRootMotion(first, then):
    return compose(first, then)


def maniBlendRootMotion(moves, weights):
    return blend(moves, weights)


def maniClip_RestoreRootMotion(clip, skeleton, time: float, pose) -> None:
    restore(clip, skeleton, time, pose)


def maniClip_GetRootMotionSource(clip):
    """(whether the clip has root motion, its RootMotionSource or None)."""
    source = root_motion_source(clip)
    return source is not None, source
