"""Verdicts a CI pipeline can trust: a plan's verdict answers the user's question.

* with a δ (``plan(..., delta=)``, ``privtools plan --delta``) rdp and cdp plans are calibrated
  so that the certified (ε, δ) of the PLD accountant meets the target, and "PLAN PASSES"
  means exactly that (the certified finding decides; the Rényi rows are info);
* without a δ, ε is Theorem 2's RDP / Theorem 4's CDP parameter: the output says so and
  gives the (ε, δ) it converts to;
* with returning users the composed per-user certificate decides, not the per-batch ε;
* ``verify_plan(p).passed`` and the command line's verdict are one decision.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privtools.accounting import DiscreteLaplaceEvent, PldAccountant, SkellamEvent
from privtools.certified import decide_le, ends
from privtools.cli import app
from privtools.errors import ParameterError
from privtools.planning import guarantee, plan, plan_certificate, show_up, with_parameters
from verification.plan_check import verify_plan

runner = CliRunner()
SMALL = dict(n=16, horizon=1000)


@functools.cache
def _plan(privacy: str, epsilon, n: int, delta, participations: int = 1):
    return plan(privacy=privacy, epsilon=epsilon, n=n, horizon=1000, delta=delta,
                participations=participations)


@functools.cache
def _check(privacy: str, epsilon, n: int, delta, participations: int = 1):
    return verify_plan(_plan(privacy, epsilon, n, delta, participations))


def _deciding(chk):
    """The privacy findings that decide (not info)."""
    return [f for f in chk.findings if f.name.startswith("privacy") and f.status != "info"]


# ------------------------------------------------------------------ calibrated to (ε, δ)
@pytest.mark.parametrize("privacy", ["rdp", "cdp"])
@pytest.mark.parametrize("delta", [1e-6, 1e-9])
@pytest.mark.parametrize("epsilon, n", [(1, 16), (Fraction(1, 2), 64), (2, 16)])
def test_a_delta_plan_is_certified_to_its_target_and_passes(privacy, delta, epsilon, n):
    p = _plan(privacy, epsilon, n, delta)
    assert p.delta == Fraction(delta) and p.epsilon == epsilon
    # the plan's certificate and the judge's recomputation: upper end <= ε, decided exactly
    assert decide_le(p.certified_epsilon, Fraction(epsilon)) is True
    chk = _check(privacy, epsilon, n, delta)
    assert chk.passed, chk.reasons
    assert decide_le(chk.certified_epsilon, Fraction(epsilon)) is True
    assert chk.certified_delta == pytest.approx(delta, rel=1e-12)
    assert ends(chk.certified_epsilon) == ends(p.certified_epsilon)  # the same certificate
    # the certified (ε, δ) is the one deciding privacy finding; the curve rows are info
    assert [f.name for f in _deciding(chk)] == ["privacy ((ε, δ)-DP)"]
    assert all(f.status == "info" for f in chk.findings if "curve" in f.name)
    assert chk.verdict.startswith("PLAN PASSES: each batch is ")
    assert f"({epsilon}, {delta:.3g})-DP for every user" in chk.verdict
    assert chk.guarantee.startswith("each batch is ")


def test_the_issue_example_plan_is_calibrated():
    p = _plan("rdp", 1, 16, 1e-6)
    assert p.epsilon_view == Fraction(1, 4)
    lo, hi = ends(p.certified_epsilon)
    assert 0.951 <= lo <= hi <= 0.9512


@pytest.mark.parametrize("privacy", ["rdp", "cdp", "pure-dp"])
def test_a_larger_user_g_fails_naming_the_privacy_finding(privacy):
    p = _plan(privacy, 1, 16, 1e-6)
    broken = with_parameters(p, g=2 * p.g)
    chk = verify_plan(broken)
    assert not chk.passed
    assert chk.reasons[0].startswith("privacy ((ε, δ)-DP): fails")
    assert decide_le(chk.certified_epsilon, 1) is False       # certified above the target
    assert chk.verdict.startswith("PLAN FAILS (privacy ((ε, δ)-DP) fails)")
    assert chk.guarantee.startswith("NOT CERTIFIED (privacy ((ε, δ)-DP) fails")


def test_verify_plans_delta_argument_does_not_move_the_target():
    p = _plan("rdp", 1, 16, 1e-6)
    chk = verify_plan(p, delta=Fraction(1, 1000))     # δ of the info conversions only
    assert chk.passed and chk.certified_delta == pytest.approx(1e-6, rel=1e-12)
    assert chk.dp_delta == pytest.approx(1e-3)


# ------------------------------------------------------------------ the paper's parameter
@pytest.mark.parametrize("privacy, theorem", [("rdp", "Theorem 2's RDP"),
                                              ("cdp", "Theorem 4's CDP")])
def test_without_delta_epsilon_is_the_papers_parameter_and_converts(privacy, theorem):
    p = plan(privacy=privacy, epsilon=1, **SMALL)
    chk = verify_plan(p)
    assert chk.passed
    assert [f.name for f in _deciding(chk)] == [f"privacy ({privacy.upper()})"]
    cert = plan_certificate(p)                          # δ = p = 1/T
    assert cert.delta == pytest.approx(1e-3)
    hi = ends(cert.interval)[1]
    assert hi > 1                                      # (1, δ)-DP it is not
    assert ends(chk.certified_epsilon) == ends(cert.interval)
    converted = f"({show_up(hi)}, 0.001)-DP"
    assert converted in chk.verdict and converted in chk.guarantee
    assert f"{theorem} parameter, not (1, δ)-DP" in chk.guarantee
    assert "not (1, δ)-DP: that is " + converted in chk.verdict
    assert "use --delta to calibrate" in chk.verdict


def test_without_delta_a_large_plan_converts_by_lemma_10():
    """Beyond PLD_CONVERSION_VAR the guarantee gives Lemma 10 of the certified curve (the
    table's (ε, δ) row), not an uncomputed PLD."""
    p = plan(privacy="rdp", epsilon=1, n=1024, horizon=10**6, s=20, tail="exact")
    chk = verify_plan(p)
    assert chk.passed and chk.certified_epsilon is None
    assert f"({show_up(chk.dp_epsilon)}, 1e-06)-DP (Lemma 10 of the certified curve)" \
        in chk.guarantee


def test_pure_dp_guarantee_is_exact():
    chk = verify_plan(plan(privacy="pure-dp", epsilon=1, **SMALL))
    assert chk.guarantee == "each batch's server view is 1-DP for every user (ε exact, Fact 2)"
    assert chk.verdict.startswith("PLAN PASSES: each batch's server view is 1-DP")


# ------------------------------------------------------------------ returning users
def test_participations_decide_by_the_composed_certificate():
    p = _plan("rdp", 1, 16, 1e-6, 4)
    chk = _check("rdp", 1, 16, 1e-6, 4)
    assert chk.passed
    deciding = _deciding(chk)
    assert [f.name for f in deciding] == ["privacy (per user, composed)"]
    # recomputed independently from the plan's own noise: 4 compositions of its batch view
    again = PldAccountant().compose(SkellamEvent(var=p.total_noise.variance,
                                                 sensitivity=p.g), count=4).epsilon(1e-6)
    assert ends(chk.certified_epsilon) == ends(again.interval)
    assert decide_le(again.interval, 1) is True
    assert "the whole run is (1, 1e-06)-DP for every user who joins up to 4 batches" \
        in chk.verdict


def test_per_batch_epsilon_no_longer_passes_a_broken_returning_plan():
    """Pure DP, 4 participations at δ = 0: with g doubled each batch is 1/2-DP — below the
    end-to-end ε = 1, which the old check compared it with — but the run is 2-DP."""
    p = plan(privacy="pure-dp", epsilon=1, participations=4, **SMALL)
    ok = verify_plan(p)
    assert ok.passed and _deciding(ok)[0].value == "ε = 1"
    broken = verify_plan(with_parameters(p, g=2 * p.g))
    assert not broken.passed
    assert broken.reasons[0].startswith("privacy (per user, composed): fails — ε = 2")


def test_pool_plan_certificate_leaves_room_for_the_profile_failure():
    p = plan(privacy="pure-dp", epsilon=1, delta=1e-6, n=64, horizon=10**4, pool=10**4)
    cert = plan_certificate(p)
    assert cert.delta == pytest.approx(float(p.delta - p.participation_failure), rel=1e-12)
    chk = verify_plan(p)
    assert chk.passed and "every member of a pool of 10000" in chk.guarantee
    assert [f.name for f in _deciding(chk)] == ["privacy (per user, composed)"]
    # recomputed independently over the plan's participation profile
    acc = PldAccountant()
    for j, c in p.participations:
        acc.compose(DiscreteLaplaceEvent(scale=p.total_noise.scale, sensitivity=j * p.g),
                    count=c)
    assert ends(acc.epsilon(p.delta - p.participation_failure).interval) == \
        ends(chk.certified_epsilon)


# ------------------------------------------------------------------ one decision, in words
@pytest.mark.parametrize("make", [
    lambda: plan(privacy="rdp", epsilon=1, **SMALL),
    lambda: with_parameters(plan(privacy="rdp", epsilon=1, **SMALL), g=8),
    lambda: with_parameters(plan(privacy="pure-dp", epsilon=1, **SMALL), tau=3),
    lambda: dataclasses.replace(_plan("cdp", 1, 16, 1e-6), g=3),
    lambda: _plan("rdp", 1, 16, 1e-9),
])
def test_passed_and_the_verdict_line_are_one_decision(make):
    chk = verify_plan(make())
    assert chk.verdict.startswith("PLAN PASSES: " if chk.passed else "PLAN FAILS")
    d = chk.to_dict()
    assert d["verdict"] == chk.verdict and d["guarantee"] == chk.guarantee
    json.dumps(d)


def _cli(*args):
    return runner.invoke(app, ["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000",
                               *args])


@pytest.mark.parametrize("args, named", [
    (["--privacy", "rdp"], "ε = 1 is Theorem 2's RDP parameter, not (1, δ)-DP"),
    (["--privacy", "cdp"], "ε = 1 is Theorem 4's CDP parameter, not (1, δ)-DP"),
    (["--privacy", "rdp", "--delta", "1e-6"], "each batch is (1, 1e-06)-DP for every user, "
                                              "certified by the PLD accountant"),
    (["--privacy", "pure-dp"], "each batch's server view is 1-DP for every user"),
    (["--privacy", "rdp", "--participations", "4", "--delta", "1e-6"],
     "the whole run is (1, 1e-06)-DP for every user who joins up to 4 batches"),
])
def test_command_line_first_line_names_the_guarantee(args, named):
    res = _cli(*args, "--no-compare")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].startswith("guarantee: ") and named in lines[0]
    verdict = next(x for x in lines if x.startswith("PLAN "))
    assert verdict.startswith("PLAN PASSES: ")
    out = json.loads(_cli(*args, "--no-compare", "--json").stdout)
    assert named in out["guarantee"] and out["verdict"] == verdict
    assert out["check"]["passed"] is True


