"""The offline side: a builder turns sources into files and keeps the last one.

Each kind's module builds its files with a function taking the builder
(`skeleton.build_skeleton(builder, source)`, `clip.build.build_clip(builder, source)`, ...);
this module is what they share: the front door every build call goes through (enter_build),
the guarded allocator and the file kept.

A builder allocates through its def's allocator hooks (both or neither). The hooks are the
host's code running inside a builder call, so a call back into the builder from them is
refused with BusyError and counted as misuse: the builder is in the middle of changing
what it holds. Destroying frees the held file and then the builder's own block; from the
moment it begins the builder is gone to the host, so calls from those frees are refused
too, and a destroy called from a hook destroys nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import args
from .base import VERSION, Version
from .errors import BusyError, CapacityError, InvalidError, VersionError

BUILDER_COOKIE = 0x4D424C44          # "MBLD": marks a def made by default_builder_def
BUILDER_BLOCK_BYTES = 256            # the builder's own block, taken from the allocator


@dataclass
class BuilderDef:
    """maniBuilderDef: the version cookie, and an optional allocator hook pair.

    `alloc(user, size)` returns a writable buffer of at least `size` bytes, or None when
    it cannot; `free(user, block)` takes back what alloc gave.
    """

    cookie: int = 0
    version: Version = VERSION
    alloc: Callable[[Any, int], Any] | None = None
    free: Callable[[Any, Any], None] | None = None
    user: Any = None


def default_builder_def() -> BuilderDef:
    """maniDefaultBuilderDef: every setting at its default, with a valid cookie."""
    return BuilderDef(cookie=BUILDER_COOKIE)


def enter_build(builder, source, kind: type, **needs) -> None:
    """A build call's front door. No builder is refused (there is nothing to count it on), a
    busy or destroyed one by Builder.enter; a source not of `kind`, or without one of its
    `needs` (a field's name = the type its value must be, opened where views can be
    unopened, or None for any value but None),
    is a misuse, counted. A source the build goes on to refuse is not a misuse."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if not isinstance(source, kind):
        raise builder.refuse(f"not a {kind.__name__}")
    for name, need in needs.items():
        value = getattr(source, name)
        if value is None if need is None else not (isinstance(value, need)
                                                   and getattr(value, "is_open", True)):
            raise builder.refuse(f"a {kind.__name__} without its {name}"
                                 + ("" if need is None else f" (an opened {need.__name__})"))


def listed(builder: "Builder", value, what: str) -> list:
    """A source's list member: None for none, else a list or tuple; anything else is a
    misuse, refused naming `what`."""
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise builder.refuse(f"{what} is not a list")
    return list(value)


def _default_alloc(user, size: int):
    return bytearray(size)


def _default_free(user, block) -> None:
    pass


class Builder:
    """maniBuilder."""

    def __init__(self, definition: BuilderDef | None = None):
        d = default_builder_def() if definition is None else definition
        if not isinstance(d, BuilderDef):
            raise InvalidError("not a builder def")
        if d.cookie != BUILDER_COOKIE:
            raise InvalidError("a def without its cookie (make it with default_builder_def)")
        if tuple(d.version)[:2] != tuple(VERSION)[:2]:
            raise VersionError(f"a def for version {tuple(d.version)[:2]}, "
                               f"this library is {tuple(VERSION)[:2]}")
        if (d.alloc is None) != (d.free is None):
            raise InvalidError("an allocator with one function")
        self._alloc = d.alloc or _default_alloc
        self._free = d.free or _default_free
        self._user = d.user
        self.misuse = 0
        self._state = "live"            # live, hook (inside an allocator call), gone
        self._file: memoryview | None = None
        self._file_block = None
        self._kind: str | None = None
        self._skeleton_order: np.ndarray | None = None
        self._block = self._call_alloc(BUILDER_BLOCK_BYTES)
        if self._block is None:
            raise CapacityError("the allocator failed")

    # ---- the hooks, guarded
    def _call_alloc(self, size: int):
        self._state = "hook"
        try:
            block = self._alloc(self._user, size)
        finally:
            self._state = "live"
        if block is None:
            return None
        view = memoryview(block)
        if view.readonly or view.nbytes < size:
            return None
        return block

    def _call_free(self, block, then: str = "live") -> None:
        self._state = "hook" if then == "live" else "gone"
        try:
            self._free(self._user, block)
        finally:
            self._state = then

    def enter(self) -> None:
        """Every builder call starts here: refuses calls from the hooks and after destroy."""
        if self._state != "live":
            self.misuse += 1
            raise BusyError("a call on the builder from its own allocator, or after destroy")

    def refuse(self, message: str) -> InvalidError:
        """A misuse: an argument the call refuses outright (counted)."""
        self.misuse += 1
        return InvalidError(message)

    # ---- what it holds
    def keep(self, data: bytes, kind: str, *, source_order: np.ndarray | None = None) -> None:
        """Replaces the held file with `data`, allocated through the hooks; a skeleton's
        build also leaves where each source bone went."""
        block = self._call_alloc(len(data))
        if block is None:
            raise CapacityError("the allocator failed")
        memoryview(block).cast("B")[:len(data)] = data
        old = self._file_block
        self._file_block = block
        self._file = memoryview(block).cast("B")[:len(data)]
        self._kind = kind
        self._skeleton_order = source_order
        if old is not None:
            self._call_free(old)

    def built(self) -> bytes:
        if self._file is None:
            raise InvalidError("the builder holds no file")
        return bytes(self._file)

    @property
    def kind(self) -> str | None:
        return self._kind

    def destroy(self) -> None:
        """maniDestroyBuilder."""
        if self._state != "live":
            self.misuse += 1
            return
        self._state = "gone"
        if self._file_block is not None:
            block, self._file_block, self._file = self._file_block, None, None
            self._call_free(block, then="gone")
        self._call_free(self._block, then="gone")

    # ---- copies out
    def copy_built(self, out=None):
        """maniBuilder_CopyBuilt: the last built file; into `out` when given (its size
        returned, CapacityError with `.size` when it is smaller)."""
        self.enter()
        if self._file is None:
            raise self.refuse("the builder holds no file")
        if out is None:
            return bytes(self._file)
        view = args.writable_bytes(out, "buffer")
        size = self._file.nbytes
        if view.nbytes < size:
            raise CapacityError(f"{view.nbytes} bytes for a file of {size}", size=size)
        view[:size] = self._file
        return size

    def copy_skeleton_order(self, out: np.ndarray | None = None) -> np.ndarray:
        """maniBuilder_CopySkeletonOrder: the skeleton index of each source bone."""
        self.enter()
        if self._skeleton_order is None:
            raise self.refuse("the builder holds no skeleton")
        order = self._skeleton_order
        if out is None:
            return order.copy()
        args.output(out, "iu", (-1,), "bone order")
        if len(out) < order.size:
            out[...] = 0
            raise CapacityError(f"{len(out)} entries for {order.size} bones", count=order.size)
        out[:order.size] = order
        return out
