"""maniBuildMirrorMap: a skeleton's bones paired (explicit pairs first, then find/replace
rules on their names), each bone's corrections from the reference pose, and the names of
float tracks, events and markers paired the same way, laid out as a mirror map file.

The file (container kind 13, format version 1), beside the name table (prefix b"N", the
paired names in increasing hash order):

    MHDR  u64 skeleton identity, u32 bone count, u32 axis, u32 name count,
          u32 first unmatched bone (NO_BONE for none), u64 reserved 0
    MBON  per bone 40 bytes: u32 partner, u32 flags (1 unmatched, 2 scale approximate,
          bits 4 + 2i: the partner's axis bone axis i takes its scale from), f32[4] the
          correction C (the partner's reference model turn mirrored to the bone's), f32[4]
          the parent correction E (the partner's parent's mirrored to the parent's)
    MNPR  u32[name count]  the place of each name's partner among the names

Rules: each rule is tried in order on a name (find at its start, its end, or its first
place anywhere); the first that matches makes the partner, a name no rule matches is its own.
A rule's partner must pair back by the rules to the name, unless the pairs pair it. A rule
that makes a bone name past MAX_NAME_BYTES makes no bone, so the bone stays unpaired; a
name's (float track's, event's, marker's) is refused.

Refusals: InvalidError with reason None for a list that is not a list (a misuse, counted);
Option (an axis not x, y or z); MirrorReference (item the bone; NO_BONE for a reference
that is not a pose or (n, 10) locals of the skeleton); MirrorRule (item the rule: not a
rule, find empty or not text, replace not text, an unknown place; past MAX_NAME_BYTES a
LimitError); MirrorPair (item the bone, other its partner: a bone past the skeleton, paired
twice, or a rule's partner that does not pair back); MirrorName (item the name, other the
earlier: names counted over the name pairs, two a pair, then the names; a name not text,
given twice, or whose rule partner does not pair back (other the name itself); past
MAX_NAME_BYTES a LimitError); NameHash (two names of one hash); Count (paired names past
4 GiB in all, which the name table's offsets cannot reach).
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from ..core import args, container, names
from ..core.builder import Builder, enter_build, listed
from ..core.container import FileKind, Section
from ..core.errors import BuildReason, InvalidError, LimitError
from ..core.limits import MAX_NAME_BYTES, NO_BONE
from ..pose.pose import Pose
from ..pose.skeleton import Skeleton
from .kernels import qconj, qmatrix, qmirror, qmul

FORMAT_VERSION = 1
FORMAT_MINOR = 0
BONE_UNMATCHED = 1              # MANI_MIRROR_BONE_UNMATCHED
BONE_SCALE_APPROXIMATE = 2      # MANI_MIRROR_BONE_SCALE_APPROXIMATE
SCALE_SHIFT = 4
AXIS_TOLERANCE = 1e-5           # a correction's column this close to an axis takes it
# What binary64 leaves of terms that cancel (a turn times its own inverse): a component this
# small is a turn far below binary32's resolution, so it is made 0 and mirror images' exact
# identity corrections stay exact.
RESIDUE = 1e-12
MAX_NAME_TABLE_BYTES = 2 ** 32 - 1    # the name table's u32 offsets reach this far
HEADER = struct.Struct("<QIIIIQ")
BONE = np.dtype([("partner", "<u4"), ("flags", "<u4"), ("correction", "<f4", 4),
                 ("parent_correction", "<f4", 4)])


class MirrorAxis(IntEnum):
    """maniMirrorAxis: the axis the mirror plane is normal to."""

    x = 0
    y = 1
    z = 2


class RulePlace(IntEnum):
    """Where a rule's find must be in a name."""

    prefix = 0
    suffix = 1
    anywhere = 2


@dataclass
class MirrorRule:
    """A find/replace rule: a name with `find` at `place` pairs with the name with `replace`
    there instead."""

    find: str | bytes
    replace: str | bytes
    place: RulePlace = RulePlace.anywhere


