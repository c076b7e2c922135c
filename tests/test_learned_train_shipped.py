"""The learned model shipped in assets/learned/ is what the code trains today, byte for
byte (the staged mocap beside the repo; skipped without it). A stale file fails here:
run `python -m runtime.samples.learned_model`."""
from __future__ import annotations

import pytest

from runtime.learned import LearnedModel
from runtime.samples import learned_model, mocap

pytestmark = pytest.mark.skipif(not mocap.available(), reason="the staged mocap is not beside the repo")


def test_the_shipped_model_is_what_the_code_trains():
    shipped = learned_model.SHIPPED.read_bytes()
    assert learned_model.model_bytes() == shipped
    model = LearnedModel(shipped)
    assert model.is_open and model.projector(1) == (mocap.TAG_WALK, 0)
