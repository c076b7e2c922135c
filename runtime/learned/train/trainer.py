"""maniLearnedTrainer: Holden's networks trained stage after stage, the same bits with any
number of workers and across checkpoints.

Stages: 0 the Compressor and Decompressor, 1 the Stepper, 2 + p Projector p. A stage
begins when it first runs (its networks drawn from the generator, its AdamW moments zeroed)
and ends after its last iteration (its network kept, the Compressor and the moments
released); stage 0's end gives every frame's latent values (the Compressor's), from which
the Stepper's and the Projectors' normalizations follow.

An iteration: its batch drawn by a generator keyed by (seed, stage, iteration), so a
restored trainer draws what the uninterrupted one would; the batch cut into chunks of
CHUNK samples whose gradients (losses.py) the task hooks compute; the chunks' gradients
added in chunk order; one AdamW step at the rate decayed by `decay` every 1000 iterations.

The checkpoint (little-endian):

    0   4s   b"MLTC"            4  u32 format version (1)       8  u64 size
    16  u32  ABI_VERSION        20 u32 stage (the stage count: all done)
    24  u64  checksum: the first 8 bytes of BLAKE2b over bytes 48 to the end
    32  u64  the stage's iterations done
    40  u64  signature: of the source and options (BLAKE2b of their identities and values)
    48  u32  1 when the stage has begun, u32 reserved 0
    56  f64  the kept networks (Decompressor from stage 1, latent values (frames, latent),
             Stepper from stage 2, each Projector done), then the stage's networks, AdamW's
             first and second moments when it has begun
"""
from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

import numpy as np

from ...core import args
from ...core.base import ABI_VERSION
from ...core.builder import Builder
from ...core.container import as_buffer
from ...core.errors import BusyError, CapacityError, FormatError, InvalidError, VersionError
from ...pose.pose import Pose
from ..model_build import (LearnedLayer, LearnedModelSource, LearnedNetwork, LearnedProjector,
                           build_learned_model)
from . import kernels
from .data import sample
from .hooks import local_hooks
from .losses import length_unit, run_chunk
from .options import (CHUNK, LearnedTrainerDef, LearnedTrainerOptions, LearnedTrainerSource,
                      _passes, check_def, check_source, default_learned_trainer_def)

MAGIC = b"MLTC"
CHECKPOINT_VERSION = 1
HEAD = struct.Struct("<4sIQIIQQQII")
BODY_AT = HEAD.size                 # 56
TRAINER_BLOCK_BYTES = 256
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8
DECAY_EVERY = 1000
STD_FLOOR = 1e-4                    # a value that never varies normalizes by this


@dataclass
class LearnedTrainerReport:
    """maniLearnedTrainerReport: where training stands after a Train call."""

    stage: int = 0                  # the stage count when every stage is done
    stage_iteration: int = 0
    iterations: int = 0             # run by this call
    loss: float = 0.0               # the last iteration's batch loss
    stage_count: int = 0


def _dims(n_in, width, hidden, n_out) -> np.ndarray:
    return np.array([n_in] + [width] * hidden + [n_out], np.int64)


def _param_count(dims) -> int:
    return int(sum(a * b + b for a, b in zip(dims[:-1], dims[1:])))


