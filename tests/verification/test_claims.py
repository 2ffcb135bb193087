"""The claims registry: framework behaviour, the reduced grid (all of paper 000's claims
evaluated exactly), and deliberately false claims being caught."""

from fractions import Fraction

import mpmath
import pytest

from verification import claims
from verification.claims import FAILS, HOLDS, INCONCLUSIVE, Claim, Row


def _claim(statuses):
    pts = tuple({"i": i} for i in range(len(statuses)))
    return Claim("fake", "test", "a statement",
                 lambda pt: Row(pt, statuses[pt["i"]], 1.0 + pt["i"]), pts, pts)


@pytest.mark.parametrize("statuses,expected", [
    ([HOLDS, HOLDS], HOLDS),
    ([HOLDS, INCONCLUSIVE], INCONCLUSIVE),
    ([INCONCLUSIVE, FAILS, HOLDS], FAILS),
])
def test_status_aggregation(statuses, expected, monkeypatch):
    fake = _claim(statuses)
    monkeypatch.setattr(claims, "all_claims", lambda: [fake])
    res = claims.check("fake")
    assert res.status == expected
    assert res.worst_slack == 1.0
    assert res.to_dict()["rows"][0]["params"] == {"i": "0"}


def test_registry_names_and_errors():
    names = [c.name for c in claims.all_claims()]
    assert len(names) == len(set(names))
    for required in ("fact1", "fact2", "prop1", "lemma3", "lemma4", "lemma5", "lemma10",
                     "theorem1", "theorem2", "theorem4", "theorem5", "theorem6"):
        assert required in names
    with pytest.raises(ValueError, match="unknown claim"):
        claims.get("lemma99")
    with pytest.raises(ValueError, match="grid"):
        claims.get("fact1").grid("huge")
    for c in claims.all_claims():
        assert c.reduced and c.full and c.source and c.statement


def test_interval_comparison_is_certified():
    from verification.verdicts import combine, status_le

    assert status_le(mpmath.mpi(1, 2), 3) == HOLDS
    assert status_le(mpmath.mpi(4, 5), 3) == FAILS
    assert status_le(mpmath.mpi(2, 4), 3) == INCONCLUSIVE
    assert status_le(mpmath.mpi(1, 2), mpmath.mpi(2, 9)) == HOLDS  # bound at its lower end
    assert status_le(mpmath.mpi(1, 2), mpmath.mpi("1.5", 9)) == INCONCLUSIVE
    assert status_le((None, mpmath.mpf(2)), 3) == HOLDS  # only an upper end known
    assert status_le((None, mpmath.mpf(4)), 3) == INCONCLUSIVE
    # an exact rational bound: 1/3 is not a binary float, and neither end may round past it
    third = mpmath.mpi("0.3333333333333333", "0.33333333333333337")
    assert status_le(third, Fraction(1, 3)) == INCONCLUSIVE
    assert combine([HOLDS, INCONCLUSIVE]) == INCONCLUSIVE
    assert combine([HOLDS, FAILS, INCONCLUSIVE]) == FAILS
    assert combine([HOLDS, HOLDS]) == HOLDS


def test_reduced_grid_outcomes():
    """Every claim evaluated exactly on the reduced grid, with the expected verdicts:
    the privacy theorems hold; the printed Theorem 2 bound does not follow from Lemma 3
    for ε < 1 (an algebra slip; the privacy claim itself still holds there); Lemma 4 on Z
    holds, with equality at n = 1 (ξ = 0) and certified by the two-sided D_α interval of
    ``gaussian_sum_renyi_curve`` for n >= 2."""
    results = {r.claim.name: r for r in claims.check_all("reduced")}
    for name in ("fact1", "fact2", "prop1", "lemma3", "lemma4", "lemma5", "lemma10",
                 "theorem1", "theorem2", "theorem4", "theorem5", "theorem6"):
        assert results[name].status == HOLDS, (name, [r.detail for r in results[name].rows])
    algebra = results["theorem2-algebra"]
    assert algebra.status == FAILS
    failing = [r.params for r in algebra.rows if r.status == FAILS]
    assert failing and all(mpmath.mpf(p["eps"]) < 1 for p in failing)
    assert all(r.slack >= 1 for r in results["lemma4"].rows)
    lemma3 = results["lemma3"]
    assert all(row.slack >= 1 for row in lemma3.rows)


def test_a_false_claim_is_caught_through_the_registry(monkeypatch):
    """Proposition 1 without its log term, evaluated by the same machinery, fails with a
    certified counterexample (σ² = 1, p down to 1e-30)."""
    from privtools.noise import Skellam
    from verification.tails import check_tail_bound, prop1_without_log

    def false_prop1(pt):
        var = pt["var"]
        chk = check_tail_bound(Skellam(var), prop1_without_log(var),
                               [mpmath.mpf(10) ** -e for e in (1, 10, 30)])
        return Row(pt, chk.status, None, str(chk.counterexample))

    fake = Claim("prop1-no-log", "test", "false variant", false_prop1, ({"var": 1},),
                 ({"var": 1},))
    monkeypatch.setattr(claims, "all_claims", lambda: [fake])
    res = claims.check("prop1-no-log")
    assert res.status == FAILS
    assert res.rows[0].detail != "None"  # a certified counterexample (p, t, exact tail)
