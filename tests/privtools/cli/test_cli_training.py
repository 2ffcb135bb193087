"""``privtools audit-training``: a DP-SGD run from the user's files, with the exit-code
convention of every audit (0 pass; 1 fail or inconclusive; 2 bad input naming the option)."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from privtools.cli import app
from verification.audit import PoissonScheme
from verification.training import audit_training
from verification.zoo.training import TrainerConfig, make_data, make_sampler, make_step

runner = CliRunner()

TRAINER = textwrap.dedent('''
    from verification.zoo.training import TrainerConfig, make_sampler, make_step

    step = make_step(TrainerConfig(expected_batch=20))
    realised = make_step(TrainerConfig(bug="realised_normaliser", expected_batch=20))
    batches = make_sampler("poisson", 400, q=0.05)
''')


@pytest.fixture
def files(tmp_path):
    (tmp_path / "train.py").write_text(TRAINER)
    np.save(tmp_path / "d.npy", make_data(400, 3, 0))
    np.save(tmp_path / "flat.npy", np.zeros(5))
    return tmp_path


def _args(files, step="step", *more):
    return ["audit-training", "--step", f"{files}/train.py:{step}", "--sampler",
            f"{files}/train.py:batches", "--data", str(files / "d.npy"), "--steps", "50",
            "--epsilon", "8", "--delta", "1e-5", "--canaries", "0", *more]


def test_a_correct_run_passes_with_the_librarys_answer(files):
    res = runner.invoke(app, _args(files, "step", "--rate", "0.05", "--json"))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    want = audit_training(make_step(TrainerConfig(expected_batch=20)),
                          make_sampler("poisson", 400, q=0.05), make_data(400, 3, 0), 50, 8,
                          1e-5, rng=0, canaries=0, scheme=PoissonScheme(0.05))
    assert out["verdict"] == "pass" and out["certified_epsilon"] == list(want.certified_ends)


def test_the_realised_batch_size_fails_with_exit_1_naming_the_normaliser(files):
    res = runner.invoke(app, _args(files, "realised"))
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "FAIL" in res.stdout and "the normaliser" in res.stdout


@pytest.mark.parametrize("change, option", [
    ({"--data": "missing.npy"}, "--data"), ({"--data": "flat.npy"}, "--data"),
    ({"--step": "train.py:nope"}, "--step"), ({"--rate": "2"}, "--rate"),
    ({"--sampler": "nocolon"}, "--sampler"),
])
def test_bad_files_exit_2_naming_the_option(files, change, option):
    args = _args(files)
    for key, value in change.items():
        value = value if ":" not in value or value == "nocolon" else f"{files}/{value}"
        value = str(files / value) if value.endswith(".npy") else value
        if key in args:
            args[args.index(key) + 1] = value
        else:
            args += [key, value]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert option in res.stderr and "Traceback" not in res.output
