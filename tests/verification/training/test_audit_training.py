"""audit_training against the DP-SGD zoo: every bug found with its call named, every sampler
identified, the correct run certified exactly as the accountant certifies its scheme."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import GaussianEvent, PldAccountant, PoissonSampledEvent
from privtools.certified import ends
from privtools.errors import ParameterError, UserCodeError
from verification.audit import PoissonScheme
from verification.training import audit_training, batches_of
from verification.zoo.training import (
    BUGS,
    TrainerConfig,
    init_params,
    make_data,
    make_sampler,
    make_step,
)

N, DIM, STEPS, Q = 400, 3, 100, 0.05
DATA = make_data(N, DIM, 0)
CALL = {"realised_normaliser": "the normaliser", "batch_clipping": "the clipping",
        "clip_after_average": "the clipping", "no_clipping": "the clipping",
        "low_noise": "the noise", "shared_noise": "the noise"}


def _audit(bug=None, sampler="poisson", epsilon=8.0, **kw):
    cfg = TrainerConfig(bug=bug, expected_batch=N * Q)
    opts = {"q": Q} if sampler in ("poisson", "blocks", "weighted") else {"batch": 20}
    if sampler == "weighted":
        opts["weights"] = np.linspace(0.1, 2, N)
    kw.setdefault("canaries", 0)
    return audit_training(make_step(cfg), make_sampler(sampler, N, **opts), DATA, STEPS,
                          epsilon, 1e-5, params=init_params(cfg, DIM, 0), rng=3, **kw)


@pytest.mark.parametrize("bug", BUGS)
def test_every_bug_is_found_with_its_call_named(bug):
    r = _audit(bug)
    if bug == "noise_on_mean":       # σC on the mean: more noise than the claim needs
        assert r.verdict == "pass" and r.noise_multiplier == pytest.approx(N * Q, rel=1e-9)
        return
    assert r.verdict == "fail"
    assert CALL[bug] in {f.call for f in r.findings}, r.describe()


def test_the_realised_batch_size_is_named_with_its_factor():
    r = _audit("realised_normaliser")
    (f,) = r.findings
    assert "divided by the realised batch size" in f.detail and "opacus#819" in f.detail


def test_the_correct_run_is_certified_as_the_accountant_certifies_its_scheme():
    """Told Poisson at q (and passing its test), the certified interval is the accountant's
    for PoissonSampledEvent(N(0, σ²), q) over the steps: the measured noise multiplier is
    the trainer's σ = 1 to the rounding of the parameters' floats."""
    r = _audit(scheme=PoissonScheme(Q), epsilon=4.0)
    assert r.verdict == "pass" and not r.findings
    assert r.noise_multiplier == pytest.approx(1.0, rel=1e-12)
    want = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=Fraction(1)), Fraction(Q)), count=STEPS)
    lo, hi = ends(want.epsilon(1e-5).interval)
    got_lo, got_hi = r.certified_ends
    assert got_lo == pytest.approx(float(lo), rel=1e-9)
    assert got_hi == pytest.approx(float(hi), rel=1e-9)


def test_a_claim_below_the_certified_run_fails_on_the_noise():
    r = _audit(scheme=PoissonScheme(Q), epsilon=1.0)
    assert r.verdict == "fail"
    assert [f.call for f in r.findings] == ["the noise"]
    assert r.certified_ends[0] > 1.0 and r.reasons


@pytest.mark.parametrize("kind", ["weighted", "blocks"])
def test_samplers_that_are_not_poisson_fail_on_the_sampler(kind):
    r = _audit(sampler=kind)
    assert r.verdict == "fail"
    assert "the sampler" in {f.call for f in r.findings}


def test_shuffling_told_as_poisson_is_named():
    r = _audit(sampler="shuffle", scheme=PoissonScheme(Q))
    assert r.verdict == "fail" and r.scheme.kind == "shuffle"
    assert any(f.call == "the sampler" and "told" in f.detail for f in r.findings)


def _gaussian_epsilon(mu: mpmath.mpf, delta: mpmath.mpf) -> mpmath.mpf:
    """ε(δ) of N(0,1) against N(μ,1) (Balle and Wang 2018, Thm 8), by bisection."""
    def d(e):
        return (mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
                - delta)
    return mpmath.findroot(d, (mpmath.mpf(0), mpmath.mpf(200)), solver="bisect")


@pytest.mark.parametrize("sampler", ["sequential", "shuffle"])
def test_batches_without_amplification_contain_the_closed_form(sampler):
    """One record in one batch per epoch, replaced: the run is the Gaussian mechanism at
    sensitivity 2C per epoch, composed over the epochs — a closed form (μ = 2√epochs/σ)."""
    r = _audit(sampler=sampler)
    epochs = STEPS // (N // 20)
    with mpmath.workdps(40):
        truth = _gaussian_epsilon(2 * mpmath.sqrt(epochs), mpmath.mpf("1e-5"))
    lo, hi = r.certified_ends
    assert lo <= float(truth) * (1 + 1e-12) and float(truth) <= hi * (1 + 1e-12)
    assert r.relation == "replace-one"


def test_fixed_size_batches_are_certified_under_replace_one():
    r = _audit(sampler="fixed_size")
    assert r.scheme.kind == "fixed size" and r.relation == "replace-one"
    assert "fixed-size batches of 20 of 400" in r.accounted


def test_batches_of_reads_lists_and_batch_samplers():
    fixed = [np.arange(i, i + 20) for i in range(0, N, 20)]
    s = batches_of(fixed)
    assert [list(b) for b in s(25, None)[:20]] == [list(b) for b in fixed]

    class BatchSampler:        # a torch BatchSampler's shape: iter() gives one epoch
        def __init__(self):
            self.gen = np.random.default_rng(0)

        def __iter__(self):
            order = self.gen.permutation(N)
            return iter([order[i:i + 20].tolist() for i in range(0, N, 20)])

    r = audit_training(make_step(TrainerConfig(expected_batch=20)), batches_of(BatchSampler()),
                       DATA, STEPS, 8.0, 1e-5, params=np.zeros(DIM + 1), rng=0, canaries=0)
    assert r.scheme.kind == "shuffle"
    with pytest.raises(ParameterError, match="one-shot iterator"):
        batches_of(iter(fixed))


def test_laplace_noise_is_not_certified_as_gaussian():
    def step(params, batch, rng):
        g = np.clip(batch[:, :-1], -0.5, 0.5).sum(axis=0)     # per example, bounded
        return params - 0.1 * (np.append(g, 0.0) + rng.laplace(0, 1, params.size))
    r = audit_training(step, make_sampler("poisson", N, q=Q), DATA, STEPS, 8.0, 1e-5,
                       rng=0, canaries=0)
    assert r.verdict == "inconclusive" and r.certified_epsilon is None
    assert any("not Gaussian" in n for n in r.notes)


def test_untraceable_randomness_is_inconclusive_never_pass():
    def step(params, batch, rng):
        return params + np.random.default_rng().normal(size=params.size)
    r = audit_training(step, make_sampler("poisson", N, q=Q), DATA, STEPS, 8.0, 1e-5,
                       rng=0, canaries=0)
    assert r.verdict == "inconclusive"
    assert r.findings[0].call == "the step"


def test_a_step_that_crashes_or_exits_raises_and_gives_no_verdict():
    def crash(params, batch, rng):
        raise RuntimeError("boom")

    def leave(params, batch, rng):
        raise SystemExit(0)
    for step in (crash, leave):
        with pytest.raises(UserCodeError):
            audit_training(step, make_sampler("poisson", N, q=Q), DATA, STEPS, 8.0, 1e-5,
                           rng=0, canaries=0)


@pytest.mark.parametrize("kw, name", [
    ({"data": np.zeros(5)}, "data"), ({"steps": 0}, "steps"), ({"canaries": 5}, "canaries"),
    ({"epsilon": -1}, "epsilon"), ({"delta": 1.0}, "delta"), ({"params": [np.nan]}, "params"),
    ({"canary_runs": 3}, "canary_runs"), ({"confidence": 1.5}, "confidence"),
])
def test_bad_input_is_named_before_any_work(kw, name):
    def step(params, batch, rng):        # never called
        raise AssertionError("called")
    args = {"step": step, "sampler": make_sampler("poisson", N, q=Q), "data": DATA,
            "steps": 10, "epsilon": 1.0, "delta": 1e-5}
    args.update(kw)
    with pytest.raises(ParameterError, match=name):
        audit_training(**args)


FATAL = {"realised_normaliser", "batch_clipping", "clip_after_average", "no_clipping",
         "shared_noise"}


@settings(max_examples=8, deadline=None, derandomize=True)
@given(bug=st.sampled_from((None, "low_noise", "noise_on_mean") + tuple(sorted(FATAL))),
       sigma=st.sampled_from([0.5, 1.0, 3.0]), clip=st.sampled_from([0.1, 1.0, 10.0]),
       model=st.sampled_from(["logistic", "mlp"]))
def test_generated_trainers_get_their_true_noise_multiplier_or_fail(bug, sigma, clip, model):
    """Trainers generated over the bugs, noise multipliers, clipping norms and models, whose
    truth is known by construction: a fatal bug fails; otherwise the measured noise
    multiplier is the trainer's σ (σ/10 with a tenth of the noise, σ·E[B] with the noise on
    the mean) to the rounding of floats, and the certified interval is the accountant's for
    that σ — never below it."""
    cfg = TrainerConfig(model=model, bug=bug, noise_multiplier=sigma, clip=clip,
                        expected_batch=N * Q, hidden=4)
    r = audit_training(make_step(cfg), make_sampler("poisson", N, q=Q), DATA, 20, 50.0, 1e-5,
                       params=init_params(cfg, DIM, 0), rng=5, canaries=0,
                       scheme=PoissonScheme(Q))
    if bug in FATAL:
        assert r.verdict == "fail" and any(f.fatal for f in r.findings)
        return
    truth = sigma / 10 if bug == "low_noise" else sigma * N * Q if bug == "noise_on_mean" \
        else sigma
    assert r.noise_multiplier == pytest.approx(truth, rel=1e-9)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=Fraction(1), sensitivity=Fraction(1 / truth)),
                            Fraction(Q)), count=20)
    lo, hi = ends(acc.epsilon(1e-5).interval)
    assert r.certified_ends[1] >= float(lo) * (1 - 1e-9)
