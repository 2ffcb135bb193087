"""Sampled accounting: privtools' certified PLD accountant against dp_accounting,
prv-accountant and Opacus on Poisson-subsampled and sampled-without-replacement releases.

    python benchmarks/bench_sampled_accounting.py [--quick] [--markdown PATH]

Each row is one composed mechanism and one question, ε(δ) or δ(ε). Where the exact answer
is known (sampled randomized response at small k, one sampled Gaussian release, the
Gaussian without sampling) it is computed in mpmath at 100 digits (``_sampled_exact.py``)
and every library's answer is checked against it; elsewhere (DP-SGD sized runs) the
reference is privtools' certified interval. An answer is on the *wrong side* when a bound
that claims to be an upper bound (pessimistic, RDP, "upper") lies below the reference, or
one that claims to be a lower bound (optimistic, "lower") lies above it, by more than a
relative 1e-12. Every library is optional: one that cannot be loaded is reported, not run.
Times are per row, measured in this run: building the library's accountant for the row's
mechanism plus answering the row's question.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath
from _sampled_exact import (
    epsilon_for_delta,
    gaussian_delta,
    gaussian_sampled_delta,
    load_opacus_accountants,
    rr_delta,
)

from privtools.accounting import (
    GaussianEvent,
    PldAccountant,
    PoissonSampledEvent,
    PureDPEvent,
    SampledWithoutReplacementEvent,
    required_relation,
)
from privtools.certified.intervals import ends

TOL = 1e-12                          # relative slack for float rounding
OURS_FINE, OURS_COARSE = 2**18, 2**14
PRV_EPS_ERROR = 0.01                 # prv-accountant and Opacus PRV: eps_error, δ_err = δ/1000
DPA_GRIDS = (1e-4, 1e-5)             # dp_accounting value_discretization_interval


# ------------------------------------------------------------------------------ settings
@dataclass
class Setting:
    """One composed mechanism: ``mech`` 'gauss' (σ, sensitivity 1) or 'rr' (ε₀), inside
    ``sampler`` 'poisson' (rate q), 'swr' (batch of population) or 'none', run k times;
    ``queries`` are ('eps', δ) or ('delta', ε)."""

    section: str
    mech: str
    sampler: str
    k: int
    queries: list
    sigma: Fraction | None = None
    eps0: Fraction | None = None
    q: Fraction = Fraction(1)
    batch: int = 0
    population: int = 0
    seconds: dict = field(default_factory=dict)   # library -> build + all its questions

    @property
    def rate(self) -> Fraction:
        """The sampling rate: q for Poisson, batch/population without replacement."""
        if self.sampler == "swr":
            return Fraction(self.batch, self.population)
        return self.q

    @property
    def label(self) -> str:
        """A short description for the tables."""
        inner = f"σ = {_frac(self.sigma)}" if self.mech == "gauss" else \
            f"RR ε₀ = {_frac(self.eps0)}"
        if self.sampler == "poisson":
            samp = f"Poisson q = {_frac(self.q)}"
        elif self.sampler == "swr":
            samp = f"w/o repl. {self.batch}/{self.population}"
        else:
            samp = "no sampling"
        return f"{inner}, {samp}, k = {self.k:,}"

    def exact_curve(self):
        """The exact δ(ε) of the setting, or None where none is known."""
        if self.mech == "rr":
            return lambda e: rr_delta(self.eps0, self.rate, self.k, e)
        if self.sampler == "none":
            return lambda e: gaussian_delta(self.sigma, self.k, e)
        if self.k == 1:
            return lambda e: gaussian_sampled_delta(self.sigma, self.rate, e)
        return None

    def event(self):
        """The privtools event of one step."""
        inner = GaussianEvent(sigma=self.sigma, sensitivity=1) if self.mech == "gauss" \
            else PureDPEvent(self.eps0)
        if self.sampler == "poisson":
            return PoissonSampledEvent(inner, q=self.q)
        if self.sampler == "swr":
            return SampledWithoutReplacementEvent(inner, batch=self.batch,
                                                  population=self.population)
        return inner


def _frac(x) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


NOTES = {
    "swr": "privtools gives the same numbers as for Poisson sampling at the same rate: under "
           "replace-one the sampled pair is the same mixture (γP + (1 − γ)Q, Q) and its "
           "reverse. dp_accounting's RDP accountant bounds this sampler with a different, "
           "looser amplification bound (Wang, Balle and Kasiviswanathan 2019).",
    "plain": "dp_accounting's PLD accountant, like privtools, treats k Gaussian releases as "
             "one Gaussian of standard deviation σ/√k, so its misses here come from "
             "discretizing and summing one release in floating point.",
}
SECTIONS = {
    "dpsgd": "DP-SGD sized runs with Poisson sampling (no exact value: reference = our "
             "certified interval)",
    "swr": "DP-SGD sized runs sampled without replacement, replace-one (no exact value: "
           "reference = our certified interval)",
    "gauss1": "One Poisson-sampled Gaussian release (exact, closed form)",
    "swr1": "One Gaussian release sampled without replacement, replace-one (exact, closed "
            "form)",
    "rr": "Sampled randomized response (exact binomial sums)",
    "plain": "Gaussian without sampling (exact, μ-GDP closed form)",
}


def settings(quick: bool) -> list[Setting]:
    """The rows of the benchmark (``quick``: a few small ones, for development)."""
    F = Fraction
    e5 = [("eps", 1e-5)]
    if quick:
        return [
            Setting("dpsgd", "gauss", "poisson", 100, e5, sigma=F(1), q=F(1, 100)),
            Setting("swr", "gauss", "swr", 100, e5, sigma=F(1), batch=100, population=10_000),
            Setting("gauss1", "gauss", "poisson", 1, [("eps", 1e-5), ("delta", 1.0)],
                    sigma=F(1), q=F(1, 100)),
            Setting("rr", "rr", "poisson", 10, [("eps", 1e-3)], eps0=F(1), q=F(1, 10)),
            Setting("plain", "gauss", "none", 10, [("eps", 1e-5), ("delta", 1.0)],
                    sigma=F(2)),
        ]
    out = [Setting("dpsgd", "gauss", "poisson", k, e5, sigma=s, q=q)
           for s, q, k in ((F(1), F(1, 100), 10_000), (F(1), F(1, 100), 1_000),
                           (F(4, 5), F(1, 250), 10_000))]
    out += [Setting("swr", "gauss", "swr", k, e5, sigma=F(1), batch=100, population=10_000)
            for k in (1_000, 10_000)]
    g1 = [("eps", 1e-5), ("eps", 1e-10), ("delta", 0.1), ("delta", 1.0)]
    out += [Setting("swr1", "gauss", "swr", 1, g1, sigma=s, batch=b, population=10_000)
            for s, b in ((F(1), 100), (F(4, 5), 40))]
    out += [Setting("gauss1", "gauss", "poisson", 1, g1, sigma=s, q=q)
            for s, q in ((F(1), F(1, 100)), (F(4, 5), F(1, 250)), (F(2), F(1, 10)),
                         (F(1, 2), F(1, 20)))]
    rq = [("eps", 1e-3), ("eps", 1e-6)]
    out += [Setting("rr", "rr", "poisson", k, rq, eps0=e0, q=q)
            for e0 in (F(1, 2), F(1), F(2)) for q in (F(1, 100), F(1, 10)) for k in (1, 10, 100)]
    out += [Setting("rr", "rr", "swr", k, rq, eps0=F(1), batch=b, population=1_000)
            for b in (10, 100) for k in (10, 100)]
    pq = [("eps", 1e-5), ("eps", 1e-10), ("delta", 1.0)]
    out += [Setting("plain", "gauss", "none", k, pq, sigma=s)
            for s, k in ((F(1), 1), (F(1), 10), (F(10), 100), (F(10), 10_000))]
    return out


# ------------------------------------------------------------------------------ libraries
@dataclass
class Library:
    """One accountant column: ``build(setting)`` returns a state (or None: the library
    does not take this mechanism), ``ask(state, query, ref)`` returns the answers as
    {'lower' | 'estimate' | 'upper': float}. ``status`` says why it did not run."""

    name: str
    build: object
    ask: object
    version: str = ""
    status: str = "ran"
    params: str = ""


def _version(dist: str) -> str | None:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001 - not installed
        return None


def _ours(max_points: int) -> Library:
    def build(s: Setting):
        # lazy: the first question builds what it needs (a Gaussian-only ledger is
        # answered in closed form, without a grid); the setting's time includes it
        event = s.event()
        relation = required_relation(event) or "replace-one"
        return PldAccountant(max_points=max_points, neighbouring=relation).compose(
            event, count=s.k)

    def ask(acc, query, ref):
        kind, x = query
        r = acc.epsilon(x) if kind == "eps" else acc.delta(x)
        lo, hi = ends(r.interval)
        return {"lower": mpmath.mpf(lo), "upper": mpmath.mpf(hi)}

    return Library(f"privtools PLD (2^{int(math.log2(max_points))} points)", build, ask,
                   version=_version("privtools") or "", params=f"max_points = 2^"
                   f"{int(math.log2(max_points))}, certified interval (Arb balls)")


def _dpa_libraries() -> list[Library]:
    try:
        import dp_accounting
        from dp_accounting.pld import PLDAccountant
        from dp_accounting.pld import privacy_loss_distribution as pld
        from dp_accounting.rdp import RdpAccountant
    except ImportError:
        names = [f"dp_accounting PLD (grid {g:g})" for g in DPA_GRIDS] + ["dp_accounting RDP"]
        return [Library(n, None, None, status="not run: not installed") for n in names]
    ver = _version("dp-accounting") or "?"
    rel = dp_accounting.NeighboringRelation

    def dpa_event(s: Setting):
        g = dp_accounting.GaussianDpEvent(float(s.sigma))
        if s.sampler == "poisson":
            g = dp_accounting.PoissonSampledDpEvent(float(s.q), g)
        elif s.sampler == "swr":
            g = dp_accounting.SampledWithoutReplacementDpEvent(s.population, s.batch, g)
        return dp_accounting.SelfComposedDpEvent(g, s.k)

    def pld_lib(grid):
        def build(s: Setting):
            if s.mech != "gauss" or s.sampler == "swr":
                return None          # no PLD for sampled RR or for sampling w/o replacement
            pess = PLDAccountant(rel.ADD_OR_REMOVE_ONE, value_discretization_interval=grid)
            pess.compose(dpa_event(s))
            sd = float(s.sigma) if s.sampler == "poisson" else float(s.sigma) / math.sqrt(s.k)
            opt = pld.from_gaussian_mechanism(
                sd, sampling_prob=float(s.q), pessimistic_estimate=False,
                use_connect_dots=False, value_discretization_interval=grid)
            if s.sampler == "poisson" and s.k > 1:
                opt = opt.self_compose(s.k)
            return pess, opt

        def ask(state, query, ref):
            pess, opt = state
            kind, x = query
            if kind == "eps":
                return {"lower": opt.get_epsilon_for_delta(x), "upper": pess.get_epsilon(x)}
            return {"lower": opt.get_delta_for_epsilon(x), "upper": pess.get_delta(x)}

        return Library(f"dp_accounting PLD (grid {grid:g})", build, ask, version=ver,
                       params=f"value_discretization_interval = {grid:g}; pessimistic from "
                              "PLDAccountant, optimistic from from_gaussian_mechanism("
                              "pessimistic_estimate=False)")

    def rdp_build(s: Setting):
        if s.mech != "gauss":
            return None
        r = rel.REPLACE_ONE if s.sampler == "swr" else rel.ADD_OR_REMOVE_ONE
        acc = RdpAccountant(neighboring_relation=r)
        acc.compose(dpa_event(s))
        return acc

    def rdp_ask(acc, query, ref):
        kind, x = query
        return {"upper": acc.get_epsilon(x) if kind == "eps" else acc.get_delta(x)}

    return [pld_lib(g) for g in DPA_GRIDS] + [
        Library("dp_accounting RDP", rdp_build, rdp_ask, version=ver,
                params="default orders; REPLACE_ONE for sampling without replacement")]


def _prv_library() -> Library:
    name = "prv-accountant"
    try:
        import prv_accountant as pa
    except ImportError:
        return Library(name, None, None, status="not run: not installed")

    def build(s: Setting):
        if s.mech != "gauss" or s.sampler == "swr":
            return None
        if s.sampler == "poisson":
            return pa.PoissonSubsampledGaussianMechanism(float(s.q), float(s.sigma)), s.k
        return pa.GaussianMechanism(float(s.sigma)), s.k

    def ask(state, query, ref):
        prv, k = state
        kind, x = query
        derr = (x if kind == "eps" else max(float(ref), 1e-300)) / 1000
        acc = pa.PRVAccountant([prv], eps_error=PRV_EPS_ERROR, delta_error=derr,
                               max_self_compositions=[k])
        lo, est, up = (acc.compute_epsilon(x, [k]) if kind == "eps"
                       else acc.compute_delta(x, [k]))
        return {"lower": float(lo), "estimate": float(est), "upper": float(up)}

    return Library(name, build, ask, version=_version("prv-accountant") or "?",
                   params=f"PRVAccountant, eps_error = {PRV_EPS_ERROR}, delta_error = δ/1000 "
                          "(for δ(ε): 1/1000 of our δ)")


def _opacus_libraries() -> list[Library]:
    names = ("Opacus RDP", "Opacus PRV")
    try:
        rdp, prv = load_opacus_accountants()
    except Exception as exc:  # noqa: BLE001 - any failure: the table says why
        why = "not installed" if isinstance(exc, ImportError) and "not installed" in str(exc) \
            else "needs torch"
        return [Library(n, None, None, status=f"not run: {why}") for n in names]
    ver = _version("opacus") or "?"

    def build(s: Setting):
        if s.mech != "gauss" or s.sampler == "swr":
            return None
        return float(s.sigma), float(s.q), s.k

    def rdp_ask(state, query, ref):
        if query[0] != "eps":
            return None
        acc = rdp.RDPAccountant()
        acc.history = [state]
        return {"upper": float(acc.get_epsilon(query[1]))}

    def prv_ask(state, query, ref):
        if query[0] != "eps":
            return None
        acc = prv.PRVAccountant()
        acc.history = [state]
        x = query[1]
        dprv = acc._get_dprv(eps_error=PRV_EPS_ERROR, delta_error=x / 1000)
        lo, est, up = dprv.compute_epsilon(x, x / 1000, PRV_EPS_ERROR)
        return {"lower": float(lo), "estimate": float(est), "upper": float(up)}

    note = "loaded without torch (stand-in for the torch-importing base class)"
    return [Library("Opacus RDP", build, rdp_ask, version=ver,
                    params=f"RDPAccountant.get_epsilon, default alphas; {note}"),
            Library("Opacus PRV", build, prv_ask, version=ver,
                    params=f"PRVAccountant (get_epsilon's own computation), eps_error = "
                           f"{PRV_EPS_ERROR}, delta_error = δ/1000; ε(δ) only; {note}")]


def libraries() -> list[Library]:
    """Every accountant of the comparison, ours first (the fine grid is the reference)."""
    return [_ours(OURS_FINE), _ours(OURS_COARSE), *_dpa_libraries(), _prv_library(),
            *_opacus_libraries()]


# ------------------------------------------------------------------------------ running
@dataclass
class Row:
    """One question about one setting: the exact bracket (or None), and per library its
    answers and their verdicts."""

    setting: Setting
    query: tuple
    exact: tuple | None = None
    answers: dict = field(default_factory=dict)
    wrong: dict = field(default_factory=dict)     # library -> set of wrong answer kinds
    checked: dict = field(default_factory=dict)   # library -> number of answers checked
    errors: dict = field(default_factory=dict)
    miss: dict = field(default_factory=dict)      # library -> largest relative miss


def _exact_bracket(s: Setting, query):
    curve = s.exact_curve()
    if curve is None:
        return None
    kind, x = query
    if kind == "eps":
        return epsilon_for_delta(curve, x)
    d = curve(x)
    return d, d


def classify(kind: str, value, ref_lo, ref_hi) -> bool | None:
    """Whether an answer of ``kind`` lies on the wrong side of the reference [ref_lo,
    ref_hi] (an exact value has ref_lo = ref_hi): an 'upper' answer below ref_lo, a
    'lower' answer above ref_hi, beyond a relative 1e-12. Estimates and non-numbers are
    not judged (None)."""
    if kind == "estimate" or value is None:
        return None
    v = mpmath.mpf(value)
    if mpmath.isnan(v):
        return None
    if kind == "upper":
        return bool(v < ref_lo - TOL * abs(ref_lo))
    return bool(v > ref_hi + TOL * abs(ref_hi))


def run_setting(s: Setting, libs: list[Library], log=print) -> list[Row]:
    """All the setting's questions, every library, with the verdicts."""
    rows = [Row(s, qy, exact=_exact_bracket(s, qy)) for qy in s.queries]
    for lib in libs:
        if lib.status != "ran":
            continue
        t0 = time.perf_counter()
        try:
            state = lib.build(s)
        except Exception as exc:  # noqa: BLE001 - reported in the table
            for r in rows:
                r.errors[lib.name] = f"{type(exc).__name__}: {exc}"[:120]
            continue
        build_s = time.perf_counter() - t0
        if state is None:
            continue
        asked = 0.0
        for r in rows:
            ref = r.answers.get(libs[0].name, {}).get("upper")     # our δ, for prv
            t1 = time.perf_counter()
            try:
                ans = lib.ask(state, r.query, ref)
            except Exception as exc:  # noqa: BLE001 - reported in the table
                r.errors[lib.name] = f"{type(exc).__name__}: {exc}"[:120]
                continue
            if ans is None:
                continue
            asked += time.perf_counter() - t1
            r.answers[lib.name] = ans
        if any(lib.name in r.answers for r in rows):
            s.seconds[lib.name] = build_s + asked
    for r in rows:
        _judge(r, libs[0].name)
        log(_line(r))
    return rows


