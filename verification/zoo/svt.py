"""The Sparse Vector Technique and its published variants, from Lyu, Su and Li, "Understanding
the Sparse Vector Technique for Differential Privacy" (PVLDB 10(6), 2017), Algorithms 1–7.

All variants compare noisy answers ``q_i + ν_i`` with one noisy threshold ``T + ρ``
(sensitivity Δ = 1, ``ρ ~ Lap``, ``ν_i ~ Lap`` fresh per query); they differ in the noise
scales, in whether they stop after ``c`` positive answers and in what they release:

=====  =========  ==============  =======  ==========================  =====================
alg.   ρ scale    ν scale         cutoff   releases at ⊤               privacy (k queries)
=====  =========  ==============  =======  ==========================  =====================
1      2/ε        4c/ε            c        ⊤                           ε
2      2c/ε  *    4c/ε            c        ⊤                           ε
3      2/ε        2c/ε            c        q_i + ν_i                   k·ε/(2c)  (exact)
4      4/ε        4/(3ε)          c        ⊤                           (1+6c)/4·ε
5      2/ε        —               none     ⊤                           ∞ (k ≥ 2)
6      2/ε        2/ε             none     ⊤                           k·ε/2
7      3/ε        6c/ε            c        q_i + Lap(3c/ε)             ε
=====  =========  ==============  =======  ==========================  =====================

(* Algorithm 2 draws a fresh threshold after every ⊤.) Algorithm 7 is shown with
ε1 = ε2 = ε3 = ε/3, which is NumericalSVT of Wang et al. (PLDI 2019) as DP-Sniper runs it.

Output convention (the zoo's): answers are int8 ``(size, k)`` with 1 = ⊤, 0 = ⊥ and -1 =
not answered (the run stopped at its c-th ⊤); releasing variants give float64 with the
released value at ⊤, ``-inf`` at ⊥ and ``nan`` when not answered. Comparisons use ``≥``
as in the paper (StatDP's iSVT3/iSVT4 use ``>``: the same law, ties have probability 0).

On the privacy column (suprema over every input pair whose answers differ by at most 1):
Lyu–Su–Li prove 1, 2 and 7 ε-DP and 4 ((1+6c)/4)ε-DP, and call 3, 5 and 6 ∞-DP — true for an
unbounded number of queries. With k fixed, 3 and 6 are finite: every one of their k
comparisons (and released values) moves the likelihood by at most e^(ε_ν), and both bounds
are reached — Algorithm 3 on a set of positive probability (every ⊥ answer above the
released value, the ⊤ answer below it), Algorithm 6 in the limit of half the answers far
below and half far above the threshold. Algorithm 5 is not DP for any ε once k ≥ 2: with
q = (0, 1) and q' = (1, 0) the output (⊥, ⊤) is impossible under q'. The bounds of 1, 4 and
7 are approached as the ⊥ answers grow large (they pin the threshold noise in its tail).
"""

from __future__ import annotations

import math

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int

from .simple import as_queries, check_size, laplace_noise

__all__ = ["svt1", "svt2", "svt3", "svt4", "svt5", "svt6", "numerical_svt", "svt34_parallel",
           "svt_true_epsilon"]


def _params(epsilon, c, threshold) -> tuple[float, int, float]:
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise ParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    cut = check_int("c", c, minimum=1)
    t = float(threshold)
    if not math.isfinite(t):
        raise ParameterError(f"threshold must be finite, got {threshold!r}")
    return eps, cut, t


def _noisy_answers(q: np.ndarray, n: int, rng, nu_scale: float | None) -> np.ndarray:
    """``q_i + ν_i`` for every draw, shape ``(n, k)`` (``q`` itself, broadcast, if no ν)."""
    if nu_scale is None:
        return np.broadcast_to(q, (n, q.size))
    noisy = laplace_noise(rng, nu_scale, (n, q.size))
    noisy += q
    return noisy


def _compare(q, n, rng, rho_scale, nu_scale, threshold) -> tuple[np.ndarray, np.ndarray]:
    """One threshold ρ per draw, then ``above[j, i] = q_i + ν_ji ≥ T + ρ_j``.
    Returns ``(noisy answers, above)``."""
    rho = laplace_noise(rng, rho_scale, (n, 1))
    rho += threshold
    noisy = _noisy_answers(q, n, rng, nu_scale)
    return noisy, noisy >= rho


def _unanswered(above: np.ndarray, c: int) -> np.ndarray:
    """True where the run had already stopped: c positive answers strictly before."""
    count_type = np.int8 if above.shape[1] < 127 else np.int32
    before = np.cumsum(above, axis=1, dtype=count_type)
    before -= above
    return before >= c


