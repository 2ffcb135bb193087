"""Tests for verification.proofs: every identity is proved by sympy, and
deliberately false variants fed down the same code path are rejected."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from verification import proofs as sym
from verification.proofs import SymbolicCheck

CHECK_FUNCTIONS = [
    sym.polya_pgf,
    sym.fact1_infinite_divisibility,
    sym.skellam_closure,
    sym.fact2_tail,
    sym.polya_difference_recurrence,
    sym.skellam_bessel_recurrence,
]


@pytest.fixture(scope="module")
def checks() -> list[SymbolicCheck]:
    return sym.all_checks()  # (timed in benchmarks/bench_proofs.py)


def test_all_checks_hold(checks):
    failed = [(c.name, c.detail) for c in checks if not c.holds]
    assert not failed, failed


def test_all_checks_shape(checks):
    assert len(checks) == len(CHECK_FUNCTIONS)
    names = [c.name for c in checks]
    assert len(set(names)) == len(names)
    assert "fact1" in names and "fact2" in names
    for c in checks:
        assert isinstance(c, SymbolicCheck)
        assert c.name and c.source and c.statement and c.detail
        assert "\n" not in c.statement
        assert isinstance(c.holds, bool)
    by_name = {c.name: c for c in checks}
    assert "(000)" in by_name["fact1"].source and "Fact 1" in by_name["fact1"].source
    assert "Fact 2" in by_name["fact2"].source


def test_symbolic_check_is_frozen(checks):
    with pytest.raises(dataclasses.FrozenInstanceError):
        checks[0].holds = False  # type: ignore[misc]


def test_fact1_residual_reported_zero(checks):
    fact1 = next(c for c in checks if c.name == "fact1")
    assert "simplify(difference) = 0" in fact1.detail


# ---------------------------------------------------------------- false statements


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [
        # Pólya PGF with exponent 2r instead of r
        (sym.polya_pgf, {"exponent": 2 * sp.Symbol("r", positive=True)}),
        # Fact 1 with Pólya(2/n, .) shares
        (sym.fact1_infinite_divisibility, {"share_r": lambda n: 2 / n}),
        # Fact 1 with Pólya(1/(n+1), .) shares
        (sym.fact1_infinite_divisibility, {"share_r": lambda n: 1 / (n + 1)}),
        # Skellam sum with variances combined as standard deviations
        (sym.skellam_closure, {"sum_variance": lambda v1, v2: (sp.sqrt(v1) + sp.sqrt(v2)) ** 2}),
        # Fact 2 with denominator e^{eps/Delta} - 1
        (sym.fact2_tail, {"denominator": lambda u: u - 1}),
        # Pólya-difference recurrence with (1 + beta)^2 in place of 1 + beta^2
        (sym.polya_difference_recurrence, {"mid_coefficient": lambda b: (1 + b) ** 2}),
        # Bessel recurrence with n/x in place of 2n/x
        (sym.skellam_bessel_recurrence, {"factor": lambda n, x: n / x}),
    ],
    ids=[
        "polya-exponent-2r",
        "fact1-polya-2-over-n",
        "fact1-polya-1-over-n+1",
        "skellam-sd-sum",
        "fact2-denominator-minus-1",
        "polya-diff-(1+b)^2",
        "bessel-n-over-x",
    ],
)
def test_false_variant_is_caught(fn, kwargs):
    res = fn(**kwargs)
    assert isinstance(res, SymbolicCheck)
    assert res.holds is False, res.detail
    assert not res.detail.startswith("sympy failed"), res.detail


def test_defaults_equal_explicit_true_overrides():
    """Passing the true statement through an override still proves it, so the
    false-variant tests exercise the same code path as the real checks."""
    assert sym.polya_pgf(exponent=sp.Symbol("r", positive=True)).holds
    assert sym.fact1_infinite_divisibility(share_r=lambda n: 1 / n).holds
    assert sym.fact2_tail(denominator=lambda u: u + 1).holds
    assert sym.polya_difference_recurrence(mid_coefficient=lambda b: 1 + b**2).holds
    assert sym.skellam_bessel_recurrence(factor=lambda n, x: 2 * n / x).holds
    assert sym.skellam_closure(sum_variance=lambda v1, v2: v1 + v2).holds


def test_false_fact2_detail_has_nonzero_residual():
    res = sym.fact2_tail(denominator=lambda u: u - 1)
    assert not res.holds
    assert "minus claim = 0." not in res.detail


def test_failure_does_not_raise():
    # An override that makes sympy choke still gives holds=False rather than an exception.
    def boom(n):
        raise ValueError("synthetic failure")

    res = sym.fact1_infinite_divisibility(share_r=boom)
    assert res.holds is False
    assert "synthetic failure" in res.detail
