"""Fixed-point masses rounded by a power of two: exact oracles in Fractions.

Properties: ``shift`` is the floor (``down``) and the ceiling (``up``) of x / 2^bits for
every sign; ``floor_masses`` floors non-negative coefficients inside FLINT and returns the
exact total remainder, ``ceil_masses`` rounds each up (a zero stays zero), so a positive
coefficient below 2^bits rounds up to 1 — the quotient-in-(−1, 0) truncation that once
dropped the accountant's smallest upper-end masses is a kept regression case; bad arguments
are refused by name.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from flint import fmpz_poly
from hypothesis import given
from hypothesis import strategies as st

from privtools.certified.fixedpoint import ceil_masses, floor_masses, shift
from privtools.errors import ParameterError

_ints = st.integers(-(2**600), 2**600)
_bits = st.integers(0, 300)


@given(x=_ints, bits=_bits)
def test_shift_is_the_floor_and_the_ceiling(x, bits):
    q = Fraction(x, 2**bits)
    assert shift(x, bits, "down") == math.floor(q)
    assert shift(x, bits, "up") == math.ceil(q)


def test_the_flint_quotient_that_motivates_the_helpers():
    """python-flint leaves a quotient in (−1, 0) at 0: the ceiling −((−p) // d) drops a
    positive coefficient below d (the accountant's upper end once lost such masses);
    ceil_masses keeps it as one unit."""
    p = fmpz_poly([1, 3, 2**256 - 1])
    assert -((-p) // 2**256) == fmpz_poly([0, 0, 0])       # the trap, kept as a witness
    assert ceil_masses(p, 256) == fmpz_poly([1, 1, 1])


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ParameterError, match="direction"):
        shift(3, 2, "nearest")
    with pytest.raises(ParameterError, match="bits"):
        floor_masses(fmpz_poly([1]), -1)


@given(xs=st.lists(st.integers(0, 2**600), min_size=1, max_size=30), bits=_bits)
def test_floor_masses_floors_and_returns_the_remainder(xs, bits):
    q, rem = floor_masses(fmpz_poly(xs), bits)
    assert q == fmpz_poly([x >> bits for x in xs])
    assert rem == sum(x % 2**bits for x in xs)


def test_floor_masses_below_one_unit_leave_all_in_the_remainder():
    p = fmpz_poly([1, 3, 2**256 - 1, 0, 2**256, 2**256 + 1])
    q, rem = floor_masses(p, 256)
    assert q == fmpz_poly([0, 0, 0, 0, 1, 1])
    assert rem == 1 + 3 + 2**256 - 1 + 1


@given(xs=st.lists(st.integers(0, 2**600), min_size=1, max_size=30), bits=_bits)
def test_ceil_masses_is_the_ceiling_of_every_coefficient(xs, bits):
    assert ceil_masses(fmpz_poly(xs), bits) == fmpz_poly([-((-x) >> bits) for x in xs])


def test_ceil_masses_below_one_unit_round_up_to_one_unit():
    p = fmpz_poly([1, 3, 2**256 - 1, 0, 2**256, 2**256 + 1])
    assert ceil_masses(p, 256) == fmpz_poly([1, 1, 1, 0, 1, 2])
