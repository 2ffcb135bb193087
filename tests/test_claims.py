"""The claims registry: framework behaviour, the reduced grid (all of paper 000's claims
evaluated exactly), and deliberately false claims being caught."""

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
    assert claims._status_le(mpmath.mpi(1, 2), 3) == HOLDS
    assert claims._status_le(mpmath.mpi(4, 5), 3) == FAILS
    assert claims._status_le(mpmath.mpi(2, 4), 3) == INCONCLUSIVE