@dataclass
class MirrorMapSource:
    """maniMirrorMapSource: the skeleton, the plane's axis, the reference pose (a Pose or
    (n, 10) locals of the skeleton; None: the rest), bone pairs (index pairs), rules, and the
    names of float tracks, events and markers: explicit pairs and names the rules pair."""

    skeleton: Skeleton
    axis: MirrorAxis = MirrorAxis.x
    reference: Any = None
    pairs: list = field(default_factory=list)
    rules: list = field(default_factory=list)
    name_pairs: list = field(default_factory=list)
    names: list = field(default_factory=list)


@dataclass
class _Rule:
    find: bytes
    replace: bytes
    place: RulePlace

    def apply(self, name: bytes) -> bytes | None:
        f = self.find
        if self.place == RulePlace.prefix:
            return self.replace + name[len(f):] if name.startswith(f) else None
        if self.place == RulePlace.suffix:
            return name[:len(name) - len(f)] + self.replace if name.endswith(f) else None
        at = name.find(f)
        return None if at < 0 else name[:at] + self.replace + name[at + len(f):]


def _by_rules(rules: list[_Rule], name: bytes) -> bytes | None:
    for rule in rules:
        made = rule.apply(name)
        if made is not None:
            return made
    return None


def _text(value) -> bytes | None:
    """A name's UTF-8 bytes, or None for what is not text."""
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError:
            return None
    if isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return raw
    return None


@dataclass
class Checked:
    """A source in the build's terms (mirror_json writes and reads sources through it)."""

    skeleton: Skeleton
    axis: int
    reference: np.ndarray           # (n, 10) binary64, rotations normalized
    given: np.ndarray               # (n, 10) binary32, as the source gave it
    pairs: list                     # (bone, bone)
    rules: list                     # _Rule
    name_pairs: list                # (bytes, bytes)
    names: list                     # bytes
    partners: np.ndarray            # (n,) bone partners
    name_table: dict                # name -> partner name, both ways, unpaired left out
    name_items: dict                # name -> its place (for refusals)


def check(builder: Builder, source: MirrorMapSource) -> Checked:
    skeleton = source.skeleton
    pairs = listed(builder, source.pairs, "pairs")
    rule_list = listed(builder, source.rules, "rules")
    name_pairs = listed(builder, source.name_pairs, "name pairs")
    name_list = listed(builder, source.names, "names")
    axis = source.axis
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)) or not 0 <= axis <= 2:
        raise InvalidError("the axis is not x, y or z", reason=BuildReason.Option)
    given, reference = _reference(source.reference, skeleton)
    rules = [_rule(r, i) for i, r in enumerate(rule_list)]
    partners = _bone_partners(skeleton, pairs, rules)
    table, items, raw_pairs, raw_names = _name_partners(name_pairs, name_list, rules)
    return Checked(skeleton, int(axis), reference, given, [tuple(int(x) for x in p) for p in pairs], rules,
                   raw_pairs, raw_names, partners, table, items)


def _reference(value, skeleton: Skeleton) -> tuple[np.ndarray, np.ndarray]:
    n = skeleton.bone_count
    if value is None:
        locals_ = skeleton.rests
    elif isinstance(value, Pose):
        if not value.of(skeleton) or value.is_difference:
            raise InvalidError("a reference pose of another skeleton, or a difference",
                               reason=BuildReason.MirrorReference, item=NO_BONE)
        locals_ = value.locals
    else:
        try:
            locals_ = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            locals_ = None
        if locals_ is None or locals_.shape != (n, 10):
            raise InvalidError("a reference that is not (n, 10) locals of the skeleton",
                               reason=BuildReason.MirrorReference, item=NO_BONE)
    out = np.array(locals_, dtype=np.float64)
    with np.errstate(all="ignore"):         # the reference is binary32, as a pose holds it
        bad = ~(np.abs(out) <= args.F32_MAX).all(axis=1)
        given = np.where(bad[:, None], 0.0, out).astype(np.float32)
        out = given.astype(np.float64)
        length = np.sqrt(np.einsum("ij,ij->i", out[:, 3:7], out[:, 3:7]))
        bad |= ~(length > 0) | ~np.isfinite(length)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise InvalidError(f"bone {b}: a reference local not finite in binary32 or a turn of "
                           "length 0", reason=BuildReason.MirrorReference, item=b)
    out[:, 3:7] /= length[:, None]
    return given, out


