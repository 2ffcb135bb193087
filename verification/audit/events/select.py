"""Choosing the event to test, from draws that the test never sees.

Given draws ``A`` (dataset d) and ``B`` (dataset d') of a mechanism, every *family* below
proposes events, and the event with the largest *projected* ε lower bound — what
Clopper–Pearson is expected to give on ``n_test`` fresh draws if the selection draws'
rates (shrunk to their 95 % Clopper–Pearson ends) held — is the one tested. Selection
sees only selection draws, so the final test stays exact whatever is chosen here.

Families (each in both directions, favouring d or d'):

* **exact outcomes** — sets of whole outputs ranked by estimated likelihood ratio, when the
  outputs repeat (integers, tuples, small vectors, strings; the superlevel sets of the
  likelihood ratio are the optimal events for a discrete mechanism);
* **thresholds** — ``x ≥ t``, ``x ≤ t`` and ratio-ranked unions of intervals, on a scalar
  output and on each coordinate of a vector output; the thresholds are taken at ranks
  spaced geometrically toward both extremes, so events of any probability the test split
  can resolve are candidates (there is no floor such as DP-Sniper's 0.01);
* **learned scores** — a probabilistic classifier (scikit-learn: logistic regression and
  histogram gradient boosting) trained on the first half of the selection draws to tell
  the datasets apart; the superlevel sets of its score are candidate events, with their
  thresholds chosen on the second half (the idea of DP-Sniper, Bichsel et al., S&P 2021).
  ``features(outputs)`` supplies the numbers the classifier reads when the user knows
  better than the raw coordinates;
* **structure** (dict, set and sequence outputs, :mod:`verification.audit.structure`) —
  thresholds and sets on the length, ratio-ranked sets of key sets, the presence of a key,
  thresholds and intervals on the number at a key: events on the shape of an output that
  never repeats as a whole. Keys include the paths to nested leaves (dicts of dicts, lists
  of dicts, tuples of arrays), so every leaf is a candidate; more candidates change only
  which event is tested, never the level of its test;
* **bits** (with ``bits=True``, float outputs only: the scalar output, or each float
  coordinate of a vector output up to the column limit) — events on the IEEE-754 binary64
  encoding (:mod:`verification.audit.events`): ratio-ranked sets of the ``k`` lowest
  mantissa bits (k = 1..8), of binades and of representation classes (binade with its
  lowest bits, binade with its trailing zero bits: the classes reachable from one dataset
  and not the other), and tails and interval unions of the lowest-set-bit exponent (the
  output is, or is not, a multiple of 2^t). Mironov (CCS 2012) showed that a float
  mechanism f(d) + noise can leak through these bits whatever the real-arithmetic law;
  the family makes such leaks candidates like any other, chosen on selection draws only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from ..outputs import FeatureMap, Outputs
from ..stats import candidate_prefixes, log_ratio_bound, projected_bound
from ..structure import At, Has, KeySet, Length, is_structured, probe_keys
from . import (
    Binade,
    BitClass,
    Column,
    Count,
    Event,
    Lattice,
    LowBits,
    Score,
    Total,
    Value,
    Votes,
    Whole,
)

__all__ = ["Sample", "Choice", "choose_event", "LEARNERS"]

LEARNERS = ("logistic", "boosting")
_MAX_COLUMNS = 64          # vector outputs wider than this get no per-coordinate events
_MAX_BINS = 4000           # ordinal views with more distinct values are binned
_FIT_ROWS = 200_000        # rows per dataset a classifier is trained on (at most)
_RANK_LEVEL = 0.2          # ranking single outcomes by a Clopper–Pearson ratio at this level
_SET_BINS = 200            # interval unions are built from at most this many bins ...
_SET_BIN = 50              # ... each holding at least this many pooled selection draws
_LOW_BITS = range(1, 9)    # the k of the lowest-mantissa-bit views
_CLASS_BITS = (1, 2, 3)    # low bits joined to the binade in representation classes
_CLASS_ZEROS = 12          # trailing zero bits counted up to this in representation classes


@dataclass
class Sample:
    """Selection draws from one dataset: the normalised outputs and the raw chunks exactly
    as the mechanism returned them (for user feature maps)."""

    outputs: Outputs
    raw: list
    sizes: list

    def matrix(self, user) -> np.ndarray:
        """The raw feature matrix: ``user(chunk)`` per chunk, or the output's columns."""
        if user is None:
            return self.outputs.columns()
        parts, start = [], 0
        for chunk, k in zip(self.raw, self.sizes):
            parts.append(FeatureMap.raw_matrix(user, chunk, self.outputs[start:start + k]))
            start += k
        return np.concatenate(parts)

    def split(self, h: int) -> tuple[Sample, Sample]:
        """The first ``h`` draws and the rest."""
        return (Sample(self.outputs[:h], *self._raw_slice(0, h)),
                Sample(self.outputs[h:], *self._raw_slice(h, self.outputs.n)))

    def _raw_slice(self, lo: int, hi: int):
        raws, sizes, start = [], [], 0
        for raw, k in zip(self.raw, self.sizes):
            a, b = max(lo, start), min(hi, start + k)
            if a < b:
                raws.append(raw[a - start:b - start])
                sizes.append(b - a)
            start += k
        return raws, sizes

    def contains(self, event: Event) -> np.ndarray:
        """Which of these draws fall in ``event``."""
        if len(self.raw) == 1:
            return event.contains(self.raw[0], self.outputs)
        if isinstance(self.raw[0], np.ndarray):
            return event.contains(np.concatenate(self.raw), self.outputs)
        return event.contains([x for r in self.raw for x in r], self.outputs)


