"""Cells: events a few hundred draws can find, for the counterexample searches.

:func:`verification.audit.events.select.choose_event` compares its candidate events at cautious
(5 %) Clopper–Pearson ends, which keeps a lucky rare event from winning but, on the tens of
thousands of draws a search gives each pair, also hides the leaks that live in an outcome of
probability 1–3 % (the SVT variants of Lyu, Su and Li: "the first ⊤ at query 6"). The
searches add one statistic that sees them:

* a *partition* of the outputs into cells (:func:`partitions`): the exact outcomes when a
  few hundred draws show at most :data:`_CELL_KEYS` of them, and quantile bins of a scalar
  output or of each coordinate of a vector one (−∞ a cell of its own; NaN and +∞ are in no
  event, as everywhere in the audit);
* a *union* of cells ranked by estimated likelihood ratio and cut where the ε lower bound
  it projects for the confirmation's size is largest, read at the cautious level
  :data:`CAUTIOUS` and holding at least :data:`_CELL_MIN` favoured draws (so that one
  lucky cell does not make a union) — the superlevel sets of the likelihood ratio, which
  are the best events of a discrete law.

:func:`held_out_score` ranks pairs with it (chosen on one half of the draws, read on the
other), and :func:`cell_event` turns the best union into an
:class:`~verification.audit.events.Event` that a confirmation may test. Neither decides a
verdict: a confirmation always tests its event on fresh draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..outputs import FeatureMap
from ..stats import projected_bound
from . import Column, Event, Score, Value, Whole
from .select import Sample, choose_event

__all__ = ["held_out_score", "cell_event", "partitions", "Partition", "MeanDifference",
           "LeadingCell", "SCORE_SHRINK", "CAUTIOUS"]

#: the Clopper–Pearson level a held-out reading is taken at: 0.5 is the median, i.e. the
#: point estimate (the event was chosen on other draws, so the reading is unbiased)
SCORE_SHRINK = 0.5
#: the cautious level: unions of cells are cut at it (against lucky small cells), and a
#: pair is flagged when its reading at it exceeds the claim
CAUTIOUS = 0.2
_CELL_KEYS = 64            # exact outcomes are cells when there are at most this many
_CELL_BINS = 8             # quantile bins of a number
_CELL_COLUMNS = 64         # vector outputs wider than this get no per-coordinate cells
_CELL_MIN = 100            # favoured draws a union needs (of a twentieth of the draws)
_FIT_ROWS = 200_000        # draws per dataset that place the bins and fit the weights
_FLOAT_MAX = float(np.finfo(np.float64).max)


@dataclass
class Partition:
    """Cells of the draws of two samples: the cell of each draw (``ia``, ``ib``), the number
    of cells, which cells an event may hold (``usable``) and how to write a union of cells
    as an :class:`~verification.audit.events.Event` (``event(cells, direction)``; None for a
    partition that only scores)."""

    ia: np.ndarray
    ib: np.ndarray
    m: int
    usable: np.ndarray
    event: object


def partitions(a, b, h: int, *, leading: bool = False) -> list[Partition]:
    """The partitions of the outputs ``a`` (on d) and ``b`` (on d′), cut on their first
    ``h`` draws (module doc); ``leading=True`` adds the first finite coordinate of a vector
    output (:func:`_leading_part`: many cells, for events chosen on many draws)."""
    if a.kind == "objects":
        got = _objects_partition(a, b, h)
        return [got] if got is not None else []
    out = []
    got = _outcomes_partition(a, b, h)
    if got is not None:
        out.append(got)
    if a.kind in ("int", "float"):
        columns = [(Value(), a.data.astype(float), b.data.astype(float))]
    elif a.kind == "array" and a.data.shape[1] <= _CELL_COLUMNS:
        ca, cb = a.columns(), b.columns()
        columns = [(Column(j), ca[:, j], cb[:, j]) for j in range(ca.shape[1])]
        for got in (_discrete_part(ca, cb, h), _linear_part(ca, cb, h),
                    _leading_part(ca, cb, h) if leading else None):
            if got is not None:
                out.append(got)
    else:
        columns = []
    for view, xa, xb in columns:
        got = _bins(view, xa, xb, h)
        if got is not None:
            out.append(got)
    return out


def _objects_partition(a, b, h: int) -> Partition | None:
    """Object outputs: a cell per value seen in the first ``h`` draws (at most
    ``_CELL_KEYS``), one more for the rest."""
    keys = list(a.data) + list(b.data)
    index: dict = {}
    for k in keys[:h] + keys[a.n:a.n + h]:
        index.setdefault(k, len(index))
    if len(index) > _CELL_KEYS:
        return None
    cells = np.array([index.get(k, len(index)) for k in keys])
    vocab = list(index)

    def objects_event(chosen, direction):
        picked = [vocab[i] for i in chosen]
        return Event("set", direction, values=tuple(sorted(picked, key=repr)),
                     view=Whole(), keys=frozenset(picked))
    usable = np.arange(len(index) + 1) < len(index)
    return Partition(cells[:a.n], cells[a.n:], len(index) + 1, usable, objects_event)


def _outcomes_partition(a, b, h: int) -> Partition | None:
    """Few exact outcomes (keys): a cell per outcome."""
    ka, kb = a.keys(), b.keys()
    head = min(h, 1024)        # more than _CELL_KEYS outcomes in a head: more in all
    if np.unique(np.concatenate([ka[:head], kb[:head]])).size > _CELL_KEYS:
        return None
    if np.unique(np.concatenate([ka[:h], kb[:h]])).size > _CELL_KEYS:
        return None
    uniq, inv = np.unique(np.concatenate([ka, kb]), return_inverse=True)
    if uniq.size > 4 * _CELL_KEYS:
        return None

    def outcomes_event(chosen, direction, uniq=uniq):
        keys = np.sort(uniq[chosen])
        values = tuple(sorted((a.decode(k) for k in keys), key=repr))
        return Event("set", direction, values=values, view=Whole(), keys=keys)
    return Partition(inv[:a.n], inv[a.n:], uniq.size, np.ones(uniq.size, dtype=bool),
                     outcomes_event)


@dataclass(frozen=True)
class MeanDifference:
    """The linear score w · x of the diagonal discriminant of two samples — w_j the
    difference of coordinate j's means over its pooled variance: a classifier with nothing
    to fit, for the cells (a ``decision_function`` for a
    :class:`~verification.audit.events.Score` view)."""

    w: np.ndarray

    def decision_function(self, X) -> np.ndarray:
        """w · x for every row of ``X``."""
        return np.asarray(X, dtype=np.float64) @ self.w


def _linear_part(ca: np.ndarray, cb: np.ndarray, h: int) -> Partition | None:
    """Quantile bins of the diagonal discriminant :class:`MeanDifference` of a vector
    output, fitted on the first ``h`` draws (at most :data:`_FIT_ROWS`; non-finite values as
    indicators, as the learned events read them): the sum of the coordinates weighted by
    how each tells the datasets apart — the statistic of a leak spread over many answers
    (SVT's k queries)."""
    if ca.shape[1] < 2:
        return None
    f = min(h, _FIT_ROWS)
    fm = FeatureMap.fit(None, np.concatenate([ca[:f], cb[:f]]))
    fa, fb = fm.clean(ca[:f]), fm.clean(cb[:f])
    var = np.concatenate([fa, fb]).var(axis=0)
    w = np.where(var > 0, (fa.mean(axis=0) - fb.mean(axis=0)) / np.where(var > 0, var, 1.0),
                 0.0)
    if not np.any(w):
        return None
    view = Score("mean-difference", fm, MeanDifference(w), ())
    return _bins(view, fm.clean(ca) @ w, fm.clean(cb) @ w, h)


@dataclass(frozen=True)
class LeadingCell:
    """The cell of a vector output's first finite coordinate — ``index · m + bin of its
    value`` (``edges``: the bins' cuts), ``width · m`` when none is finite — read from the
    matrix a :class:`~verification.audit.outputs.FeatureMap` cleans (its indicator columns
    ``flags[j]`` say which coordinates were not finite): a ``decision_function`` for a
    :class:`~verification.audit.events.Score` view."""

    width: int
    flags: tuple
    edges: np.ndarray

    def decision_function(self, X) -> np.ndarray:
        """The cell code of every row of ``X``."""
        X = np.asarray(X, dtype=np.float64)
        off = np.zeros((X.shape[0], self.width), dtype=bool)
        for j, cols in enumerate(self.flags):
            for col in cols:
                off[:, j] |= X[:, col] > 0.5
        on = ~off
        idx = np.where(on.any(axis=1), on.argmax(axis=1), self.width)
        val = X[np.arange(X.shape[0]), np.minimum(idx, self.width - 1)]
        m = self.edges.size + 1
        code = np.where(idx < self.width, idx * m + np.searchsorted(self.edges, val,
                                                                     side="right"),
                        self.width * m)
        return code.astype(np.float64)


def _leading_part(ca: np.ndarray, cb: np.ndarray, h: int) -> Partition | None:
    """The first finite coordinate of a vector output — its index and the quantile bin of
    its value (edges from the first ``h`` draws), or "none finite" — when some coordinates
    are not finite: where a sparse release first says something, and what (SVT's first ⊤
    and the value it releases). None when every coordinate is finite or none ever is."""
    first = np.concatenate([ca[:h], cb[:h]])
    finite = np.isfinite(first)
    if finite.all() or not finite.any():
        return None
    k = first.shape[1]
    fm = FeatureMap.fit(None, first)
    flags = tuple(tuple(k + i for i, (j2, _) in enumerate(fm.flags) if j2 == j)
                  for j in range(k))
    xa, xb = fm.clean(ca), fm.clean(cb)
    rows = finite.any(axis=1)
    lead = first[rows, finite[rows].argmax(axis=1)]
    edges = np.unique(np.quantile(lead, np.linspace(0, 1, _CELL_BINS + 1)[1:-1]))
    model = LeadingCell(k, flags, edges)
    m = edges.size + 1
    view = Score("first finite coordinate", fm, model, ())

    def leading_event(chosen, direction):
        return Event("set", direction, view=view,
                     intervals=tuple((float(c), float(c) + 1.0) for c in sorted(chosen)))
    ia = model.decision_function(xa).astype(np.int64)
    ib = model.decision_function(xb).astype(np.int64)
    return Partition(ia, ib, k * m + 1, np.ones(k * m + 1, dtype=bool), leading_event)


def _discrete_part(ca: np.ndarray, cb: np.ndarray, h: int) -> Partition | None:
    """The joint outcome of the coordinates that take at most four values (NaN one of
    them) when the others do not — the answers beside the released values of an SVT run
    side by side — as cells, when there are at most four times :data:`_CELL_KEYS` of them
    (a statistic only: no event reads a subset of the coordinates, so ``event`` is
    None)."""
    first = np.concatenate([ca[:h], cb[:h]])
    few = [j for j in range(first.shape[1])
           if _at_most(np.nan_to_num(first[:, j], nan=np.inf), 4)]
    if len(few) < 2 or len(few) == first.shape[1]:
        return None
    sub = np.nan_to_num(np.concatenate([ca[:, few], cb[:, few]]), nan=np.inf)
    code = np.zeros(sub.shape[0], dtype=np.int64)
    for j in range(sub.shape[1]):         # the joint outcome as one integer per draw
        vals, col = np.unique(sub[:, j], return_inverse=True)
        if vals.size > 4 * _CELL_KEYS:
            return None
        code = code * vals.size + col
        if code.max(initial=0) >= 2**62 // (4 * _CELL_KEYS):
            return None
    uniq, inv = np.unique(code, return_inverse=True)
    if uniq.size > 4 * _CELL_KEYS:
        return None
    n = ca.shape[0]
    return Partition(inv[:n], inv[n:], uniq.size, np.ones(uniq.size, dtype=bool), None)


def _at_most(x: np.ndarray, k: int) -> bool:
    """Whether ``x`` takes at most ``k`` distinct values (``np.unique(x).size <= k``), read
    from a head of the array first: most columns answer without sorting all of it."""
    head = np.unique(x[:1024])
    if head.size > k:
        return False
    if np.isin(x, head).all():
        return True
    return np.unique(x).size <= k


def _bins(view, xa: np.ndarray, xb: np.ndarray, h: int) -> Partition | None:
    """Quantile bins of one number (edges from the first draws' finite values), −∞ a cell
    of its own, NaN and +∞ cells no event holds; None when the number takes one value."""
    f = min(h, _FIT_ROWS)
    pooled = np.concatenate([xa[:f], xb[:f]])
    nan = np.isnan(pooled)
    numbers = pooled[~nan] if nan.any() else pooled
    values = 0 if numbers.size == 0 else 1 + int(numbers.min() < numbers.max())
    if values + int(nan.any()) < 2:
        return None
    finite = pooled[np.isfinite(pooled)]
    edges = np.unique(np.quantile(finite, np.linspace(0, 1, _CELL_BINS + 1)[1:-1])) \
        if finite.size else np.array([])
    m = edges.size + 1          # value bins 0..m-1, then NaN, +inf, -inf

    def cell(x):
        c = np.searchsorted(edges, x, side="right")
        bad = ~np.isfinite(x)
        if bad.any():
            xb = x[bad]
            c[bad] = np.where(np.isnan(xb), m, np.where(xb > 0, m + 1, m + 2))
        return c
    lows = np.concatenate([[-_FLOAT_MAX], edges])
    highs = np.concatenate([edges, [np.inf]])

    def bins_event(chosen, direction):
        pieces = sorted([(-np.inf, -_FLOAT_MAX) if c == m + 2 else
                         (float(lows[c]), float(highs[c])) for c in chosen])
        merged = []
        for lo, hi in pieces:
            if merged and merged[-1][1] == lo:
                merged[-1] = (merged[-1][0], hi)
            else:
                merged.append((lo, hi))
        return Event("set", direction, view=view, intervals=tuple(merged))
    usable = np.ones(m + 3, dtype=bool)
    usable[m:m + 2] = False
    return Partition(cell(xa), cell(xb), m + 3, usable, bins_event)


def _best_union(parts, counts, rank: int, cut: int, n_seen: int, n_goal: int,
                alpha: float, delta: float):
    """The partition, direction and union of usable cells with the largest cautious
    projection: cells ranked by estimated ratio on half ``rank`` of the counts, the union
    cut (and the partition and direction chosen) on half ``cut`` (``n_seen`` draws) —
    (projection, partition index, favoured side 0/1, cells), or None."""
    best = None
    for p, (part, (ca, cb)) in enumerate(zip(parts, counts)):
        for side, fav, other in ((0, ca, cb), (1, cb, ca)):
            ratio = np.log(fav[rank] + 0.5) - np.log(other[rank] + 0.5)
            ratio = np.where(part.usable, ratio, -np.inf)
            order = np.argsort(-ratio, kind="stable")[:int(part.usable.sum())]
            if order.size == 0:
                continue
            sp, sq = np.cumsum(fav[cut][order]), np.cumsum(other[cut][order])
            proj = projected_bound(sp, sq, n_seen, n_goal, alpha, delta, shrink=CAUTIOUS)
            # a union needs a few favoured draws: a lucky cell of five is not a leak
            proj = np.where(np.isfinite(proj) & (sp >= min(_CELL_MIN, n_seen / 20)), proj,
                            -np.inf)
            j = int(np.argmax(proj))
            if best is None or proj[j] > best[0]:
                best = (float(proj[j]), p, side, order[:j + 1])
    return best


def _counts(parts, h: int) -> list:
    return [([np.bincount(p.ia[:h], minlength=p.m), np.bincount(p.ia[h:], minlength=p.m)],
             [np.bincount(p.ib[:h], minlength=p.m), np.bincount(p.ib[h:], minlength=p.m)])
            for p in parts]


def cell_event(A: Sample, B: Sample, n_goal: int, alpha: float, delta: float
               ) -> tuple[Event | None, float]:
    """The best union of cells on the draws ``A`` (d) and ``B`` (d′) as an event — cells
    ranked on the first half of the draws, the union cut on the second (so one lucky cell
    does not make it) — and its cautious projection for a test of ``n_goal`` draws;
    (None, -inf) when there is none."""
    n = A.outputs.n
    h = n // 2
    parts = [p for p in partitions(A.outputs, B.outputs, h, leading=True)
             if p.event is not None]
    best = _best_union(parts, _counts(parts, h), 0, 1, n - h, n_goal, alpha, delta)
    if best is None or not math.isfinite(best[0]):
        return None, -math.inf
    proj, p, side, cells = best
    return parts[p].event(sorted(int(c) for c in cells), "d" if side == 0 else "d_prime"), \
        proj


def held_out_score(A: Sample, B: Sample, n_goal: int, alpha: float, delta: float, *,
                   features=None, learners=("logistic",), seed: int = 0,
                   bits: bool = False, choose_max: int | None = None
                   ) -> tuple[float, float, object]:
    """(score, cautious score, event) of a pair from its draws ``A`` (on d) and ``B`` (on
    d′): the larger of two held-out statistics, each chosen on one half of the draws and
    read on the other as the ε lower bound its counts project for a test of ``n_goal``
    fresh draws per dataset at level ``alpha`` — read at the point estimates
    (:data:`SCORE_SHRINK`: the score, which ranks pairs) and at :data:`CAUTIOUS` (which
    flags them):

    * the event :func:`verification.audit.events.select.choose_event` chooses on the first half
      (every family: outcomes, thresholds, summaries, learned scores);
    * the best union of cells (module doc) chosen on one half and read on the other, and
      the same with the halves swapped, the two readings averaged (cross-fitted: the choice
      among partitions never sees the half it is read on).

    ``choose_max`` caps the draws per dataset choose_event reads (the first ones of the
    first half); 0 leaves it out (its families cost about half a second a call on a vector
    of 20 numbers, the cells a few milliseconds). ``-inf`` when neither finds an event; the
    event is choose_event's."""
    h = A.outputs.n // 2
    (A1, A2), (B1, B2) = A.split(h), B.split(h)
    if choose_max is not None and h > choose_max:
        A1, B1 = A1.split(choose_max)[0], B1.split(choose_max)[0]
    ev = None
    if choose_max != 0:
        ev = choose_event(A1, B1, n_goal, alpha, delta, features=features, learners=learners,
                          seed=seed % 2**32, bits=bits).event
    score = cautious = -math.inf
    if ev is not None:
        ka, kb = int(A2.contains(ev).sum()), int(B2.contains(ev).sum())
        kp, kq = (ka, kb) if ev.direction == "d" else (kb, ka)
        score, cautious = (float(projected_bound(kp, kq, A.outputs.n - h, n_goal, alpha,
                                                 delta, shrink=level))
                           for level in (SCORE_SHRINK, CAUTIOUS))
    cells = _cell_score(A.outputs, B.outputs, h, n_goal, alpha, delta)
    score, cautious = max(score, cells[0]), max(cautious, cells[1])

    def finite(x):
        return x if math.isfinite(x) else -math.inf
    return finite(score), finite(cautious), ev


def _cell_score(a, b, h: int, n_goal: int, alpha: float, delta: float) -> tuple[float,
                                                                                  float]:
    """The cross-fitted cells reading of :func:`held_out_score` (point, cautious)."""
    parts = partitions(a, b, h)
    if not parts:
        return -math.inf, -math.inf
    counts = _counts(parts, h)
    sizes = (h, a.n - h)
    reads = []
    for i in (0, 1):             # choose on half i, read on half 1 - i
        best = _best_union(parts, counts, i, i, sizes[i], n_goal, alpha, delta)
        if best is None:
            return -math.inf, -math.inf
        _, p, side, cells = best
        fav, other = counts[p][side][1 - i], counts[p][1 - side][1 - i]
        kp, kq = int(fav[cells].sum()), int(other[cells].sum())
        reads.append([float(projected_bound(kp, kq, sizes[1 - i], n_goal, alpha, delta,
                                            shrink=level))
                      for level in (SCORE_SHRINK, CAUTIOUS)])
    return (reads[0][0] + reads[1][0]) / 2, (reads[0][1] + reads[1][1]) / 2