def _rule(value, i: int) -> _Rule:
    if not isinstance(value, MirrorRule):
        raise InvalidError(f"rule {i} is not a MirrorRule", reason=BuildReason.MirrorRule, item=i)
    find, replace = _text(value.find), _text(value.replace)
    place = value.place
    if find is None or replace is None or not find:
        raise InvalidError(f"rule {i}: find empty, or find or replace not text",
                           reason=BuildReason.MirrorRule, item=i)
    if isinstance(place, (bool, np.bool_)) or not isinstance(place, (int, np.integer)) \
            or place not in tuple(RulePlace):
        raise InvalidError(f"rule {i}: an unknown place", reason=BuildReason.MirrorRule, item=i)
    if len(find) > MAX_NAME_BYTES or len(replace) > MAX_NAME_BYTES:
        raise LimitError(f"rule {i}: find or replace past MAX_NAME_BYTES",
                         reason=BuildReason.MirrorRule, item=i)
    return _Rule(find, replace, RulePlace(int(place)))


def _bone_partners(skeleton: Skeleton, pairs: list, rules: list[_Rule]) -> np.ndarray:
    n = skeleton.bone_count
    partners = np.full(n, -1, dtype=np.int64)
    for k, pair in enumerate(pairs):
        try:
            a, b = pair
            a, b = args.integer(a, "bone"), args.integer(b, "bone")
        except (TypeError, ValueError, InvalidError):
            raise InvalidError(f"pair {k} is not two bones", reason=BuildReason.MirrorPair,
                               item=NO_BONE, other=NO_BONE) from None
        for x, y in ((a, b), (b, a)):
            if not (0 <= x < n and 0 <= y < n):
                raise InvalidError(f"pair {k}: a bone past the skeleton",
                                   reason=BuildReason.MirrorPair, item=x & 0xFFFFFFFF,
                                   other=y & 0xFFFFFFFF)
            if partners[x] not in (-1, y):
                raise InvalidError(f"bone {x} paired twice", reason=BuildReason.MirrorPair,
                                   item=x, other=y)
            partners[x] = y
    raw = [skeleton.names.name(b, "bone").encode("utf-8") for b in range(n)]
    explicit = partners >= 0
    for b in range(n):
        if explicit[b]:
            continue
        made = _by_rules(rules, raw[b])
        c = skeleton.names.find(made) if made is not None and 0 < len(made) <= MAX_NAME_BYTES else NO_BONE
        if c == NO_BONE:
            partners[b] = b
            continue
        if explicit[c] or _by_rules(rules, raw[c]) != raw[b]:
            raise InvalidError(f"bone {b}: its rule partner {c} does not pair back",
                               reason=BuildReason.MirrorPair, item=b, other=c)
        partners[b] = c
    return partners


def _name_partners(name_pairs: list, name_list: list, rules: list[_Rule]):
    """The table of paired names (both ways) and each name's place."""
    items: dict[bytes, int] = {}            # each name given, its place
    made_by: dict[bytes, int] = {}          # a partner a rule made, the name it was made for
    table: dict[bytes, bytes] = {}
    raw_pairs = []

    def take(value, item: int) -> bytes:
        raw = _text(value)
        if raw is None or not raw:
            raise InvalidError(f"name {item} is not text", reason=BuildReason.MirrorName, item=item)
        if len(raw) > MAX_NAME_BYTES:
            raise LimitError(f"name {item} past MAX_NAME_BYTES", reason=BuildReason.MirrorName,
                             item=item)
        if raw in items:
            raise InvalidError(f"name {item} given twice", reason=BuildReason.MirrorName,
                               item=item, other=items[raw])
        items[raw] = item
        return raw

    for k, pair in enumerate(name_pairs):
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise InvalidError(f"name pair {k} is not two names", reason=BuildReason.MirrorName,
                               item=2 * k) from None
        ra = take(a, 2 * k)
        rb = take(b, 2 * k + 1) if _text(b) != ra else ra
        raw_pairs.append((ra, rb))
        if ra != rb:
            table[ra], table[rb] = rb, ra
    raw_names = []
    first = 2 * len(name_pairs)
    for i, value in enumerate(name_list):
        item = first + i
        raw = take(value, item)
        raw_names.append(raw)
        made = _by_rules(rules, raw)
        if made is None or made == raw:
            continue
        if not made or len(made) > MAX_NAME_BYTES:
            raise LimitError(f"name {item}: a rule makes a partner past MAX_NAME_BYTES",
                             reason=BuildReason.MirrorName, item=item)
        if made in table and table[made] != raw or _by_rules(rules, made) != raw:
            raise InvalidError(f"name {item}: its rule partner does not pair back",
                               reason=BuildReason.MirrorName, item=item, other=item)
        table[raw], table[made] = made, raw
        made_by.setdefault(made, item)
    return table, {**made_by, **items}, raw_pairs, raw_names


