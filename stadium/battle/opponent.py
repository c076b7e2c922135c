"""The opponent: picks a move for a side the way a sensible trainer would.

If a move can knock the foe out, it takes the surest of those. Otherwise it weighs
each move by the damage it expects (power after the stats, times accuracy) and draws
one in proportion, so it mostly picks the better move but is not predictable.
"""
from __future__ import annotations

from .dex import Entry
from .rng import Rng
from .rules import damage, expected_damage


def choose(me: Entry, foe: Entry, foe_hp: int, rng: Rng) -> int:
    """0 or 1: the move to use."""
    kills = [k for k, m in enumerate(me.moves) if damage(m, me, foe, 85) >= foe_hp]
    if kills:
        return max(kills, key=lambda k: (me.moves[k].accuracy, -k))
    weights = [expected_damage(m, me, foe) ** 2 for m in me.moves]
    total = sum(weights)
    x = rng.random() * total
    return 0 if x < weights[0] else 1
