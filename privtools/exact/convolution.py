"""Exact PMF of the sum of n i.i.d. noise shares — the total noise the analyzer sees.

Closed forms are used where the papers give them (and the symbolic checks in
``verification.proofs`` prove them):

* Pólya-difference shares with n·r = 1 sum to Lap_Z(b) (Fact 1 (000)); otherwise to the
  Pólya difference with r' = n·r;
* Skellam shares sum to Skellam (000 §5, closure under sums);
* Pólya shares sum to Pólya with r' = n·r.

Everything else (discrete Gaussian shares, Theorem 4; discrete Laplace shares of the local
model, Theorem 6) is convolved: n-fold by binary powering, each product one Arb polynomial
multiplication (FLINT), so every coefficient is a certified ball. ``method="convolve"``
forces convolution for any share — e.g. to check Fact 1 independently of its closed form.

Certified outside mass: if the share is tabulated with outside mass δ and products are
trimmed of mass θ, the sum's unaccounted mass is at most n·δ + θ (a union bound over the
truncated summands).
"""

from __future__ import annotations

import math

import mpmath
from flint import arb, arb_poly

from privtools.certified import balls as _arb
from privtools.certified.rounding import add_up
from privtools.errors import ParameterError
from privtools.exact.pmf import ExactPMF, _certified_balls, _check_tail
from privtools.noise import DiscreteLaplace, IntegerDistribution, PolyaDifference
from privtools.proven import proven
from privtools.validation import check_dps, check_int

__all__ = ["sum_pmf", "convolve", "closed_form_sum"]

_METHODS = ("auto", "closed-form", "convolve")


@proven("fact1_infinite_divisibility", "skellam_closure", "polya_pgf")
def closed_form_sum(share: IntegerDistribution, n: int) -> IntegerDistribution | None:
    """The law of the n-fold sum when the share's law states a closed form
    (``share.sum_of(n)``: Skellam closure, Pólya closure), else None. A Pólya difference with
    r = 1 and a scale is named Lap_Z(b) (Fact 1 (000)), so that its closed forms apply; the
    two noise modules do not import each other, so the identification is made here."""
    closed = share.sum_of(check_int("n", n, minimum=1))
    if isinstance(closed, PolyaDifference) and closed.r == 1 and closed.scale is not None:
        return DiscreteLaplace(closed.scale)
    return closed


def sum_pmf(share: IntegerDistribution, n: int, dps: int = 50, tail=None,
            method: str = "auto") -> ExactPMF:
    """Certified PMF of the sum of ``n`` i.i.d. copies of ``share``.

    ``dps``: significant digits of every tabulated value. ``tail``: bound on the mass
    left unaccounted outside the returned range (default ``10**-dps``). ``method``:
    ``"auto"`` (closed form when one exists), ``"closed-form"`` (error if none) or
    ``"convolve"``.
    """
    if not isinstance(share, IntegerDistribution):
        raise ParameterError("share must be a privtools.noise distribution, got "
                             f"{type(share).__name__}")
    n = check_int("n", n, minimum=1)
    dps = check_dps(dps)
    tail = _check_tail(tail, dps)
    if method not in _METHODS:
        raise ParameterError(f"method must be one of {_METHODS}, got {method!r}")
    closed = closed_form_sum(share, n) if method != "convolve" else None
    if method == "closed-form" and closed is None:
        raise ParameterError(f"no closed form for sums of {type(share).__name__}; use 'convolve'")
    if closed is not None:
        out = ExactPMF.from_distribution(closed, dps=dps, tail=tail)
        return _relabel(out, f"sum of {n} x {share!r} = {closed!r}")
    if n == 1:
        return ExactPMF.from_distribution(share, dps=dps, tail=tail)

    # Budget: half of `tail` for truncating the n shares, half for trimming products.
    steps = 2 * max(1, n.bit_length())
    share_tail = tail / (2 * n)
    trim_tail = tail / (2 * steps)
    base = ExactPMF.from_distribution(share, dps=dps, tail=share_tail)
    guard = _arb.GUARD_BITS + 4 * steps + int(math.log2(max(2, len(base)))) * 2

    def compute(prec: int) -> list[arb]:
        nonlocal result
        result = _power(base, n, prec, trim_tail)
        return list(result.balls)

    result: ExactPMF | None = None
    _certified_balls(compute, dps, guard=guard)
    assert result is not None
    return _relabel(result, f"sum of {n} x {share!r} (convolved)")


def convolve(P: ExactPMF, Q: ExactPMF, prec: int | None = None, trim=0) -> ExactPMF:
    """Certified law of X + Y for independent X ~ P, Y ~ Q (both on Z).

    ``trim``: mass that may be cut from the two ends of the result (added, as a certified
    upper bound, to the unaccounted mass).
    """
    if P.modulus is not None or Q.modulus is not None:
        raise ParameterError("convolve works on PMFs over Z; wrap after summing")
    dps = min(P.dps, Q.dps)
    if prec is None:
        prec = _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS
    with _arb.precision(prec):
        coeffs = (arb_poly(list(P.balls)) * arb_poly(list(Q.balls))).coeffs()
        lo = P.lo + Q.lo
        # arb_poly drops trailing exact zeros; keep the full length.
        coeffs = list(coeffs) + [arb(0)] * (len(P) + len(Q) - 1 - len(coeffs))
        unaccounted = add_up(P.unaccounted, Q.unaccounted)
        lo, coeffs, cut = _trim(lo, coeffs, mpmath.mpf(trim))
        unaccounted = add_up(unaccounted, cut)
    return ExactPMF(lo, tuple(coeffs), unaccounted, dps, label=f"({P.label}) * ({Q.label})")


# ------------------------------------------------------------------------ helpers
def _power(base: ExactPMF, n: int, prec: int, trim_tail) -> ExactPMF:
    result: ExactPMF | None = None
    square = base
    while True:
        if n & 1:
            result = square if result is None else convolve(result, square, prec, trim_tail)
        n >>= 1
        if not n:
            return result
        square = convolve(square, square, prec, trim_tail)


def _trim(lo: int, coeffs: list[arb], budget: mpmath.mpf):
    """Cut small end entries whose certified upper bounds sum to at most ``budget``
    (half from each end). Returns (lo, coeffs, certified mass cut).

    Prefix sums of the balls' upper endpoints are taken in Arb (ball arithmetic keeps them
    rigorous) and compared with the budget as an Arb value."""
    if budget <= 0 or len(coeffs) <= 2:
        return lo, coeffs, mpmath.mpf(0)
    half = arb(mpmath.nstr(budget / 2, 30, min_fixed=1, max_fixed=0))
    half = arb(half.lower())  # a representable value not above budget/2

    def count(seq) -> tuple[int, arb]:
        acc, n = arb(0), 0
        for c in seq:
            nxt = acc + c.upper()
            if not nxt <= half:
                break
            acc, n = nxt, n + 1
        return n, acc

    i, cut_left = count(coeffs[: len(coeffs) - 1])
    j_count, cut_right = count(reversed(coeffs[i + 1:]))
    j = len(coeffs) - j_count
    return lo + i, coeffs[i:j], _arb.upper_mpf(cut_left + cut_right)


def _relabel(P: ExactPMF, label: str) -> ExactPMF:
    return ExactPMF(P.lo, P.balls, P.unaccounted, P.dps, P.modulus, label=label)
