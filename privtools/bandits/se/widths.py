"""Confidence widths β(b) of batch successive elimination (000 Alg. 1, Lemma 2).

Lemma 2 (000). If the total noise n_a(b) = R_a(b) − Σ_i r_a^i(b) of every batch sum
satisfies Assumption 1 — with probability >= 1 − 2p', |n_a(b)| <= σ√log(2/p') + h log(2/p')
— then with

    β(b) = √(log(4|Φ(b)|b²/p)/(2l(b))) + σ√log(2|Φ(b)|b²/p)/l(b) + h log(2|Φ(b)|b²/p)/l(b)   (2)

the regret of Algorithm 1 is O(Σ_a log(KT/p)/Δ_a + Kσ√log(KT/p) + Kh log(KT/p)) with
probability >= 1 − 3p. The first term is Hoeffding's bound for the mean of l(b) rewards in
[0, 1]; the other two bound |n_a(b)|/l(b). n_a(b) has two parts (000 App. C): Term (i),
the privacy noise N/g (N the integer total noise of the plan, decoded exactly when
|N| <= τ), and Term (ii), the randomized-rounding error Σ_i (x̂_i − g x_i)/g.

``widths="paper"`` — (σ, h) per policy (:func:`paper_sigma_h`, which reads the
``sigma_h`` of each deployment in :mod:`privtools.planning.deployments`):

* dist-dp-se, central-dp-se (Theorems 1 and 5, total noise Lap_Z(g/ε)): (σ, h) = (√2/ε, 1/ε).
  h: Fact 2 gives P(|N| > k) <= e^{−εk/g}, so |N|/g <= log(1/p')/ε <= log(2/p')/ε.
  σ: Term (ii) <= √(2n log(2/p')/g²) <= (√2/ε)√log(2/p') since g >= ε√n (000 App. C).
* dist-rdp-se (Theorem 2, total Sk(0, g²/ε²)): (σ, h) = (2/ε + √2/(sε), 1/(sε)), the
  constants of the authors' experiments (Proposition 1 for the Skellam part, the rounding
  term with g >= sε√n).
* dist-cdp-se (Theorem 4, n-fold sum of N_Z(0, g²/(nε²))): (σ, h) = (√2/ε + √2/(sε), 0).
  Each N_Z(0, v) is v-sub-Gaussian (CKS20), so the sum is (g²/ε²)-sub-Gaussian and
  P(|N|/g > t) <= 2e^{−t²ε²/2}: |N|/g <= (√2/ε)√log(2/p'). The rounding term is the same
  Hoeffding bound as for Theorem 1 with g >= sε√n: (√2/(sε))√log(2/p'). No
  sub-exponential part: h = 0 (as in 000 App. D, proof of Theorem 4).
* ldp-se (Theorem 6, N = Σ of l i.i.d. Lap_Z(b), b = g/ε):
  (σ, h) = (2√(2l)/ε + √2/ε, 2√2/ε). Derivation: with r = e^{−1/b} the MGF of Lap_Z(b) is
  1/(1 − sinh²(λ/2)/sinh²(1/(2b))) and that of the continuous Laplace(b) is
  1/(1 − b²λ²); since sinh(x)/x increases, the first is at most the second for |λ| < 1/b,
  and 1/(1 − x) <= e^{2x} for x <= 1/2, so E e^{λY} <= e^{2b²λ²} for |λ| <= 1/(√2 b).
  For the sum of l copies, Chernoff gives
  P(|N| > t) <= 2 exp(−min{t²/(8lb²), t/(2√2 b)}), so with probability >= 1 − p',
  |N| <= 2√2 b √l √log(2/p') + 2√2 b log(2/p'); dividing by g (b/g = 1/ε) gives the
  noise part (2√(2l)/ε, 2√2/ε); the rounding part √2/ε is as for Theorem 1. σ depends on
  l(b) (Assumption 1 allows constants depending on b), matching Theorem 6's
  O(√(l log(1/p))/ε).
* se (no privacy): σ = h = 0.

``widths="exact"`` (:func:`exact_width`): the noise part is the certified smallest τ_b
with P(|N| > τ_b) <= p/(2|Φ(b)|b²) for the plan's exact total-noise law
(:func:`privtools.exact.exact_tau`), divided by g·l(b); the rounding part is
Hoeffding's bound for Σ_i (x̂_i − g x_i)/g, a sum of l independent zero-mean terms, each
in an interval of length 1/g: P(|·| > t) <= 2e^{−2t²g²/l}, i.e.
t = √(l log(4|Φ|b²/p)/2)/g, divided by l. Each of the three terms fails with probability
<= p/(2|Φ(b)|b²) per arm and batch, in total <= (3p/2)Σ_b 1/b² = p π²/4 < 3p, the budget of
Lemma 2.

DP-SE (Sajed & Sheffet 2019, central, continuous Laplace(1/ε) on each batch sum):
:func:`dpse_batch_size` and :func:`dpse_width`, with Δ_b = 2^{−b}.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from privtools.errors import ParameterError
from privtools.proven import proven

from ...exact import exact_tau
from ...planning import by_policy

__all__ = [
    "paper_sigma_h",
    "paper_width",
    "hoeffding_term",
    "exact_width",
    "exact_noise_quantile",
    "dpse_batch_size",
    "dpse_width",
]


@proven("fact2_tail")  # h of the Lap_Z totals
def paper_sigma_h(name: str, epsilon: float | None, s: float = 1.0,
                  n: int | None = None) -> tuple[float, float]:
    """(σ, h) of Assumption 1 (000) for policy ``name`` in reward units (module docstring).

    ``n`` (the batch size l(b)) is needed for ``"ldp-se"`` only, whose σ grows like √l.
    """

    d = by_policy(name)
    if d is None:
        if name == "se":  # no privacy noise
            return 0.0, 0.0
        raise ParameterError(f"no paper width for policy {name!r}")
    if epsilon is None:
        raise ParameterError(f"epsilon is required for the widths of {name!r}")
    return d.sigma_h(float(epsilon), float(s), n)


def hoeffding_term(n: int, arms: int, b: int, p: float) -> float:
    """√(log(4|Φ(b)|b²/p)/(2l(b))): Hoeffding's bound on the mean of l(b) rewards in [0, 1]
    at failure probability p/(2|Φ(b)|b²) (first term of eq. (2), 000)."""
    return math.sqrt(math.log(4.0 * arms * b * b / p) / (2.0 * n))


def paper_width(name: str, epsilon: float | None, n: int, arms: int, b: int, p: float,
                s: float = 1.0) -> float:
    """β(b) of eq. (2) (Lemma 2, 000) with the (σ, h) of :func:`paper_sigma_h`.

    ``n`` = l(b), ``arms`` = |Φ(b)|, ``b`` the batch index (>= 1), ``p`` the confidence
    parameter.
    """
    sigma, h = paper_sigma_h(name, epsilon, s, n)
    L = math.log(2.0 * arms * b * b / p)
    return hoeffding_term(n, arms, b, p) + sigma * math.sqrt(L) / n + h * L / n


@lru_cache(maxsize=4096)
def _exact_tau_cached(law, level: Fraction) -> int:

    return exact_tau(law, level).tau


def exact_noise_quantile(law, level) -> int:
    """Certified smallest integer τ with P(|law| > τ) <= ``level`` (cached per law and
    level; ``law`` a total-noise law of a plan, see :func:`privtools.exact.exact_tau`)."""
    return _exact_tau_cached(law, Fraction(level))


def exact_width(law, g: int, n: int, arms: int, b: int, p) -> float:
    """β(b) with exact noise quantiles (module docstring): Hoeffding term
    + τ_b/(g·l) + √(log(4|Φ|b²/p)/(2l))/g, with τ_b the certified two-sided quantile of the
    total-noise ``law`` at level p/(2|Φ(b)|b²). ``law=None``: no privacy noise and no
    rounding (non-private SE), the Hoeffding term only."""
    hoeff = hoeffding_term(n, arms, b, float(p))
    if law is None:
        return hoeff
    level = Fraction(p) / (2 * arms * b * b)
    tau = exact_noise_quantile(law, level)
    return hoeff + tau / (g * n) + hoeff / g


def dpse_batch_size(arms: int, b: int, p: float, epsilon: float) -> int:
    """Batch size of DP-SE (Sajed & Sheffet 2019) in epoch b, Δ_b = 2^{−b}:
    ⌈1 + max{32 log(8|Φ|b²/p)/Δ_b², 8 log(4|Φ|b²/p)/(Δ_b ε)}⌉."""
    delta = 2.0 ** (-b)
    a = 32.0 * math.log(8.0 * arms * b * b / p) / (delta * delta)
    c = 8.0 * math.log(4.0 * arms * b * b / p) / (delta * float(epsilon))
    return int(math.ceil(1.0 + max(a, c)))


def dpse_width(n: int, arms: int, b: int, p: float, epsilon: float) -> float:
    """Width of DP-SE (Sajed & Sheffet 2019): √(log(8|Φ|b²/p)/(2l)) + log(4|Φ|b²/p)/(lε);
    the second term is the tail of Laplace(1/ε) on the batch sum divided by l."""
    return (math.sqrt(math.log(8.0 * arms * b * b / p) / (2.0 * n))
            + math.log(4.0 * arms * b * b / p) / (n * float(epsilon)))
