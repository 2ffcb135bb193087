"""The hockey-stick test of an (ε, δ) claim: one statistic, one confidence statement.

(ε, δ)-DP between d and d' implies, for every event E fixed before the draws,

    H(ε) = P(E | d) − e^ε P(E | d') − δ ≤ 0.

The fixed-size audit draws n outputs on each dataset and counts ``kp`` of them in E on the
favoured dataset and ``kq`` on the other. Pair draw i of one side with draw i of the other:
X_i = 1[E], Y_i = 1[E] and Z_i = X_i − e^ε Y_i − δ are independent over i with mean H(ε).
For a bet λ ∈ [0, 1/(e^ε + δ)) fixed before the test draws (here: chosen on the
selection draws),

    K_λ = ∏_i (1 + λ Z_i)

has expectation at most 1 under the claim, and so has any average of such products —
over several λ, and over the pairings of the two sides: a uniformly random pairing puts
C ~ Hypergeometric(n, kp, kq) draws in E on both sides, so the average over pairings is

    K = mean_λ Σ_c P(C = c) a_λ^c b_λ^(kp−c) c_λ^(kq−c) d_λ^(n−kp−kq+c)

with a, b, c, d the factors of the four cells (X, Y) = (1, 1), (1, 0), (0, 1), (0, 0). It
depends on the counts only. By Markov's inequality P(K ≥ 1/α) ≤ α under the claim: the
test rejects when K ≥ 1/α, and 1/K is its p-value. This is one test of the hockey-stick
statistic itself (testing by betting: Shafer and Vovk; Waudby-Smith and Ramdas, JRSS-B
2024), not two Clopper–Pearson intervals at α/2 combined, and with the bet sized to the
event (the Kelly fraction) it spends the draws where the statistic is: for δ > 0 it
certifies an ε above the claim from far fewer draws than the pair of intervals.

``epsilon_lower`` inverts the test: the largest ε' such that every value up to it is
rejected. Below the claim the factors decrease in ε' (λ fixed), so the rejected set is an
interval found by bisection. Above it λ is rescaled, λ' = λ (e^ε + δ)/(e^ε' + δ), which
keeps every factor positive; on a step [s, t] of ε' the factors of the cells (1, 0) and
(1, 1) are least at t, that of (0, 1) is constant and that of (0, 0) least at s, so the
product of those least factors bounds K on the whole step, and whole steps are rejected at
once. With probability ≥ 1 − α the true ε of E (the least ε with H(ε) ≤ 0) is not
rejected, so ε_lower is below it.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats as st
from scipy.special import logsumexp

__all__ = ["kelly_fraction", "kelly_growth", "bets", "log_e_value", "hockey_stick_bound",
           "projected_hockey_stick", "LAMBDA_CAP"]

LAMBDA_CAP = 0.9     # λ ≤ 0.9/(e^ε + δ): no draw can lose more than 90 % of the capital
_TAIL = 80.0         # pairings whose log-probability is this far below the mode are dropped


def _outcomes(p: float, q: float, eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The four values of Z = X − e^ε Y − δ (X, Y ∈ {1,0}: (1,0), (0,1), (1,1), (0,0)) and
    their probabilities for X ~ B(p), Y ~ B(q) independent."""
    e = math.exp(eps)
    z = np.array([1 - delta, -e - delta, 1 - e - delta, -delta])
    w = np.array([p * (1 - q), (1 - p) * q, p * q, (1 - p) * (1 - q)])
    return z, w


def kelly_fraction(p: float, q: float, eps: float, delta: float, cap: float) -> float:
    """The growth-optimal fraction for Z = X − e^ε Y − δ with X ~ B(p), Y ~ B(q)
    independent, in [0, cap]; 0 when the estimated drift is not positive."""
    z, w = _outcomes(p, q, eps, delta)
    if float(w @ z) <= 0:
        return 0.0
    lo, hi = 0.0, cap
    for _ in range(60):   # E[Z/(1 + λZ)] is decreasing in λ: bisect its root
        mid = (lo + hi) / 2
        if float(w @ (z / (1 + mid * z))) > 0:
            lo = mid
        else:
            hi = mid
    return lo


