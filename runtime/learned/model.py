"""Learned models opened in place (maniLearnedModel): the open's checks, the getters and the
three evaluations over caller scratch. model_build.py lays the file out; kernels.py holds
the loops."""
from __future__ import annotations

import numpy as np

from ..core import args, container, jit, names
from ..core.container import Container, FileKind
from ..core.errors import CapacityError, FormatError, InvalidError
from ..core.limits import NO_TRACK
from ..matching.database_build import CHANNEL, MatchChannel, MatchChannelKind
from ..matching.limits import MAX_MATCH_CHANNELS, MAX_MATCH_FEATURES, MAX_MATCH_TIMES
from ..matching.database import check_channels
from ..pose.pose import Pose
from . import kernels
from .kernels import META_WIDTH
from .limits import (MAX_LEARNED_EVENTS, MAX_LEARNED_FLOAT_TRACKS, MAX_LEARNED_LATENT,
                     MAX_LEARNED_LAYERS, MAX_LEARNED_PROJECTORS, MAX_LEARNED_RATE,
                     MAX_LEARNED_WEIGHTS, MAX_LEARNED_WIDTH)
from .model_build import (FORMAT_MINOR, FORMAT_VERSION, HEADER, KNOWN, REQUIRED, ROOT_MOTION,
                          LearnedWeightFormat, decompressor_outputs)

_EMPTY = np.zeros(0, np.float32)
_NO_QUANTS = np.zeros(1, np.int16)


class LearnedOutput:
    """maniLearnedOutput: where Decompress writes: the pose (local transforms, its model then
    stale), and, each when given, the root's motion (6 floats: velocity, angular velocity),
    the float tracks' values and the events' states."""

    def __init__(self, pose: Pose, root_motion=None, float_tracks=None, events=None):
        self.pose = pose
        self.root_motion = root_motion
        self.float_tracks = float_tracks
        self.events = events


def _first(mask) -> int | None:
    bad = np.flatnonzero(mask)
    return int(bad[0]) if bad.size else None


def _split(layers, roles, counts, first: int, net: int) -> list | None:
    """Layer counts that chain every network from its role's input to its output over the
    layers from `first`, each network's own count tried first; None when none do."""
    if net == len(roles):
        return [] if first == len(layers) else None
    n_in, n_out = roles[net]
    own = int(counts[net])
    for k in [own] + [k for k in range(1, MAX_LEARNED_LAYERS + 1) if k != own]:
        end = first + k
        if not 1 <= k <= MAX_LEARNED_LAYERS or end > len(layers):
            continue
        run = layers[first:end]
        if run[0, 0] != n_in or run[-1, 1] != n_out or (run[1:, 0] != run[:-1, 1]).any():
            continue
        rest = _split(layers, roles, counts, end, net + 1)
        if rest is not None:
            return [k] + rest
    return None


