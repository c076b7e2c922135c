"""What a species moves on its own in the runtime pose path, declared beside its bones:
which bones look at the opponent, which legs keep their feet planted, which chains sway
as springs and what keeps them out of the body.

Each species module names its bones in a ``SECONDARY``; packs carry no bone names, so
``declared(species)`` resolves the names through the species' own build (a bundled
species, by name and bone count) and gives pack bone indices. A pack no bundled module
built has no secondary motion. Directions are in the species' bind pose model space
(+Z toward the opponent, +Y up); lengths in the pack's raw units.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import pack


@dataclass(frozen=True)
class Look:
    """An aim chain, root first (each bone an ancestor of the next): the last bone's
    ``forward`` (bind model space) is turned toward the target, within ``cone`` degrees
    of where the animation points it, the turn shared over the chain by ``shares``."""

    bones: tuple
    forward: tuple = (0.0, 0.0, 1.0)
    up: tuple = (0.0, 1.0, 0.0)
    cone: float = 50.0
    shares: tuple | None = None


@dataclass(frozen=True)
class Leg:
    """A two-bone leg: hip, knee, and the foot whose origin is planted; the knee turns
    about ``hinge`` and bends toward ``pole`` (both bind model space)."""

    upper: str
    lower: str
    foot: str
    pole: tuple = (0.0, 0.0, 1.0)
    hinge: tuple = (1.0, 0.0, 0.0)


@dataclass(frozen=True)
class Chain:
    """A spring chain, root first: every bone but the last sways, the last is only the
    chain's end. Values per 60 Hz frame, as VRM gives them."""

    name: str
    bones: tuple
    stiffness: float = 0.6
    gravity: float = 0.2
    drag: float = 0.35
    radius: float = 0.05


@dataclass(frozen=True)
class Collider:
    """A sphere (or, with ``tail``, a capsule) on a bone, offset in the bone's bind
    frame, that every chain of the species is kept out of."""

    bone: str
    offset: tuple = (0.0, 0.0, 0.0)
    radius: float = 0.3
    tail: tuple | None = None


@dataclass(frozen=True)
class Secondary:
    looks: tuple = ()
    legs: tuple = ()
    pelvis: str | None = None        # lowered when a planted foot is out of the leg's reach
    chains: tuple = ()
    colliders: tuple = ()


@dataclass(frozen=True)
class Resolved:
    """A species' Secondary with every bone a pack bone index."""

    looks: tuple = ()                # (bones, forward, up, cone radians, shares)
    legs: tuple = ()                 # (upper, lower, foot, pole, hinge)
    pelvis: int = -1
    chains: tuple = ()               # (name, bones, stiffness, gravity, drag, radius)
    colliders: tuple = ()            # (bone, offset, radius, tail or None)
    declared: Secondary = field(default_factory=Secondary)


def _modules():
    from . import emberlisk, flitwren, gloopet, mosshoof, ripplewyrm, scrapkit
    return (emberlisk, flitwren, gloopet, mosshoof, ripplewyrm, scrapkit)


_RESOLVED: dict = {}


def declared(species: pack.Species) -> Resolved | None:
    """The species' secondary motion with pack bone indices, or None when no bundled
    module declares one for a pack of its bones."""
    key = (species.name, len(species.parents))
    if key in _RESOLVED:
        return _RESOLVED[key]
    from .build import BONE_NAMES

    found = None
    for module in _modules():
        decl = getattr(module, "SECONDARY", None)
        if decl is None:
            continue
        if module.__name__.rsplit(".", 1)[-1] != species.name.lower():
            continue
        if species.name not in BONE_NAMES:
            module.build()
        names = BONE_NAMES.get(species.name, ())
        if len(names) == len(species.parents):
            found = _resolve(decl, {n: k for k, n in enumerate(names)})
        break
    _RESOLVED[key] = found
    return found


def _resolve(d: Secondary, index: dict) -> Resolved:
    looks = tuple((tuple(index[b] for b in look.bones), look.forward, look.up,
                   math.radians(look.cone), look.shares) for look in d.looks)
    legs = tuple((index[g.upper], index[g.lower], index[g.foot], g.pole, g.hinge) for g in d.legs)
    chains = tuple((c.name, tuple(index[b] for b in c.bones), c.stiffness, c.gravity, c.drag,
                    c.radius) for c in d.chains)
    colliders = tuple((index[c.bone], c.offset, c.radius, c.tail) for c in d.colliders)
    return Resolved(looks, legs, index[d.pelvis] if d.pelvis else -1, chains, colliders, d)
