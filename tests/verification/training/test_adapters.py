"""The framework adapters, where the frameworks are installed: jax_privacy's clipping and
privatizer as a step (the noise sampled by the audit) and its batch selection as samplers;
Opacus's private model as a step. CI installs the ``frameworks`` extra and sets
``PRIVTOOLS_REQUIRE_FRAMEWORKS=1``, which turns a missing jax_privacy into a failure."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from verification.audit import PoissonScheme
from verification.training import audit_training
from verification.zoo.training import make_data, make_sampler

REQUIRED = os.environ.get("PRIVTOOLS_REQUIRE_FRAMEWORKS") == "1"
N, Q, STEPS = 1000, 0.05, 50
DATA = make_data(N, 3, 0)


def _have(module: str) -> bool:
    found = importlib.util.find_spec(module) is not None
    if not found and REQUIRED and module == "jax_privacy":
        pytest.fail(f"{module} is required here (PRIVTOOLS_REQUIRE_FRAMEWORKS=1)")
    return found


def _jax_loss():
    import jax.numpy as jnp

    def loss(w, rows):
        x, y = rows[:, :-1], rows[:, -1]
        z = x @ w[:-1] + w[-1]
        return jnp.sum(jnp.logaddexp(0.0, z) - y * z)
    return loss


@pytest.mark.parametrize("how", ["expected", "batch"])
def test_jax_privacy_steps_pass_or_are_named(how):
    if not _have("jax_privacy"):
        pytest.skip("optional dependency: jax_privacy (the `frameworks` extra)")
    from verification.training.adapters import jax_privacy_step

    step = jax_privacy_step(_jax_loss(), l2_clip_norm=1.0, noise_multiplier=1.0,
                            learning_rate=0.5, normalize_by=how, expected_batch=N * Q)
    r = audit_training(step, make_sampler("poisson", N, q=Q), DATA, STEPS, 8.0, 1e-5,
                       params=np.zeros(4), rng=0, canaries=0, scheme=PoissonScheme(Q))
    if how == "batch":
        assert r.verdict == "fail" and [f.call for f in r.findings] == ["the normaliser"]
        assert "realised batch size" in r.findings[0].detail
        return
    assert r.verdict == "pass", r.describe()
    assert any("sampled from 200 pairs" in n for n in r.notes)
    # the sampled noise multiplier is a lower confidence bound on the true σ = 1
    assert 0.85 < r.noise_multiplier <= 1.0 + 1e-6


def test_jax_privacy_samplers_are_identified():
    if not _have("jax_privacy"):
        pytest.skip("optional dependency: jax_privacy (the `frameworks` extra)")
    import jax_privacy.batch_selection as bs

    from verification.audit import identify_scheme
    from verification.training.adapters import jax_privacy_sampler

    cases = {"independent inclusions": lambda it: bs.CyclicPoissonSampling(
        sampling_prob=Q, iterations=it),
        "fixed size": lambda it: bs.FixedBatchSampling(batch_size=50, iterations=it),
        "allocation, kept": lambda it: bs.BallsInBinsSampling(iterations=it, cycle_length=20)}
    for kind, make in cases.items():
        assert identify_scheme(jax_privacy_sampler(make, N), N, 200, rng=0).kind == kind


@pytest.mark.parametrize("told", ["sum", "mean"])
def test_opacus_steps_pass_or_are_named(told):
    """A summed loss told to Opacus as summed passes; told as a mean, Opacus scales each
    per-sample gradient by the batch size before clipping, and the clipping is named."""
    if not (_have("torch") and _have("opacus")):
        pytest.skip("optional dependency: torch and opacus")
    import torch

    from verification.training.adapters import opacus_step

    def model():
        torch.manual_seed(0)
        return torch.nn.Linear(3, 1)

    def loss(out, y):
        return torch.nn.functional.binary_cross_entropy_with_logits(out, y, reduction="sum")
    step = opacus_step(model, loss, max_grad_norm=1.0, noise_multiplier=1.0,
                       learning_rate=0.5, expected_batch=int(N * Q), loss_reduction=told)
    r = audit_training(step, make_sampler("poisson", N, q=Q), DATA, STEPS, 8.0, 1e-5,
                       params=np.zeros(4), rng=0, canaries=0, scheme=PoissonScheme(Q))
    if told == "mean":
        assert r.verdict == "fail" and [f.call for f in r.findings] == ["the clipping"]
        return
    assert r.verdict == "pass", r.describe()
    assert 0.85 < r.noise_multiplier <= 1.0 + 1e-6
