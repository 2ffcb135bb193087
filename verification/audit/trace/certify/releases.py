"""The releases of a traced pair, read from the tracked forms (:mod:`.forms`).

The trace's :class:`~.api._Trace` hands its coupled runs here once the probes have run:
the tracked runs are made and read as rows (:func:`form_model_of`); where the forms are
usable, each row's shift becomes a certified release — a group of draws of one law
(:mod:`.model`'s linear system) or a row's own integer law by convolution
(:mod:`.discrete`) — and what the forms established (infinite losses, data-dependent
coefficients) becomes a finding. Where they are not usable, the reason is kept and the
trace certifies nothing.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import mpmath
import numpy as np

from privtools.accounting import PmfPairEvent

from .. import certify
from ..record.model import groups_of, solve
from ..record.recorder import same_value
from ..result import DATA_DEPENDENT, UNNOISED, Finding
from . import qtext
from .discrete import draw_pmf, row_pmf
from .forms import form_model
from .gaussians import gaussian_pair_epsilon

__all__ = ["form_model_of", "tracked_leaves", "scaled", "portable", "two_gaussians",
           "EXACT_NUMPY"]

# numpy draws whose sampler is exact integer arithmetic (Lemire's bounded integers); the
# other discrete samplers compute in floating point
EXACT_NUMPY = ("integers",)


def form_model_of(t, rec, rp, draws, dep, dep_p):
    """The tracked runs of the coupled pair, read as rows (:mod:`.forms`)."""
    trec = t.runner.tracked(t.d, rec.calls)
    trp = t.runner.tracked(t.dp, rec.calls)
    fm = form_model(trec, trp, rec, rp, draws, dep, dep_p, varying=t.varying,
                    modulus=t.modulus, pure=t.delta == 0)
    if fm.ok and (dep.steered or dep_p.steered or dep.raised or dep_p.raised):
        fm.refuse((dep.steered + dep_p.steered + dep.raised + dep_p.raised)[0] +
                  ", though no branch on a noisy value was recorded")
    return fm


def scaled(t, path, ra, rb, draws):
    """The noise reaches an output with coefficients that differ between d and d'
    (established by the forms). One draw of an unbounded law scaled differently: the
    output's laws have unbounded log-ratio (pure ε = ∞)."""
    one = len(ra) == 1 and set(ra) == set(rb) and abs(next(iter(ra.values()))) != abs(
        next(iter(rb.values()))) and unbounded(draws[next(iter(ra))])
    t.add(DATA_DEPENDENT, f"output{path}",
          f"the noise reaching it is scaled by {coefs(ra, draws)} on d but "
          f"{coefs(rb, draws)} on d' (the code scales the noise by a factor computed "
          "from the data)", loss=math.inf if t.delta == 0 and one else None)


def _stopped(t, rec, draws, fm) -> bool:
    """What ends the tracked reading before any release: plain outputs that vary, outputs
    of infinite loss, rescaled draws released alone (their findings noted). True: stop."""
    if fm.plain_apart and not t._constant(rec, leaves=fm.plain_apart):
        t.undecided.append("outputs that no traced draw reaches change from run to run: "
                           "the mechanism draws randomness the trace does not see")
        return True
    for where, detail in fm.infinite:
        t.add(UNNOISED, where, detail, loss=math.inf)
    if fm.infinite:
        return True
    if t.rescaled and t.delta == 0:
        for k in sorted(t.rescaled):
            alone = [j for j in fm.leaves if len(fm.moved[j]) == 1 and
                     draws[next(iter(fm.moved[j]))].call == k and
                     unbounded(draws[next(iter(fm.moved[j]))])]
            if alone and fm.exact:
                infinite_rescaled(t, k)
    return False


def _shared_draw(t, fm, bad) -> None:
    """A combination of outputs with no noise (one draw reused for several releases)."""
    where = fm.labels[bad[0]]
    if fm.exact:
        t.add(UNNOISED, where,
              "a combination of outputs carries no noise: outputs that share one "
              "noise draw move apart between d and d' (one draw reused for several "
              "releases)", loss=math.inf)
    else:
        t.undecided.append(
            f"{where}: a combination of it carries no noise between d and d', "
            "through " + ", ".join(n.describe() for n in fm.nodes[:3]) +
            " — its loss is bounded only by ∞; not certified")


