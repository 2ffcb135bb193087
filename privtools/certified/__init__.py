"""The certified floor: every directed rounding in privtools lives here.

* :mod:`~privtools.certified.balls` — Arb balls (python-flint): working precision,
  exact conversion of ints and Fractions, certified lower/upper ends as mpmath numbers.
* :mod:`~privtools.certified.intervals` — the one interval type of public results
  (``mpmath.mpi``), read and built without moving an end inward; ``Interval`` readers for
  balls, pairs and intervals alike; exact rationals of binary floats.
* :mod:`~privtools.certified.fixedpoint` — fixed-point masses (integers in units of
  2^-bits) divided by a power of two toward +∞ or −∞, in Python integers (python-flint's
  ``fmpz_poly // int`` does not floor a quotient in (−1, 0)).
* :mod:`~privtools.certified.search` — integer boundary search and the one certified
  threshold search (``certified_last_true``) that refines precision until decided.
"""

from .intervals import (
    Interval,
    decide_le,
    ends,
    exact_rational,
    fraction_bounds,
    from_ball,
    interval,
    lower,
    upper,
)
from .search import Undecided, certified_threshold, last_true

__all__ = [
    "Interval",
    "interval",
    "ends",
    "lower",
    "upper",
    "exact_rational",
    "fraction_bounds",
    "from_ball",
    "decide_le",
    "last_true",
    "certified_threshold",
    "Undecided",
]
