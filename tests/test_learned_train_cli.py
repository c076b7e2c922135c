"""The command users run: python -m runtime.learned.train trains a model from built files,
resumes from a checkpoint to the same model, and refuses bad input in one line, exit 2."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import runtime as rt
from runtime import capi
from runtime.learned.train import LearnedTrainer, LearnedTrainerProjector, LearnedTrainerSource
from runtime.learned.train.options import default_learned_trainer_options

import learned_train_fixtures as ltf

W = ltf.WORLD
REPO = Path(__file__).resolve().parents[1]
ARGS = ["--iterations", "3", "--latent", "4", "--width", "8", "--every", "2"]


def _run(*argv):
    return subprocess.run([sys.executable, "-m", "runtime.learned.train", *map(str, argv)],
                          capture_output=True, text=True, cwd=REPO)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("train")
    b = rt.Builder()
    capi.maniBuildMirrorMap(b, W.mirror_source)
    (d / "map").write_bytes(capi.maniBuilder_CopyBuilt(b))
    b = rt.Builder()
    capi.maniBuildSkeleton(b, W.skeleton_source)
    (d / "skeleton").write_bytes(capi.maniBuilder_CopyBuilt(b))
    (d / "clip").write_bytes(bytes(W.match_clip.data))
    (d / "db").write_bytes(W.match_bytes)
    return d, ["--skeleton", d / "skeleton", "--clip", d / "clip", "--mirror-map", d / "map"]


def test_trains_and_resumes_to_the_same_model(files, tmp_path):
    d, inputs = files
    first = _run(d / "db", *inputs, *ARGS, "--out", tmp_path / "a.model",
                 "--checkpoint", tmp_path / "a.ckpt")
    assert first.returncode == 0, first.stderr
    model = rt.LearnedModel((tmp_path / "a.model").read_bytes())
    assert model.is_open and model.database_identity == W.database.identity
    o = default_learned_trainer_options()
    o.latent_count, o.width = 4, 8
    o.decompressor_iterations = o.stepper_iterations = o.projector_iterations = 3
    tr = LearnedTrainer(ltf.definition(1), LearnedTrainerSource(
        W.skeleton, W.database, [W.match_clip], W.mirror_map, [LearnedTrainerProjector()],
        [], [], [], o))
    tr.train(4)                     # the Stepper's stage begun
    (tmp_path / "mid.ckpt").write_bytes(tr.save_checkpoint())
    resumed = _run(d / "db", *inputs, *ARGS, "--out", tmp_path / "b.model",
                   "--resume", tmp_path / "mid.ckpt")
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "b.model").read_bytes() == (tmp_path / "a.model").read_bytes()
    tr.train(100)
    assert (tmp_path / "a.ckpt").read_bytes() == tr.save_checkpoint()


def _in_process(argv, capsys) -> tuple[int, str]:
    from runtime.learned.train.__main__ import main
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err


def test_bad_input_is_one_line_and_exit_2(files, tmp_path, capsys):
    d, inputs = files
    tr = ltf.trainer(1)
    tr.train(2)
    (tmp_path / "other.ckpt").write_bytes(tr.save_checkpoint())
    for argv in ([d / "missing", *inputs, "--out", tmp_path / "m"],
                 [d / "clip", *inputs, "--out", tmp_path / "m"],
                 [d / "db", *inputs, "--out", tmp_path / "m", "--iterations", "0"],
                 [d / "db", *inputs, "--out", tmp_path / "m", "--projector", "x"],
                 [d / "db", "--skeleton", d / "skeleton", "--clip", d / "clip", "--out", tmp_path / "m"],
                 [d / "db", *inputs, *ARGS, "--out", tmp_path / "m", "--resume", tmp_path / "other.ckpt"]):
        code, err = _in_process(argv, capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1, (argv, err)
    assert not (tmp_path / "m").exists()