def _group_releases(t, draws, fm, groups, s) -> list | None:
    """One certified release per group of draws the shift ``s`` moves (None: a group has
    scale 0 or a law the accountant does not hold; noted)."""
    releases = []
    for grp, sg in zip(groups, s):
        if sg == 0:
            continue
        first = draws[grp.members[0]]
        rows = [fm.labels[j] for j, _ in grp.column[:3]]
        if first.scale is not None and first.scale == 0:
            t.add(UNNOISED, rows[0],
                  f"{first.method} (call {first.call}) has scale 0: the value it "
                  f"should hide moves by {qtext(abs(sg))} with no noise at all",
                  loss=math.inf)
            return None
        where = (f"{first.method} (call {first.call}"
                 + (f", {grp.k} draws" if grp.k > 1 else f", element {first.element}")
                 + f") → {', '.join(rows)}")
        r = certify.release_of(where, first.method, first.scale, first.law, grp.k, sg,
                               t.modulus)
        if r is None:
            t.undecided.append(f"{where}: the law of {first.method} has no "
                               "privacy-loss distribution the accountant knows")
            return None
        releases.append(r)
    return releases


def tracked_leaves(t, rec, draws, fm):
    """The releases of the rows the forms give (:mod:`.forms`)."""
    t.tracked_ok = True
    t.fixed = fm.plain_equal          # checked for randomness around rng before a HOLDS
    if _stopped(t, rec, draws, fm):
        return None, False
    if any(f.kind == DATA_DEPENDENT for f in t.findings):
        g = two_gaussians(t, rec, draws, fm)
        return ([g], False) if g is not None else (None, False)
    t._declared(rec.tree.paths, {j: fm.rhs[j] for j in fm.leaves})
    own = row_laws(t, rec, draws, fm)
    if own is None:
        return None, False
    rows = [r for r in fm.rows if r not in own]
    groups = groups_of({r: fm.moved[r] for r in rows}, draws)
    s, unique, bad = solve(rows, groups, fm.rhs)
    if bad:
        _shared_draw(t, fm, bad)
        return None, False
    shifted = _group_releases(t, draws, fm, groups, s)
    if shifted is None:
        return None, False
    releases = [r for r in own.values() if r is not None] + shifted
    if not unique:
        t.undecided.append("the draws' shift is not unique (more draws than outputs "
                           "they move): the interval's lower end is not certified")
    if not fm.exact:
        t.bounded = fm.nodes
        t.decided.append(
            f"{len(fm.nodes)} operation(s) on noisy values ("
            + ", ".join(n.describe() for n in fm.nodes[:3])
            + (", …" if len(fm.nodes) > 3 else "")
            + ") read as fixed post-processing of their inputs: the interval's upper "
            "end holds, its lower end is 0")
    t.decided.append(f"{len(fm.leaves)} output value(s) tracked exactly: "
                     f"{len(releases)} release(s) shifted, the rest equal")
    return releases, not unique or not fm.exact


def row_laws(t, rec, draws, fm) -> dict | None:
    """Rows that are a signed sum (±1) of integer draws no other row uses, where a draw
    is one of numpy's discrete laws or the laws or signs differ (a two-sided geometric,
    a binomial, a difference of shares): the row's own law, by convolution
    (:mod:`.discrete`), shifted by the row's shift. None when such a row's law is not
    held (the reason is noted)."""
    uses: dict[int, int] = {}
    for r in fm.rows:
        for di in fm.moved[r]:
            uses[di] = uses.get(di, 0) + 1
    out = {}
    for r in fm.rows:
        row = fm.moved[r]
        if not row or any(uses[di] > 1 or not draws[di].integer for di in row) or \
                any(abs(a) != 1 for a in row.values()):
            continue
        kinds = {draws[di].law_key() for di in row}
        numpy_discrete = any(draws[di].family == "value" for di in row)
        if not numpy_discrete and len(set(row.values())) == 1 and len(kinds) == 1:
            continue                          # the grouped path: a sum of shares
        if fm.rhs[r] == 0:
            out[r] = None
            continue
        terms = [(draw_pmf(draws[di].method, rec.calls[draws[di].call].params,
                           draws[di].law), int(a)) for di, a in sorted(row.items())]
        P = row_pmf(terms)
        terms_text = [("-" if a < 0 else "") +
                      f"{draws[di].method} (call {draws[di].call})[{draws[di].element}]"
                      for di, a in sorted(row.items())]
        text = " + ".join(terms_text[:6]).replace("+ -", "- ") + (
            f" … ({len(terms_text)} draws)" if len(terms_text) > 6 else "")
        if P is None:
            t.undecided.append(f"{fm.labels[r]}: the law of {text} is not one the "
                               "exact engine holds")
            return None
        floating = any(draws[di].family == "value" and draws[di].method not in EXACT_NUMPY
                       for di in row)
        out[r] = certify.release_of_pmf(f"{text} → {fm.labels[r]}", text, P, fm.rhs[r],
                                        t.modulus, two_sided(row, draws, rec.calls),
                                        floating)
    return out


