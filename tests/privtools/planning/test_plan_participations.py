"""plan(..., delta=, participations=, pool=): returning users certified over the whole run."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import DiscreteLaplaceEvent, PldAccountant
from privtools.certified.intervals import ends
from privtools.certified.search import largest_true
from privtools.errors import ParameterError
from privtools.planning import batch_event, plan, pool_participations, theorem_params


def test_public_api_example():
    p = plan(privacy="pure-dp", epsilon=1, delta=1e-6, n=1024, horizon=10**6, participations=4)
    assert p.participations == ((1, 4),) and p.delta == Fraction(1e-6)
    lo, hi = ends(p.certified_epsilon)
    assert hi <= 1
    # recompute the certificate independently from the plan's own noise
    ev = DiscreteLaplaceEvent(scale=p.total_noise.scale, sensitivity=p.g)
    again = PldAccountant().compose(ev, count=4).epsilon(1e-6)
    assert again.epsilon <= 1 and abs(again.epsilon - float(hi)) < 1e-12


@pytest.mark.parametrize("k", [1, 2, 5])
def test_pure_dp_at_delta_zero_is_basic_composition(k):
    p = plan(privacy="pure-dp", epsilon=1, n=256, horizon=10**4, participations=k)
    assert p.epsilon_view == Fraction(1, k)
    assert p.epsilon == 1


def test_more_participations_never_mean_less_noise():
    views = [plan(privacy="pure-dp", epsilon=1, delta=1e-6, n=64, horizon=10**4,
                  participations=k).epsilon_view for k in (1, 2, 4, 8)]
    assert all(a >= b for a, b in zip(views, views[1:]))


def test_rdp_plan_is_certified_for_its_participations():
    p = plan(privacy="rdp", epsilon=1, delta=1e-6, n=64, horizon=10**4, participations=3)
    prm = theorem_params(2, p.epsilon_view, 64, p.p_noise, s=1)
    r = PldAccountant().compose(batch_event(prm), count=3).epsilon(1e-6)
    assert r.epsilon <= 1


def test_pool_profile_covers_its_failure_probability():
    profile, fail = pool_participations(10**5, 64, 10**5, Fraction(1, 10**7))
    assert fail <= Fraction(1, 10**7)
    assert all(j >= 1 and c >= 0 for j, c in profile)
    p = plan(privacy="pure-dp", epsilon=1, delta=1e-6, n=64, horizon=10**5, pool=10**5)
    assert p.participation_failure <= Fraction(1e-6) / 10
    assert ends(p.certified_epsilon)[1] <= 1


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ParameterError, match="participations"):
        plan(privacy="pure-dp", epsilon=1, n=64, horizon=100, participations=0)
    with pytest.raises(ParameterError, match="delta"):
        plan(privacy="rdp", epsilon=1, n=64, horizon=100, participations=2)
    with pytest.raises(ParameterError, match="delta"):
        plan(privacy="pure-dp", epsilon=1, n=64, horizon=100, delta=1.5, participations=2)
    with pytest.raises(ParameterError, match="pool"):
        plan(privacy="pure-dp", epsilon=1, n=64, horizon=100, pool=10)
    with pytest.raises(ParameterError, match="shuffle"):
        plan(privacy="pure-dp", epsilon=1, n=64, horizon=100, secure="shuffle",
             participations=2)
    with pytest.raises(ParameterError, match="pool"):
        pool_participations(0, 64, 100, Fraction(1, 100))


def test_command_line_plans_returning_users():
    import json

    from typer.testing import CliRunner

    from privtools.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "64", "--horizon", "10000",
                              "--participations", "3", "--delta", "1e-6", "--no-verify",
                              "--no-compare", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)["plan"]
    assert out["participations"] == [[1, 3]] and float(out["certified_epsilon"][1]) <= 1
    for args, name in ((["--pool", "100"], "--delta"), (["--participations", "0"],
                                                         "--participations")):
        res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "64", "--horizon", "10000",
                                  *args])
        assert res.exit_code == 2 and name in res.output and "Traceback" not in res.output


@settings(max_examples=60)
@given(threshold=st.integers(0, 300), start=st.integers(-5, 320), top=st.integers(1, 300))
def test_largest_true_finds_the_threshold_evaluating_each_point_once(threshold, start, top):
    calls = []

    def pred(j):
        calls.append(j)
        return j <= threshold

    got = largest_true(pred, start, top)
    assert got == (min(threshold, top) if threshold >= 1 else None)
    assert len(calls) == len(set(calls))
