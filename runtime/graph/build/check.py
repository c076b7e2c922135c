"""Checking a graph source's lists: parameters, clip slots, sync groups and the later kinds'
slots, for the source and for each subgraph, whose lists join the host's.

Refusals (InvalidError unless a bound is passed: LimitError), for the source's own lists:

    Count            a list not given (None): item 0, other the list's bit; past its limit
                     (LimitError): item the count, other the list's bit; a sync group
                     without its name: item the group, other the list's bit
    Name, DuplicateName, NameHash
                     item the entry, other bit << LIST_SHIFT | the earlier entry (0 for Name)
    Parameter        item the parameter, other PARAMETER_FAULT | 0 not a ParameterSource or
                     an unknown type, 1 a default out of form or outside the bounds, 2 bounds
                     given alone, on a type without bounds, not whole for an int, not finite,
                     or the lower above the upper
    Clip             item the slot, other SLOT_FAULT | 0 not a ClipSlotSource, 1 no opened
                     clip, 2 a clip of another skeleton (than the graph's, or its map's source
                     for a retargeted slot), 3 a retargeting map that is not an opened map made
                     for the graph's skeleton; past
                     MAX_GRAPH_RETARGET_MAPS distinct maps (LimitError): item the first clip
                     slot naming a map past it, other the limit
    Database, Model, SpringSetSlot
                     item the slot, other SLOT_FAULT | 0 not an AssetSlotSource, 1 an asset
                     without an identity, 2 an asset of another skeleton, 3 (a database) a clip
                     slot past the clips
    MirrorGraph      item 0: a mirror map without an identity or of another skeleton

A subgraph's lists are checked alike, then the refusal names the subgraph node (item) and,
in other, the list's bit << LIST_SHIFT | the entry in that list.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core import args, names
from ...clip.clip import is_open
from ...core.errors import BuildReason, InvalidError, LimitError, ManiError
from ..format import f32 as _f32
from ..limits import (LIST_CLIPS, LIST_DATABASES, LIST_MODELS, LIST_PARAMETERS, LIST_SHIFT,
                      LIST_SPRING_SETS, LIST_SYNC_GROUPS, MAX_GRAPH_CLIPS, MAX_GRAPH_DATABASES,
                      MAX_GRAPH_MODELS, MAX_GRAPH_PARAMETERS, MAX_GRAPH_RETARGET_MAPS,
                      MAX_GRAPH_SPRING_SETS, MAX_GRAPH_SYNC_GROUPS)
from ...mapping.retarget import RetargetMap
from ..source import (VALUE_WIDTH, AssetSlotSource, ClipSlotSource, ParameterSource, ParameterType,
                      SyncGroupSource)

PARAMETER_FAULT = 0x80000000
SLOT_FAULT = 0x80000000
INT32 = (-(1 << 31), (1 << 31) - 1)


@dataclass
class Parameter:
    """A checked parameter: the default as four numbers (floats as binary32 holds them)."""

    raw: bytes
    type: ParameterType
    default: tuple
    bounds: tuple | None


@dataclass
class Slot:
    raw: bytes
    asset: object
    identity: int
    flags: int = 0
    clips: tuple = ()
    map: object = None              # a clip slot's retargeting map (None: of the graph's skeleton)
    map_slot: int = 0xFFFFFFFF      # its map slot, given once every graph's slots have joined

    @property
    def map_identity(self) -> int:
        return 0 if self.map is None else int(self.map.identity)


@dataclass
class Lists:
    """A graph's checked lists, in file order."""

    parameters: list[Parameter] = field(default_factory=list)
    clips: list[Slot] = field(default_factory=list)
    sync_groups: list[bytes] = field(default_factory=list)
    databases: list[Slot] = field(default_factory=list)
    models: list[Slot] = field(default_factory=list)
    spring_sets: list[Slot] = field(default_factory=list)
    mirror_identity: int = 0
    maps: list = field(default_factory=list)    # map slots: (identity, source identity)


def _real(v) -> float | None:
    """A source number as binary64 (a bool as 0 or 1), or None when it is not a real number
    or an int past the float range."""
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    try:
        return args.real(v, "value")
    except InvalidError:
        return None


def whole(v) -> int | None:
    """A whole int32 from a source number, or None."""
    x = _real(v)
    if x is None or not math.isfinite(x) or x != math.floor(x) or not INT32[0] <= x <= INT32[1]:
        return None
    return int(x)


def finite32(v) -> float | None:
    """A number binary32 holds finite, as it holds it, or None."""
    x = _real(v)
    if x is None or not math.isfinite(x):
        return None
    y = _f32(x)
    return y if math.isfinite(y) else None


def _fault(reason, item, code, message):
    return InvalidError(message, reason=reason, item=item, other=PARAMETER_FAULT | code)


