"""Baking an additive clip through a map (mirror or retarget): a difference has no meaning
on its own side of a map, so each is applied to its skeleton's rest, carried across, and
taken again as the difference from the rest carried across."""
from __future__ import annotations

import numpy as np

from ..core.errors import BuildReason, InvalidError
from ..pose.blend import BlendLayer, add_layers, compute_pose_difference
from ..pose.pose import Pose, PoseBatch
from ..pose.skeleton import Skeleton


def carried_through_rest(batch: PoseBatch, src: Skeleton, tgt: Skeleton, carry,
                         word: str) -> np.ndarray:
    """(S, n, 10) in place: each of batch's difference poses (of src) carried by
    carry(src_pose, tgt_pose) through the rest; a difference that comes out not finite (a
    scale of 0 in the rest) is refused with its sample as the item. `word` names the map's
    work in the message ("mirrored", "carried")."""
    out = PoseBatch(tgt, len(batch.poses))
    rest, carried_rest, full, carried, difference = (Pose(src), Pose(tgt), Pose(src),
                                                     Pose(tgt), Pose(tgt))
    carry(rest, carried_rest)
    for k, pose in enumerate(batch.poses):
        full.set_rest(src)
        add_layers(full, src, [BlendLayer(pose, 1.0)])
        carry(full, carried)
        try:
            compute_pose_difference(tgt, carried, carried_rest, difference)
        except InvalidError:
            raise InvalidError(f"sample {k}: the difference from the rest {word} is not "
                               "finite", reason=BuildReason.Basis, item=k) from None
        out.poses[k].set_rest(tgt)
        add_layers(out.poses[k], tgt, [BlendLayer(difference, 1.0)])
    return out.locals
