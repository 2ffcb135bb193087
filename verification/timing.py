"""Does a sampler's running time reveal the value it returns? An audit of the joint view
(value, random words consumed).

The number of random words a draw consumes is an exact, machine-independent proxy for its
running time (the time of a sampler is its arithmetic plus the time to produce its random
words; data-dependent loops show in both). In the distributed protocol (000, Algorithms 2
and 6) an observer of the network who times each user's share learns about the share when
the word count depends on it, and about the total noise when they time every user (the
timing attack of Jin, McMurtry, Rubinstein and Ohrimenko, IEEE S&P 2022).

:func:`audit_words` draws single values (``size=None``, one call per draw, as a user's
device does) from a generator that counts words (:func:`privtools.randomness.counting_rng`)
and tests the null hypothesis "the word count is independent of the value" with two tests,
each at ``alpha/2`` (Bonferroni, so the stated false-alarm rate ``alpha`` is kept):

* a G-test of independence on the contingency table of value bins (deciles of the distance
  from the law's centre, chosen from the marginal of the values alone) against word-count
  categories (rare counts pooled, chosen from the marginal of the counts alone) — both
  marginals may be looked at without spoiling the test;
* Spearman's rank correlation between the distance from the centre and the word count (the
  monotone dependence of a loop that runs longer for larger values).

A sampler whose count never varies passes trivially (there is nothing to reveal); the result
says so. When a reference law is given, the values are also audited against it with
:func:`verification.audit.audit_sampler`, and the verdict combines the three tests.

:func:`unary_rejection_laplace` and :func:`unary_rejection_gaussian` are the controls: plain
samplers whose geometric part flips one coin per unit of ``|y|``, so that the time grows with
the value; the audit must fail them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats as st

from privtools.errors import ParameterError
from privtools.randomness import counting_rng, words_used

from .audit import audit_sampler
from .verdicts import FAIL, INCONCLUSIVE, PASS

__all__ = ["WordsAudit", "audit_words", "draw_with_words", "unary_rejection_laplace",
           "unary_rejection_gaussian"]

_MIN_EXPECTED = 5.0
_VALUE_BINS = 10


@dataclass(frozen=True)
class WordsAudit:
    """Outcome of :func:`audit_words`: ``verdict`` is ``"pass"`` (no dependence of the word
    count on the value seen at false-alarm rate ``alpha``), ``"fail"``, or
    ``"inconclusive"`` (the optional law test could not resolve the law; never a pass)."""

    verdict: str
    alpha: float
    n_draws: int
    name: str
    words: dict                 # {"min", "max", "mean", "distinct"} in 32-bit words
    tests: dict                 # name -> {"p_value": ..., ...}
    seconds: float
    law: dict | None = None     # audit_sampler's result on the values, when a law was given
    notes: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether the audit passed."""
        return self.verdict == PASS

    def summary(self) -> str:
        """One readable line: verdict, draws, the word counts and each test's p-value."""
        w = self.words
        parts = ", ".join(f"{k} p={v['p_value']:.3g}" for k, v in self.tests.items())
        return (f"{self.verdict.upper()}: {self.name}: {self.n_draws} single draws, words "
                f"{w['min']}..{w['max']} (mean {w['mean']:.2f}, {w['distinct']} distinct); "
                f"{parts} (alpha = {self.alpha:g})")

    def to_dict(self) -> dict:
        """The audit as JSON-ready values."""
        return {"verdict": self.verdict, "alpha": self.alpha, "n_draws": self.n_draws,
                "name": self.name, "words": self.words, "tests": self.tests,
                "seconds": self.seconds, "law": self.law, "notes": list(self.notes)}


