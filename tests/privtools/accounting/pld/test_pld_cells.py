"""Both ends of the certified PLD are second order in the grid step: the lower end merges
cells onto the grid (a post-processing of the release) instead of rounding losses down."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from flint import arb

from privtools import accounting as A
from privtools.certified import balls as _arb
from privtools.certified.intervals import ends
from privtools.exact import ExactPMF, shift
from privtools.noise import Skellam


def _exact_skellam_delta(var, eps) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified ends of Σ_x (P(x) − e^ε P(x − 1))_+ for Sk(0, var), from its certified PMF:
    the mass outside the window may sit at any point, so it widens both ends."""
    P = ExactPMF.from_distribution(Skellam(var), dps=40, tail=Fraction(1, 10**40))
    Q = shift(P, 1)
    with _arb.precision(256):
        e = _arb.to_arb(Fraction(eps)).exp()
        u = _arb.from_mpf(P.unaccounted)           # the window's missing mass may sit anywhere
        lo = hi = arb(0)
        for x in range(P.lo, Q.hi + 1):
            d_lo = (P.ball(x) - e * (Q.ball(x) + u)).lower()
            d_hi = (P.ball(x) + u - e * Q.ball(x)).upper()
            lo += arb(d_lo) if d_lo > 0 else arb(0)                # sums in balls: no
            hi += arb(d_hi) if d_hi > 0 else arb(0)                # rounding of our own
        hi += 2 * u
        return _arb.lower_mpf(lo), _arb.upper_mpf(hi)


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 100), Fraction(1, 20)])
def test_one_skellam_release_brackets_its_exact_delta_tightly(eps):
    lo_x, hi_x = _exact_skellam_delta(100, eps)
    lo, hi = ends(A.PldAccountant().compose(A.SkellamEvent(var=100, sensitivity=1))
                  .delta(eps).interval)
    assert lo <= hi_x and lo_x <= hi
    assert hi - lo <= mpmath.mpf(10) ** -4 * hi_x


def test_halving_the_step_quarters_the_width():
    """Second order on both ends where the cells are finer than the step: the subsampled
    Gaussian (q = 1/10, σ = 1), k = 100, at steps 2⁻⁸ and 2⁻⁹."""
    ev = A.PoissonSampledEvent(A.GaussianEvent(sigma=1), q=Fraction(1, 10))
    widths = []
    for h in (Fraction(1, 2**8), Fraction(1, 2**9)):
        acc = A.PldAccountant(step=h, neighbouring="add-remove")
        lo, hi = ends(acc.compose(ev, 100).epsilon(1e-6).interval)
        widths.append(hi - lo)
    assert widths[1] <= widths[0] / 3


def test_sparse_atoms_keep_the_upper_end_second_order():
    """Sk(0, 100): its atoms are about 0.01 apart in loss, sparser than the step, so the
    swept lower end is first order (with a constant of the atoms' spacing); the upper end
    still converges at second order."""
    his = []
    for e in (8, 9, 10):
        r = A.PldAccountant(step=Fraction(1, 2**e)).compose(
            A.SkellamEvent(var=100, sensitivity=1), 100).epsilon(1e-6)
        his.append(ends(r.interval)[1])
    assert his[1] - his[2] <= (his[0] - his[1]) / 3


def test_a_lattice_on_a_coarser_grid_keeps_a_narrow_interval():
    """N_Z(0, 100²), Δ = 10, k = 10⁴: the lattice no longer fits the grid; the interval stays
    within 10⁻⁴ relative (the lower end rounded down gave 5e-2)."""
    r = A.PldAccountant().compose(A.DiscreteGaussianSumEvent(1, 10**4, 10), 10**4).epsilon(1e-6)
    assert r.relative_width <= 1e-4


def test_gaussian_ledgers_are_answered_in_closed_form():
    acc = A.PldAccountant().compose(A.GaussianEvent(sigma=2), 300).compose(
        A.GaussianEvent(sigma=1, sensitivity=Fraction(1, 2)), 700)
    mu2 = Fraction(300, 4) + Fraction(700, 4)
    assert acc.epsilon(1e-6).interval == mpmath.mpi(*A.gaussian_epsilon(mu2, Fraction(1e-6)))
    lo, hi = ends(acc.delta(1).interval)
    with mpmath.workdps(60):
        mu = mpmath.sqrt(mu2)
        exact = mpmath.ncdf(mu / 2 - 1 / mu) - mpmath.e * mpmath.ncdf(-mu / 2 - 1 / mu)
    assert lo <= exact <= hi


def test_a_cell_whose_loss_ball_is_not_finite_is_placed_at_its_lower_bound_or_dropped():
    """The lower grid (a lower bound on δ) may move P-mass only to smaller losses: a cell whose
    merged loss log(P/Q) is no finite ball goes to the grid point at or below its stated lower
    loss, or — with no stated lower loss — is dropped (δ only falls). Regression: such a cell
    crashed the calibration of a plan with returning users (``studies/
    regret_vs_participations.py``)."""
    from privtools.accounting.pld import cells as C

    g = C._Grid(Fraction(1, 8))
    out, buckets = {}, {}
    C._place_lower(g, buckets, out, arb("inf"), arb(1), Fraction(3, 10), None)
    assert list(out) == [2] and not buckets          # ⌊0.3 / (1/8)⌋ = 2
    out.clear()
    C._place_lower(g, buckets, out, arb("inf"), arb(1), None, None)
    assert out == {} and buckets == {}