def kelly_growth(p: float, q: float, eps: float, delta: float, cap: float) -> tuple[float, float]:
    """The growth-optimal fraction λ of :func:`kelly_fraction` and the expected log growth
    E[log(1 + λZ)] of the capital per pair of draws it gives (0 when λ is 0)."""
    lam = kelly_fraction(p, q, eps, delta, cap)
    if lam == 0.0:
        return 0.0, 0.0
    z, w = _outcomes(p, q, eps, delta)
    return lam, float(w @ np.log1p(lam * z))


def bets(kp: int, kq: int, n: int, eps: float, delta: float, n_test: int | None = None,
         alpha: float | None = None) -> np.ndarray:
    """The bets of a fixed-size test, from an event's counts on the *selection* draws
    (``kp`` and ``kq`` of ``n``), in the claim's frame (the λ of ε' = ``eps``): the Kelly
    fraction at the claim and its half and quarter (a bet sized on rates that selection
    overestimated loses its growth; the smaller ones keep it), or, when selection saw no
    positive drift, a spread of fractions of the cap. Given the test's size ``n_test`` and
    level ``alpha``, two more: the Kelly fraction at the ε the test is projected to reach
    (:func:`projected_hockey_stick` of the selection rates), and its half — the bets that
    grow fastest where ε_lower will land, so the bound comes close to the event's truth
    rather than stopping near the claim. Above the claim a bet sized at ε_r is carried to the
    claim's frame by (e^ε_r + δ)/(e^ε + δ), the inverse of the test's rescaling; below it,
    it is capped at the claim's cap (every bet must keep 1 + λZ > 0 up to the claim)."""
    cap = LAMBDA_CAP / (math.exp(eps) + delta)
    p, q = (kp + 0.5) / (n + 1), (kq + 0.5) / (n + 1)
    lam = kelly_fraction(p, q, eps, delta, cap)
    out = cap * np.array([1 / 2, 1 / 8, 1 / 32, 1 / 128]) if lam <= 0 else \
        lam * np.array([1.0, 0.5, 0.25])
    if n_test is None or alpha is None:
        return out
    target = float(projected_hockey_stick(p, q, n_test, alpha, delta))
    if not math.isfinite(target) or target <= 0 or abs(target - eps) < 1e-3 * max(eps, 1):
        return out
    lam_t = kelly_fraction(p, q, target, delta, LAMBDA_CAP / (math.exp(target) + delta))
    if target > eps:
        lam_t *= (math.exp(target) + delta) / (math.exp(eps) + delta)
    lam_t = min(lam_t, cap)
    if lam_t <= 0:
        return out
    return np.concatenate([out, lam_t * np.array([1.0, 0.5])])


