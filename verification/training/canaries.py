"""Canary lower bounds on a training run's ε: one run with many canaries, or many runs.

**One run** (Steinke, Nasr and Jagielski, NeurIPS 2023, "Privacy auditing with one (1)
training run", Theorem 5.2). ``m`` canary records each join the dataset independently with
probability 1/2 (S_i = ±1); the run trains once; each canary gets a score (here: the sum over
the steps of the update's projection on the canary's own move, observed at every step — the
grey-box view of all iterates); the auditor guesses "in" for the k₊ highest scores and
"out" for the k₋ lowest, r = k₊ + k₋ guesses, and counts the W correct ones. For an
(ε, δ)-DP run, with f(v) = P[Binomial(r, e^ε/(1 + e^ε)) ≥ v],

    P[W ≥ v] ≤ f(v) + 2mδ · max_{1≤i≤m} (f(v − i) − f(v)) / i,

so an observed W = v rejects every ε whose bound is below the test's level: ε_lower is the
largest such ε. The guess counts are fixed in advance (:data:`GUESSES`, as fractions of m)
and the level is split among them (Bonferroni), so the stated confidence holds for the
largest of their bounds.

**Many runs** (the classic audit; Jagielski, Ullman and Oprea 2020): one canary, in the
dataset in half of ``runs`` runs (fair coin per run); the first half of the runs chooses a
score threshold, the second half tests it: with Clopper–Pearson ends at level
(1 − confidence)/2 each, ε_lower = log((TPR_low − δ)/FPR_high) (and the same with in and
out exchanged, the larger kept; the two directions split the level again).

Canaries are dropped from a batch when out (the index the sampler draws for a canary's slot
holds nothing), so in and out differ by adding or removing the canary: the add/remove
relation of Poisson-sampled accounting. The canary's move is measured once, at the first
parameters, by the step itself on a base batch with common random numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from privtools.errors import ParameterError

__all__ = ["GUESSES", "one_run_bound", "one_run_epsilon", "runs_epsilon", "CanaryBound",
           "train", "canary_moves", "scores"]

#: Guess counts of the one-run audit, as fractions of the canaries (split equally between
#: "in" and "out" guesses).
GUESSES = (0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


@dataclass(frozen=True)
class CanaryBound:
    """A canary lower bound: ``epsilon_lower`` at ``confidence``; ``method`` ("one run" or
    "runs"), ``canaries`` (m) or ``runs``, ``guesses`` (r) and ``correct`` (W) of the best
    guess count, or the second half's counts (``in_hits``/``in_runs``, ``out_hits``/
    ``out_runs``) of the runs audit."""

    epsilon_lower: float
    confidence: float
    method: str
    canaries: int = 0
    runs: int = 0
    guesses: int = 0
    correct: int = 0
    counts: tuple = ()

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"epsilon_lower": self.epsilon_lower, "confidence": self.confidence,
                "method": self.method, "canaries": self.canaries, "runs": self.runs,
                "guesses": self.guesses, "correct": self.correct,
                "counts": list(self.counts)}


# ====================================================================== the bounds
def one_run_bound(epsilon: float, delta: float, m: int, r: int, v: int) -> float:
    """The bound on P[W ≥ v] of Theorem 5.2 (Steinke, Nasr and Jagielski 2023) for an
    (ε, δ)-DP run with ``m`` canaries and ``r`` guesses."""
    p = math.exp(epsilon) / (1 + math.exp(epsilon)) if epsilon < 700 else 1.0
    binom = stats.binom(r, p)

    def f(x):
        return float(binom.sf(x - 1))

    fv = f(v)
    if delta == 0:
        return fv
    i = np.arange(1, m + 1)
    extra = float(np.max((binom.sf(v - i - 1) - fv) / i))
    return min(1.0, fv + 2 * m * delta * extra)


def one_run_epsilon(correct: int, guesses: int, m: int, delta: float, level: float) -> float:
    """The largest ε that ``correct`` of ``guesses`` rejects at ``level`` (0 when none)."""
    if guesses == 0 or one_run_bound(0.0, delta, m, guesses, correct) > level:
        return 0.0
    lo, hi = 0.0, 1.0
    while hi < 64 and one_run_bound(hi, delta, m, guesses, correct) <= level:
        lo, hi = hi, 2 * hi
    for _ in range(50):
        mid = (lo + hi) / 2
        if one_run_bound(mid, delta, m, guesses, correct) <= level:
            lo = mid
        else:
            hi = mid
    return lo


def runs_epsilon(score_in, score_out, delta: float, confidence: float) -> tuple[float, tuple]:
    """The many-runs bound from the scores of runs with and without the canary (each list in
    run order): the threshold chosen on the first half, tested on the second."""
    score_in, score_out = np.asarray(score_in, float), np.asarray(score_out, float)
    hi_in, hi_out = len(score_in) // 2, len(score_out) // 2
    if min(hi_in, hi_out) < 2:
        raise ParameterError("runs must give at least 4 runs with the canary and 4 without")
    level = (1 - confidence) / 4         # two directions × two ends
    best, counts = 0.0, ()
    for sign in (1.0, -1.0):
        a, b = sign * score_in, sign * score_out
        tau = _threshold(a[:hi_in], b[:hi_out])
        tp, n_in = int(np.sum(a[hi_in:] > tau)), len(a) - hi_in
        fp, n_out = int(np.sum(b[hi_out:] > tau)), len(b) - hi_out
        tpr_lo = stats.beta.ppf(level, tp, n_in - tp + 1) if tp > 0 else 0.0
        fpr_hi = stats.beta.ppf(1 - level, fp + 1, n_out - fp) if fp < n_out else 1.0
        if tpr_lo - delta > 0 and fpr_hi > 0:
            eps = math.log((tpr_lo - delta) / fpr_hi)
            if eps > best:
                best, counts = eps, (tp, n_in, fp, n_out)
    return max(best, 0.0), counts


def _threshold(a: np.ndarray, b: np.ndarray) -> float:
    """The threshold on the choosing half with the largest plug-in log(TPR/FPR)."""
    cand = np.unique(np.concatenate([a, b]))
    best, tau = -np.inf, float(cand[-1]) if len(cand) else 0.0
    for t in cand:
        tpr = (np.sum(a > t) + 0.5) / (len(a) + 1)
        fpr = (np.sum(b > t) + 0.5) / (len(b) + 1)
        val = math.log(tpr / fpr)
        if val > best:
            best, tau = val, float(t)
    return tau


# ====================================================================== the runs
def train(step, sampler, data: np.ndarray, steps: int, params: np.ndarray, seed,
          slots: np.ndarray | None = None, canaries: np.ndarray | None = None,
          included: np.ndarray | None = None) -> np.ndarray:
    """The updates θ_{t+1} − θ_t of ``steps`` steps (a ``steps × size`` array). The slot
    indices ``slots`` hold the ``canaries`` rows where ``included``, and nothing otherwise
    (dropped from the batch)."""
    ss = np.random.SeedSequence(seed)
    s_batches, s_steps = ss.spawn(2)
    batches = sampler(steps, np.random.default_rng(s_batches))
    if len(batches) != steps:
        raise ParameterError(f"sampler returned {len(batches)} batches when asked for {steps}")
    rngs = [np.random.default_rng(s) for s in s_steps.spawn(steps)]
    where = np.full(len(data), -1)
    if slots is not None:
        where[slots] = np.arange(len(slots))
    theta = params.copy()
    out = np.empty((steps, params.size))
    for t, idx in enumerate(batches):
        idx = np.asarray(idx, dtype=np.int64).ravel()
        rows = data[idx]
        if slots is not None:
            k = where[idx]
            keep = (k < 0) | included[np.maximum(k, 0)]
            rows = data[idx[keep]].copy()
            mark = k[keep] >= 0
            rows[mark] = canaries[k[keep][mark]]
        new = np.asarray(step(theta.copy(), rows, rngs[t]), dtype=float)
        if new.shape != theta.shape:
            raise ParameterError(f"step returned params of shape {new.shape} at step {t}; "
                                 f"expected {theta.shape}")
        out[t] = new - theta
        theta = new
    return out


def canary_moves(step, data: np.ndarray, params: np.ndarray, base: np.ndarray,
                 canaries: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each canary's move of the update at ``params`` (one row each), measured beside the
    base batch with common random numbers: (unit directions, norms); a move that is not
    finite or 0 has direction 0 and norm 0."""
    d = data[base]
    ref = np.asarray(step(params.copy(), d, np.random.default_rng(seed)), dtype=float)
    moves = np.empty((len(canaries), params.size))
    for i, c in enumerate(canaries):
        new = np.asarray(step(params.copy(), np.vstack([d, c]), np.random.default_rng(seed)),
                         dtype=float)
        moves[i] = new - ref
    norms = np.linalg.norm(moves, axis=1)
    ok = np.isfinite(norms) & (norms > 0)
    moves[~ok] = 0.0
    norms[~ok] = 0.0
    moves[ok] /= norms[ok, None]
    return moves, norms