def _stats(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = values.mean(axis=0)
    std = np.sqrt(np.square(values - mean).mean(axis=0))
    return mean, np.maximum(std, STD_FLOOR)


def _layers(params: np.ndarray, dims: np.ndarray) -> list[LearnedLayer]:
    out, at = [], 0
    for a, b in zip(dims[:-1].tolist(), dims[1:].tolist()):
        w = params[at:at + a * b].reshape(a, b).astype(np.float32)
        at += a * b
        out.append(LearnedLayer(w, params[at:at + b].astype(np.float32)))
        at += b
    return out


class LearnedTrainer:
    """maniLearnedTrainer."""

    def __init__(self, definition: LearnedTrainerDef | None, source: LearnedTrainerSource):
        d = check_def(default_learned_trainer_def() if definition is None else definition)
        c = check_source(source)
        self._alloc, self._free, self._user = d.alloc, d.free, d.user
        self.misuse = 0
        self._state = "live"            # live, hook, building, gone
        self._blocks: list = []
        self._pool = None
        if d.tasks.dispatch is None:
            hooks = local_hooks(args.integer(d.workers, "workers"))
            self._pool = hooks.user
        else:
            hooks = d.tasks
        self._dispatch, self._collect, self._task_user = hooks.dispatch, hooks.collect, hooks.user
        self._own = self._take(TRAINER_BLOCK_BYTES // 8)
        try:
            self._make(source, c)
        except CapacityError:
            self.destroy()
            raise

    def _make(self, source, c) -> None:
        sk, db = source.skeleton, source.database
        self.skeleton, self.database, self.checked = sk, db, c
        o = self.options = LearnedTrainerOptions(*c.options)
        data = sample(sk, db, c.clips, source.mirror_map, c.scaled, c.tracks, c.events)
        self._features = self._keep(data.features)
        self._y_mean, self._y_std = _stats(data.outputs)
        self._targets = self._keep((data.outputs - self._y_mean) / self._y_std)
        self._first, self._count, self._tags = data.first, data.count, data.tags
        parents = np.asarray(sk.parents, np.int64)
        rest = Pose(sk)
        rest.set_rest(sk)
        rest.compute_model(sk)
        self.length_unit = length_unit(rest.model[:, :, 3])
        self._parents = np.where(parents >= sk.bone_count, -1, parents)
        feats, latent, n_out = db.feature_count, o.latent_count, data.outputs.shape[1]
        state = feats + latent
        self.feature_count, self.state_count, self.output_count = feats, state, n_out
        self._dims = {"compressor": _dims(n_out, o.width, o.compressor_layers, latent),
                      "decompressor": _dims(state, o.width, o.decompressor_layers, n_out),
                      "stepper": _dims(state, o.width, o.stepper_layers, state),
                      "projector": _dims(feats, o.width, o.projector_layers, state)}
        self._starts = {w: self._window_starts(w) for w in (o.decompressor_window, o.stepper_window)}
        self._eligible = [self._eligible_frames(req, exc) for req, exc in c.tags]
        self.stage_count = 2 + len(c.tags)
        self.signature = self._signature(source)
        self._reset()

    # ---- memory through the hooks
    def _hook(self, fn, *a):
        self._state = "hook"
        try:
            return fn(self._user, *a)
        finally:
            self._state = "live"

    def _take(self, floats: int) -> np.ndarray:
        """float64[floats] in a block from the allocator (CapacityError when it fails)."""
        size = max(8 * floats, 8)
        block = bytearray(size) if self._alloc is None else self._hook(self._alloc, size)
        if block is None:
            raise CapacityError("the allocator failed")
        view = memoryview(block)
        if view.readonly or view.nbytes < size:
            raise CapacityError("the allocator gave too little memory")
        self._blocks.append(block)
        return np.frombuffer(view.cast("B")[:size], np.float64)[:floats]

    def _keep(self, values: np.ndarray) -> np.ndarray:
        out = self._take(values.size).reshape(values.shape)
        out[...] = values
        return out

    def _release(self, array) -> None:
        """Gives the block under `array` back to the allocator."""
        if array is None:
            return
        for k, block in enumerate(self._blocks):
            if np.shares_memory(np.frombuffer(memoryview(block).cast("B"), np.uint8), array):
                del self._blocks[k]
                if self._free is not None:
                    self._hook(self._free, block)
                return

    # ---- the data
    def _window_starts(self, w: int) -> np.ndarray:
        return np.concatenate([np.arange(f, f + n - w + 1) for f, n in
                               zip(self._first.tolist(), self._count.tolist()) if n >= w]
                              + [np.zeros(0, np.int64)]).astype(np.int64)

    def _eligible_frames(self, req: int, exc: int) -> np.ndarray:
        return np.concatenate([np.arange(f, f + n) for f, n, t in
                               zip(self._first.tolist(), self._count.tolist(),
                                   self._tags.tolist()) if _passes(t, req, exc)]
                              + [np.zeros(0, np.int64)]).astype(np.int64)

    def _signature(self, source) -> int:
        h = hashlib.blake2b(digest_size=8)
        db, c = self.database, self.checked
        h.update(struct.pack("<QQQ", self.skeleton.identity, db.identity, db.mirror_map_identity))
        h.update(np.array([db.clip_identity(k) for k in range(db.clip_count)], "<u8").tobytes())
        h.update(np.array(c.tags, "<u8").tobytes() + np.array(c.scaled, "<u8").tobytes())
        for raw in c.tracks + [b"\0"] + c.events:
            h.update(struct.pack("<I", len(raw)) + raw)
        h.update(np.array(c.options, "<f8").tobytes())
        return int.from_bytes(h.digest(), "little")

    # ---- the state machine
    def _enter(self, building_ok: bool = False) -> None:
        if self._state == "hook" or self._state == "gone" or \
                (self._state == "building" and not building_ok):
            self.misuse += 1
            raise BusyError("a call on the trainer from its own hooks, while it builds, "
                            "or after destroy")

    def _reset(self) -> None:
        self.stage = 0
        self.stage_iteration = 0
        self._begun = False
        self._params = self._m = self._v = None
        self._decompressor = self._latents = self._stepper = None
        self._projectors: list = []
        self._loss = 0.0

    def stage_kind(self, stage: int) -> str:
        return ("decompressor", "stepper")[stage] if stage < 2 else "projector"

    def stage_iterations(self, stage: int) -> int:
        o = self.options
        return (o.decompressor_iterations, o.stepper_iterations)[stage] if stage < 2 \
            else o.projector_iterations

    def _stage_dims(self, stage: int) -> list[np.ndarray]:
        kind = self.stage_kind(stage)
        return [self._dims["compressor"], self._dims["decompressor"]] if kind == "decompressor" \
            else [self._dims[kind]]

    def _stage_size(self, stage: int) -> int:
        return sum(_param_count(d) for d in self._stage_dims(stage))

    @property
    def latents(self) -> np.ndarray | None:
        """Every frame's latent values (frames, latent) from stage 0's end; None before."""
        return None if self._latents is None else self._latents.copy()

    @property
    def done(self) -> bool:
        return self.stage >= self.stage_count

    # ---- stages
    def _generator(self, iteration: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64([self.options.seed, self.stage, iteration]))

    def _begin(self) -> None:
        n = self._stage_size(self.stage)
        blocks = []
        try:
            for _ in range(3):
                blocks.append(self._take(n))
        except CapacityError:
            for b in blocks:
                self._release(b)
            raise
        rng = self._generator(1 << 62)
        params, at = blocks[0], 0
        for dims in self._stage_dims(self.stage):
            for a, b in zip(dims[:-1].tolist(), dims[1:].tolist()):
                bound = 1.0 / np.sqrt(a)
                params[at:at + a * b] = rng.uniform(-bound, bound, a * b)
                params[at + a * b:at + a * b + b] = 0.0
                at += a * b + b
        blocks[1][:] = 0.0
        blocks[2][:] = 0.0
        self._params, self._m, self._v = blocks
        self._begun = True

    def _end(self) -> None:
        kind = self.stage_kind(self.stage)
        if kind == "decompressor":
            n_comp = _param_count(self._dims["compressor"])
            kept = self._keep(self._params[n_comp:])
            comp = self._params[:n_comp]
            try:
                z = np.empty((self._targets.shape[0], self.options.latent_count))
                acts = np.empty((z.shape[0], int(self._dims["compressor"][1:].sum())))
                kernels.forward(comp, self._dims["compressor"], np.ascontiguousarray(self._targets), acts)
                latents = self._keep(acts[:, acts.shape[1] - z.shape[1]:])
            except CapacityError:
                self._release(kept)
                raise
            self._decompressor, self._latents = kept, latents
            self._state_stats()
        else:
            kept = self._keep(self._params)
            if kind == "stepper":
                self._stepper = kept
            else:
                self._projectors.append(kept)
        for a in (self._params, self._m, self._v):
            self._release(a)
        self._params = self._m = self._v = None
        self._begun = False
        self.stage += 1
        self.stage_iteration = 0

    def _state_stats(self) -> None:
        states = np.concatenate([self._features, self._latents], axis=1)
        self._states = states
        self._s_mean, self._s_std = _stats(states)
        rates = [np.diff(states[f:f + n], axis=0) * self.database.rate
                 for f, n in zip(self._first.tolist(), self._count.tolist()) if n >= 2]
        self._r_mean, self._r_std = _stats(np.concatenate(rates, axis=0))

    # ---- an iteration
    def _payloads(self, rng) -> tuple[str, list]:
        o, kind = self.options, self.stage_kind(self.stage)
        batch = o.batch
        if kind == "decompressor":
            starts = self._starts[o.decompressor_window]
            picks = starts[rng.integers(0, starts.size, batch)]
            rows = picks[:, None] + np.arange(o.decompressor_window)
            n_comp = _param_count(self._dims["compressor"])
            comp, dec = self._params[:n_comp], self._params[n_comp:]
            y, x = self._targets[rows], self._features[rows]
            return kind, [(comp, self._dims["compressor"], dec, self._dims["decompressor"],
                           y[c:c + CHUNK], x[c:c + CHUNK], self._y_mean, self._y_std,
                           self._parents, len(self.checked.scaled), float(self.database.rate),
                           self.length_unit, batch) for c in range(0, batch, CHUNK)]
        if kind == "stepper":
            starts = self._starts[o.stepper_window]
            picks = starts[rng.integers(0, starts.size, batch)]
            s = self._states[picks[:, None] + np.arange(o.stepper_window)]
            return kind, [(self._params, self._dims["stepper"], s[c:c + CHUNK], self._s_mean,
                           self._s_std, self._r_mean, self._r_std, self.feature_count,
                           1.0 / self.database.rate, batch) for c in range(0, batch, CHUNK)]
        frames = self._eligible[self.stage - 2]
        picks = frames[rng.integers(0, frames.size, batch)]
        sigma = rng.uniform(0.0, o.projector_noise, (batch, 1))
        queries = self._features[picks] + sigma * rng.standard_normal((batch, self.feature_count))
        nearest = np.empty(batch, np.int64)
        kernels.nearest(self._features, frames, queries, nearest)
        targets = self._states[nearest]
        return kind, [(self._params, self._dims["projector"], queries[c:c + CHUNK],
                       targets[c:c + CHUNK], self._s_mean, self._s_std, self.feature_count,
                       batch) for c in range(0, batch, CHUNK)]

    def _iterate(self) -> None:
        it = self.stage_iteration
        kind, payloads = self._payloads(self._generator(it))
        tasks = [(kind, p) for p in payloads]
        self._state = "hook"
        try:
            results = self._collect(self._task_user, self._dispatch(self._task_user, run_chunk, tasks))
        finally:
            self._state = "live"
        pairs = self._checked(results, len(tasks), self._params.size)
        loss = 0.0
        for _, chunk_loss in pairs:
            loss += chunk_loss
        o = self.options
        rate = o.learning_rate * o.decay ** (it // DECAY_EVERY)
        grads = tuple(g for g, _ in pairs)

        def step(lo: int, hi: int) -> None:
            kernels.adamw(grads, self._params, self._m, self._v, lo, hi, float(it + 1), rate,
                          BETA1, BETA2, EPSILON, o.weight_decay)
        n = self._params.size
        parts = 1 if self._pool is None else self._pool.workers
        if parts == 1:
            step(0, n)
        else:           # the local pool's threads take a span of the parameters each
            self._pool.run_all(step, [(n * k // parts, n * (k + 1) // parts)
                                      for k in range(parts)])
        self.stage_iteration = it + 1
        self._loss = loss

    @staticmethod
    def _checked(results, chunks: int, size: int) -> list:
        """The task hooks' results as (gradient, loss) pairs, one a chunk, in order."""
        try:
            pairs = [(np.ascontiguousarray(g, np.float64), float(loss)) for g, loss in results]
        except (TypeError, ValueError):
            raise InvalidError("the task hooks gave something other than the chunks' "
                               "(gradient, loss) pairs") from None
        if len(pairs) != chunks or any(g.shape != (size,) for g, _ in pairs):
            raise InvalidError("the task hooks gave results of another count or shape")
        return pairs

    def train(self, iterations, report: LearnedTrainerReport | None = None) -> LearnedTrainerReport:
        """maniLearnedTrainer_Train: up to `iterations` iterations, stage after stage."""
        self._enter()
        n = args.count(iterations, "iterations")
        done = 0
        while not self.done and (done < n or (self._begun and self.stage_iteration
                                              == self.stage_iterations(self.stage))):
            if self._begun and self.stage_iteration == self.stage_iterations(self.stage):
                self._end()
                continue
            if not self._begun:
                self._begin()
            self._iterate()
            done += 1
        report = LearnedTrainerReport() if report is None else report
        report.stage, report.stage_iteration = self.stage, self.stage_iteration
        report.iterations, report.loss, report.stage_count = done, self._loss, self.stage_count
        return report

    # ---- checkpoints
    def _arrays(self) -> list[np.ndarray]:
        out = []
        if self.stage > 0:
            out += [self._decompressor, self._latents.reshape(-1)]
        if self.stage > 1:
            out.append(self._stepper)
        out += self._projectors
        if self._begun:
            out += [self._params, self._m, self._v]
        return out

    def _expected(self, stage: int, begun: bool) -> list[int]:
        sizes = []
        if stage > 0:
            sizes += [_param_count(self._dims["decompressor"]),
                      self._features.shape[0] * self.options.latent_count]
        if stage > 1:
            sizes.append(_param_count(self._dims["stepper"]))
        sizes += [_param_count(self._dims["projector"])] * max(stage - 2, 0)
        if begun:
            sizes += [self._stage_size(stage)] * 3
        return sizes

    def checkpoint(self) -> bytes:
        body = b"".join(np.ascontiguousarray(a, "<f8").tobytes() for a in self._arrays())
        checksum = hashlib.blake2b(struct.pack("<II", int(self._begun), 0) + body, digest_size=8)
        return HEAD.pack(MAGIC, CHECKPOINT_VERSION, BODY_AT + len(body), ABI_VERSION, self.stage,
                         int.from_bytes(checksum.digest(), "little"), self.stage_iteration,
                         self.signature, int(self._begun), 0) + body

    def save_checkpoint(self, out=None):
        """maniLearnedTrainer_SaveCheckpoint: the checkpoint as bytes, or into `out` its
        size (CapacityError with .size when short, `out` zeroed)."""
        self._enter(building_ok=True)
        data = self.checkpoint()
        if out is None:
            return data
        view = args.writable_bytes(out, "bytesOut")
        if view.nbytes < len(data):
            view[:] = b"\0" * view.nbytes
            raise CapacityError(f"{view.nbytes} bytes for a checkpoint of {len(data)}",
                                size=len(data))
        view[:len(data)] = data
        return len(data)

    def _parse(self, buf: np.ndarray):
        size = buf.size
        raw = buf.tobytes()
        if size < 4 or raw[:4] != MAGIC:
            raise FormatError("not a trainer checkpoint", 0)
        if size < BODY_AT:
            raise FormatError("a checkpoint shorter than its header", 8 if size >= 16 else size)
        magic, version, total, abi, stage, checksum, iteration, signature, begun, zero = \
            HEAD.unpack_from(raw)
        if version != CHECKPOINT_VERSION:
            raise VersionError(f"a checkpoint of format version {version}")
        if total != size:
            raise FormatError(f"a size of {total} for {size} bytes", 8)
        if abi != ABI_VERSION:
            err = VersionError(f"a checkpoint of ABI version {abi}; this library is {ABI_VERSION}")
            err.offset = 16
            raise err
        if signature != self.signature:
            raise FormatError("a checkpoint of another source or options", 40)
        if stage > self.stage_count:
            raise FormatError(f"stage {stage} past the stages", 20)
        if begun > 1 or (begun and stage == self.stage_count):
            raise FormatError("the begun flag", 48)
        if zero:
            raise FormatError("a reserved field not 0", 52)
        if (not begun and iteration) or iteration > (self.stage_iterations(stage) if begun else 0):
            raise FormatError(f"{iteration} iterations done in stage {stage}", 32)
        sizes = self._expected(stage, bool(begun))
        if size != BODY_AT + 8 * sum(sizes):
            raise FormatError("a checkpoint of the wrong size for its stage", 8)
        values = np.frombuffer(raw, "<f8", offset=BODY_AT).astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise FormatError("a value not finite", BODY_AT + 8 * int(bad[0]))
        parts, at = [], 0
        for n in sizes:
            parts.append(values[at:at + n])
            at += n
        if begun:
            v = parts[-1]
            neg = np.flatnonzero(v < 0)
            if neg.size:
                raise FormatError("a second moment below 0", BODY_AT + 8 * (at - v.size + int(neg[0])))
        digest = hashlib.blake2b(raw[48:], digest_size=8).digest()
        if int.from_bytes(digest, "little") != checksum:
            raise FormatError("the checksum is not the content's", 24)
        return stage, iteration, bool(begun), parts

    def restore_checkpoint(self, data) -> None:
        """maniLearnedTrainer_RestoreCheckpoint: replaces the progress; refused, the trainer
        is unchanged (CapacityError: it starts over)."""
        self._enter()
        buf = as_buffer(data)
        stage, iteration, begun, parts = self._parse(buf)
        old = [self._decompressor, self._latents, self._stepper, *self._projectors,
               self._params, self._m, self._v]
        for a in old:
            self._release(a)
        self._reset()
        try:
            kept = [self._keep(p) for p in parts]
        except CapacityError:
            self._reset()
            raise
        if stage > 0:
            self._decompressor = kept.pop(0)
            self._latents = kept.pop(0).reshape(-1, self.options.latent_count)
            self._state_stats()
        if stage > 1:
            self._stepper = kept.pop(0)
        if begun:
            self._params, self._m, self._v = kept[-3:]
            kept = kept[:-3]
        self._projectors = kept
        self.stage, self.stage_iteration, self._begun = stage, iteration, begun

    # ---- the model
    def model_source(self, weight_format: int = 0) -> LearnedModelSource:
        c = self.checked
        f = self.feature_count
        zeros, ones = np.zeros(f), np.ones(f)
        dec = LearnedNetwork(_layers(self._decompressor, self._dims["decompressor"]),
                             np.zeros(self.state_count, np.float32),
                             np.ones(self.state_count, np.float32),
                             self._y_mean.astype(np.float32), self._y_std.astype(np.float32))
        step = LearnedNetwork(_layers(self._stepper, self._dims["stepper"]),
                              self._s_mean.astype(np.float32), self._s_std.astype(np.float32),
                              self._r_mean.astype(np.float32), self._r_std.astype(np.float32))
        projectors = [LearnedProjector(LearnedNetwork(_layers(p, self._dims["projector"]),
                                                      zeros.astype(np.float32),
                                                      ones.astype(np.float32),
                                                      self._s_mean.astype(np.float32),
                                                      self._s_std.astype(np.float32)), req, exc)
                      for p, (req, exc) in zip(self._projectors, c.tags)]
        return LearnedModelSource(self.skeleton, self.database, dec, step, projectors,
                                  self.options.latent_count, self.database.rate, list(c.scaled),
                                  None, [t.decode("utf-8") for t in c.tracks],
                                  [e.decode("utf-8") for e in c.events], weight_format)

    def build_model(self, builder, weight_format=0) -> bytes:
        """maniBuildLearnedModelFromTrainer: through build_learned_model."""
        if not isinstance(builder, Builder):
            raise InvalidError("no builder")
        self._enter(building_ok=True)
        if not self.done:
            raise InvalidError(f"a trainer with a stage to run (stage {self.stage})")
        before = self._state
        self._state = "building"
        try:
            return build_learned_model(builder, self.model_source(weight_format))
        finally:
            self._state = before

    def destroy(self) -> None:
        """maniDestroyLearnedTrainer."""
        if self._state != "live":
            self.misuse += 1
            return
        self._state = "gone"
        if self._pool is not None:
            self._pool.close()
        blocks, self._blocks = self._blocks, []
        if self._free is not None:
            for block in blocks:
                self._free(self._user, block)
