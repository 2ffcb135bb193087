"""Deprecated alias of :mod:`privtools.exact.divergence` (the exact engine has one import
path)."""

import warnings

from privtools.exact.divergence import (
    delta_curve,
    discrete_gaussian_shift_renyi,
    discrete_laplace_hockey_stick,
    discrete_laplace_renyi,
    endpoints,
    epsilon_for_delta,
    gaussian_sum_hockey_stick,
    gaussian_sum_renyi,
    gaussian_sum_renyi_curve,
    hockey_stick,
    hockey_stick_float,
    hockey_stick_shift,
    llr,
    renyi,
    renyi_float,
    renyi_shift,
    renyi_shift_curve,
)

warnings.warn("verification.divergence is privtools.exact.divergence: import it from there",
              DeprecationWarning, stacklevel=2)

__all__ = ["renyi", "llr", "hockey_stick", "delta_curve", "epsilon_for_delta", "renyi_shift",
           "renyi_shift_curve", "hockey_stick_shift", "renyi_float", "hockey_stick_float",
           "discrete_laplace_renyi", "discrete_laplace_hockey_stick", "endpoints",
           "discrete_gaussian_shift_renyi", "gaussian_sum_renyi", "gaussian_sum_renyi_curve",
           "gaussian_sum_hockey_stick"]
