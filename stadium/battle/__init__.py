"""The battle as rules and flow, no GL and no animation: species' stats and moves
(dex), the arithmetic of a turn (rules), the opponent's choices (opponent), a seedable
generator (rng) and the battle itself (battle.Battle), which drives whatever stage shows
it through a handful of calls."""
from .battle import PLAYER, RIVAL, Battle, Event, Side
from .dex import Entry, Move, entry

__all__ = ["PLAYER", "RIVAL", "Battle", "Event", "Side", "Entry", "Move", "entry"]