def test_command_line_without_delta_names_the_converted_guarantee():
    res = _cli("--privacy", "rdp", "--no-compare")
    verdict = next(x for x in res.stdout.splitlines() if x.startswith("PLAN "))
    cert = plan_certificate(plan(privacy="rdp", epsilon=1, **SMALL))
    assert (f"PLAN PASSES: the batch view meets Theorem 2's RDP curve ε̂(α) for ε = 1 (not "
            f"(1, δ)-DP: that is ({show_up(ends(cert.interval)[1])}, 0.001)-DP") in verdict


def test_command_line_delta_calibrates_rdp_and_cdp_plans():
    for privacy in ("rdp", "cdp"):
        out = json.loads(_cli("--privacy", privacy, "--delta", "1e-6", "--json").stdout)
        assert out["plan"]["epsilon_view"] == str(_plan(privacy, 1, 16, Fraction(1, 10**6))
                                                  .epsilon_view)
        assert Fraction(out["plan"]["delta"]) == Fraction(1, 10**6)
        assert out["check"]["passed"] and out["verdict"].startswith("PLAN PASSES: each batch")
        assert out["check"]["findings"][0]["name"] == "privacy ((ε, δ)-DP)"
    # a user g above the calibrated one: exit 1, the certified finding named
    res = _cli("--privacy", "rdp", "--delta", "1e-6", "--g", "8", "--no-compare")
    assert res.exit_code == 1
    assert "PLAN FAILS (privacy ((ε, δ)-DP) fails)" in res.stdout
    # --no-verify: the planned guarantee, said to be unverified
    res = _cli("--privacy", "rdp", "--delta", "1e-6", "--no-verify", "--no-compare")
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0].startswith("guarantee: (planned, not verified) each "
                                                 "batch is (1, 1e-06)-DP")


