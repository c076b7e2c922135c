"""The importers' shared rules: bone names and clip options."""
import math

import pytest

import runtime as rt
from runtime.core.errors import InvalidError
from runtime_fixtures import humanoid
from runtime.importers.common import (ImportClipOptions, ImportFormatError, ImportReason,
                                      bone_names, default_import_clip_options)


def test_bone_names_keep_unique_names_and_number_the_rest():
    names, renamed = bone_names([b"hip", None, b"hip", b"", b"spine"])
    assert names == [b"hip", b"#1", b"hip#2", b"#3", b"spine"]
    assert renamed == [1, 2, 3]


def test_bone_names_never_repeat_even_against_a_made_name():
    names, renamed = bone_names([b"a", b"a", b"a#1"])
    assert len(set(names)) == 3 and renamed == [1, 2]


def _skeleton(n=3):
    return humanoid(n)


@pytest.mark.parametrize("field,value", [
    ("sample_rate", -1.0), ("sample_rate", math.nan), ("sample_rate", math.inf),
    ("sample_rate", "30"), ("loop", 99), ("additive", -1), ("root_motion", 3)])
def test_clip_options_out_of_range_are_refused_by_field(field, value):
    options = default_import_clip_options()
    setattr(options, field, value)
    with pytest.raises(InvalidError, match=field):
        options.checked(_skeleton())


def test_clip_options_root_bone_past_the_skeleton_is_refused():
    options = ImportClipOptions(root_motion=rt.RootMotionSource(3))
    with pytest.raises(InvalidError, match="bone"):
        options.checked(_skeleton(3))
    assert options.checked(_skeleton(4)).root_motion.bone == 3


def test_format_error_carries_reason_offset_and_item():
    error = ImportFormatError("accessor past its view", ImportReason.Accessor, offset=17, item=4)
    assert (error.import_reason, error.offset, error.item) == (ImportReason.Accessor, 17, 4)
    assert isinstance(error, rt.FormatError)