def check_parameter(p, i: int) -> Parameter:
    R = BuildReason.Parameter
    if not isinstance(p, ParameterSource):
        raise _fault(R, i, 0, f"parameter {i} is not a ParameterSource")
    try:
        kind = ParameterType(p.type)
    except (ValueError, TypeError):
        raise _fault(R, i, 0, f"parameter {i}: type {p.type!r} unknown") from None
    raw = names.name_bytes(p.name, "parameter", i, reason_other=LIST_PARAMETERS << LIST_SHIFT)
    bounds = None
    if (p.minimum is None) != (p.maximum is None):
        raise _fault(R, i, 2, f"parameter {i}: one bound without the other")
    if p.minimum is not None:
        if kind == ParameterType.int_:
            lo, hi = whole(p.minimum), whole(p.maximum)
        elif kind == ParameterType.float_:
            lo, hi = finite32(p.minimum), finite32(p.maximum)
        else:
            raise _fault(R, i, 2, f"parameter {i}: bounds on a {kind.name.rstrip('_')}")
        if lo is None or hi is None or lo > hi:
            raise _fault(R, i, 2, f"parameter {i}: bounds out of form")
        bounds = (lo, hi)
    default = parameter_value(kind, p.default)
    if default is None:
        raise _fault(R, i, 1, f"parameter {i}: default {p.default!r} out of form")
    if bounds is not None and not bounds[0] <= default[0] <= bounds[1]:
        raise _fault(R, i, 1, f"parameter {i}: default outside its bounds")
    return Parameter(raw, kind, default, bounds)


def parameter_value(kind: ParameterType, value) -> tuple | None:
    """A value of a type as four numbers (None for the type's off value), or None when out
    of form: a bool or trigger not 0 or 1, an int not whole, a float or vector not finite,
    a quaternion of length 0 (normalized otherwise), a pose parameter given anything."""
    if kind == ParameterType.pose:
        return (0.0, 0.0, 0.0, 0.0) if value is None else None
    width = VALUE_WIDTH[kind]
    if value is None:
        return (0.0, 0.0, 0.0, 1.0) if kind == ParameterType.quaternion else (0.0,) * 4
    if kind in (ParameterType.bool_, ParameterType.trigger):
        v = whole(value)
        return (float(v), 0.0, 0.0, 0.0) if v in (0, 1) else None
    if kind == ParameterType.int_:
        v = whole(value)
        return None if v is None else (float(v), 0.0, 0.0, 0.0)
    if kind == ParameterType.float_:
        if isinstance(value, (list, tuple)):
            return None
        v = finite32(value)
        return None if v is None else (v, 0.0, 0.0, 0.0)
    try:
        items = list(value)
    except TypeError:
        return None
    if len(items) != width:
        return None
    vals = [finite32(v) for v in items]
    if any(v is None for v in vals):
        return None
    if kind == ParameterType.quaternion:
        length = math.sqrt(sum(v * v for v in vals))
        if not length > 0 or not math.isfinite(length):
            return None
        vals = [_f32(v / length) for v in vals]
    return tuple(vals) + (0.0,) * (4 - width)


def _clip_slot(s, i: int, skeleton) -> Slot:
    R = BuildReason.Clip
    if not isinstance(s, ClipSlotSource):
        raise InvalidError(f"clip slot {i} is not a ClipSlotSource", reason=R, item=i,
                           other=SLOT_FAULT | 0)
    raw = names.name_bytes(s.name, "clip slot", i, reason_other=LIST_CLIPS << LIST_SHIFT)
    if not is_open(s.clip):
        raise InvalidError(f"clip slot {i}: no opened clip", reason=R, item=i, other=SLOT_FAULT | 1)
    m = s.retarget_map
    if m is not None and not (isinstance(m, RetargetMap) and m.is_open
                              and m.target_identity == skeleton.identity
                              and m.target_bone_count == skeleton.bone_count):
        raise InvalidError(f"clip slot {i}: a retargeting map not opened or not made for the "
                           "graph's skeleton", reason=R, item=i, other=SLOT_FAULT | 3)
    if s.clip.skeleton_identity != (skeleton.identity if m is None else m.source_identity):
        raise InvalidError(f"clip slot {i}: a clip of another skeleton", reason=R, item=i,
                           other=SLOT_FAULT | 2)
    flags = (1 if s.clip.is_additive else 0) | (2 if s.all_events else 0)
    return Slot(raw, s.clip, int(s.clip.identity), flags, map=m)


def give_map_slots(clips: list) -> list:
    """Each distinct map the clip slots name a map slot, in the order the slots first name
    them (each slot's map_slot set): the maps, as (identity, source identity)."""
    maps = {}
    for i, s in enumerate(clips):
        if s.map is None:
            continue
        key = (s.map_identity, int(s.map.source_identity))
        if key not in maps:
            if len(maps) == MAX_GRAPH_RETARGET_MAPS:
                raise LimitError(f"clip slot {i}: a map past MAX_GRAPH_RETARGET_MAPS",
                                 reason=BuildReason.Clip, item=i, other=MAX_GRAPH_RETARGET_MAPS)
            maps[key] = len(maps)
        s.map_slot = maps[key]
    return list(maps)


