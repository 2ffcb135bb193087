"""Far tails of the certified PLD: the δ(ε) interval where δ is 1e-10, 1e-20 and 1e-30.

For each view and count the script finds the certified ε(δ), asks δ(ε) back at that ε and
prints the interval and the ratio of its ends (the exact δ lies inside, so a ratio below 2
puts either end within a factor 2 of it). Views off the exact lattices: Skellam, a sum of
discrete Gaussians, a mod-m view, the Poisson-subsampled Gaussian; the Gaussian alone is in
closed form.

    python benchmarks/bench_pld_tails.py
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath

from privtools import accounting as A
from privtools.certified.intervals import ends

CASES = [
    ("Sk(0, 100), Δ = 1", A.SkellamEvent(var=100, sensitivity=1), 100),
    ("Σ of 16 N_Z(0, 25/4), Δ = 1", A.DiscreteGaussianSumEvent(16, Fraction(25, 4), 1), 100),
    ("Lap_Z(10) mod 64, Δ = 1", A.ModularEvent(A.DiscreteLaplaceEvent(scale=10), 64), 100),
    ("N(0, 1) Poisson q = 0.01", A.PoissonSampledEvent(A.GaussianEvent(sigma=1),
                                                       q=Fraction(1, 100)), 1000),
    ("N(0, 1)", A.GaussianEvent(sigma=1), 1),
]
DELTAS = (Fraction(1, 10**10), Fraction(1, 10**20), Fraction(1, 10**30))


def main() -> int:
    """Print one line per (view, δ): ε, the certified δ(ε) interval and its ends' ratio."""
    worst = 1.0
    for name, event, k in CASES:
        t0 = time.perf_counter()
        acc = A.PldAccountant(neighbouring=A.required_relation(event) or "replace-one"
                              ).compose(event, k)
        for d in DELTAS:
            eps = acc.epsilon(d).epsilon
            lo, hi = ends(acc.delta(Fraction(eps)).interval)
            ratio = float(hi / lo) if lo > 0 else float("inf")
            worst = max(worst, ratio)
            print(f"{name:30s} k={k:<5d} δ≈{float(d):.0e}  ε = {eps:.6g}  δ(ε) ∈ "
                  f"[{mpmath.nstr(lo, 4)}, {mpmath.nstr(hi, 4)}]  upper/lower = {ratio:.4g}")
        print(f"{'':30s} {time.perf_counter() - t0:.1f} s")
    print(f"largest upper/lower ratio: {worst:.4g} (target: within a factor 2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
