"""The shipped species as a player sees them: no animation makes the body jump.

The rig's guards and its anchoring verdict are tested on species the tests build for
themselves (test_stadium_rig.py); a creature in the roster must simply look right.
"""
from __future__ import annotations

import numpy as np
import pytest

from stadium.battle.scene import anchor_limit
from stadium.paths import SPECIES
from stadium.rig import pack, species
from stadium.rig.rig import StadiumRig

# Between two consecutive 30 Hz frames, the visible body's vertices may move on average
# at most this many body heights. A fast lunge or a dive stays near 0.2; a frame of
# junk rotation flips the whole body (about 1) and a teleport moves it whole (0.5).
JUMP = 0.3

PACKS = sorted(SPECIES.glob("*.pack"))


def body(r: StadiumRig) -> np.ndarray:
    return np.concatenate([p.vertices[:, :3] for p in r.parts]).astype(np.float64)


def jumps(s: pack.Species):
    """(animation, frame, mean vertex travel in body heights) into each frame, posed and
    anchored as the battle shows them; a loop's seam counts as a step too."""
    r = StadiumRig(s)
    height = s.height / s.root_scale
    for a, anim in enumerate(s.anims):
        wrap = a == s.ctx[pack.STANDBY]
        limit = anchor_limit(s.ctx.index(a) if a in s.ctx else pack.STANDBY)
        before = None
        for f in range(anim.frames + (1 if wrap else 0)):
            r.pose(a, f, wrap)
            r.anchor(limit)
            r.skin(0.0)
            now = body(r)
            if before is not None:
                yield a, f, float(np.linalg.norm(now - before, axis=1).mean()) / height
            before = now


def test_every_shipped_species_is_scanned():
    assert [p.name for p in PACKS] == sorted(species.file_name(s) for s in species.build_all())


@pytest.mark.parametrize("path", PACKS, ids=lambda p: p.stem)
def test_no_animation_makes_the_body_jump(path):
    s = pack.load(path)
    worst = max(jumps(s), key=lambda j: j[2])
    assert worst[2] <= JUMP, f"{s.name}: animation {worst[0]} jumps {worst[2]:.2f} " \
                             f"body heights into frame {worst[1]}"


def test_the_scan_sees_a_teleport():
    # the same scan on a pack whose root leaps a body height in one frame
    s = pack.load(SPECIES / "gloopet.pack")
    a = s.ctx[pack.ATTACK1]
    anim = s.anims[a]
    root = list(anim.tracks[0] or (*s.rest_t[0], *s.rest_r[0], *s.rest_s[0]))
    x = np.array(np.broadcast_to(root[0], (anim.frames,)), np.float32)
    x[anim.frames // 2:] += 3.0 * s.height / s.root_scale
    root[0] = x
    anims = list(s.anims)
    anims[a] = pack.Animation(anim.frames, anim.loop_start, [tuple(root)] + anim.tracks[1:])
    s.anims = anims
    s = pack.loads(pack.dumps(s))
    assert max(j[2] for j in jumps(s)) > JUMP