class LearnedModel:
    """A learned model file opened in place. A view no open wrote answers as for NULL."""

    identity = 0
    skeleton_identity = 0
    database_identity = 0
    scratch_size = 0

    def __init__(self, data):
        with np.errstate(all="ignore"):
            self._open(container.as_buffer(data))

    @property
    def is_open(self) -> bool:
        return self.scratch_size > 0

    # ---- the open's checks
    def _open(self, buf: np.ndarray) -> None:
        c = Container(buf, FileKind.learned_model, FORMAT_VERSION, FORMAT_MINOR, KNOWN,
                      required=REQUIRED)
        at = c.offset_of(b"LHDR")
        if c.sections[b"LHDR"][1] != HEADER.size:
            raise FormatError("header section of the wrong size", c.size_field(b"LHDR"))
        (skeleton, database, rate, feats, latent, bones, nscaled, ntracks, nevents, nproj,
         nchan, ntimes, nchtracks, up, forward, fmt, nlayers) = HEADER.unpack_from(buf, at)
        if not (np.isfinite(rate) and 0 < rate <= MAX_LEARNED_RATE):
            raise FormatError(f"step rate {rate} out of range", at + 16)
        for value, low, bound, place in (
                (feats, 1, MAX_MATCH_FEATURES, 20), (latent, 1, MAX_LEARNED_LATENT, 24),
                (bones, 1, MAX_LEARNED_WIDTH // 9, 28), (nscaled, 0, bones, 32),
                (ntracks, 0, MAX_LEARNED_FLOAT_TRACKS, 36), (nevents, 0, MAX_LEARNED_EVENTS, 40),
                (nproj, 1, MAX_LEARNED_PROJECTORS, 44), (nchan, 1, MAX_MATCH_CHANNELS, 48),
                (ntimes, 1, MAX_MATCH_CHANNELS * MAX_MATCH_TIMES, 52),
                (nchtracks, 0, MAX_MATCH_CHANNELS, 56), (up, 0, 2, 60), (forward, 0, 2, 64),
                (fmt, 0, 1, 68), (nlayers, 1, (2 + nproj) * MAX_LEARNED_LAYERS, 72)):
            if not low <= value <= bound:
                raise FormatError(f"a count or field {value} out of range", at + place)
        if up == forward:
            raise FormatError("axes not two of x, y and z", at + 64)
        nnets = 2 + nproj
        if c.sections[b"DTIM"][1] != 4 * ntimes and \
                c.sections[b"DCHN"][1] == CHANNEL.itemsize * nchan:
            # the channels' own time counts witness which of the count and the size is wrong
            chans = c.array(b"DCHN", CHANNEL, (nchan,))
            if int(chans["time_count"].astype(np.int64).sum()) == ntimes:
                raise FormatError("section b'DTIM' not the channels' times", c.size_field(b"DTIM"))
        for count, place, items in ((feats, 20, {b"DNRM": (8, 0)}), (bones, 28, {b"LSCA": (12, 0)}),
                                    (nchan, 48, {b"DCHN": (CHANNEL.itemsize, 0)}),
                                    (ntimes, 52, {b"DTIM": (4, 0)}),
                                    (nchtracks, 56, names.count_items(b"T")),
                                    (nscaled, 32, {b"LBON": (4, 0)}),
                                    (nproj, 44, {b"LPRJ": (8, 0), b"LNLC": (4, 2)}),
                                    (nlayers, 72, {b"LLAY": (8, 0)}),
                                    (ntracks, 36, names.count_items(b"F")),
                                    (nevents, 40, names.count_items(b"E"))):
            for tag, (itemsize, _) in items.items():
                if c.sections[tag][1] % itemsize:
                    raise FormatError(f"section {tag!r} not whole items", c.size_field(tag))
            c.check_count(count, at + place, items)
        chans = c.array(b"DCHN", CHANNEL, (nchan,))
        times = c.array(b"DTIM", "<f4", (ntimes,))
        check_channels(c, chans, times, nchtracks, feats, c.offset_of(b"LHDR", 20))
        self.channel_names = names.NameTable(c, b"T", nchtracks)
        norm = c.array(b"DNRM", "<f4", (2, feats))
        place = _first(~np.isfinite(norm[0]))
        if place is None:
            place = _first(~(np.isfinite(norm[1]) & (norm[1] > 0)))
            place = None if place is None else feats + place
        if place is not None:
            raise FormatError("a normalization value not finite (or a scale not above 0)",
                              c.offset_of(b"DNRM", 4 * place))
        scaled = c.array(b"LBON", "<u4", (nscaled,)).astype(np.int64)
        place = _first((scaled >= bones) | (np.diff(scaled, prepend=-1) <= 0))
        if place is not None:
            raise FormatError("a scaled bone past the bones or not increasing",
                              c.offset_of(b"LBON", 4 * place))
        scales = c.array(b"LSCA", "<f4", (bones, 3))
        place = _first(~np.isfinite(scales).reshape(-1))
        if place is not None:
            raise FormatError("a bone's scale not finite", c.offset_of(b"LSCA", 4 * place))
        tags = c.array(b"LPRJ", "<u4", (nproj, 2))
        counts = c.array(b"LNLC", "<u4", (nnets,)).astype(np.int64)
        layers = c.array(b"LLAY", "<u4", (nlayers, 2)).astype(np.int64)
        state = feats + latent
        outputs = decompressor_outputs(bones, nscaled, ntracks, nevents)
        roles = [(state, outputs), (state, state)] + [(feats, state)] * nproj
        stepper = int(counts[0]) if 1 <= counts[0] < nlayers else 0
        if layers[0, 0] == layers[stepper, 0] != state and counts[0] + counts[1] <= nlayers \
                and layers[stepper + counts[1] - 1, 1] == layers[0, 0]:
            raise FormatError("a latent count the networks' states do not have", at + 24)
        place = _first((counts < 1) | (counts > MAX_LEARNED_LAYERS))
        if place is None and counts.sum() != nlayers:
            split = _split(layers, roles, counts, 0, 0)
            place = nnets - 1 if split is None else _first(np.array(split) != counts)
        if place is not None:
            raise FormatError("a network's layer count out of range or not the layers'",
                              c.offset_of(b"LNLC", 4 * place))
        meta = self._check_layers(c, layers, counts, roles, fmt)
        n_norm = sum(2 * a + 2 * b for a, b in roles)
        norms = c.array(b"LNRM", "<f4", (n_norm,))
        n_bias = int(layers[:, 1].sum())
        biases = c.array(b"LBIA", "<f4", (n_bias,))
        n_weights = int((layers[:, 0] * layers[:, 1]).sum())
        quant = fmt == LearnedWeightFormat.int16
        if quant:
            raw = c.array(b"LWGT", "<u1", (2 * n_weights + (-2 * n_weights) % 4,))
            quants = np.ascontiguousarray(raw[:2 * n_weights].view("<i2"), np.int16)
            if raw[2 * n_weights:].any():
                raise FormatError("weight padding not zero", c.offset_of(b"LWGT", 2 * n_weights))
            if not c.has(b"LWSC"):
                raise FormatError("section b'LWSC' missing", 10)
            wscale = c.array(b"LWSC", "<f4", (int(layers[:, 0].sum()),))
            place = _first(quants == -32768)
            if place is not None:
                raise FormatError("a 16-bit weight of -32768", c.offset_of(b"LWGT", 2 * place))
            place = _first(~(np.isfinite(wscale) & (wscale >= 0)))
            if place is not None:
                raise FormatError("a weight scale not finite or below 0",
                                  c.offset_of(b"LWSC", 4 * place))
            weights = wscale
        else:
            if c.has(b"LWSC"):
                raise FormatError("a float32 model with weight scales", c.offset_of(b"LWSC"))
            weights = c.array(b"LWGT", "<f4", (n_weights,))
            quants = _NO_QUANTS
        for tag, values in ((b"LNRM", norms), (b"LBIA", biases), (b"LWGT", weights if not quant else biases[:0])):
            place = _first(~np.isfinite(values))
            if place is not None:
                raise FormatError("a value not finite", c.offset_of(tag, 4 * place))
        self._check_norm_scales(c, norms, roles)
        self.float_track_names = names.NameTable(c, b"F", ntracks)
        self.event_names = names.NameTable(c, b"E", nevents)
        c.finish()

        # one reals array the kernels read: weights (float32 or the 16-bit scales), biases,
        # normalizations; meta's offsets point into it
        reals = np.concatenate([weights, biases, norms]).astype(np.float32)
        w_base, b_base, n_base = 0, weights.size, weights.size + biases.size
        self._fill_offsets(meta, layers, counts, roles, quant, w_base, b_base, n_base)
        self.meta = jit.array(meta, np.int64)
        self.reals = jit.array(reals, np.float32)
        self.quants = jit.array(quants, np.int16)
        self.norm = np.ascontiguousarray(norm, np.float32)
        self._channels = chans.copy()
        self._times = times.copy()
        self.tags = tags.astype(np.int64)
        self.scaled = jit.array(scaled, np.int64)
        self.scales = jit.array(scales, np.float32)
        self.rate = float(rate)
        self.dt = np.float32(1.0 / np.float64(np.float32(rate)))
        self.feature_count, self.latent_count, self.state_count = int(feats), int(latent), int(state)
        self.bone_count, self.float_track_count, self.event_count = int(bones), int(ntracks), int(nevents)
        self.projector_count, self.channel_count = int(nproj), int(nchan)
        self.up_axis, self.forward_axis = int(up), int(forward)
        self.weight_format = LearnedWeightFormat(fmt)
        self.output_count = int(outputs)
        self.tracks_at = 9 * bones + 3 * nscaled + ROOT_MOTION
        self.width = int(max(layers.max(), state, outputs, feats))
        self.skeleton_identity, self.database_identity = int(skeleton), int(database)
        self.scratch_size = 4 * 4 * self.width + 8 * self.width
        self.identity = c.identity
        self.data = buf

    @staticmethod
    def _check_layers(c: Container, layers, counts, roles, fmt) -> np.ndarray:
        """Each network's layers chain from its role's input to its role's output, no layer
        wider than MAX_LEARNED_WIDTH, no network past MAX_LEARNED_WEIGHTS."""
        at = c.offset_of(b"LLAY")
        first = 0
        for net, ((n_in, n_out), count) in enumerate(zip(roles, counts)):
            width, total = n_in, 0
            for k in range(int(count)):
                i = first + k
                a, b = int(layers[i, 0]), int(layers[i, 1])
                if a != width:
                    # the biases' size witnesses the outputs: when they disagree the layer
                    # before's outputs are wrong, else this layer's inputs
                    outputs_wrong = k > 0 and 4 * int(layers[:, 1].sum()) != c.sections[b"LBIA"][1]
                    raise FormatError("a layer that does not chain from the one before",
                                      at + 8 * i - 4 if outputs_wrong else at + 8 * i)
                if not 1 <= b <= MAX_LEARNED_WIDTH or (k + 1 == count and b != n_out):
                    raise FormatError("a layer's outputs out of range or not its role's",
                                      at + 8 * i + 4)
                total += a * b
                if total > MAX_LEARNED_WEIGHTS:
                    raise FormatError("a network past MAX_LEARNED_WEIGHTS", at + 8 * i + 4)
                width = b
            first += int(count)
        meta = np.zeros((len(roles), META_WIDTH), np.int64)
        meta[:, 0] = fmt
        return meta

    @staticmethod
    def _check_norm_scales(c: Container, norms, roles) -> None:
        at = 0
        for n_in, n_out in roles:
            for start, size in ((at + n_in, n_in), (at + 2 * n_in + n_out, n_out)):
                place = _first(~(norms[start:start + size] > 0))
                if place is not None:
                    raise FormatError("a normalization scale not above 0",
                                      c.offset_of(b"LNRM", 4 * (start + place)))
            at += 2 * n_in + 2 * n_out

    @staticmethod
    def _fill_offsets(meta, layers, counts, roles, quant, w_base, b_base, n_base) -> None:
        first = w = s = b = 0
        n = n_base
        for net, ((n_in, n_out), count) in enumerate(zip(roles, counts)):
            count = int(count)
            row = meta[net]
            row[1] = count
            row[2] = n_in
            p = 3 + count
            for k in range(count):
                a, o = int(layers[first + k, 0]), int(layers[first + k, 1])
                row[3 + k] = o
                row[p + 3 * k] = w if quant else w_base + w
                row[p + 3 * k + 1] = w_base + s
                row[p + 3 * k + 2] = b_base + b
                w += a * o
                s += a
                b += o
            q = p + 3 * count
            row[q:q + 4] = (n, n + n_in, n + 2 * n_in, n + 2 * n_in + n_out)
            n += 2 * n_in + 2 * n_out
            first += count

    # ---- the getters
    def _index(self, value, bound: int, what: str) -> int:
        i = args.integer(value, what)
        if not 0 <= i < bound:
            raise InvalidError(f"{what} {i} past the {bound}")
        return i

    def channel(self, channel) -> MatchChannel:
        ch = self._channels[self._index(channel, self.channel_count, "channel")]
        first, count = int(ch["first_time"]), int(ch["time_count"])
        track = int(ch["track"])
        return MatchChannel(MatchChannelKind(int(ch["kind"])), int(ch["bone"]),
                            self._times[first:first + count].copy(), float(ch["weight"]),
                            None if track == NO_TRACK else self.channel_names.name(track))

    def normalization(self) -> tuple[np.ndarray, np.ndarray]:
        return self.norm[0].copy(), self.norm[1].copy()

    def projector(self, projector) -> tuple[int, int]:
        """(required, excluded) tags of a Projector."""
        p = self._index(projector, self.projector_count, "projector")
        return int(self.tags[p, 0]), int(self.tags[p, 1])

    def float_track_name(self, track) -> str | None:
        i = args.integer(track, "track")
        return self.float_track_names.name(i) if 0 <= i < self.float_track_count else None

    def event_name(self, event) -> str | None:
        i = args.integer(event, "event")
        return self.event_names.name(i) if 0 <= i < self.event_count else None

    # ---- the evaluations
    def _scratch(self, scratch) -> np.ndarray:
        """The caller's scratch as bytes (None: this model's own, for one thread at a time),
        its alignment left to `_refuse`; the kernels cut it into the layers' rows."""
        if scratch is None:
            raw = self.__dict__.get("_own")
            if raw is None:
                raw = self._own = np.zeros(self.scratch_size, np.uint8)
            return raw
        try:
            raw = np.frombuffer(scratch, dtype=np.uint8)
        except (TypeError, ValueError) as exc:
            raise InvalidError(f"scratch not a writable buffer: {exc}") from None
        if not raw.flags.writeable:
            raise InvalidError("scratch is read-only")
        if raw.size < self.scratch_size:
            raise InvalidError(f"{raw.size} bytes of scratch for {self.scratch_size}")
        return raw

    def _values(self, values, count: int, what: str) -> np.ndarray:
        """A row of `count` float32 values, the caller's array itself when it is one (its
        finiteness left to `_refuse`)."""
        if isinstance(values, np.ndarray) and values.dtype == np.float32 and values.ndim == 1 \
                and values.flags.c_contiguous:
            v = values
        else:
            v = args.floats(values, (-1,), what, allow_nonfinite=True)
        if v.size < count:
            raise InvalidError(f"{what} of {v.size} values, not {count}")
        return v[:count]

    @staticmethod
    def _refuse(values, raw, what: str) -> None:
        """InvalidError for a value of `values` not finite or scratch bytes off
        SCRATCH_ALIGN."""
        code = kernels.refusal(values, raw)
        if code == kernels.INPUT_NOT_FINITE:
            raise InvalidError(f"{what} has a value not finite")
        if code == kernels.MISALIGNED:
            raise InvalidError(f"scratch not aligned to {kernels.SCRATCH_ALIGN}")

    def project_arguments(self, projector, query, scratch):
        """The checks Project makes before it evaluates: (projector, query, scratch bytes)."""
        p = self._index(projector, self.projector_count, "projector")
        q = self._values(query, self.feature_count, "query")
        raw = self._scratch(scratch)
        self._refuse(q, raw, "query")
        return p, q, raw

    def project(self, projector, query, state_out=None, scratch=None) -> np.ndarray:
        """maniLearnedModel_Project: the state the Projector gives the (normalized) query,
        into state_out when given (CapacityError with the count when it is too short)."""
        p, q, raw = self.project_arguments(projector, query, scratch)
        n = self.state_count
        if state_out is None:
            state_out = np.zeros(n, np.float32)
        out = args.output(state_out, "f", (-1,), "stateOut")
        if out.size < n:
            raise CapacityError(f"{out.size} floats for a state of {n}", count=n)
        direct = out.dtype == np.float32 and out.flags.c_contiguous
        row = out[:n] if direct else np.empty(n, np.float32)
        if not kernels.project(self.meta[2 + p], self.reals, self.quants, q, raw, self.width,
                               row):
            raise FormatError("the Projector gives a value past the float range", 0)
        if not direct:
            out[:n] = row
        return state_out

    def step(self, state, scratch=None) -> np.ndarray:
        """maniLearnedModel_Step: state += the Stepper's rate of change / the step rate, in
        place (a float32 array)."""
        s = args.output(state, "f", (-1,), "state")
        if s.dtype != np.float32 or not s.flags.c_contiguous:
            raise InvalidError("state must be a contiguous float32 array")
        n = self.state_count
        if s.size < n:
            raise InvalidError(f"state of {s.size} values, not {n}")
        row = s[:n]
        raw = self._scratch(scratch)
        self._refuse(row, raw, "state")
        if not kernels.step(self.meta[1], self.reals, self.quants, row, self.dt, raw, self.width):
            raise FormatError("the step takes a value past the float range", 0)
        return state

    def _output_row(self, value, count: int, what: str) -> np.ndarray:
        if value is None:
            return _EMPTY
        out = args.output(value, "f", (-1,), what)
        if out.size < count:
            raise CapacityError(f"{what} holds {out.size} floats of {count}", count=count)
        if out.dtype != np.float32 or not out.flags.c_contiguous:
            raise InvalidError(f"{what} must be a contiguous float32 array")
        return out[:count]

    def decompress(self, state, result: LearnedOutput, scratch=None) -> LearnedOutput:
        """maniLearnedModel_Decompress into result (nothing written on a refusal)."""
        if not isinstance(result, LearnedOutput) or not isinstance(result.pose, Pose):
            raise InvalidError("resultOut is not a LearnedOutput with a pose")
        pose = result.pose
        if pose.bone_count != self.bone_count or pose.is_difference:
            raise InvalidError("a pose of another bone count or holding a difference")
        s = self._values(state, self.state_count, "state")
        root = self._output_row(result.root_motion, ROOT_MOTION, "root_motion")
        floats = self._output_row(result.float_tracks, self.float_track_count, "float_tracks")
        events = self._output_row(result.events, self.event_count, "events")
        raw = self._scratch(scratch)
        self._refuse(s, raw, "state")
        if not kernels.decompress(self.meta[0], self.reals, self.quants, s, raw, self.width,
                                  self.scaled, self.scales, pose.locals, root, floats, events,
                                  self.tracks_at):
            raise FormatError("the Decompressor gives a value past the float range", 0)
        pose.mark_stale()
        return result

