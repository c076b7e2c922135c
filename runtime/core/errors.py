"""Result codes, build reasons and the exceptions that carry them.

Every fallible call of the C API returns a result code; the Python surface raises one
exception per code instead, all under ManiError, each carrying `.result` (the code's name
as maniGetResultName gives it). Builders and importers add `.reason`, `.item` and `.other`
to say what in the source they refused, and FormatError adds `.offset`, the first byte of
a file found wrong.
"""
from __future__ import annotations

from enum import IntEnum


class Result(IntEnum):
    """maniResult. The values are ours (the spec names them, not their numbers)."""

    success = 0
    errorInvalid = 1
    errorCapacity = 2
    errorFormat = 3
    errorVersion = 4
    errorLimit = 5
    errorBusy = 6


RESULT_NAMES = {r: f"mani_{r.name}" for r in Result}
UNKNOWN_RESULT_NAME = "mani_unknown"


class BuildReason(IntEnum):
    """maniBuildReason: what a builder or importer refused in its source."""

    None_ = 0
    Count = 1
    Name = 2
    DuplicateName = 3
    NameHash = 4
    NotFinite = 5
    Joint = 6
    Weight = 7
    RepeatedJoint = 8
    Triangle = 9
    Option = 10
    Timing = 11
    Attribute = 12
    Vertex = 13
    Channel = 14
    Clip = 15
    Entry = 16
    Event = 17
    FloatTrack = 18
    MissingTrack = 19
    Spread = 20
    Database = 21
    Network = 22
    Tags = 23
    Json = 24
    Form = 25
    Basis = 26
    RootMotion = 27
    MirrorClip = 28
    MirrorDatabase = 29
    MirrorName = 30
    MirrorPair = 31
    MirrorReference = 32
    MirrorRule = 33
    RetargetChain = 34
    RetargetClip = 35
    RetargetPair = 36
    RetargetPelvis = 37
    RetargetReference = 38
    Parameter = 39
    Node = 40
    Input = 41
    Cycle = 42
    Unreachable = 43
    Scalar = 44
    Difference = 45
    Transition = 46        # graphs: a machine's transition (item the node, other the transition)
    Model = 47
    SpringSetSlot = 48
    MirrorGraph = 49
    MirrorParity = 50


class ManiError(Exception):
    """Base of every error the library raises; `.result` names the result code."""

    code = Result.errorInvalid

    def __init__(self, message: str = "", *, reason: BuildReason = BuildReason.None_,
                 item: int = 0, other: int = 0):
        self.reason = BuildReason(reason)
        self.item = int(item)
        self.other = int(other)
        detail = message or self.result
        if self.reason != BuildReason.None_:
            detail += f" (reason {self.reason.name.rstrip('_')}, item {self.item}, other {self.other})"
        super().__init__(detail)

    @property
    def result(self) -> str:
        return RESULT_NAMES[self.code]


class InvalidError(ManiError):
    """An argument the call refuses: NULL, out of range, of another skeleton, ..."""

    code = Result.errorInvalid


class CapacityError(ManiError):
    """Caller memory too small, or the allocator failed. Where the spec still writes a
    count or a size with it, `.count` or `.size` carries that."""

    code = Result.errorCapacity

    def __init__(self, message: str = "", *, count: int | None = None, size: int | None = None,
                 **kw):
        self.count = count
        self.size = size
        super().__init__(message, **kw)


class FormatError(ManiError):
    """A file's bytes are wrong; `.offset` is the first byte found wrong."""

    code = Result.errorFormat

    def __init__(self, message: str = "", offset: int = 0, **kw):
        self.offset = int(offset)
        super().__init__(f"{message} at byte {self.offset}", **kw)


class VersionError(ManiError):
    """A file or def of another format or library version."""

    code = Result.errorVersion


class LimitError(ManiError):
    """A source or request past one of the library's documented limits."""

    code = Result.errorLimit


class BusyError(ManiError):
    """A call back into an object from one of its own hooks."""

    code = Result.errorBusy