def infinite_rescaled(t, k):
    for i, f in enumerate(t.findings):
        if f.kind == DATA_DEPENDENT and f.where.endswith(f"(call {k})"):
            t.findings[i] = Finding(f.kind, f.where, f.detail + "; its draw alone is "
                                       "released additively, so the output's laws on d "
                                       "and d' have unbounded log-ratio", math.inf, True)


def two_sided(row: dict, draws, calls) -> Fraction | None:
    """1 − p when a row is ``geometric(p) − geometric(p)`` (a two-sided geometric of ratio
    1 − p), else None."""
    if len(row) != 2 or sorted(row.values()) != [-1, 1]:
        return None
    a, b = (draws[di] for di in row)
    if a.method != "geometric" or b.method != "geometric":
        return None
    pa, pb = (calls[x.call].params.get("p") for x in (a, b))
    if not (np.ndim(pa) == 0 and np.ndim(pb) == 0 and same_value(pa, pb)):
        return None
    q = Fraction(float(pa))
    return 1 - q if 0 < q < 1 else None


def portable(r):
    """A release as the result keeps it: a PMF pair's certified balls stay in the trace's
    process (they do not pickle); its law, shift and loss are kept."""
    if any(isinstance(e, PmfPairEvent) for e in r.events):
        return replace(r, events=())
    return r


def unbounded(draw) -> bool:
    """A law whose scale changes give an unbounded log-ratio (unbounded support)."""
    if draw.family == "law":
        return True
    return draw.method in ("laplace", "normal", "standard_normal", "gumbel", "logistic")



def coefs(row: dict, draws) -> str:
    return " + ".join(f"{qtext(a)}·{draws[di].method}[{draws[di].element}]"
                      for di, a in sorted(row.items()))


def _gaussian_scale(call, e) -> Fraction | None:
    if call.method == "standard_normal":
        return Fraction(1)
    if call.method != "normal" or call.scale is None:
        return None
    v = float(np.asarray(call.scale).reshape(-1)[e])
    return Fraction(v) if np.isfinite(v) and v > 0 else None


def two_gaussians(t, rec, draws, fm):
    """The pair's whole view is one Gaussian draw whose scale — the call's σ, or the
    coefficient the code multiplies it by — differs between d and d' (a data-dependent
    parameter): at δ > 0 its certified ε(δ) is that of the two Gaussians
    (:mod:`.gaussians`), instead of no loss at all. None where the view is anything else."""
    if t.delta == 0 or len(rec.tree.paths) != 1:
        return None
    if fm.scaled:
        if len(fm.why) != 1 or 0 not in fm.scaled:
            return None
        ra, rb, dc = fm.scaled[0]
    elif fm.ok and fm.exact and fm.rows == [0]:
        ra = rb = fm.moved[0]
        dc = fm.rhs[0]
    else:
        return None
    if len(ra) != 1 or set(ra) != set(rb):
        return None
    di = next(iter(ra))
    k, e = draws[di].call, draws[di].element
    other = t.coupled_dp
    if other is None or len(other.calls) != len(rec.calls) or any(
            j != k and j in t.rescaled for j in range(len(rec.calls))):
        return None
    sa, sb = _gaussian_scale(rec.calls[k], e), _gaussian_scale(other.calls[k], e)
    if sa is None or sb is None:
        return None
    s1, s2 = abs(ra[di]) * sa, abs(rb[di]) * sb
    if s1 == s2 or s1 == 0 or s2 == 0:
        return None
    lo, hi = gaussian_pair_epsilon(Fraction(0), s1, dc, s2, t.delta)
    where = f"{draws[di].method} (call {k}, element {e}) → {fm.labels.get(0, 'output')}"
    text = f"N(0, {qtext(s1)}²) on d, N({qtext(dc)}, {qtext(s2)}²) on d'"
    t.gaussian_dp = True
    t.decided.append(f"the Gaussian's scale is {qtext(s1)} on d and {qtext(s2)} on d': the "
                     "two laws' ε(δ) is certified directly (not a shift)")
    return certify.Release(where=where, law=text, shift=dc, events=(),
                           pure=(mpmath.inf, mpmath.inf), exact=True, continuous=True,
                           scale=s1, source=draws[di].method, count=1, eps_delta=(lo, hi))