def layout(ch: Checked) -> bytes:
    """The file of a checked source."""
    skeleton, axis, partners = ch.skeleton, ch.axis, ch.partners
    n = skeleton.bone_count
    parents = np.array([skeleton.parent(b) for b in range(n)], dtype=np.int64)
    model = np.zeros((n, 4))
    for b in range(n):          # reference model turns, parents first (storage order)
        q = ch.reference[b, 3:7]
        model[b] = q if parents[b] == NO_BONE else qmul(model[parents[b]], q)
    identity = np.array([0.0, 0.0, 0.0, 1.0])
    mirrored = qmirror(model, axis)
    correction = qmul(qconj(mirrored[partners]), model)
    parent_turn = np.where((parents == NO_BONE)[:, None], identity, model[np.where(parents == NO_BONE, 0, parents)])
    pp = parents[partners]
    partner_parent_mirrored = np.where((pp == NO_BONE)[:, None], identity,
                                       mirrored[np.where(pp == NO_BONE, 0, pp)])
    parent_correction = qmul(qconj(parent_turn), partner_parent_mirrored)
    for q in (correction, parent_correction):
        q[np.abs(q) < RESIDUE] = 0.0
        q /= np.linalg.norm(q, axis=1, keepdims=True)
    flags = np.zeros(n, dtype=np.uint32)
    matched = np.where(parents == NO_BONE, pp == NO_BONE,
                       (pp != NO_BONE) & (partners[np.where(parents == NO_BONE, 0, parents)] == pp))
    flags[~matched] |= BONE_UNMATCHED
    columns = np.abs(qmatrix(correction))           # [b, row j, column i]
    nearest = columns.argmax(axis=1)                # per bone and axis i: the partner's axis
    exact = (np.abs(columns.max(axis=1) - 1.0) <= AXIS_TOLERANCE).all(axis=1)
    flags[~exact] |= BONE_SCALE_APPROXIMATE
    for i in range(3):
        flags |= (nearest[:, i].astype(np.uint32) << (SCALE_SHIFT + 2 * i))
    bones = np.zeros(n, dtype=BONE)
    bones["partner"] = partners
    bones["flags"] = flags
    bones["correction"] = correction
    bones["parent_correction"] = parent_correction
    unmatched = np.flatnonzero(~matched)
    first = int(unmatched[0]) if unmatched.size else NO_BONE
    table = sorted(ch.name_table, key=names.hash_name)
    if sum(map(len, table)) > MAX_NAME_TABLE_BYTES:
        raise InvalidError("paired names past 4 GiB in all", reason=BuildReason.Count)
    hashes = [names.hash_name(r) for r in table]
    for k in range(1, len(hashes)):
        if hashes[k] == hashes[k - 1]:
            a, b = sorted((ch.name_items[table[k]], ch.name_items[table[k - 1]]))
            raise InvalidError("two names of one hash", reason=BuildReason.NameHash, item=b, other=a)
    place = {r: k for k, r in enumerate(table)}
    name_partners = np.array([place[ch.name_table[r]] for r in table], dtype="<u4")
    return container.write(FileKind.mirror_map, FORMAT_VERSION, FORMAT_MINOR, [
        Section(b"MHDR", 0, HEADER.pack(skeleton.identity, n, axis, len(table), first, 0)),
        Section(b"MBON", 0, bones.tobytes()),
        Section(b"MNPR", 0, name_partners.tobytes()),
        *names.sections(b"N", table, hashes),
    ])


def build_mirror_map(builder: Builder, source: MirrorMapSource) -> bytes:
    """maniBuildMirrorMap: builds the file and keeps it in the builder."""
    enter_build(builder, source, MirrorMapSource, skeleton=Skeleton)
    data = layout(check(builder, source))
    builder.keep(data, "mirror map")
    return data