@dataclass
class Choice:
    event: Event | None
    projected: float
    family: str
    considered: list = field(default_factory=list)   # (family, projected) of each family
    notes: list = field(default_factory=list)


# ---------------------------------------------------------------- prefix search
def _best_prefix(cp, cq, order, n_seen, n_test, alpha, delta):
    sp, sq = np.cumsum(cp[order]), np.cumsum(cq[order])
    idx = candidate_prefixes(order.size) - 1
    eps = projected_bound(sp[idx], sq[idx], n_seen, n_test, alpha, delta)
    j = int(np.argmax(eps))
    return float(eps[j]), int(idx[j]) + 1


def _ratio_order(cp, cq, n_seen):
    score = log_ratio_bound(cp, cq, n_seen, _RANK_LEVEL, 0.0)
    return np.argsort(-score, kind="stable")


def _directions(ca, cb):
    return (("d", ca, cb), ("d_prime", cb, ca))


# ---------------------------------------------------------------- exact outcomes
def _ranked_sets(ca, cb, n, n_test, alpha, delta):
    """Best ratio-ranked prefix per direction: the ranking reads the first half of the
    draws (``ca[0]``, ``cb[0]``), the cut the second half, so a rare outcome whose ratio is
    large by chance on one half is not rewarded on the other."""
    h = n // 2
    for direction, cp, cq in _directions(ca, cb):
        order = _ratio_order(cp[0], cq[0], h)
        eps, cut = _best_prefix(cp[1], cq[1], order, n - h, n_test, alpha, delta)
        yield direction, eps, order[:cut]


def _nominal(a: Outputs, b: Outputs, n_test, alpha, delta, limit):
    """Ratio-ranked sets of whole outputs; when there are more distinct outputs than
    ``limit``, of the (at most ``limit``) most frequent outputs that repeat — an atom
    hidden in continuous noise (a release of the exact answer, now and then) is one of
    them; None when nothing repeats."""
    n = a.n
    h = n // 2
    ka, kb = a.keys(), b.keys()
    if a.kind == "objects":
        counts = Counter(ka)
        counts.update(kb)
        vocab = list(counts)
        if len(vocab) > limit:   # too many outcomes: the ones that repeat
            vocab = [v for v, c in counts.most_common(limit) if c >= 2]
            if not vocab:
                return None
        index = {v: i for i, v in enumerate(vocab)}
        ia = np.fromiter((index.get(v, -1) for v in ka), dtype=np.int64, count=n)
        ib = np.fromiter((index.get(v, -1) for v in kb), dtype=np.int64, count=n)
        uniq = np.empty(len(vocab), dtype=object)
        uniq[:] = vocab
    else:
        uniq, inv, cnt = np.unique(np.concatenate([ka, kb]), return_inverse=True,
                                   return_counts=True)
        if uniq.size > limit:   # too many outcomes: the ones that repeat
            top = np.argsort(-cnt, kind="stable")[:limit]
            top = top[cnt[top] >= 2]
            if top.size == 0:
                return None
            remap = np.full(uniq.size, -1, dtype=np.int64)
            remap[top] = np.arange(top.size)
            uniq, inv = uniq[top], remap[inv]
        ia, ib = inv[:n], inv[n:]
    m = uniq.size

    def counts_of(x):
        return np.bincount(x[x >= 0], minlength=m)

    ca = (counts_of(ia[:h]), counts_of(ia[h:]))
    cb = (counts_of(ib[:h]), counts_of(ib[h:]))
    best = (-np.inf, None, None)
    for direction, eps, chosen_idx in _ranked_sets(ca, cb, n, n_test, alpha, delta):
        if eps > best[0]:
            best = (eps, direction, chosen_idx)
    eps, direction, chosen_idx = best
    if direction is None:
        return (-np.inf, None)
    chosen = uniq[chosen_idx]        # only the winner's outputs are decoded
    values = tuple(sorted((a.decode(k) for k in chosen), key=repr))
    keys = frozenset(chosen) if a.kind == "objects" else np.sort(chosen)
    return (eps, Event("set", direction, values=values, view=Whole(), keys=keys))


