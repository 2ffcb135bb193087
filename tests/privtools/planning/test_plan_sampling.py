"""Plans with Poisson client sampling: the calibrated noise is certified for the sampled run,
sampling buys less noise than the same rounds without it, the judge agrees, and bad input is
refused by name (in Python and on the command line)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from privtools.accounting import PldAccountant, PoissonSampledEvent
from privtools.certified.intervals import ends
from privtools.cli import app
from privtools.errors import ParameterError
from privtools.planning import batch_event, plan, plan_certificate, plan_view

runner = CliRunner()
KW = dict(privacy="pure-dp", epsilon=1, n=10, horizon=1000, delta=Fraction(1, 10**6))


@pytest.fixture(scope="module")
def sampled():
    return plan(**KW, sampling="poisson", q=Fraction(1, 20), steps=50)


def test_the_sampled_run_is_certified_and_the_certificate_is_the_composition(sampled):
    lo, hi = ends(sampled.certified_epsilon)
    assert hi <= 1
    assert sampled.sampling_rate == Fraction(1, 20)
    assert sampled.participations == ((1, 50),)
    # the same number again, from the events themselves
    ev = PoissonSampledEvent(batch_event(plan_view(sampled)), Fraction(1, 20))
    again = PldAccountant(neighbouring="add-remove").compose(ev, 50).epsilon(KW["delta"])
    assert again.interval == plan_certificate(sampled).interval


def test_sampling_lets_each_round_spend_more(sampled):
    """The same 50 rounds without sampling (every client in every round) need a smaller
    per-round ε: amplification by sampling is what the larger per-round ε buys."""
    every = plan(**KW, participations=50)
    assert sampled.epsilon_view > every.epsilon_view


def test_the_judge_passes_the_sampled_plan(sampled):
    from verification.plan_check import verify_plan

    check = verify_plan(sampled)
    assert check.passed, check.verdict
    assert "sampled with probability 1/20" in check.guarantee


@pytest.mark.parametrize("kw,match", [
    (dict(sampling="poisson", q=0.1), "needs q .* and steps"),
    (dict(sampling="poisson", steps=5), "needs q .* and steps"),
    (dict(sampling="uniform", q=0.1, steps=5), "sampling must be 'poisson'"),
    (dict(sampling="poisson", q=0, steps=5), "q must be"),
    (dict(sampling="poisson", q=2, steps=5), "q must be"),
    (dict(sampling="poisson", q=0.1, steps=0), "steps must be"),
    (dict(q=0.1, steps=5), "apply with sampling='poisson' only"),
    (dict(sampling="poisson", q=0.1, steps=5, participations=3), "replaces participations"),
])
def test_bad_sampling_input_is_refused_by_name(kw, match):
    with pytest.raises(ParameterError, match=match):
        plan(**KW, **kw)


def test_sampling_needs_a_delta():
    args = {k: v for k, v in KW.items() if k != "delta"}
    with pytest.raises(ParameterError, match="sampling needs delta > 0"):
        plan(**args, sampling="poisson", q=0.1, steps=5)


def test_the_command_line_plans_a_sampled_deployment():
    res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "10", "--horizon", "1000",
                              "--delta", "1e-6", "--sampling", "poisson", "--q", "0.05",
                              "--steps", "50", "--no-verify", "--no-compare", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["plan"]["sampling_rate"] == "1/20"
    assert "sampled with probability 1/20 in each of 50 rounds" in out["guarantee"]
    bad = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "10", "--horizon", "1000",
                              "--sampling", "poisson", "--q", "0.05", "--steps", "50"])
    assert bad.exit_code != 0
    assert "needs --q, --steps and --delta" in bad.output
    assert "Traceback" not in bad.output
