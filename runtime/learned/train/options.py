"""What a trainer is made from: its def (version cookie, allocator and task hooks), Holden's
options and the source (database, clips, what the model gives), and the checks
maniCreateLearnedTrainer makes of them in the order its Returns line lists."""
from __future__ import annotations

from dataclasses import astuple, dataclass, field, fields
from typing import Any, Callable

import numpy as np

from ...core import args
from ...clip.clip import is_open as clip_is_open
from ...core.base import VERSION, Version
from ...core.errors import BuildReason, InvalidError, LimitError, ManiError, VersionError
from ...mapping.mirror import MirrorMap
from ...matching.database import MotionDatabase
from ...pose.skeleton import Skeleton
from ..limits import (MAX_LEARNED_EVENTS, MAX_LEARNED_FLOAT_TRACKS, MAX_LEARNED_LATENT,
                      MAX_LEARNED_LAYERS, MAX_LEARNED_PROJECTORS, MAX_LEARNED_RATE,
                      MAX_LEARNED_WEIGHTS, MAX_LEARNED_WIDTH)
from ..model_build import _names, decompressor_outputs

TRAINER_COOKIE = 0x4D4C5452          # "MLTR": marks a def made by default_learned_trainer_def
MAX_LEARNED_BATCH = 4096             # MANI_MAX_LEARNED_BATCH: samples an iteration
MAX_LEARNED_WINDOW = 256             # MANI_MAX_LEARNED_WINDOW: frames a window
CHUNK = 4                            # samples a chunk: a batch is a multiple of it


@dataclass
class TaskHooks:
    """maniLearnedTaskHooks: `dispatch(user, work, payloads)` starts work(payload) for
    every payload (on any thread, process or machine) and returns a handle;
    `collect(user, handle)` waits and returns the results in the payloads' order. The
    trainer reduces them in that order, so the bits never depend on where they ran."""

    dispatch: Callable[[Any, Callable, list], Any] | None = None
    collect: Callable[[Any, Any], list] | None = None
    user: Any = None


@dataclass
class LearnedTrainerDef:
    """maniLearnedTrainerDef: the version cookie, an optional allocator hook pair (as the
    builder's: alloc(user, size) -> writable buffer or None, free(user, block)) and the
    task hooks (both or neither; neither: a local pool of threads)."""

    cookie: int = 0
    version: Version = VERSION
    alloc: Callable[[Any, int], Any] | None = None
    free: Callable[[Any, Any], None] | None = None
    user: Any = None
    tasks: TaskHooks = field(default_factory=TaskHooks)
    workers: int = 2                 # the local pool's threads (ignored with task hooks)


def default_learned_trainer_def() -> LearnedTrainerDef:
    """maniDefaultLearnedTrainerDef."""
    return LearnedTrainerDef(cookie=TRAINER_COOKIE)


@dataclass
class LearnedTrainerOptions:
    """maniLearnedTrainerOptions, in the order refusals name them (item = the field's
    place). Holden's: 32 latent values, layers of 512, a compressor of 3 hidden layers, a
    decompressor of 1, a stepper of 2 and projectors of 4, batches of 32, AdamW at 0.001
    decayed by 0.99 every 1000 iterations, windows of 2 and 20 frames, 500000 iterations
    a stage; the projectors' queries get noise of a uniform random fraction of
    `projector_noise` standard deviations (features are normalized)."""

    latent_count: int = 32
    width: int = 512
    compressor_layers: int = 3
    decompressor_layers: int = 1
    stepper_layers: int = 2
    projector_layers: int = 4
    batch: int = 32
    decompressor_window: int = 2
    stepper_window: int = 20
    decompressor_iterations: int = 500000
    stepper_iterations: int = 500000
    projector_iterations: int = 500000
    learning_rate: float = 0.001
    decay: float = 0.99              # the rate's factor every 1000 iterations
    weight_decay: float = 0.001
    projector_noise: float = 1.0
    seed: int = 0


OPTION = {f.name: i for i, f in enumerate(fields(LearnedTrainerOptions))}


def default_learned_trainer_options() -> LearnedTrainerOptions:
    """maniDefaultLearnedTrainerOptions: Holden's."""
    return LearnedTrainerOptions()


@dataclass
class LearnedTrainerProjector:
    """A Projector to train: its targets are the frames of entries whose tags hold all of
    `required` and none of `excluded`."""

    required: int = 0
    excluded: int = 0


@dataclass
class LearnedTrainerSource:
    """maniLearnedTrainerSource: the skeleton, the database and its clips (the database's
    clip order), the mirror map its mirrored entries play through (None when it has none),
    the Projectors, the bones whose scale the model gives, the float tracks and events it
    gives, and the options (by name: a clip without the track gives 0; an event's state is 1 at the frame
    nearest its time, else 0)."""

    skeleton: Skeleton
    database: MotionDatabase
    clips: list = field(default_factory=list)
    mirror_map: Any = None
    projectors: list = field(default_factory=lambda: [LearnedTrainerProjector()])
    scaled_bones: list = field(default_factory=list)
    float_tracks: list = field(default_factory=list)
    events: list = field(default_factory=list)
    options: LearnedTrainerOptions = field(default_factory=LearnedTrainerOptions)