# ---------------------------------------------------------------- categorical views
def _categorical(va, vb, n, n_test, alpha, delta, view):
    """Ratio-ranked sets of the integer codes a categorical view reads (as the exact-outcome
    family ranks whole outputs); None when the view takes a single value."""
    h = n // 2
    uniq, inv = np.unique(np.concatenate([va, vb]), return_inverse=True)
    if uniq.size < 2:
        return None
    m = uniq.size
    ia, ib = inv[:n], inv[n:]
    ca = (np.bincount(ia[:h], minlength=m), np.bincount(ia[h:], minlength=m))
    cb = (np.bincount(ib[:h], minlength=m), np.bincount(ib[h:], minlength=m))
    best = (-np.inf, None)
    for direction, eps, chosen_idx in _ranked_sets(ca, cb, n, n_test, alpha, delta):
        if eps > best[0]:
            keys = np.sort(uniq[chosen_idx])
            best = (eps, Event("set", direction, values=tuple(view.label(c) for c in keys),
                               view=view, keys=keys))
    return best


def _bit_views(j):
    """The bit-level views of one float (``j`` None: the scalar output), with family names."""
    where = "" if j is None else f" on output[{j}]"
    views = [(LowBits(k, j), f"lowest {k} mantissa bit{'s' if k > 1 else ''}{where}")
             for k in _LOW_BITS]
    views.append((Binade(j), f"binades{where}"))
    views += [(BitClass(low=k, j=j), f"binade and lowest {k} bits{where}")
              for k in _CLASS_BITS]
    views.append((BitClass(zeros=_CLASS_ZEROS, j=j), f"binade and trailing zeros{where}"))
    return views


def _bit_events(a: Outputs, b: Outputs, n, n_test, alpha, delta):
    """The bits family on selection outputs ``a`` (d) and ``b`` (d'): every categorical bit
    view and the lowest-set-bit tails and interval unions, per float (column)."""
    if a.kind == "float":
        columns = [(None, a.data, b.data)]
    elif a.kind == "array" and a.data.dtype.kind == "f" and a.data.shape[1] <= _MAX_COLUMNS:
        ca, cb = a.columns(), b.columns()
        columns = [(j, ca[:, j], cb[:, j]) for j in range(ca.shape[1])
                   if np.unique(ca[:, j]).size + np.unique(cb[:, j]).size > 2]
    else:
        return []
    out = []
    for j, xa, xb in columns:
        xa, xb = Outputs("float", np.ascontiguousarray(xa)), \
            Outputs("float", np.ascontiguousarray(xb))
        for view, name in _bit_views(j):
            probe = replace(view, j=None)      # the same view on the extracted column
            got = _categorical(probe.apply(None, xa), probe.apply(None, xb), n, n_test,
                               alpha, delta, view)
            if got is not None:
                out.append((name, *got))
        lat = Lattice(j)
        where = "" if j is None else f" on output[{j}]"
        la, lb = Lattice().apply(None, xa), Lattice().apply(None, xb)
        if np.unique(np.concatenate([la, lb])).size > 1:
            out.extend((f"lowest set bit {name}{where}", eps, ev) for name, eps, ev in
                       _ordinal(la, lb, n, n_test, alpha, delta, lat))
    return out


