"""Exact parameter choices of paper 000's theorems (privtools.planning.theorem_params)."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.noise import DiscreteGaussian, DiscreteLaplace, PolyaDifference, Skellam
from privtools.planning import ceil_sqrt, theorem_params


@given(num=st.integers(0, 10**12), den=st.integers(1, 10**6))
def test_ceil_sqrt_is_exact(num, den):
    q = Fraction(num, den)
    g = ceil_sqrt(q)
    assert g * g >= q and (g == 0 or (g - 1) ** 2 < q)


@given(eps=st.sampled_from(["0.1", "0.5", "1", "2.5"]), logn=st.integers(0, 20),
       s=st.sampled_from(["1", "10", "100"]))
def test_theorem_parameters_follow_the_formulas(eps, logn, s):
    n, e, sf = 2**logn, Fraction(eps), Fraction(s)
    p = Fraction(1, 10**6)
    with mpmath.workdps(50):
        L = mpmath.log(2 / mpmath.mpf(p.numerator) * p.denominator)
        ee = mpmath.mpf(e.numerator) / e.denominator
        t1 = theorem_params(1, eps, n, p)
        assert t1.g == math.ceil(e * mpmath.sqrt(n) - mpmath.mpf(10) ** -30)
        assert t1.tau == int(mpmath.ceil(t1.g / ee * L))
        assert t1.m == n * t1.g + 2 * t1.tau + 1
        assert t1.noise == DiscreteLaplace(Fraction(t1.g) / e)
        assert t1.share == PolyaDifference(Fraction(1, n), scale=Fraction(t1.g) / e)
        t2 = theorem_params(2, eps, n, p, s=s)
        assert t2.g == math.ceil(sf * e * mpmath.sqrt(n) - mpmath.mpf(10) ** -30)
        assert t2.tau == int(mpmath.ceil(2 * t2.g / ee * mpmath.sqrt(L) + mpmath.sqrt(2) * L))
        assert t2.share == Skellam(Fraction(t2.g**2, n) / e**2)
        assert t2.noise == Skellam(Fraction(t2.g**2) / e**2)
        t4 = theorem_params(4, eps, n, p, s=s)
        assert t4.tau == int(mpmath.ceil(t4.g / ee * mpmath.sqrt(2 * L)))
        assert t4.share == DiscreteGaussian(sigma2=Fraction(t4.g**2, n) / e**2)
        assert t4.bits == math.ceil(math.log2(t4.m))


def test_perfect_squares_give_exact_g():
    assert theorem_params(1, "1", 1024, "1e-6").g == 32
    assert theorem_params(2, "1", 1024, "1e-6", s=10).g == 320
    assert theorem_params(1, "0.5", 2**20, "1e-6").g == 512


def test_theorem6_needs_c_and_central_has_no_share():
    with pytest.raises(ValueError, match="c"):
        theorem_params(6, "1", 16, "1e-6")
    t6 = theorem_params(6, "1", 16, "1e-6", c=1)
    assert t6.share == t6.noise == DiscreteLaplace(Fraction(t6.g))
    assert theorem_params(5, "1", 16, "1e-6").share is None


@pytest.mark.parametrize("kwargs,name", [
    ({"theorem": 7}, "theorem"), ({"epsilon": 0}, "epsilon"), ({"epsilon": "nan"}, "epsilon"),
    ({"n": 0}, "n"), ({"p": 1}, "p"), ({"p": 0}, "p"), ({"s": "0.5"}, "s"),
])
def test_bad_input(kwargs, name):
    args = {"theorem": 2, "epsilon": "1", "n": 16, "p": "1e-6", "s": 1} | kwargs
    with pytest.raises(ValueError, match=name):
        theorem_params(args.pop("theorem"), args.pop("epsilon"), args.pop("n"), args.pop("p"),
                       **args)
