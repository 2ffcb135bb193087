"""The exact engine: certified answers about noise laws, beneath planning, accounting and the
judge.

The verification path mirrors the protocol's data flow: share → n-fold sum →
shift by the sensitivity → wrap mod m → divergence between the two views.

    P = sum_pmf(share, n, dps=50)     # certified PMF of the total noise (ExactPMF)
    shift(P, g); wrap(P, m)           # output for query value g; the server's mod-m view
    total_variation(P, Q)             # certified Interval
    exact_tail(X, t); exact_quantile(X, p); total_noise_tail(N, t); exact_tau(N, p)
    divergence.renyi(P, Q, alpha); divergence.renyi_shift(law, g, alpha, m=...)

Modules: :mod:`~privtools.exact.pmf` (ExactPMF, shift, wrap, TV),
:mod:`~privtools.exact.convolution` (sums of shares), :mod:`~privtools.exact.tails` (the one
tail and quantile engine: PMF window, closed forms, Fourier n-fold) and
:mod:`~privtools.exact.divergence` (three engines: ExactPMF pairs, shifted laws tabulated,
and float cross-checks). Every public result is an Interval
(:data:`privtools.certified.Interval`) or an exact integer.
"""

from . import divergence
from .convolution import closed_form_sum, convolve, sum_pmf
from .pmf import ExactPMF, shift, total_variation, wrap
from .tails import ExactTau, exact_quantile, exact_tail, exact_tau, total_noise_tail

__all__ = [
    "ExactPMF",
    "sum_pmf",
    "convolve",
    "closed_form_sum",
    "shift",
    "wrap",
    "total_variation",
    "exact_tail",
    "exact_quantile",
    "total_noise_tail",
    "exact_tau",
    "ExactTau",
    "divergence",
]