def _asset_slot(s, i: int, skeleton, reason, bit: int, what: str, clip_count: int) -> Slot:
    if not isinstance(s, AssetSlotSource):
        raise InvalidError(f"{what} slot {i} is not an AssetSlotSource", reason=reason, item=i,
                           other=SLOT_FAULT | 0)
    raw = names.name_bytes(s.name, f"{what} slot", i, reason_other=bit << LIST_SHIFT)
    identity = getattr(s.asset, "identity", None)
    if not isinstance(identity, int) or isinstance(identity, bool) or not 0 <= identity < 1 << 64:
        raise InvalidError(f"{what} slot {i}: an asset without an identity", reason=reason, item=i,
                           other=SLOT_FAULT | 1)
    if getattr(s.asset, "skeleton_identity", None) != skeleton.identity:
        raise InvalidError(f"{what} slot {i}: an asset of another skeleton", reason=reason, item=i,
                           other=SLOT_FAULT | 2)
    clips = []
    for c in (s.clips or ()):
        k = whole(c)
        if reason != BuildReason.Database or k is None or not 0 <= k < clip_count:
            raise InvalidError(f"{what} slot {i}: clip slot {c!r} past the clips", reason=reason,
                               item=i, other=SLOT_FAULT | 3)
        clips.append(k)
    return Slot(raw, s.asset, identity, 0, tuple(clips))


def _listed(value, bit: int, limit: int):
    if value is None:
        raise InvalidError("a list not given", reason=BuildReason.Count, item=0, other=bit)
    try:
        items = list(value)
    except TypeError:
        raise InvalidError("a list that is not a list", reason=BuildReason.Count, item=0,
                           other=bit) from None
    if len(items) > limit:
        raise LimitError(f"{len(items)} items past the limit of {limit}", reason=BuildReason.Count,
                         item=len(items), other=bit)
    return items


def check_lists(source, skeleton) -> Lists:
    """A graph's (or a subgraph's) own lists, checked in the order the table above gives."""
    out = Lists()
    for i, p in enumerate(_listed(source.parameters, LIST_PARAMETERS, MAX_GRAPH_PARAMETERS)):
        out.parameters.append(check_parameter(p, i))
    names.check_unique([p.raw for p in out.parameters], "parameter",
                       other_bits=LIST_PARAMETERS << LIST_SHIFT)
    for i, s in enumerate(_listed(source.clips, LIST_CLIPS, MAX_GRAPH_CLIPS)):
        out.clips.append(_clip_slot(s, i, skeleton))
    names.check_unique([s.raw for s in out.clips], "clip slot",
                       other_bits=LIST_CLIPS << LIST_SHIFT)
    for i, g in enumerate(_listed(source.sync_groups, LIST_SYNC_GROUPS, MAX_GRAPH_SYNC_GROUPS)):
        if not isinstance(g, SyncGroupSource) or g.name is None:
            raise InvalidError(f"sync group {i} without its name", reason=BuildReason.Count,
                               item=i, other=LIST_SYNC_GROUPS)
        out.sync_groups.append(names.name_bytes(g.name, "sync group", i,
                                                reason_other=LIST_SYNC_GROUPS << LIST_SHIFT))
    names.check_unique(out.sync_groups, "sync group", other_bits=LIST_SYNC_GROUPS << LIST_SHIFT)
    for attr, bit, limit, reason, what in (
            ("databases", LIST_DATABASES, MAX_GRAPH_DATABASES, BuildReason.Database, "database"),
            ("models", LIST_MODELS, MAX_GRAPH_MODELS, BuildReason.Model, "model"),
            ("spring_sets", LIST_SPRING_SETS, MAX_GRAPH_SPRING_SETS, BuildReason.SpringSetSlot,
             "spring set")):
        slots = [_asset_slot(s, i, skeleton, reason, bit, what, len(out.clips))
                 for i, s in enumerate(_listed(getattr(source, attr), bit, limit))]
        names.check_unique([s.raw for s in slots], f"{what} slot", other_bits=bit << LIST_SHIFT)
        setattr(out, attr, slots)
    mirror = source.mirror_map
    if mirror is not None:
        identity = getattr(mirror, "identity", None)
        if not isinstance(identity, int) or getattr(mirror, "skeleton_identity", None) != skeleton.identity:
            raise InvalidError("a mirror map without an identity or of another skeleton",
                               reason=BuildReason.MirrorGraph, item=0)
        out.mirror_identity = identity
    return out


def in_subgraph(exc: ManiError, place: int) -> ManiError:
    """A refusal of a subgraph's lists, renamed to the subgraph node (see the table)."""
    bits = {BuildReason.Parameter: LIST_PARAMETERS, BuildReason.Clip: LIST_CLIPS,
            BuildReason.Database: LIST_DATABASES, BuildReason.Model: LIST_MODELS,
            BuildReason.SpringSetSlot: LIST_SPRING_SETS}
    if exc.reason == BuildReason.Count:
        bit = exc.other
    elif exc.reason in (BuildReason.Name, BuildReason.DuplicateName, BuildReason.NameHash):
        bit = exc.other >> LIST_SHIFT
    else:
        bit = bits.get(exc.reason, 0)
    return type(exc)(str(exc), reason=exc.reason, item=place,
                     other=(bit << LIST_SHIFT) | (exc.item & 0xFFFFFF))