def _refuse(message, reason, item=0, other=0, limit=False):
    return (LimitError if limit else InvalidError)(message, reason=reason, item=item, other=other)


def check_def(d) -> LearnedTrainerDef:
    if not isinstance(d, LearnedTrainerDef):
        raise InvalidError("not a learned trainer def")
    if d.cookie != TRAINER_COOKIE:
        raise InvalidError("a def without its cookie (make it with default_learned_trainer_def)")
    try:
        version = tuple(int(v) for v in d.version)[:2]
    except (TypeError, ValueError):
        raise InvalidError("the def's version is not a version") from None
    if version != tuple(VERSION)[:2]:
        raise VersionError(f"a def for version {version}, this library is {tuple(VERSION)[:2]}")
    if (d.alloc is None) != (d.free is None):
        raise InvalidError("an allocator with one function")
    if not isinstance(d.tasks, TaskHooks):
        raise InvalidError("the def's task hooks are not TaskHooks")
    if (d.tasks.dispatch is None) != (d.tasks.collect is None):
        raise InvalidError("task hooks with one function")
    if not all(f is None or callable(f) for f in (d.alloc, d.free, d.tasks.dispatch,
                                                   d.tasks.collect)):
        raise InvalidError("a hook that is not a function")
    if args.integer(d.workers, "workers") < 1:
        raise InvalidError("workers below 1")
    return d


@dataclass(frozen=True)
class Checked:
    """A source and options as checked: plain values the trainer keeps."""

    options: tuple
    clips: list
    tags: list
    scaled: list
    tracks: list
    events: list
    longest_entry: int


def _option_values(o) -> tuple:
    if not isinstance(o, LearnedTrainerOptions):
        raise InvalidError("the options are not LearnedTrainerOptions")
    out = []
    for f, value in zip(fields(o), astuple(o)):
        item = OPTION[f.name]
        try:
            out.append(args.integer(value, f.name) if f.type == "int" else args.real(value, f.name))
        except ManiError:
            raise _refuse(f"option {f.name} is not a number", BuildReason.Option, item) from None
    return tuple(out)


