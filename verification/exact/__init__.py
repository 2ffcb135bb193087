"""Certified exact PMFs of the summed noise, the mechanism shift and the modular wrap.

The verification path mirrors the protocol's data flow (DESIGN.md): share → n-fold sum →
shift by the sensitivity → wrap mod m → divergence between the two views.

    P = sum_pmf(share, n, dps=50)     # certified PMF of the total noise
    shift(P, g); wrap(P, m)           # output for query value g; the server's mod-m view
    total_variation(P, Q)             # certified interval
"""

from .convolution import closed_form_sum, convolve, sum_pmf
from .pmf import ExactPMF, shift, total_variation, wrap

__all__ = [
    "ExactPMF",
    "sum_pmf",
    "convolve",
    "closed_form_sum",
    "shift",
    "wrap",
    "total_variation",
]
