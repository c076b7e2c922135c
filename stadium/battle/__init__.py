"""The battle, no GL: species' stats and moves (dex), the arithmetic of a turn (rules), the
opponent's choices (opponent), a seedable generator (rng) and the battle itself
(battle.Battle); then the stage it drives: each creature a battler on the animation graph
(battler, battler_graph), the two sides stepped together (match), and the seeded show's
choreography (scene)."""
from .battle import PLAYER, RIVAL, Battle, Event, Side
from .dex import Entry, Move, entry

__all__ = ["PLAYER", "RIVAL", "Battle", "Event", "Side", "Entry", "Move", "entry"]
