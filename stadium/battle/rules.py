"""The arithmetic of a turn: who goes first, whether a move lands and what it does."""
from __future__ import annotations

from .dex import Entry, Move
from .rng import Rng

# damage = power x attack / defence x this, times a roll of 85..100 percent
DAMAGE_SCALE = 0.32


def damage(move: Move, attacker: Entry, defender: Entry, roll: int) -> int:
    """Hit points a landed move takes; `roll` is 85..100."""
    base = move.power * attacker.attack / max(defender.defense, 1) * DAMAGE_SCALE
    return max(1, int(base * roll / 100))


def expected_damage(move: Move, attacker: Entry, defender: Entry) -> float:
    return damage(move, attacker, defender, 92) * move.accuracy / 100


def roll_hit(move: Move, rng: Rng) -> bool:
    return rng.percent(move.accuracy)


def roll_damage(rng: Rng) -> int:
    return 85 + rng.below(16)


def first_side(a: Entry, b: Entry, rng: Rng) -> int:
    """Which side acts first this turn: the faster, a coin for a tie."""
    if a.speed != b.speed:
        return 0 if a.speed > b.speed else 1
    return rng.below(2)