def draw_with_words(draw: Callable, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` single draws ``draw(rng)`` from a word-counting generator keyed ``seed``; returns
    the values (int64) and the 32-bit words each consumed."""
    rng = counting_rng(seed)
    values = np.empty(n, dtype=np.int64)
    words = np.empty(n, dtype=np.int64)
    before = words_used(rng)
    for i in range(n):
        values[i] = int(draw(rng))
        after = words_used(rng)
        words[i] = after - before
        before = after
    return values, words


def _pooled_categories(w: np.ndarray, n_rows: int) -> np.ndarray:
    """Word counts mapped to categories from their marginal: rare counts merged into
    their neighbours until every category holds at least 5·n_rows draws."""
    vals, counts = np.unique(w, return_counts=True)
    need = _MIN_EXPECTED * n_rows
    cat_of, cat, acc = {}, 0, 0
    for v, c in zip(vals, counts):
        cat_of[int(v)] = cat
        acc += c
        if acc >= need:
            cat, acc = cat + 1, 0
    if acc and cat:           # a short last group joins the one before
        for v in vals[::-1]:
            if cat_of[int(v)] == cat:
                cat_of[int(v)] = cat - 1
            else:
                break
    return np.array([cat_of[int(v)] for v in w])


def audit_words(draw: Callable, n_draws: int, *, center: int = 0, alpha: float = 0.01,
                seed: int = 0, reference=None, name: str | None = None) -> WordsAudit:
    """Audit the joint view (value, words consumed) of single draws ``draw(rng)``.

    ``draw(rng)`` returns one integer from the numpy Generator ``rng`` (e.g.
    ``lambda rng: law.sample(None, rng)``); ``center`` is the law's centre (values are
    binned by their distance from it); ``reference`` optionally a law for
    :func:`verification.audit.audit_sampler`. See the module doc for the tests."""
    if not callable(draw):
        raise ParameterError("draw must be a callable draw(rng) -> int")
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 200:
        raise ParameterError(f"n_draws must be an int >= 200, got {n_draws!r}")
    if not (isinstance(alpha, float) and 0 < alpha < 1):
        raise ParameterError(f"alpha must be a float in (0, 1), got {alpha!r}")
    t0 = time.perf_counter()
    values, words = draw_with_words(draw, int(n_draws), seed)
    seconds = time.perf_counter() - t0
    name = name or getattr(draw, "__name__", "sampler")
    distinct = int(np.unique(words).size)
    wstats = {"min": int(words.min()), "max": int(words.max()),
              "mean": float(words.mean()), "distinct": distinct}
    tests, notes = {}, []
    n_tests = 2 + (reference is not None)
    level = alpha / n_tests
    if distinct == 1:
        notes.append(f"every draw consumed exactly {int(words[0])} words: the count reveals "
                     "nothing about the value")
        tests["independence_g"] = {"p_value": 1.0, "note": "constant word count"}
        tests["spearman"] = {"p_value": 1.0, "note": "constant word count"}
    else:
        dist = np.abs(values - int(center))
        edges = np.unique(np.quantile(dist, np.linspace(0, 1, _VALUE_BINS + 1)[1:-1]))
        rows = np.unique(np.searchsorted(edges, dist, side="right"), return_inverse=True)[1]
        n_rows = int(rows.max()) + 1
        cols = _pooled_categories(words, n_rows)
        n_cols = int(cols.max()) + 1
        if n_rows < 2 or n_cols < 2:
            tests["independence_g"] = {"p_value": 1.0,
                                       "note": "too few categories after pooling"}
        else:
            table = np.zeros((n_rows, n_cols))
            np.add.at(table, (rows, cols), 1)
            g, p, dof, _ = st.chi2_contingency(table, lambda_="log-likelihood")
            tests["independence_g"] = {"p_value": float(p), "statistic": float(g),
                                       "dof": int(dof), "table": table.astype(int).tolist()}
        rho, p = st.spearmanr(dist, words)
        tests["spearman"] = {"p_value": float(p) if math.isfinite(p) else 1.0,
                             "rho": float(rho) if math.isfinite(rho) else 0.0}
    law = None
    if reference is not None:

        res = audit_sampler(lambda size, rng: values[:size], reference, int(n_draws),
                            rng=0, alpha=level)
        law = res.to_dict()
        p_law = float(res.p_value) if math.isfinite(res.p_value) else 1.0
        tests["law"] = {"p_value": p_law, "verdict": res.verdict}
    failed = [k for k, v in tests.items() if v["p_value"] < level]
    undecided = law is not None and law["verdict"] == INCONCLUSIVE
    verdict = FAIL if failed else (INCONCLUSIVE if undecided else PASS)
    if undecided and not failed:
        notes.append("the law test was inconclusive: " + law["reason"])
    if failed:
        notes.append("rejected by " + ", ".join(failed))
    return WordsAudit(verdict, alpha, int(n_draws), name, wstats, tests, seconds, law, notes)


# ------------------------------------------------------------------ controls
def unary_rejection_laplace(scale: int, rng: np.random.Generator) -> int:
    """A plain discrete-Laplace sampler: a sign, then a geometric magnitude by one
    Bernoulli(e^{−1/scale}) coin per unit (one 64-bit word each), rejecting "−0". Its law
    is exactly Lap_Z(scale); its time is linear in the value."""
    q = math.exp(-1.0 / scale)
    while True:
        neg = int(rng.integers(0, 2))
        k = 0
        while rng.random() < q:
            k += 1
        if not (neg and k == 0):
            return -k if neg else k


def unary_rejection_gaussian(sigma: int, rng: np.random.Generator) -> int:
    """A plain discrete-Gaussian rejection sampler (the shape of CKS20 Algorithm 3): a
    :func:`unary_rejection_laplace` proposal of scale ``t = sigma + 1``, accepted with
    probability ``exp(−(|y| − σ²/t)²/(2σ²))`` by one word."""
    t = int(sigma) + 1
    s2 = float(sigma) ** 2
    while True:
        y = unary_rejection_laplace(t, rng)
        if rng.random() < math.exp(-((abs(y) - s2 / t) ** 2) / (2 * s2)):
            return y