def _judge(r: Row, reference: str) -> None:
    if r.exact is not None:
        lo, hi = r.exact
        slack = mpmath.mpf(10) ** -70 * abs(hi)      # the exact value's own precision
        lo, hi = lo - slack, hi + slack
    elif reference in r.answers:
        lo, hi = r.answers[reference]["lower"], r.answers[reference]["upper"]
    else:
        return
    for name, ans in r.answers.items():
        if r.exact is None and name == reference:
            continue
        verdicts = {k: classify(k, v, lo, hi) for k, v in ans.items()}
        judged = {k: w for k, w in verdicts.items() if w is not None}
        r.checked[name] = len(judged)
        r.wrong[name] = {k for k, w in judged.items() if w}
        for k in r.wrong[name]:
            edge = lo if k == "upper" else hi
            rel = abs(mpmath.mpf(ans[k]) - edge) / abs(edge) if edge else mpmath.inf
            r.miss[name] = max(r.miss.get(name, 0), float(rel))


# ------------------------------------------------------------------------------ output
def _num(x, digits=8) -> str:
    if x is None:
        return "—"
    x = mpmath.mpf(x)
    if mpmath.isinf(x):
        return "∞"
    if mpmath.isnan(x):
        return "nan"
    return mpmath.nstr(x, digits, min_fixed=-4, max_fixed=6)