# ---------------------------------------------------------------- thresholds
def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` of an array already sorted (no second sort)."""
    if a.size == 0:
        return a
    keep = np.empty(a.size, dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _edges(pooled: np.ndarray) -> np.ndarray:
    uniq = _sorted_unique(pooled)
    if uniq.size <= _MAX_BINS:
        return uniq
    m = pooled.size
    g = np.geomspace(1, m / 2, _MAX_BINS // 3)
    ranks = np.concatenate([g - 1, m - g, np.linspace(0, m - 1, _MAX_BINS // 3)])
    ranks = np.clip(np.round(ranks).astype(np.int64), 0, m - 1)
    return np.unique(pooled[ranks])


def _ordinal(va, vb, n, n_test, alpha, delta, view):
    """Tails and ratio-ranked interval unions of a number read from the outputs (NaN is in
    no event: its draws count on neither side of any threshold)."""
    fa = va[~np.isnan(va)] if va.dtype.kind == "f" else va
    fb = vb[~np.isnan(vb)] if vb.dtype.kind == "f" else vb
    pooled = np.sort(np.concatenate([fa, fb]))
    if pooled.size == 0:
        return []
    edges = _edges(pooled)
    bins = edges.size
    ca = np.bincount(np.searchsorted(edges, fa, side="right") - 1, minlength=bins)
    cb = np.bincount(np.searchsorted(edges, fb, side="right") - 1, minlength=bins)
    integer = pooled.dtype.kind == "i"

    def py(x):
        return int(x) if integer else float(x)

    best = (-np.inf, None)
    out = []
    for direction, cp, cq in _directions(ca, cb):
        top = np.arange(bins)[::-1]
        eps, cut = _best_prefix(cp, cq, top, n, n_test, alpha, delta)
        if eps > best[0]:
            best = (eps, Event("ge", direction, threshold=py(edges[bins - cut]), view=view))
        eps, cut = _best_prefix(cp, cq, np.arange(bins), n, n_test, alpha, delta)
        if eps > best[0]:
            last = pooled[np.searchsorted(pooled, edges[cut], side="left") - 1] \
                if cut < bins else pooled[-1]
            best = (eps, Event("le", direction, threshold=py(last), view=view))
    out.append(("tail", *best))
    best = (-np.inf, None)
    # Unions of intervals: coarse bins (each holding >= _SET_BIN draws), ranked on one half.
    h = n // 2
    coarse = _coarse_edges(pooled)
    m = coarse.size

    def hist(v):
        v = v[~np.isnan(v)] if v.dtype.kind == "f" else v
        return np.bincount(np.searchsorted(coarse, v, side="right") - 1, minlength=m) \
            if v.size else np.zeros(m, dtype=np.int64)

    ch_a = (hist(va[:h]), hist(va[h:]))
    ch_b = (hist(vb[:h]), hist(vb[h:]))
    for direction, eps, chosen in _ranked_sets(ch_a, ch_b, n, n_test, alpha, delta):
        if eps > best[0]:
            chosen = np.sort(chosen)
            if integer and isinstance(view, Value) and m == _sorted_unique(pooled).size:
                ev = Event("set", direction, values=tuple(int(v) for v in coarse[chosen]),
                           view=Whole(), keys=coarse[chosen].astype(np.int64))
            else:
                ev = Event("set", direction, view=view, intervals=_intervals(coarse, chosen,
                                                                             py))
            best = (eps, ev)
    out.append(("intervals", *best))
    return out


def _coarse_edges(pooled: np.ndarray) -> np.ndarray:
    """Bin edges for interval unions: every distinct value when there are few, otherwise
    quantiles holding about ``max(_SET_BIN, size / _SET_BINS)`` pooled draws each
    (``pooled`` sorted)."""
    uniq = _sorted_unique(pooled)
    per = max(_SET_BIN, pooled.size // _SET_BINS)
    if uniq.size <= max(2, pooled.size // per):
        return uniq
    ranks = np.arange(0, pooled.size, per)
    return np.unique(pooled[ranks])


def _intervals(edges, chosen, py):
    """Merge chosen bins [edges[i], edges[i+1]) into maximal intervals."""
    out = []
    for i in chosen:
        lo = py(edges[i])
        hi = py(edges[i + 1]) if i + 1 < edges.size else float("inf")
        if out and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


# ---------------------------------------------------------------- learned scores
def _fit(learner, X, y, seed):
    if learner == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=500))
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(max_iter=100, early_stopping=False,
                                               random_state=seed)
    with _one_thread():
        model.fit(X, y)
    return model


def _one_thread():
    """Native thread pools capped at one thread: audits run in parallel processes, and
    OpenMP pools in each would oversubscribe the cores many times over."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def _terms(model, names):
    lr = model[-1]
    w = lr.coef_[0]
    top = np.argsort(-np.abs(w))[:4]
    return tuple((names[i], float(w[i])) for i in top if w[i] != 0)


def _learned(A, B, user, n_test, alpha, delta, learners, seed, notes):
    try:
        import sklearn  # noqa: F401
    except ImportError:
        notes.append("scikit-learn is not installed, so no learned events were tried "
                      "(pip install 'privtools[audit]')")
        return []
    ma, mb = A.matrix(user), B.matrix(user)
    fm = FeatureMap.fit(user, np.concatenate([ma, mb]))
    xa, xb = fm.clean(ma), fm.clean(mb)
    n = xa.shape[0]
    h = n // 2
    if h < 50:
        notes.append("too few selection draws to train a classifier")
        return []
    rs = np.random.default_rng(seed)
    fit_a = rs.permutation(h)[:_FIT_ROWS]
    fit_b = rs.permutation(h)[:_FIT_ROWS]
    X = np.concatenate([xa[fit_a], xb[fit_b]])
    y = np.concatenate([np.ones(fit_a.size), np.zeros(fit_b.size)])
    found = []
    for learner in learners:
        if not (X != X[:1]).any():      # one distinct row: nothing to learn
            break
        model = _fit(learner, X, y, seed)
        terms = _terms(model, fm.names()) if learner == "logistic" else ()
        view = Score("logistic-regression" if learner == "logistic" else "gradient-boosting",
                     fm, model, terms)
        with _one_thread():
            sa = np.asarray(model.decision_function(xa[h:]), dtype=np.float64)
            sb = np.asarray(model.decision_function(xb[h:]), dtype=np.float64)
        found.extend((f"{name} of the {learner} score", eps, ev) for name, eps, ev in
                     _ordinal(sa, sb, n - h, n_test, alpha, delta, view))
    return found


def _votes(a: Outputs, b: Outputs):
    """The :class:`Votes` view from selection outputs: each coordinate cut halfway between
    its medians on the two datasets, counted on the side of d's median (coordinates whose
    medians agree are left out); None when no coordinate moves."""
    ma, mb = a.columns(), b.columns()
    with np.errstate(invalid="ignore"):
        med_a, med_b = np.nanmedian(ma, axis=0), np.nanmedian(mb, axis=0)
    moved = np.isfinite(med_a) & np.isfinite(med_b) & (med_a != med_b)
    if moved.sum() < 2:
        return None
    cuts = np.where(moved, (med_a + med_b) / 2, np.nan)
    return Votes(tuple(float(c) for c in cuts), tuple(bool(u) for u in med_a > med_b))


def _summaries(a: Outputs, b: Outputs):
    """Views that summarise a vector output: its sum, the votes of its coordinates
    (:class:`Votes`), and the count of each value when the coordinates take few values (or
    of each non-finite marker of a float vector)."""
    out = [(Total(), "the sum")]
    votes = _votes(a, b)
    if votes is not None:
        out.append((votes, "the coordinates' votes"))
    m = a.columns()
    finite = np.isfinite(m)
    if finite.all():
        vals = np.unique(m)
        if vals.size <= 8:
            out += [(Count(float(v)), f"the count of {v:g}") for v in vals]
    else:
        for marker, test in ((float("nan"), np.isnan), (float("-inf"), np.isneginf),
                             (float("inf"), np.isposinf)):
            if test(m).any():
                out.append((Count(marker), f"the count of {marker}"))
    return out


# ---------------------------------------------------------------- structure
def _structural(a: Outputs, b: Outputs, n, n_test, alpha, delta):
    """Events on the structure of dict, set and sequence outputs
    (:mod:`verification.audit.structure`): the length, the key set, the presence of the
    keys whose presence rates differ most, and the numbers at the most frequent keys."""
    if a.kind != "objects" or not is_structured(a.data):
        return []
    out = []
    length = Length()
    out.extend((f"{name} of the length", eps, ev) for name, eps, ev in
               _ordinal(length.apply(None, a), length.apply(None, b), n, n_test, alpha,
                        delta, length))
    ca, cb = KeySet().apply(None, a), KeySet().apply(None, b)
    if np.unique(np.concatenate([ca, cb])).size <= max(64, (2 * n) // 5):
        names = {}
        for v, c in zip(np.concatenate([a.data, b.data]), np.concatenate([ca, cb])):
            names.setdefault(int(c), KeySet.text(v))
        got = _categorical(ca, cb, n, n_test, alpha, delta, KeySet(tuple(names.items())))
        if got is not None and got[1] is not None:
            ev = got[1]
            kept = tuple((int(c), names[int(c)]) for c in np.asarray(ev.keys))
            out.append(("key sets", got[0], replace(ev, view=KeySet(kept))))
    gap, common = probe_keys(a.data, b.data)
    for key in gap:
        view = Has(key)
        got = _categorical(view.apply(None, a), view.apply(None, b), n, n_test, alpha,
                           delta, view)
        if got is not None:
            out.append((f"presence of key {key!r}", *got))
    for key in common:
        view = At(key)
        out.extend((f"{name} of the value at key {key!r}", eps, ev) for name, eps, ev in
                   _ordinal(view.apply(None, a), view.apply(None, b), n, n_test, alpha,
                            delta, view))
    return out


# ---------------------------------------------------------------- the choice
def choose_event(A: Sample, B: Sample, n_test: int, alpha: float, delta: float, *,
                 features=None, learners=LEARNERS, seed: int = 0,
                 bits: bool = False) -> Choice:
    """The candidate event with the largest projected ε lower bound (see the module doc).

    Each family proposes its best event from the first two thirds of the draws; the
    families are then compared on the last third, which none of them has seen (so a
    family that only fits noise — many candidates, a lucky winner — does not win).
    ``bits=True`` adds the bit-level family for float outputs."""
    n = A.outputs.n
    n1 = max(1, (2 * n) // 3)
    (A1, A2), (B1, B2) = A.split(n1), B.split(n1)
    a, b = A1.outputs, B1.outputs
    shaped = a.signature != b.signature     # outputs of different shapes on d and d'
    if shaped:
        a, b = a.to_objects(), b.to_objects()
    notes: list = []
    found = []
    limit = max(64, (2 * n1) // 5)
    got = _nominal(a, b, n_test, alpha, delta, limit)
    if got is not None:
        found.append(("exact outcomes", *got))
    if a.kind in ("int", "float"):
        found.extend((name, eps, ev) for name, eps, ev in
                     _ordinal(a.data, b.data, n1, n_test, alpha, delta, Value()))
    if a.kind == "array":
        found.extend(_vector_events(a, b, n1, n_test, alpha, delta, notes))
    if learners and not shaped and (features is not None or
                                    (a.kind == "array" and a.data.shape[1] > 1)):
        found.extend(_learned(A1, B1, features, n_test, alpha, delta, learners, seed, notes))
    if bits:
        found.extend(_bit_events(a, b, n1, n_test, alpha, delta))
    found.extend(_structural(a, b, n1, n_test, alpha, delta))
    found = [f for f in found if f[2] is not None]
    if not found:
        return Choice(None, -np.inf, "none", [], notes)
    return _held_out_choice(found, A2, B2, n_test, alpha, delta, notes)


def _vector_events(a, b, n1: int, n_test: int, alpha: float, delta: float,
                   notes: list) -> list:
    """The candidates of vector outputs: per coordinate (up to ``_MAX_COLUMNS``) and on
    the vector's summaries."""
    found = []
    k = a.data.shape[1]
    if k <= _MAX_COLUMNS:
        ca, cb = a.columns(), b.columns()
        for j in range(k):
            if np.unique(ca[:, j]).size + np.unique(cb[:, j]).size <= 2:
                continue   # a constant coordinate
            found.extend((f"{name} on output[{j}]", eps, ev) for name, eps, ev in
                         _ordinal(ca[:, j], cb[:, j], n1, n_test, alpha, delta,
                                  Column(j)))
    if k > 1:
        for view, label in _summaries(a, b):
            found.extend((f"{name} of {label}", eps, ev) for name, eps, ev in
                         _ordinal(view.apply(None, a), view.apply(None, b), n1, n_test,
                                  alpha, delta, view))
    if k > _MAX_COLUMNS:
        notes.append(f"vector outputs of {k} coordinates: no per-coordinate events "
                     f"(at most {_MAX_COLUMNS}); the learned events read all of them")
    return found


def _held_out_choice(found: list, A2: Sample, B2: Sample, n_test: int, alpha: float,
                     delta: float, notes: list) -> Choice:
    """The candidate with the largest projected bound on the held-out draws."""
    n2 = A2.outputs.n
    scored = []
    for name, _, ev in found:
        ka, kb = int(A2.contains(ev).sum()), int(B2.contains(ev).sum())
        kp, kq = (ka, kb) if ev.direction == "d" else (kb, ka)
        scored.append((name, float(projected_bound(kp, kq, n2, n_test, alpha, delta)), ev))
    best = max(scored, key=lambda f: f[1])
    considered = [(name, eps) for name, eps, _ in scored]
    return Choice(best[2], best[1], best[0], considered, notes)