def _answers(above: np.ndarray, c: int | None) -> np.ndarray:
    """int8 answers: 1 / 0, and -1 where the run had stopped (``c`` given)."""
    out = above.view(np.int8)
    if c is None:
        return out.copy()
    stopped = _unanswered(above, c).view(np.int8)
    return out - stopped * (out + 1)           # 1/0 while running, -1 once stopped


def _released(noisy: np.ndarray, above: np.ndarray, c: int) -> np.ndarray:
    """float64 releases, built in the buffer of ``noisy``: the value at ⊤, -inf at ⊥,
    nan once the run had stopped."""
    np.copyto(noisy, -np.inf, where=~above)
    np.copyto(noisy, np.nan, where=_unanswered(above, c))
    return noisy


def svt1(dataset, size, rng, *, epsilon: float = 0.1, c: int = 1,
         threshold: float = 0.5) -> np.ndarray:
    """Lyu–Su–Li Algorithm 1 (their corrected SVT): ε1 = ε2 = ε/2, ρ ~ Lap(1/ε1),
    ν_i ~ Lap(2c/ε2), stop after c ⊤. int8 answers ``(size, k)``. ε-DP (proved by Lyu–Su–Li)."""
    n = check_size(size, rng)
    eps, c, t = _params(epsilon, c, threshold)
    _, above = _compare(as_queries(dataset), n, rng, 2.0 / eps, 4.0 * c / eps, t)
    return _answers(above, c)