def _cell(r: Row, name: str, digits=8) -> str:
    if name in r.errors:
        return f"error ({r.errors[name][:60]})"
    ans = r.answers.get(name)
    if ans is None:
        return "—"
    parts = []
    for kind in ("lower", "estimate", "upper"):
        if kind in ans:
            t = _num(ans[kind], digits)
            if kind in r.wrong.get(name, ()):
                t = f"**{t} ✗**"
            parts.append(t)
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


def _query(q) -> str:
    return f"ε(δ = {q[1]:.0e})" if q[0] == "eps" else f"δ(ε = {q[1]:g})"


def _exact_text(r: Row) -> str:
    if r.exact is None:
        return "—"
    return _num((r.exact[0] + r.exact[1]) / 2, 12)


def _inside(r: Row, name: str) -> str:
    if r.exact is None or name not in r.answers:
        return "—"
    return "**NO ✗**" if r.wrong.get(name) else "yes"


def _line(r: Row) -> str:
    s = f"{r.setting.label[:44]:44s} {_query(r.query):16s} exact {_exact_text(r):>16s}"
    for name in r.answers:
        mark = " WRONG" if r.wrong.get(name) else ""
        s += f" | {name.split(' (')[0]} {_cell(r, name, 7).replace('**', '')}{mark}"
    return s