def _pairings(kp: int, kq: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Values c of the both-sides count under a random pairing and their log-probabilities
    (terms negligible against the mode are dropped, which only lowers K)."""
    lo, hi = max(0, kp + kq - n), min(kp, kq)
    if hi - lo > 40_000:
        dist = st.hypergeom(n, kp, kq)
        lo, hi = max(lo, int(dist.ppf(1e-30))), min(hi, int(dist.isf(1e-30)))
    c = np.arange(lo, hi + 1)
    logw = st.hypergeom.logpmf(c, n, kp, kq)
    keep = logw > logw.max() - _TAIL
    return c[keep].astype(float), logw[keep]


def _log_k(c, logw, kp, kq, n, la, lb, lc, ld) -> np.ndarray:
    """log K for per-cell log factors (arrays over bets, and optionally over steps in the
    leading axis): the average over bets of the pairing mixture."""
    terms = (logw + c * la[..., None] + (kp - c) * lb[..., None] + (kq - c) * lc[..., None]
             + (n - kp - kq + c) * ld[..., None])
    per_bet = logsumexp(terms, axis=-1)
    return logsumexp(per_bet, axis=-1) - math.log(per_bet.shape[-1])


def log_e_value(kp: int, kq: int, n: int, lams, eps: float, delta: float) -> float:
    """log K of the claim (``eps``, ``delta``) from test counts ``kp``, ``kq`` of ``n``
    paired draws, betting ``lams`` (see the module doc)."""
    lams = np.asarray(lams, dtype=float)
    c, logw = _pairings(kp, kq, n)
    e = math.exp(eps)
    la, lb = np.log1p(lams * (1 - e - delta)), np.log1p(lams * (1 - delta))
    lc, ld = np.log1p(-lams * (e + delta)), np.log1p(-lams * delta)
    return float(_log_k(c, logw, kp, kq, n, la, lb, lc, ld))


def hockey_stick_bound(kp: int, kq: int, n: int, lams, eps: float, delta: float,
                       alpha: float, max_steps: int = 4096) -> float:
    """ε_lower: the largest ε' such that every value up to it is rejected at level
    ``alpha`` by the test run with bets ``lams`` sized for the claim ``eps`` (module doc);
    0 when the claim's own ε' = 0 is not rejected."""
    lams = np.asarray(lams, dtype=float)
    threshold = math.log(1 / alpha)
    c, logw = _pairings(kp, kq, n)

    def rejected(t):
        return log_e_value(kp, kq, n, lams, t, delta) >= threshold

    if not rejected(0.0):
        return 0.0
    if not rejected(eps):
        lo, hi = 0.0, eps
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
        return lo
    e = math.exp(eps)
    lc = np.log1p(-lams * (e + delta))

    def first_kept(a: float, h: float, steps: int) -> float:
        """The start of the first step of width ``h`` from ``a`` not rejected whole (or
        the end of ``steps`` steps)."""
        block = 64
        for _ in range(0, steps, block):
            s = a + h * np.arange(block)[:, None]        # step starts, one row per step
            t = s + h
            sa, sb = (e + delta) / (np.exp(s) + delta), (e + delta) / (np.exp(t) + delta)
            la = np.log1p(-lams * (e + delta) + lams * sb)
            lb = np.log1p(lams * sb * (1 - delta))
            ld = np.log1p(-lams * sa * delta)
            logk = _log_k(c, logw, kp, kq, n, la, lb, np.broadcast_to(lc, la.shape), ld)
            bad = np.flatnonzero(logk < threshold)
            if bad.size:
                return float(a + h * bad[0])
            a = a + h * block
        return float(a)

    h = max(0.005, eps / 128)
    a = first_kept(eps, h, max_steps)
    if a >= eps + h * max_steps:
        return a
    # the step not rejected whole, in steps 64 times finer (each again rejected whole)
    return first_kept(a, h / 64, 64)


def projected_hockey_stick(p, q, n_test: int, alpha: float, delta: float) -> np.ndarray:
    """What :func:`hockey_stick_bound` is expected to give on ``n_test`` fresh paired draws
    for an event of rates ``p`` and ``q`` (vectorized; used only to *rank* events).

    The test's growth per draw at ε' is about H(ε')²/(2 Var Z) (a small bet), so it
    rejects ε' once n H(ε')² ≥ 2 log(1/α) Var Z; with x = e^ε' this is the quadratic
    (p − δ − xq)² = k (p(1 − p) + x² q(1 − q)), k = 2 log(1/α)/n, whose least positive root
    is the projected bound (−∞ when even ε' = 0 is out of reach)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    k = 2.0 * math.log(1 / alpha) / max(n_test, 1)
    a = p - delta
    u, w = p * (1 - p), q * (1 - q)
    A = q * q - k * w
    negB = 2 * a * q
    C = a * a - k * u
    disc = np.maximum(negB * negB - 4 * A * C, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(q > 0, 2 * C / (negB + np.sqrt(disc)), np.inf)
        out = np.log(x)
    return np.where((a > 0) & (C > 0), out, -np.inf)
