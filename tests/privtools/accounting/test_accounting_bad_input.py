"""Bad input to the accountants and events: every refusal names the parameter."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import privtools.accounting as A


# ============================================================================ bad inputs
@pytest.mark.parametrize("call,name", [
    (lambda: A.discrete_laplace_rdp(1, 2), "alpha"),
    (lambda: A.discrete_laplace_rdp(0.5, 2), "alpha"),
    (lambda: A.discrete_laplace_rdp(float("nan"), 2), "alpha"),
    (lambda: A.discrete_laplace_rdp(float("inf"), 2), "alpha"),
    (lambda: A.discrete_laplace_rdp([2, 1], 2), "alpha"),
    (lambda: A.discrete_laplace_rdp(2, 0), "scale"),
    (lambda: A.discrete_laplace_rdp(2, float("nan")), "scale"),
    (lambda: A.discrete_laplace_rdp(2, 1, 0), "sensitivity"),
    (lambda: A.discrete_laplace_rdp(2, 1, 1.5), "sensitivity"),
    (lambda: A.skellam_rdp_bound(2, -1, 1), "var"),
    (lambda: A.theorem2_rdp(2, -0.1, 1), "eps"),
    (lambda: A.theorem2_rdp(2, 0.1, 0), "s"),
    (lambda: A.theorem2_rdp(2, 0.1, 1, 0), "n"),
    (lambda: A.theorem2_rdp(2, 0.1, 1, form="typo"), "form"),
    (lambda: A.discrete_gaussian_sum_cdp(0, 1, 1), "n"),
    (lambda: A.gaussian_rdp(2, -1), "sigma"),
    (lambda: A.gaussian_rdp(2, 1, -1), "sensitivity"),
    (lambda: A.laplace_rdp(2, 0), "b"),
    (lambda: A.zcdp_rdp(2, -1), "rho"),
    (lambda: A.pure_dp_rdp(2, -0.1), "eps"),
    (lambda: A.pure_to_zcdp(float("nan")), "eps"),
    (lambda: A.rdp_to_dp({2: 1.0}, 0), "delta"),
    (lambda: A.rdp_to_dp({2: 1.0}, 1), "delta"),
    (lambda: A.rdp_to_dp({2: 1.0}, float("nan")), "delta"),
    (lambda: A.rdp_to_dp({1: 1.0}, 0.1), "orders"),
    (lambda: A.rdp_to_dp({2: float("nan")}, 0.1), "rdp"),
    (lambda: A.rdp_to_dp({2: -1.0}, 0.1), "rdp"),
    (lambda: A.rdp_to_dp({2: 1.0}, 0.1, orders=[3]), "orders"),
    (lambda: A.rdp_to_dp(lambda a: 1.0, 0.1, orders=[1.0]), "orders"),
    (lambda: A.rdp_to_dp({2: 1.0}, 0.1, method="cks"), "method"),
    (lambda: A.rdp_to_dp(3.0, 0.1), "rdp"),
    (lambda: A.rdp_to_delta({2: 1.0}, -1), "epsilon"),
    (lambda: A.zcdp_to_dp(-1, 0.1), "rho"),
    (lambda: A.zcdp_to_dp(1, 1.5), "delta"),
    (lambda: A.zcdp_to_dp(1, 0.1, method="mironov"), "method"),
    (lambda: A.cdp_to_dp(-1, 0.1), "epsilon"),
    (lambda: A.advanced_composition(0.1, 0, 0, 1e-6), "k"),
    (lambda: A.advanced_composition(0.1, 1, 2, 1e-6), "delta"),
    (lambda: A.advanced_composition(0.1, 0, 2, 0), "delta_prime"),
    (lambda: A.theorem7_per_mechanism_epsilon(1.5, 2, 1e-6), "eps_total"),
    (lambda: A.compose_rdp([A.GaussianEvent(1)], [-1]), "counts"),
    (lambda: A.compose_rdp([3], None), "curves_or_events"),
    (lambda: A.returning_users_rdp(A.GaussianEvent(1), 0), "participations"),
    (lambda: A.SkellamEvent(4, 1, bound="exact"), "bound"),
    (lambda: A.SkellamEvent(4, 1, exact=1), "exact"),
    (lambda: A.RepeatedEvent(A.GaussianEvent(1), -2), "count"),
    (lambda: A.ComposedEvent([A.GaussianEvent(1), 3]), "events"),
    (lambda: A.RdpAccountant(orders=[0.5]), "orders"),
    (lambda: A.RdpAccountant().compose("gauss"), "event"),
    (lambda: A.RdpAccountant().compose(A.GaussianEvent(1), count=-1), "count"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


def test_vectorized_and_rounded_up():
    out = A.gaussian_rdp(np.array([2, 3, 4]), 3)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    # 1/9 is not a float: the result is the float just above it
    v = A.gaussian_rdp(2, 3)
    assert Fraction(v) > Fraction(1, 9) > Fraction(math.nextafter(v, 0))


@pytest.mark.parametrize("eps", [1e30, 1e60, 1e120])
def test_cdp_conversion_at_huge_epsilon_is_finite_and_ordered(eps):
    """α − 1 ~ 1/ε must not collapse to 0 at the working precision: the Lemma 10 value lies
    between ½ε² (its α → 1 limit is above it) and the closed form."""
    tight = A.cdp_to_dp(eps, 1e-6).epsilon
    closed = A.cdp_to_dp(eps, 1e-6, method="lemma10_closed").epsilon
    assert math.isfinite(tight) and eps * eps / 2 <= tight <= closed