def _ran(libs, rows, section) -> list[Library]:
    used = {n for r in rows if r.setting.section == section for n in (*r.answers, *r.errors)}
    return [lib for lib in libs if lib.name in used]


def _section_tables(libs, rows, section) -> list[str]:
    rs = [r for r in rows if r.setting.section == section]
    if not rs:
        return []
    shown = _ran(libs, rows, section)
    ours = shown[:2] if shown and shown[0].name.startswith("privtools") else []
    others = [lib for lib in shown if lib not in ours]
    head = ["setting", "question", "exact"] + [lib.name for lib in shown]
    has_exact = any(r.exact is not None for r in rs)
    if has_exact:
        head += ["exact inside ours (2^18 / 2^14)"]
    out = [f"### {SECTIONS[section]}", "", "| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    for r in rs:
        cells = [r.setting.label, _query(r.query), _exact_text(r)]
        cells += [_cell(r, lib.name, 10 if lib in ours else 8) for lib in shown]
        if has_exact:
            cells.append(" / ".join(_inside(r, lib.name) for lib in ours))
        out.append("| " + " | ".join(cells) + " |")
    if section in NOTES:
        out += ["", NOTES[section]]
    out += ["", "Seconds per setting (building the accountant for the mechanism, then "
            "answering the questions above that the library answers) and, in brackets, ours "
            "(2^18) / theirs: ×10 means ours took ten times as long.", ""]
    head = ["setting", "questions"] + [lib.name for lib in shown]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for st in dict.fromkeys(r.setting.label for r in rs):
        s = next(r.setting for r in rs if r.setting.label == st)
        base = s.seconds.get(shown[0].name)
        cells = [s.label, ", ".join(_query(q) for q in s.queries)]
        for lib in shown:
            t = s.seconds.get(lib.name)
            if t is None:
                cells.append("—")
            elif lib is shown[0] or base is None:
                cells.append(f"{t:.3f}")
            else:
                cells.append(f"{t:.3f} (×{base / t:.3g})")
        out.append("| " + " | ".join(cells) + " |")
    if not others:
        out += ["", "No other library accepts these mechanisms (dp_accounting, prv-accountant "
                "and Opacus sample only Gaussian releases; dp_accounting's PLD accountant has "
                "no sampling without replacement)."]
    return out + [""]


def summary(libs, rows) -> list[tuple[str, int, int, str, str]]:
    """Per library: (name, answers checked, answers on the wrong side, the largest relative
    distance of a wrong-side answer from the reference, where the answers were checked)."""
    out = []
    for lib in libs:
        checked = sum(r.checked.get(lib.name, 0) for r in rows)
        wrong = sum(len(r.wrong.get(lib.name, ())) for r in rows)
        misses = [r.miss[lib.name] for r in rows if lib.name in r.miss]
        miss = f"{max(misses):.1e}" if misses else "—"
        if lib.status != "ran":
            out.append((lib.name, 0, 0, "—", lib.status))
            continue
        n_exact = sum(r.checked.get(lib.name, 0) for r in rows if r.exact is not None)
        basis = (f"{n_exact} against exact values, {checked - n_exact} against privtools' "
                 "2^18 interval")
        if lib is libs[0]:
            basis = "both ends of each interval against the exact values"
        out.append((lib.name, checked, wrong, miss, basis))
    return out


def ours_failures(libs, rows) -> list[str]:
    """Rows where an exact value falls outside one of our certified intervals."""
    ours = [lib.name for lib in libs if lib.name.startswith("privtools")]
    return [f"{r.setting.label}, {_query(r.query)}: {n}" for r in rows for n in ours
            if r.exact is not None and r.wrong.get(n)]


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def markdown(libs, rows, argv, total_s: float) -> str:
    """The docs page."""
    cmd = "python benchmarks/bench_sampled_accounting.py" + "".join(f" {a}" for a in argv)
    out = ["# Sampled accounting: privtools against dp_accounting, prv-accountant and Opacus",
           "",
           f"Regenerated by `{cmd}` on {platform.machine()}, Python "
           f"{platform.python_version()}, {_cores()} cores, in {total_s / 60:.1f} minutes "
           f"(every library timed in the same run; mpmath {mpmath.__version__}).", "",
           "| accountant | version | settings |", "|---|---|---|"]
    for lib in libs:
        out.append(f"| {lib.name} | {lib.version or '—'} | "
                   f"{lib.params if lib.status == 'ran' else lib.status} |")
    fails = ours_failures(libs, rows)
    if fails:
        out += ["", f"**WARNING: {len(fails)} exact value(s) fall outside privtools' certified "
                "interval — a bug in the accountant:** " + "; ".join(fails)]
    out += ["", "## What \"wrong side\" means", "",
            "Every accountant here answers ε(δ) or δ(ε) for a composed mechanism. Some answers "
            "are meant as guarantees from above (dp_accounting's pessimistic PLD, both RDP "
            "accountants, the \"upper\" value of prv-accountant and Opacus PRV, the upper end "
            "of our interval): such an answer is on the wrong side when the true value is "
            "larger, because a deployment that uses it would claim more privacy than it has. "
            "Answers meant as bounds from below (the optimistic PLD, the \"lower\" values) are "
            "on the wrong side when the true value is smaller. Estimates (prv-accountant's and "
            "Opacus PRV's middle value) are shown but not judged. Opacus answers only ε(δ): its "
            "accountants have no δ(ε).", "",
            "Where the exact value is known it is computed in mpmath at 100 digits and is the "
            "reference: sampled randomized response for small k (a sum over how many times "
            "each output came up), one sampled Gaussian release (normal CDFs) and the "
            "Gaussian without sampling (μ-GDP). Elsewhere the reference is our certified "
            "interval: an upper answer below its lower end, or a lower answer above its upper "
            "end, is wrong for certain. A relative 1e-12 is allowed for float rounding. "
            "Wrong-side answers are in bold with ✗. Our 2^18 column is judged only against "
            "exact values (its two ends must enclose them); the coarser 2^14 column also "
            "against the 2^18 interval where no exact value is known.", "",
            "Conventions: Poisson sampling is add/remove with both directions taken "
            "(dp_accounting's ADD_OR_REMOVE_ONE); sampling without replacement is replace-one "
            "at rate batch/population with the pair (γP + (1 − γ)Q, Q) and its reverse. "
            "prv-accountant and Opacus model Poisson-sampled Gaussian releases only, and "
            "dp_accounting samples only Gaussian (and Laplace) releases, so sampled randomized "
            "response is checked for privtools alone. Every Gaussian has sensitivity 1.", ""]
    out += ["## Results", ""]
    for sec in SECTIONS:
        out += _section_tables(libs, rows, sec)
    out += ["## Summary", "", "| accountant | answers checked | on the wrong side | "
            "largest relative miss | checked |", "|---|---|---|---|---|"]
    for name, n, w, miss, basis in summary(libs, rows):
        out.append(f"| {name} | {n} | {'**' + str(w) + '**' if w else 0} | {miss} | {basis} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    """Run every setting, print the rows and the summary, write the page if asked."""
    ap = argparse.ArgumentParser(description=__doc__.strip().split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few small settings (seconds)")
    ap.add_argument("--markdown", metavar="PATH", help="write the docs page here")
    args = ap.parse_args(argv)
    shown_argv = (["--quick"] if args.quick else []) + \
        (["--markdown", args.markdown] if args.markdown else [])
    # Opacus's PRV takes log(1 - q) at q = 1 (no sampling) and warns; its answer is judged
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="_opacus_accountants")
    t0 = time.perf_counter()
    libs = libraries()
    for lib in libs:
        if lib.status != "ran":
            print(f"{lib.name}: {lib.status}")
    rows = []
    for s in settings(args.quick):
        rows += run_setting(s, libs)
    total = time.perf_counter() - t0
    print(f"\ntotal {total:.1f} s\n")
    print(f"{'accountant':34s} {'checked':>8s} {'wrong':>6s} {'max miss':>9s}  checked")
    for name, n, w, miss, basis in summary(libs, rows):
        print(f"{name:34s} {n:8d} {w:6d} {miss:>9s}  {basis}")
    fails = ours_failures(libs, rows)
    for f in fails:
        print(f"WARNING: exact value outside privtools' interval: {f}")
    if args.markdown:
        Path(args.markdown).write_text(markdown(libs, rows, shown_argv, total))
        print(f"wrote {args.markdown}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