def scores(updates: np.ndarray, moves: np.ndarray, norms=None, tau: float | None = None,
           q: float | None = None) -> np.ndarray:
    """Each canary's score from the updates' projections on its move, z_t = ⟨Δθ_t, ĝ⟩/τ:
    without a noise scale ``tau``, their sum; with it (and the sampling rate ``q``), the
    log-likelihood ratio of "in" for a canary of move μ = ‖g‖/τ present at each step with
    probability q — Σ_t log(1 − q + q·exp(μ z_t − μ²/2)), the Neyman–Pearson statistic of
    the subsampled Gaussian. Any score gives a valid bound (the guesses read only the run's
    output); this one is the most powerful where the model holds."""
    proj = updates @ moves.T                           # steps × canaries
    if tau is None or q is None or norms is None:
        return proj.sum(axis=0)
    mu = np.asarray(norms, dtype=float) / tau
    a = mu[None, :] * (proj / tau) - mu[None, :] ** 2 / 2
    return np.sum(np.logaddexp(np.log1p(-q), np.log(q) + a), axis=0)


def guess_bound(score: np.ndarray, included: np.ndarray, delta: float,
                confidence: float) -> CanaryBound:
    """The one-run bound of the module doc from the canaries' scores and memberships."""
    m = len(score)
    order = np.argsort(score, kind="stable")
    level = (1 - confidence) / len(GUESSES)
    best = CanaryBound(0.0, confidence, "one run", canaries=m)
    for frac in GUESSES:
        half = max(1, int(round(frac * m / 2)))
        if 2 * half > m:
            half = m // 2
        top, bottom = order[m - half:], order[:half]
        v = int(np.sum(included[top]) + np.sum(~included[bottom]))
        eps = one_run_epsilon(v, 2 * half, m, delta, level)
        if eps > best.epsilon_lower or (best.guesses == 0):
            best = CanaryBound(eps, confidence, "one run", canaries=m, guesses=2 * half,
                               correct=v)
    return best
