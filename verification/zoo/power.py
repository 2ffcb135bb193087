"""Cases where auditors have been short of power: (ε, δ) claims of mis-calibrated Gaussian
mechanisms, and outputs of shapes that never repeat (dicts, ragged lists).

Each :class:`PowerCase` holds a mechanism ``mechanism(dataset, size, rng)``, its claim, its
exact privacy on the pair ``(d, d_prime)`` and whether the claim holds.

* **Gaussian** N(f(d), σ²) with f(d) = Σd (sensitivity 1 on the pair [1] vs [0]); σ is
  the analytic Gaussian's (Balle and Wang, ICML 2018, Theorem 8): the least σ with
  ε(δ) ≤ ε for the shift 1/σ, solved on the certified curve
  :func:`privtools.accounting.gaussian_epsilon`. The bugs: σ calibrated for half the
  sensitivity, or for a larger δ than the one claimed. The true ε at the claimed δ is the
  same curve at the σ actually used.
* **Leaky histogram** — noisy counts of the keys the data holds: the key set is the data's
  (ε = ∞ at δ = 0). **Fixed-domain histogram** — the same counts over a fixed key domain
  with Lap(1) noise: ε = 1 on a pair that moves one count by one.
* **Ragged release** — one noisy value per record: the output's length is the data's size
  (ε = ∞).
* **Laplace with an atom** — Σd + Lap(1) (ε = 1 on the pair), except that a dataset whose
  first record is 1 releases the sentinel 0.5 instead with probability 10⁻⁴ (a debug path
  left in): an output the neighbour never gives, so ε = ∞ at δ = 0, seen about once in
  10⁴ draws. Audited at 10⁵ and 10⁶ draws; the control is the same Laplace without it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache, partial

from privtools.accounting import gaussian_epsilon

__all__ = ["PowerCase", "analytic_sigma", "gaussian", "leaky_histogram", "fixed_histogram",
           "ragged_release", "laplace_atom", "power_cases"]


@dataclass(frozen=True)
class PowerCase:
    """One audited case: ``name``, the ``mechanism``, the claim (``epsilon``, ``delta``),
    the exact ``true_epsilon`` at the claimed δ on ``(d, d_prime)``, ``private`` (does the
    claim hold), ``note`` (the bug in words) and the draws per dataset it is audited at
    (``budgets``; None: the benchmark's grid)."""

    name: str
    mechanism: object
    epsilon: float
    delta: float
    true_epsilon: float
    d: tuple
    d_prime: tuple
    private: bool
    note: str
    budgets: tuple | None = None


@lru_cache(maxsize=64)
def analytic_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """The analytic Gaussian's σ: the least σ whose shift ``sensitivity``/σ has
    ε(``delta``) ≤ ``epsilon`` on the certified curve (to 1e-12 relative)."""
    from scipy.optimize import brentq


    def gap(s):
        return float(gaussian_epsilon((1.0 / s) ** 2, delta)[1]) - epsilon

    return sensitivity * brentq(gap, 1e-3, 1e4, rtol=1e-12)


def _true_epsilon(sigma: float, delta: float) -> float:

    return float(gaussian_epsilon((1.0 / sigma) ** 2, delta)[1])


def gaussian(dataset, size, rng, *, sigma):
    """Σ dataset + N(0, σ²), ``size`` draws."""
    return float(sum(dataset)) + rng.normal(0.0, sigma, size)


def leaky_histogram(dataset, size, rng, *, scale=1.0):
    """Noisy counts (Lap(``scale``)) of the keys the dataset holds, as dicts."""
    keys = sorted(set(dataset))
    noise = rng.laplace(0.0, scale, (size, len(keys)))
    return [{k: dataset.count(k) + noise[i, j] for j, k in enumerate(keys)}
            for i in range(size)]


def fixed_histogram(dataset, size, rng, *, domain=4, scale=1.0):
    """Noisy counts (Lap(``scale``)) of the keys 0 … ``domain`` − 1, as dicts."""
    noise = rng.laplace(0.0, scale, (size, domain))
    return [{k: dataset.count(k) + noise[i, k] for k in range(domain)} for i in range(size)]


def ragged_release(dataset, size, rng, *, scale=1.0):
    """One value per record, len(dataset) + Lap(``scale``), as lists of the data's length."""
    return [list(len(dataset) + rng.laplace(0.0, scale, len(dataset))) for _ in range(size)]


def laplace_atom(dataset, size, rng, *, p=1e-4):
    """Σ dataset + Lap(1), and the sentinel 0.5 with probability ``p`` (p = 0: none) when
    the first record is 1."""
    x = float(sum(dataset)) + rng.laplace(0.0, 1.0, size)
    if p > 0 and dataset[0] == 1:
        x[rng.random(size) < p] = 0.5
    return x


def power_cases() -> list[PowerCase]:
    """The cases (see the module doc), claims first as the bugs state them."""
    out = []
    for eps, dl in ((1.0, 1e-5), (math.log(4), 1e-5)):
        s = analytic_sigma(eps, dl, 0.5)
        out.append(PowerCase(f"Gaussian, half sensitivity (ε = {eps:.3g})",
                             partial(gaussian, sigma=s), eps, dl, _true_epsilon(s, dl),
                             (1,), (0,), False, "σ calibrated for sensitivity 1/2"))
    for used in (3e-3, 1e-2):
        s = analytic_sigma(1.0, used)
        out.append(PowerCase(f"Gaussian, σ for δ = {used:g}", partial(gaussian, sigma=s),
                             1.0, 1e-5, _true_epsilon(s, 1e-5), (1,), (0,), False,
                             f"σ calibrated for δ = {used:g}, claimed δ = 1e-05"))
    s = analytic_sigma(1.0, 1e-5)
    out.append(PowerCase("Gaussian, correct", partial(gaussian, sigma=s), 1.0, 1e-5,
                         _true_epsilon(s, 1e-5), (1,), (0,), True, "the control"))
    out.append(PowerCase("Leaky histogram (dict)", leaky_histogram, 1.0, 0.0, math.inf,
                         (0, 1, 3), (0, 1, 2), False, "key set = the data's keys"))
    out.append(PowerCase("Ragged release (lists)", ragged_release, 1.0, 0.0, math.inf,
                         (1, 2, 3), (1, 2), False, "length = the data's size"))
    out.append(PowerCase("Fixed-domain histogram (dict)", fixed_histogram, 1.0, 0.0, 1.0,
                         (0, 1, 2), (0, 1), True, "the control"))
    out.append(PowerCase("Laplace with an atom of 1e-4", laplace_atom, 1.0, 0.0, math.inf,
                         (1,), (0,), False, "a sentinel the neighbour never gives",
                         budgets=(100_000, 1_000_000)))
    out.append(PowerCase("Laplace without the atom", partial(laplace_atom, p=0.0), 1.0, 0.0,
                         1.0, (1,), (0,), True, "the control",
                         budgets=(100_000, 1_000_000)))
    return out