def test_command_line_participations_decide_by_the_composed_certificate():
    out = json.loads(_cli("--privacy", "rdp", "--participations", "4", "--delta", "1e-6",
                          "--no-compare", "--json").stdout)
    deciding = [f for f in out["check"]["findings"]
                if f["name"].startswith("privacy") and f["status"] != "info"]
    assert [f["name"] for f in deciding] == ["privacy (per user, composed)"]
    assert deciding[0]["status"] == "holds"


# ------------------------------------------------------------------ pieces
@settings(max_examples=200)
@given(num=st.integers(1, 10**30), den=st.integers(1, 10**30),
       digits=st.integers(2, 8))
def test_show_up_never_prints_less_than_the_value(num, den, digits):
    q = Fraction(num, den)
    shown = Fraction(Decimal(show_up(q, digits)))
    assert q <= shown <= q * (1 + Fraction(1, 10 ** (digits - 1)))


def test_plan_certificate_and_guarantee_refuse_bad_input():
    with pytest.raises(ParameterError, match="plan"):
        plan_certificate("not a plan")
    with pytest.raises(ParameterError, match="plan"):
        guarantee(None)
    with pytest.raises(ParameterError, match="Theorem 3"):
        plan_certificate(plan(privacy="pure-dp", epsilon=1, secure="shuffle", **SMALL))
    with pytest.raises(ParameterError, match="delta"):
        plan_certificate(plan(privacy="rdp", epsilon=1, **SMALL), delta=0)
    with pytest.raises(ParameterError, match="delta"):
        plan_certificate(plan(privacy="rdp", epsilon=1, **SMALL), delta=1.5)
