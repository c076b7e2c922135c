"""What each species brings to a battle: hit points, attack, defence, speed and its two
moves. Move 1 plays the species' first attack animation and move 2 its second, so each
name says what the animation shows.

Bundled species have their entries here; any other species (a pack given by path) gets
middling stats derived from its name, so the same pack always fights the same way.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Move:
    name: str
    power: int          # damage scale, roughly the share of a sturdy foe's hit points x 2
    accuracy: int       # percent chance to land


@dataclass(frozen=True)
class Entry:
    name: str
    hp: int
    attack: int
    defense: int
    speed: int
    moves: tuple[Move, Move]


DEX = {entry.name.lower(): entry for entry in (
    Entry("Emberlisk", 64, 66, 50, 72, (Move("Claw Swipe", 50, 95), Move("Tail Whirl", 75, 80))),
    Entry("Flitwren", 56, 58, 44, 90, (Move("Gust", 45, 100), Move("Peck", 65, 90))),
    Entry("Gloopet", 82, 48, 70, 38, (Move("Goo Slap", 45, 100), Move("Bounce", 70, 85))),
    Entry("Mosshoof", 78, 64, 62, 46, (Move("Horn Rush", 70, 85), Move("Moss Stomp", 55, 95))),
    Entry("Ripplewyrm", 88, 70, 58, 52, (Move("Tidal Lash", 65, 90), Move("Coil", 80, 75))),
    Entry("Scrapkit", 60, 72, 46, 84, (Move("Jab", 45, 100), Move("Blink Step", 70, 85))),
)}


def entry(name: str) -> Entry:
    """The species' entry; an unknown one is derived from its name, the same every run."""
    stem = Path(name).stem if name.lower().endswith(".pack") else name
    found = DEX.get(stem.lower())
    if found is not None:
        return found
    seed = zlib.crc32(stem.lower().encode("utf-8"))

    def pick(lo: int, hi: int, shift: int) -> int:
        return lo + (seed >> shift) % (hi - lo + 1)

    return Entry(stem.capitalize(), pick(60, 80, 0), pick(50, 70, 5), pick(45, 65, 10), pick(40, 80, 15),
                 (Move("Tackle", 50, 95), Move("Slam", 70, 85)))
