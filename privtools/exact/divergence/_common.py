"""Validation, x^α y^{1−α} and the pair tables shared by the divergence engines (the
interval kit they use is :mod:`privtools.certified`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.balls import exact_min as _amin
from privtools.certified.balls import exact_nonneg as _nonneg
from privtools.certified.balls import from_mpf as _mpf_to_arb
from privtools.certified.balls import lower_end as _lo
from privtools.certified.balls import upper_end as _hi
from privtools.certified.balls import working_bits as _bits
from privtools.errors import ParameterError
from privtools.exact.pmf import ExactPMF
from privtools.noise import IntegerDistribution
from privtools.validation import check_int

_LN10 = math.log(10.0)
_INF = mpmath.inf


# =========================================================================== validation
def _check_pmf(name: str, P) -> None:
    if not isinstance(P, ExactPMF):
        raise ParameterError(f"{name} must be an ExactPMF, got {type(P).__name__}")


def _check_pair(P, Q) -> None:
    _check_pmf("P", P)
    _check_pmf("Q", Q)
    if P.modulus != Q.modulus:
        raise ParameterError(
            f"P and Q must live on the same space: P.modulus={P.modulus}, Q.modulus={Q.modulus}"
        )


def _check_noise(noise) -> None:
    if not isinstance(noise, (IntegerDistribution, ExactPMF)):
        raise ParameterError(
            "noise must be a privtools.noise distribution or an ExactPMF, got "
            f"{type(noise).__name__}"
        )


def _check_modulus(m):
    if m is None:
        return None
    return check_int("m", m, minimum=2)


# =========================================================================== x^α y^{1−α}
# The interval kit is privtools.certified (balls: exact ends of Arb balls, working bits;
# intervals: building and reading mpmath.mpi); only the divergences' own formula is here.


def _pow_pair(x: arb, y: arb, alpha: Fraction, alpha_arb: arb):
    """x^α y^{1−α} for x, y >= 0 (exact or balls); None when it is +inf (y = 0 < x)."""
    if x.is_zero():
        return arb(0)
    if not y > 0:
        return None
    if alpha.denominator == 1:
        n = int(alpha)
        return x**n / y ** (n - 1)
    return (alpha_arb * x.log() - (alpha_arb - 1) * y.log()).exp()


# =========================================================================== pair tables
def _effective_unaccounted(P: ExactPMF) -> arb:
    """Exact upper bound on the unaccounted mass: min(u_P, 1 − Σ A)."""
    u = _hi(_mpf_to_arb(P.unaccounted))
    alt = _hi(1 - P.mass())
    return _nonneg(_amin(u, alt))


@dataclass
class _Pair:
    """Exact endpoints of the accounted masses of P and Q on the union of their ranges."""

    wrapped: bool
    ks: range
    inP: list[bool]
    inQ: list[bool]
    la: list[arb]
    ua: list[arb]
    lb: list[arb]
    ub: list[arb]
    uP: arb
    uQ: arb
    bits: int


def _pair(P: ExactPMF, Q: ExactPMF, extra_bits: int = 0) -> _Pair:
    lo, hi = min(P.lo, Q.lo), max(P.hi, Q.hi)
    n = hi - lo + 1
    bits = _bits(max(P.dps, Q.dps), extra_bits + max(1, n).bit_length())
    zero = arb(0)

    def ends(R: ExactPMF) -> tuple[list[bool], list[arb], list[arb]]:
        """For k = lo..hi: tabulated?, and the non-negative lower/upper ends of R's ball."""
        inside, lower, upper = [], [], []
        for k in range(lo, hi + 1):
            tab = R.lo <= k <= R.hi
            inside.append(tab)
            b = R.balls[k - R.lo] if tab else None
            lower.append(_nonneg(_lo(b)) if tab else zero)
            upper.append(_nonneg(_hi(b)) if tab else zero)
        return inside, lower, upper

    with _arb.precision(bits):
        inP, la, ua = ends(P)
        inQ, lb, ub = ends(Q)
        uP = _effective_unaccounted(P)
        uQ = _effective_unaccounted(Q)
    return _Pair(wrapped=P.modulus is not None, ks=range(lo, hi + 1), inP=inP, inQ=inQ, la=la,
                 ua=ua, lb=lb, ub=ub, uP=uP, uQ=uQ, bits=bits)
