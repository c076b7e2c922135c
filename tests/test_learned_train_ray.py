"""The trainer's chunks on a Ray cluster (a local instance of two workers) give the local
run's checkpoint bit for bit. Needs the `ray` extra (pip install -e '.[ray]')."""
from __future__ import annotations

import pytest

import learned_train_fixtures as ltf

ray = pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")


def test_ray_gives_the_local_checkpoint():
    from runtime.learned.train import ray_hooks
    local = ltf.trainer(1)
    local.train(ltf.total(local))
    hooks = ray_hooks(workers=2)
    try:
        remote = ltf.trainer(1, tasks=hooks)
        remote.train(12 + 5)                # into the stepper's stage, then restored on
        saved = remote.save_checkpoint()
        again = ltf.trainer(1, tasks=hooks)
        again.restore_checkpoint(saved)
        again.train(ltf.total(again))
        assert again.save_checkpoint() == local.save_checkpoint()
    finally:
        ray.shutdown()
