"""The DP-SGD zoo: the reference trainer computes DP-SGD exactly as stated (per-example
gradients against finite differences, clipping, the sum's sensitivity, the noise scale,
the constant normaliser), each bug breaks exactly the property it is named for, and each
sampler draws what it says (checked by ``audit_sampling``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from verification.audit import FixedSizeScheme, PoissonScheme, ShuffleScheme, audit_sampling
from verification.zoo.training import (
    BUGS,
    TrainerConfig,
    init_params,
    make_data,
    make_sampler,
    make_step,
    per_example_gradients,
)

DIM = 4


def _loss(config, params, row):
    """The logistic loss of one row, computed directly (the finite-difference oracle)."""
    x, y = row[:-1], row[-1]
    if config.model == "logistic":
        z = x @ params[:-1] + params[-1]
    else:
        h = config.hidden
        w1 = params[:DIM * h].reshape(DIM, h)
        b1, w2, b2 = params[DIM * h:DIM * h + h], params[DIM * h + h:-1], params[-1]
        z = np.tanh(x @ w1 + b1) @ w2 + b2
    return np.logaddexp(0, z) - y * z


@pytest.mark.parametrize("model", ["logistic", "mlp"])
def test_per_example_gradients_are_the_losses_derivatives(model):
    config = TrainerConfig(model=model, hidden=3)
    rng = np.random.default_rng(1)
    data = make_data(5, DIM, rng)
    params = rng.standard_normal(config.size(DIM)) * 0.5
    g = per_example_gradients(config, params, data)
    assert g.shape == (5, config.size(DIM))
    eps = 1e-6
    for i, row in enumerate(data):
        for k in range(params.size):
            e = np.zeros(params.size)
            e[k] = eps
            fd = (_loss(config, params + e, row) - _loss(config, params - e, row)) / (2 * eps)
            assert abs(g[i, k] - fd) <= 1e-6 * max(1.0, abs(fd))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["logistic", "mlp"]),
       st.floats(0.05, 3.0))
def test_the_correct_step_moves_the_sum_by_at_most_the_clipping_norm(seed, model, clip):
    """Noise off, one record added to a batch: the noisy sum (update × expected batch /
    learning rate) moves by at most C — the sensitivity the accountant is told."""
    config = TrainerConfig(model=model, clip=clip, noise_multiplier=0, hidden=3,
                           expected_batch=7, learning_rate=0.3)
    rng = np.random.default_rng(seed)
    data = make_data(8, DIM, rng) * np.array([10.0] * DIM + [1.0])   # large gradients
    params = init_params(config, DIM, rng)
    step = make_step(config)
    a = step(params, data[:7], np.random.default_rng(0))
    b = step(params, data, np.random.default_rng(0))
    moved = np.linalg.norm(a - b) * config.expected_batch / config.learning_rate
    assert moved <= clip * (1 + 1e-9)


def _moved(bug):
    """The most the noiseless sum moves when one record joins a batch of 7 identical records
    whose gradients (at zero parameters) are clipped, over a few crafted added records:
    one opposite, one small, one large along, one large against."""
    config = TrainerConfig(clip=1.0, noise_multiplier=0, expected_batch=7, learning_rate=1,
                           bug=bug)
    x0 = np.array([2.0, 0.0, 0.0, 0.0])
    base = np.tile(np.append(x0, 0.0), (7, 1))
    added = [np.append(x0, 1.0), np.zeros(DIM + 1), np.append(10 * x0, 0.0),
             np.append(10 * x0, 1.0)]
    params = np.zeros(config.size(DIM))
    step = make_step(config)
    a = step(params, base, np.random.default_rng(0))
    return max(np.linalg.norm(a - step(params, np.vstack([base, row]),
                                       np.random.default_rng(0))) * config.expected_batch
               for row in added)


@pytest.mark.parametrize("bug", ["realised_normaliser", "no_clipping", "batch_clipping",
                                 "clip_after_average"])
def test_each_clipping_or_normalising_bug_breaks_the_sensitivity(bug):
    """Adding one record moves the correct step's sum by at most C = 1; each of these bugs
    moves it by more on one of the same neighbouring batches."""
    assert _moved(None) <= 1 + 1e-9
    assert _moved(bug) > 1 + 1e-6


def _noise(bug, steps=3):
    """The noise each step adds (the step on an empty batch at zero parameters: the update
    is −lr · noise / E[B], or −lr · noise for noise_on_mean)."""
    config = TrainerConfig(noise_multiplier=2.0, clip=0.5, learning_rate=1.0,
                           expected_batch=4.0, bug=bug)
    step = make_step(config)
    rng = np.random.default_rng(7)
    empty = np.zeros((0, DIM + 1))
    out = []
    for _ in range(steps):
        out.append(-step(np.zeros(DIM + 1), empty, rng) * (
            1 if bug == "noise_on_mean" else config.expected_batch))
    return np.array(out)


def test_noise_scale_and_its_bugs():
    """The correct step adds fresh N(0, (σC)²) noise to the sum; low_noise a tenth of it;
    shared_noise the same vector every step; noise_on_mean σC on the mean (σC·E[B] on the
    sum)."""
    fresh = _noise(None, steps=400).ravel()
    assert abs(fresh.std() / 1.0 - 1) < 0.1                  # σC = 2 · 0.5
    assert abs(_noise("low_noise", steps=400).ravel().std() / 0.1 - 1) < 0.1
    shared = _noise("shared_noise")
    assert np.array_equal(shared[0], shared[1]) and np.array_equal(shared[1], shared[2])
    assert not np.array_equal(_noise(None)[0], _noise(None)[1])
    on_mean = _noise("noise_on_mean", steps=400).ravel()     # σC on the mean
    assert abs(on_mean.std() - 1) < 0.1                     # E[B] = 4 times the sum's


def test_every_bug_is_a_config_and_bad_configs_are_named():
    for bug in BUGS:
        assert make_step(TrainerConfig(bug=bug)).__name__.endswith(bug)
    with pytest.raises(ParameterError, match="bug"):
        TrainerConfig(bug="nonsense")
    with pytest.raises(ParameterError, match="clip"):
        TrainerConfig(clip=0)
    with pytest.raises(ParameterError, match="noise_multiplier"):
        TrainerConfig(noise_multiplier=float("nan"))
    with pytest.raises(ParameterError, match="q must be"):
        make_sampler("poisson", 100)
    with pytest.raises(ParameterError, match="weights"):
        make_sampler("weighted", 100, q=0.1, weights=[1.0])


def test_the_samplers_draw_what_they_say():
    """The correct samplers pass the audit of their own scheme; the buggy ones fail the
    scheme they are reported as (weighted and blocks as Poisson at q, sequential as a
    shuffle)."""
    n, q = 400, 0.05
    kw = dict(n_batches=400, alpha=0.01, rng=11)
    assert audit_sampling(make_sampler("poisson", n, q=q), PoissonScheme(q), n,
                          **kw).verdict == "pass"
    assert audit_sampling(make_sampler("fixed_size", n, batch=20), FixedSizeScheme(20), n,
                          **kw).verdict == "pass"
    assert audit_sampling(make_sampler("shuffle", n, batch=20), ShuffleScheme(20), n,
                          **kw).verdict == "pass"
    weights = np.where(np.arange(n) < n // 2, 3.0, 1.0)
    assert audit_sampling(make_sampler("weighted", n, q=q, weights=weights),
                          PoissonScheme(q), n, **kw).verdict == "fail"
    assert audit_sampling(make_sampler("blocks", n, q=q, block=10), PoissonScheme(q), n,
                          **kw).verdict == "fail"
    assert audit_sampling(make_sampler("sequential", n, batch=20), ShuffleScheme(20), n,
                          **kw).verdict == "fail"