def svt2(dataset, size, rng, *, epsilon: float = 0.1, c: int = 1,
         threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 2 (Dwork and Roth's SVT): ε1 = ε2 = ε/2, ρ ~ Lap(c/ε1) redrawn
    after every ⊤, ν_i ~ Lap(2c/ε2), stop after c ⊤. int8 answers ``(size, k)``. ε-DP.
    With c = 1 the redraw never matters and the law is Algorithm 1's."""
    n = check_size(size, rng)
    eps, c, t = _params(epsilon, c, threshold)
    q = as_queries(dataset)
    rho_scale = 2.0 * c / eps
    rho = laplace_noise(rng, rho_scale, n)
    rho += t
    noisy = _noisy_answers(q, n, rng, 4.0 * c / eps)
    out = np.empty((n, q.size), dtype=np.int8)
    count = np.zeros(n, dtype=np.int32)
    active = np.ones(n, dtype=bool)
    for i in range(q.size):                     # a loop over the queries, not the draws
        above = noisy[:, i] >= rho
        col = above.astype(np.int8)
        col[~active] = -1
        out[:, i] = col
        hit = above & active
        count += hit
        active &= count < c
        redraw = hit & active                   # a ⊤ that did not end the run
        m = int(np.count_nonzero(redraw))
        if m:
            rho[redraw] = laplace_noise(rng, rho_scale, m) + t
    return out


def svt3(dataset, size, rng, *, epsilon: float = 0.1, c: int = 1,
         threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 3 (Roth's lecture-notes SVT; StatDP's iSVT4): ε1 = ε2 = ε/2,
    ρ ~ Lap(1/ε1), ν_i ~ Lap(c/ε2), stop after c ⊤, and release ``q_i + ν_i`` at every ⊤ —
    the very noise used in the comparison. float64 ``(size, k)``: value / ``-inf`` (⊥) /
    ``nan`` (not answered). Exactly (k·ε/(2c))-DP for k ≥ c queries (the paper's ∞ is the
    limit k → ∞)."""
    n = check_size(size, rng)
    eps, c, t = _params(epsilon, c, threshold)
    noisy, above = _compare(as_queries(dataset), n, rng, 2.0 / eps, 2.0 * c / eps, t)
    return _released(noisy, above, c)


def svt4(dataset, size, rng, *, epsilon: float = 0.1, c: int = 1,
         threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 4 (Stoddard et al.'s SVT; StatDP's iSVT3): ε1 = ε/4,
    ε2 = 3ε/4, ρ ~ Lap(1/ε1), ν_i ~ Lap(1/ε2) (not scaled with c), stop after c ⊤. int8
    answers ``(size, k)``. ((1+6c)/4)·ε-DP (Lyu–Su–Li), and no better."""
    n = check_size(size, rng)
    eps, c, t = _params(epsilon, c, threshold)
    _, above = _compare(as_queries(dataset), n, rng, 4.0 / eps, 4.0 / (3.0 * eps), t)
    return _answers(above, c)


def svt5(dataset, size, rng, *, epsilon: float = 0.1, threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 5 (Chen et al.'s SVT; StatDP's iSVT1): ρ ~ Lap(2/ε), no noise on
    the answers, no cutoff: ``q_i ≥ T + ρ`` for every query. int8 answers ``(size, k)`` in
    {0, 1}. Not DP for any ε when k ≥ 2."""
    n = check_size(size, rng)
    eps, _, t = _params(epsilon, 1, threshold)
    _, above = _compare(as_queries(dataset), n, rng, 2.0 / eps, None, t)
    return _answers(above, None)


def svt6(dataset, size, rng, *, epsilon: float = 0.1, threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 6 (StatDP's iSVT2): ε1 = ε2 = ε/2, ρ ~ Lap(1/ε1),
    ν_i ~ Lap(1/ε2), no cutoff. int8 answers ``(size, k)`` in {0, 1}. (k·ε/2)-DP for k
    queries, and no better (∞ only as k → ∞)."""
    n = check_size(size, rng)
    eps, _, t = _params(epsilon, 1, threshold)
    _, above = _compare(as_queries(dataset), n, rng, 2.0 / eps, 2.0 / eps, t)
    return _answers(above, None)


def numerical_svt(dataset, size, rng, *, epsilon: float = 0.1, c: int = 2,
                  threshold: float = 1.0) -> np.ndarray:
    """Lyu–Su–Li Algorithm 7 with ε1 = ε2 = ε3 = ε/3 — NumericalSVT of Wang, Ding, Wang,
    Kifer and Zhang (PLDI 2019): ρ ~ Lap(3/ε), ν_i ~ Lap(6c/ε), stop after c ⊤, and at a ⊤
    release ``q_i + η_i`` with *fresh* η_i ~ Lap(3c/ε). float64 ``(size, k)``: value /
    ``-inf`` (⊥) / ``nan`` (not answered). ε-DP (Lyu–Su–Li: ε1 + ε2 + ε3 = ε).
    A fresh η is drawn for every query and read only where a value is released (the same
    law; the output is built with ``np.where``, which the trace follows)."""
    n = check_size(size, rng)
    eps, c, t = _params(epsilon, c, threshold)
    q = as_queries(dataset)
    _, above = _compare(q, n, rng, 3.0 / eps, 6.0 * c / eps, t)
    stopped = _unanswered(above, c)
    fresh = laplace_noise(rng, 3.0 * c / eps, above.shape)
    out = np.where(above & ~stopped, fresh + q, -np.inf)
    return np.where(stopped, np.nan, out)


def svt34_parallel(dataset, size, rng, *, epsilon: float = 0.1, c: int = 2,
                   threshold: float = 1.0) -> np.ndarray:
    """DP-Sniper's SVT34Parallel: Algorithms 3 and 4 run independently on the same answers,
    side by side in float64 ``(size, 2k)`` — Algorithm 3's releases (value / -inf / nan) then
    Algorithm 4's answers as 1.0 / 0.0 / nan. Its privacy is the sum of theirs, exactly:
    k·ε/(2c) + (1+6c)/4·ε (both worst cases meet on the same input pair)."""
    n = check_size(size, rng)
    q = as_queries(dataset)
    left = svt3(q, n, rng, epsilon=epsilon, c=c, threshold=threshold)
    right = svt4(q, n, rng, epsilon=epsilon, c=c, threshold=threshold)
    right = np.where(right < 0, np.nan, right.astype(np.float64))
    return np.concatenate([left, right], axis=1)


def svt_true_epsilon(algorithm: str, *, epsilon: float, c: int = 1, k: int = 10) -> float:
    """The supremum privacy of the variant named ``algorithm`` ("SVT1" … "SVT6",
    "NumericalSVT", "SVT34Parallel") on k queries whose answers move by at most 1 —
    ``math.inf`` when no finite ε holds (see the module docstring for the arguments)."""
    eps = float(epsilon)
    table = {
        "SVT1": eps, "SVT2": eps, "NumericalSVT": eps,
        "SVT3": k * eps / (2 * c),
        "SVT4": (1 + 6 * c) / 4 * eps,
        "SVT5": math.inf if k >= 2 else eps / 2,
        "SVT6": k * eps / 2,
        "SVT34Parallel": k * eps / (2 * c) + (1 + 6 * c) / 4 * eps,
    }
    if algorithm not in table:
        raise ParameterError(f"algorithm must be one of {sorted(table)}, got {algorithm!r}")
    return table[algorithm]
