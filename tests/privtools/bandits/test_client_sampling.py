"""Batch SE with Poisson client sampling: every batch's plan is calibrated for the sampled
run, and the run reports the certified per-client ε of what it released."""

from __future__ import annotations

from fractions import Fraction

import pytest

from privtools.accounting import PldAccountant, PoissonSampledEvent
from privtools.bandits import policy
from privtools.bandits.envs import five_arm_instance
from privtools.bandits.se.simulation import (
    batch_plan,
    max_batches,
    sampled_view_epsilon,
    simulate,
)
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from privtools.planning import batch_event, plan_view

T = 2000


@pytest.fixture(scope="module")
def run():
    spec = policy("dist-dp-se", epsilon=1, delta=1e-6, sampling=0.05)
    return spec, simulate(spec, five_arm_instance(), T, rng=0)


def test_the_run_reports_its_certified_per_client_epsilon(run):
    spec, res = run
    lo, hi = ends(res.certified_epsilon)
    assert 0 < lo <= hi <= 1
    # the certificate is the composition of the sampled views of the released batches
    acc = PldAccountant(neighbouring="add-remove")
    for b in range(1, res.batches + 1):        # batch b has l(b) = base**b users per arm
        pl = batch_plan(spec, spec.base ** b, T)
        acc.compose(PoissonSampledEvent(batch_event(plan_view(pl)), Fraction(1, 20)))
    again = ends(acc.epsilon(Fraction(spec.delta)).interval)
    for a, b in zip(again, ends(res.certified_epsilon)):      # equal up to the mpi's rounding
        assert abs(a - b) <= 1e-15 * abs(a)


def test_one_per_batch_epsilon_covers_every_batch_the_run_can_release(run):
    """Batches of different sizes have different views: they share one per-batch ε, chosen
    so that all max_batches of them compose within the target (so any prefix does)."""
    spec, res = run
    steps = max_batches(spec, T)
    assert res.batches <= steps
    eb = sampled_view_epsilon(spec, T)
    assert {batch_plan(spec, spec.base ** b, T).epsilon_view for b in range(1, steps + 1)} \
        == {eb}
    acc = PldAccountant(neighbouring="add-remove")
    for b in range(1, steps + 1):
        pl = batch_plan(spec, spec.base ** b, T)
        acc.compose(PoissonSampledEvent(batch_event(plan_view(pl)), Fraction(1, 20)))
    assert acc.epsilon(Fraction(spec.delta)).epsilon <= 1
    assert eb > 1        # sampling at 1/20 lets a batch spend more than the whole target


def test_runs_without_sampling_report_no_certificate():
    res = simulate(policy("dist-dp-se", epsilon=1), five_arm_instance(), T, rng=0)
    assert res.certified_epsilon is None


@pytest.mark.parametrize("kw,match", [
    (dict(epsilon=1, sampling=0.05), "sampling needs delta > 0"),
    (dict(epsilon=1, delta=1e-6, sampling=0), "sampling must be a rate"),
    (dict(epsilon=1, delta=1e-6, sampling=0.05, participations=2), "exclusive"),
])
def test_bad_sampling_is_refused(kw, match):
    with pytest.raises(ParameterError, match=match):
        policy("dist-dp-se", **kw)