def check_source(source) -> Checked:
    """The source's and options' checks, in the Returns line's order within each kind."""
    if not isinstance(source, LearnedTrainerSource):
        raise InvalidError("not a LearnedTrainerSource")
    sk, db = source.skeleton, source.database
    if not (isinstance(sk, Skeleton) and sk.is_open):
        raise InvalidError("the source's skeleton is not an opened skeleton")
    if not (isinstance(db, MotionDatabase) and db.is_open):
        raise InvalidError("the source's database is not an opened motion database")
    for what in ("clips", "projectors", "scaled_bones", "float_tracks", "events"):
        if not isinstance(getattr(source, what), (list, tuple)):
            raise InvalidError(f"the source's {what} is missing or not a list")
    o = _option_values(source.options)
    v = dict(zip(OPTION, o))
    if v["latent_count"] > MAX_LEARNED_LATENT:
        raise _refuse("latent values past MAX_LEARNED_LATENT", BuildReason.Option,
                      OPTION["latent_count"], limit=True)
    if v["width"] > MAX_LEARNED_WIDTH:
        raise _refuse("a width past MAX_LEARNED_WIDTH", BuildReason.Option, OPTION["width"],
                      limit=True)
    for name in ("compressor_layers", "decompressor_layers", "stepper_layers", "projector_layers"):
        if v[name] >= MAX_LEARNED_LAYERS:
            raise _refuse(f"{name}: MAX_LEARNED_LAYERS hidden layers or more", BuildReason.Option,
                          OPTION[name], limit=True)
    if v["batch"] > MAX_LEARNED_BATCH:
        raise _refuse("a batch past MAX_LEARNED_BATCH", BuildReason.Option, OPTION["batch"],
                      limit=True)
    for name in ("decompressor_window", "stepper_window"):
        if v[name] > MAX_LEARNED_WINDOW:
            raise _refuse(f"{name} past MAX_LEARNED_WINDOW", BuildReason.Option, OPTION[name],
                          limit=True)
    if not 0 < db.rate <= MAX_LEARNED_RATE:
        raise _refuse(f"a database rate of {db.rate} past MAX_LEARNED_RATE", BuildReason.Timing,
                      limit=True)
    for what, value, bound in (("projectors", source.projectors, MAX_LEARNED_PROJECTORS),
                               ("float tracks", source.float_tracks, MAX_LEARNED_FLOAT_TRACKS),
                               ("events", source.events, MAX_LEARNED_EVENTS)):
        if len(value) > bound:
            raise _refuse(f"{len(value)} {what} past the bound", BuildReason.Count, limit=True)
    tracks = _names(source.float_tracks, "float track", BuildReason.FloatTrack)
    events = _names(source.events, "event", BuildReason.Event)
    # the widths and weights of every network (LimitError item 1)
    feats, latent, width = db.feature_count, v["latent_count"], v["width"]
    state = feats + latent
    outputs = decompressor_outputs(sk.bone_count, len(source.scaled_bones), len(tracks[0]),
                                   len(events[0]))
    if max(outputs, state) > MAX_LEARNED_WIDTH or any(
            _weights(n_in, max(width, 1), hidden, n_out) > MAX_LEARNED_WEIGHTS
            for n_in, hidden, n_out in ((outputs, v["compressor_layers"], latent),
                                        (state, v["decompressor_layers"], outputs),
                                        (state, v["stepper_layers"], state),
                                        (feats, v["projector_layers"], state))):
        raise _refuse("networks past MAX_LEARNED_WIDTH or MAX_LEARNED_WEIGHTS", BuildReason.Option,
                      OPTION["width"], limit=True)
    # refusals
    if latent < 1:
        raise _refuse("no latent values", BuildReason.Option, OPTION["latent_count"])
    if width < 1:
        raise _refuse("no width", BuildReason.Option, OPTION["width"])
    for name in ("compressor_layers", "decompressor_layers", "stepper_layers", "projector_layers"):
        if v[name] < 0:
            raise _refuse(f"{name} below 0", BuildReason.Option, OPTION[name])
    if v["batch"] < 1 or v["batch"] % CHUNK:
        raise _refuse("a batch not a positive multiple of 4", BuildReason.Option, OPTION["batch"])
    longest = max((db.entry_frames(e)[1] for e in range(db.entry_count)), default=0)
    for name in ("decompressor_window", "stepper_window"):
        if v[name] < 2 or v[name] > longest:
            raise _refuse(f"{name} {v[name]} below 2 or longer than every entry",
                          BuildReason.Option, OPTION[name])
    for name in ("decompressor_iterations", "stepper_iterations", "projector_iterations"):
        if v[name] < 1:
            raise _refuse(f"no {name}", BuildReason.Option, OPTION[name])
    for name in ("learning_rate", "decay", "weight_decay", "projector_noise"):
        if not (np.isfinite(v[name]) and v[name] >= 0):
            raise _refuse(f"{name} not finite or negative", BuildReason.Option, OPTION[name])
    if not 0 <= v["seed"] < 1 << 64:
        raise _refuse("the seed is not a uint64", BuildReason.Option, OPTION["seed"])
    if db.skeleton_identity != sk.identity:
        raise _refuse("a database of another skeleton", BuildReason.Database)
    clips = list(source.clips)
    if len(clips) != db.clip_count:
        raise _refuse(f"{len(clips)} clips for the database's {db.clip_count}", BuildReason.Clip,
                      len(clips), db.clip_count)
    for k, clip in enumerate(clips):
        if not clip_is_open(clip) or clip.identity != db.clip_identity(k):
            raise _refuse(f"clip {k} is not the database's", BuildReason.Clip, k)
    m = source.mirror_map
    if db.mirror_map_identity and not (isinstance(m, MirrorMap) and m.is_open
                                       and m.identity == db.mirror_map_identity):
        raise _refuse("the database's mirrored entries need its mirror map", BuildReason.Database)
    if not source.projectors:
        raise _refuse("no Projector", BuildReason.Count)
    tags = []
    for p, proj in enumerate(source.projectors):
        try:
            req = args.integer(proj.required, "required")
            exc = args.integer(proj.excluded, "excluded")
        except (ManiError, AttributeError):
            req = exc = -1
        if not (0 <= req < 1 << 32 and 0 <= exc < 1 << 32) or not any(
                _passes(db.entry(e).tags, req, exc) and db.entry_frames(e)[1]
                for e in range(db.entry_count)):
            raise _refuse(f"projector {p}: tags not uint32 or no frame passes them",
                          BuildReason.Tags, p)
        tags.append((req, exc))
    scaled = []
    for i, b in enumerate(source.scaled_bones):
        try:
            b = args.integer(b, "scaled bone")
        except ManiError:
            b = -1
        if not 0 <= b < sk.bone_count or (scaled and b <= scaled[-1]):
            raise _refuse(f"scaled bone {i} past the skeleton or not increasing",
                          BuildReason.Joint, i)
        scaled.append(b)
    return Checked(o, clips, tags, scaled, tracks[0], events[0], longest)


def _passes(tags: int, required: int, excluded: int) -> bool:
    return (tags & required) == required and not tags & excluded


def _weights(n_in: int, width: int, hidden: int, n_out: int) -> int:
    dims = [n_in] + [width] * hidden + [n_out]
    return sum(a * b for a, b in zip(dims[:-1], dims[1:]))
