"""Certified divergences between the two views of a mechanism.

Every public function returns an ``mpmath.mpi`` interval that provably contains the true
value (Arb ball arithmetic from python-flint; endpoints rounded outward). The lower end
may be the value of the tabulated part alone; the upper end accounts for everything the
tabulation leaves out, and is ``+inf`` where no finite certified bound exists.

Definitions (P, Q probability measures on Z or on Z_m)
------------------------------------------------------
* Rényi divergence of order α > 1:
  ``D_α(P‖Q) = 1/(α−1) · log Σ_k P(k)^α Q(k)^{1−α}``;
  ``D_∞(P‖Q) = max_k log P(k)/Q(k)`` (the privacy-loss bound one way).
* LLR (max log-likelihood ratio, both directions): ``max_k |log P(k)/Q(k)|`` =
  ``max(D_∞(P‖Q), D_∞(Q‖P))``; ``+inf`` when the supports differ.
* Hockey-stick divergence: ``δ(ε) = Σ_k max(0, P(k) − e^ε Q(k))``, ε >= 0; the mechanism
  is (ε, δ)-DP for this pair iff δ(ε) <= δ; ``δ(0)`` is the total variation distance.

Where they are used (paper 000)
-------------------------------
* Theorem 1 (pure DP, Pólya shares summing to Lap_Z(g/ε)): the analyzer sees the sum
  mod m, so the guarantee is ``llr(wrap(P, m), wrap(shift(P, g), m)) <= ε``.
* Theorems 2 and 4 (RDP/CDP with Skellam or discrete-Gaussian shares): ``renyi_shift`` of
  the total noise with sensitivity g is the exact ε(α) that Lemma 3 / Lemma 4 bound
  (000 §5; ε(α) <= αΔ²/(2σ²) + … for Skellam, ½ε²α-type bounds for the discrete Gaussian).
* (ε, δ) statements: ``hockey_stick`` / ``delta_curve`` / ``epsilon_for_delta``.

Data processing
---------------
Wrapping mod m is a deterministic post-processing of the output, so it can only decrease
every f-divergence, every Rényi divergence (all α, including ∞, hence the LLR) and every
hockey-stick divergence: ``D(wrap(P)‖wrap(Q)) <= D(P‖Q)``. The certified intervals obey
``wrapped.lower <= unwrapped.upper`` (tested).

What the unaccounted mass does to the bounds
--------------------------------------------
An :class:`~privtools.exact.ExactPMF` is ``P = A + R``: A(k) in the Arb balls, R >= 0
unknown with total mass ``u_P`` (for PMFs on Z outside the tabulated range, for wrapped
PMFs anywhere in Z_m). ``u_P`` is tightened to ``min(u_P, 1 − Σ A)`` (the total mass is 1).

* Rényi, wrapped: the upper end maximizes ``Σ (a_k + r_k)^α b_k^{1−α}`` over r >= 0,
  Σ r <= u_P; this is convex in r, so the maximum is at a vertex: all of u_P on one point
  (max over k), with b_k at its lower end. The lower end takes a_k at its lower and
  b_k + u_Q at its upper end (each s_k <= u_Q).
* Rényi / D_∞ / LLR on Z: outside the tabulated range nothing is known about P/Q, so the
  upper end is ``+inf`` unless the P-side has no unaccounted mass. ``renyi_shift`` is the
  tool for finite certified answers on Z: it knows the noise law and bounds the remainder.
  The lower end on Z also uses the reverse-Hölder bound
  ``Σ_T P^α Q^{1−α} >= (Σ_T a)^α u_Q^{1−α}`` over the points T tabulated for P only.
* Hockey-stick: ``max(0, A + R − e^ε(B + S)) <= max(0, A − e^ε B) + R`` gives
  ``upper = Σ max(0, a⁺ − e^ε b⁻) + u_P``; each unit of S lowers the sum by at most e^ε,
  so ``lower = Σ max(0, a⁻ − e^ε b⁺) − e^ε u_Q`` (on Z the −e^ε u_Q correction only
  applies to the points tabulated for P but not for Q, where S can live).

Sums of discrete Gaussians on Z
-------------------------------
``gaussian_sum_renyi`` / ``gaussian_sum_renyi_curve`` / ``gaussian_sum_hockey_stick``
(:mod:`~privtools.exact.divergence.gaussian_sum`) know the law of ``Z_n`` (n i.i.d.
``N_Z(0, σ²)``, Lemma 4 (000)) and bound its far tails (data processing + sub-Gaussian
tails + Cauchy–Schwarz), so they give two-sided intervals on Z where ``renyi_shift`` on a
table of ``Z_n`` can only give ``+inf`` as its upper end.

Float versions
--------------
``renyi_float`` / ``hockey_stick_float`` sum the float ``logpmf`` in log space (scipy's
``logsumexp``) over a grid that is widened until its ends are negligible: fast, no
certificate, used as a cross-check (they agree with the certified values to ~1e-9
relative wherever the quantity is not itself tiny).
"""

from privtools.certified.intervals import ends as endpoints  # the one interval kit's reader

from .floats import hockey_stick_float, renyi_float
from .gaussian_sum import (
    discrete_gaussian_shift_renyi,
    gaussian_sum_hockey_stick,
    gaussian_sum_renyi,
    gaussian_sum_renyi_curve,
)
from .pmfs import delta_curve, epsilon_for_delta, hockey_stick, llr, renyi
from .shift import (
    discrete_laplace_hockey_stick,
    discrete_laplace_renyi,
    hockey_stick_shift,
    renyi_shift,
    renyi_shift_curve,
)

__all__ = [
    "renyi",
    "llr",
    "hockey_stick",
    "delta_curve",
    "epsilon_for_delta",
    "renyi_shift",
    "renyi_shift_curve",
    "hockey_stick_shift",
    "renyi_float",
    "hockey_stick_float",
    "discrete_laplace_renyi",
    "discrete_laplace_hockey_stick",
    "gaussian_sum_renyi",
    "gaussian_sum_renyi_curve",
    "gaussian_sum_hockey_stick",
    "discrete_gaussian_shift_renyi",
    "endpoints",
]
