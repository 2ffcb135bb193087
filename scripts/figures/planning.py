"""Entries: planning (the plans table, the API tour), accounting, the fewest bits,
returning users."""

from __future__ import annotations

import math
import re
import statistics
from decimal import Decimal
from fractions import Fraction

from figures.compute import PLD_EVENTS, a_plan, fail_upper, pld_epsilon, rdp_epsilon
from figures.core import COMPUTED, MEASURED, Registry
from figures.formats import (
    FigureError,
    _dec,
    fixed,
    grouped,
    pct_above,
    pow10,
    sci,
    sci_dot,
    short,
    sig,
    span,
    word,
)
from figures.tables import HORIZON, Table, doc_find, interval, number, table, tables


def excerpt_plans(reg: Registry) -> None:
    """The excerpt of docs/tables/plans.md and the readings under it."""
    rows = [("pure-dp", "1", 10, None), ("pure-dp", "1", 20, None), ("rdp", "0.1", 4, "1"),
            ("rdp", "0.5", 4, "1"), ("rdp", "0.1", 20, "100")]
    for privacy, eps, e, s in rows:
        def code(privacy=privacy, eps=eps, e=e, s=s):
            pl = a_plan(privacy, eps, 2**e, s)
            return dict(g=str(pl.g), tau_bound=str(pl.tau_bound), tau=str(pl.tau),
                        m_bound=str(pl.m_bound), m=str(pl.m), bits_bound=str(pl.bits_bound),
                        bits=str(pl.bits), fail=sci(fail_upper(pl, pl.tau), 3))

        def doc(privacy=privacy, eps=eps, e=e, s=s):
            t = table("docs/tables/plans.md", "τ exact",
                      "Theorem 1" if privacy == "pure-dp" else "Theorem 2")
            key = {"ε": eps, "n": f"2^{e}"} | ({} if s is None else {"s": s})
            r = t.find(key)
            bb, b = (x.strip() for x in t.get(r, "bits").split("→"))
            return dict(g=t.get(r, "g"), tau_bound=t.get(r, "τ bound"), tau=t.get(r, "τ exact"),
                        m_bound=t.get(r, "m bound"), m=t.get(r, "m exact"), bits_bound=bb,
                        bits=b, fail=sci(number(t.get(r, "P fail @ τ exact")), 3))

        call = (f"plan(privacy={privacy!r}, epsilon={eps!r}, n=2**{e}"
                + ("" if s is None else f", s={s!r}") + ", horizon=10**6, tail='exact')")
        reg.add(f"plans.excerpt.{privacy}-eps{eps}-n2^{e}" + ("" if s is None else f"-s{s}"),
                COMPUTED,
                ("g", "tau_bound", "tau", "m_bound", "m", "bits_bound", "bits", "fail"),
                f"{call}; P(fail) = total_noise_tail at τ (certified upper end)", code,
                table="docs/tables/plans.md", table_value=doc)

    def skellam():
        pl = a_plan("rdp", "0.1", 2**20, "100")
        return dict(pct=pct_above(pl.tau_bound, pl.tau))

    def skellam_doc():
        t = table("docs/tables/plans.md", "τ exact", "Theorem 2")
        r = t.find({"ε": "0.1", "n": "2^20", "s": "100"})
        return dict(pct=pct_above(number(t.get(r, "τ bound")), number(t.get(r, "τ exact"))))

    reg.add("plans.reading.skellam-tau", COMPUTED,
            ("pct",),
            "τ bound / exact τ − 1 of plan(privacy='rdp', epsilon='0.1', n=2**20, s='100', "
            "tail='exact')", skellam, table="docs/tables/plans.md", table_value=skellam_doc)

    def spare(fails: list[Decimal]) -> dict[str, str]:
        orders = [math.log10(1e-6 / float(f)) for f in fails]
        return dict(lo=str(math.floor(min(orders))), hi=str(math.floor(max(orders))),
                    p=pow10(statistics.median(float(f) for f in fails), "floor"))

    def orders_code():
        fails = []
        for eps in ("0.1", "0.5", "1"):
            for n in (2**4, 2**10, 2**20):
                for s in ("1", "10", "100"):
                    pl = a_plan("rdp", eps, n, s, tail="bound")
                    fails.append(_dec(fail_upper(pl, pl.tau)))
        return spare(fails)

    def orders_doc():
        t = table("docs/tables/plans.md", "τ exact", "Theorem 2")
        return spare([number(t.get(r, "P fail @ τ bound")) for r in t.rows])

    reg.add("plans.reading.bound-spare", COMPUTED,
            ("lo", "hi", "p"),
            "Theorem 2 grid of docs/tables/plans.md (27 plans): floor of "
            "log10(p / P(fail at τ bound)), min and max; the median P(fail) rounded down to a "
            "power of ten", orders_code,
            table="docs/tables/plans.md", table_value=orders_doc)

    def others():
        dg = a_plan("cdp", "0.1", 2**20, "100")
        lap = a_plan("pure-dp", "1", 2**20)
        return dict(dg=pct_above(dg.tau_bound, dg.tau), lap=pct_above(lap.tau_bound, lap.tau))

    def others_doc():
        t4 = table("docs/tables/plans.md", "τ exact", "Theorem 4")
        t1 = table("docs/tables/plans.md", "τ exact", "Theorem 1")
        r4 = t4.find({"ε": "0.1", "n": "2^20", "s": "100"})
        r1 = t1.find({"ε": "1", "n": "2^20"})
        return dict(dg=pct_above(number(t4.get(r4, "τ bound")), number(t4.get(r4, "τ exact"))),
                    lap=pct_above(number(t1.get(r1, "τ bound")), number(t1.get(r1, "τ exact"))))

    reg.add("plans.reading.gauss-laplace-tau", COMPUTED,
            ("dg", "lap"),
            "τ bound / exact τ − 1: Theorem 4 at ε = 0.1, n = 2^20, s = 100; Theorem 1 at ε = 1, "
            "n = 2^20", others, table="docs/tables/plans.md", table_value=others_doc)

    def drops_render(drops: dict[int, list[int]]) -> dict[str, str]:
        ns = sorted(drops)
        first = next((n for i, n in enumerate(ns) if all(max(drops[m]) == 0 for m in ns[i:])),
                     None)
        if first is None or first == ns[0]:
            raise FigureError(f"bits drop at every n or at none: {drops}")
        return dict(by=word(max(max(v) for v in drops.values())),
                    n=f"2^{first.bit_length() - 1}")

    def drops_code():
        drops: dict[int, list[int]] = {}
        for privacy, scales in (("pure-dp", (None,)), ("rdp", ("1", "10", "100")),
                                ("cdp", ("1", "10", "100"))):
            for eps in ("0.1", "0.5", "1"):
                for n in (2**4, 2**10, 2**20):
                    for s in scales:
                        pl = a_plan(privacy, eps, n, s)
                        drops.setdefault(n, []).append(pl.bits_bound - pl.bits)
        return drops_render(drops)

    def drops_doc():
        drops: dict[int, list[int]] = {}
        for theorem in ("Theorem 1", "Theorem 2", "Theorem 4"):
            t = table("docs/tables/plans.md", "τ exact", theorem)
            for r in t.rows:
                a, b = (int(x) for x in t.get(r, "bits").split("→"))
                drops.setdefault(2 ** int(t.get(r, "n").split("^")[1]), []).append(a - b)
        return drops_render(drops)

    reg.add("plans.reading.bits-drop", COMPUTED,
            ("by", "n"),
            "bits (τ bound) − bits (exact τ) over Theorems 1, 2, 4 × ε × n × s of "
            "docs/tables/plans.md (63 exact plans)", drops_code, table="docs/tables/plans.md",
            table_value=drops_doc,
            full=True)

    def local_code():
        ps = [sci(fail_upper(pl, pl.tau), 2) for pl in
              (a_plan("pure-dp", "1", n, trust="local", c=1, tail="bound")
               for n in (2**4, 2**10, 2**20))]
        return dict(p4=ps[0], p10=span(ps[1], ps[2]).replace("–", "/"))

    def local_doc():
        t = next(t for t in tables("docs/tables/plans.md") if t.header[0] == "n (ε = 1, c = 1)")
        ps = [sci(interval(next(r for r in t.rows if r[0] == f"2^{e}")[2])[1], 2)
              for e in (4, 10, 20)]
        return dict(p4=ps[0], p10=span(ps[1], ps[2]).replace("–", "/"))

    reg.add("plans.theorem6-c1", COMPUTED,
            ("p4", "p10"),
            "plan(privacy='pure-dp', trust='local', epsilon=1, c=1, n=2**4/2**10/2**20, "
            "horizon=10**6): certified upper end of P(|N| > τ)", local_code,
            table="docs/tables/plans.md", table_value=local_doc)

    def rdp_curve():
        from verification.plan_check import verify_plan

        chk = verify_plan(a_plan("rdp", "1", 2**20, "1"))
        return dict(eps=sig(chk.dp_epsilon, 3), target=sig(chk.dp_epsilon_target, 3))

    def rdp_curve_doc():
        t = table("docs/tables/plans.md", "τ exact", "Theorem 2")
        cell = t.get(t.find({"ε": "1", "n": "2^20", "s": "1"}), "achieved privacy")
        m = re.fullmatch(r"ε = ([\d.]+) \(target ([\d.]+)\)", cell)
        if m is None:
            raise FigureError(f"docs/tables/plans.md: unexpected cell {cell!r}")
        return dict(eps=sig(m.group(1), 3), target=sig(m.group(2), 3))

    reg.add("plans.rdp-vs-theorem-curve", COMPUTED,
            ("eps", "target"),
            "verify_plan(plan(privacy='rdp', epsilon=1, n=2**20, s=1, tail='exact')): "
            "dp_epsilon against dp_epsilon_target", rdp_curve, table="docs/tables/plans.md",
            table_value=rdp_curve_doc)

    def calibrated():

        from privtools.certified import ends
        from privtools.planning import plan, show_up

        pl = plan(privacy="rdp", epsilon=1, n=16, horizon=1000, delta=Fraction(1, 10**6))
        return dict(eb=str(pl.epsilon_view), cert=show_up(ends(pl.certified_epsilon)[1]))

    reg.add("plans.verdict-calibrated", COMPUTED,
            ("eb", "cert"),
            "privtools plan --privacy rdp --epsilon 1 --n 16 --horizon 1000 --delta 1e-6: "
            "epsilon_view and the certified ε(δ) upper end, rounded up (show_up)", calibrated)

    def converted():
        from privtools.certified import ends
        from privtools.planning import plan, plan_certificate, show_up

        cert = plan_certificate(plan(privacy="rdp", epsilon=1, n=16, horizon=1000))
        return dict(conv=show_up(ends(cert.interval)[1]))

    reg.add("plans.verdict-converted", COMPUTED,
            ("conv",),
            "privtools plan --privacy rdp --epsilon 1 --n 16 --horizon 1000: the PLD "
            "certificate of the batch view at δ = p = 10^-3, upper end rounded up", converted)


def api_tour(reg: Registry) -> None:
    def thm1():
        from privtools.planning import theorem_params

        tp = theorem_params(1, "1", 1024, "1e-6")
        return dict(g=str(tp.g), tau=str(tp.tau), m=str(tp.m), bits=str((tp.m - 1).bit_length()))

    reg.add("api.theorem-params", COMPUTED,
            'theorem_params(1, "1", 1024, "1e-6")  # g = {g}, τ = {tau}, m = {m}, {bits} bits per',
            'privtools.planning.theorem_params(1, "1", 1024, "1e-6"); bits = ⌈log₂ m⌉', thm1)

    def m_thm1():
        v = thm1()
        return dict(g=v["g"], m=v["m"])

    reg.add("api.view-modulus", COMPUTED,
            "view = wrap(shift(P, {g}), m={m})  # the server's view for query value g = {g} "
            "(Thm 1's m)", "theorem_params(1, '1', 1024, '1e-6'): g and m", m_thm1)
    reg.add("api.renyi-modulus-tour", COMPUTED,
            'divergence.renyi_shift(d, {g}, alpha=float("inf"), m={m})  # certified LLR of the '
            "mod-m view", "theorem_params(1, '1', 1024, '1e-6'): g and m", m_thm1)
    reg.add("api.renyi-modulus-more", COMPUTED,
            'divergence.renyi_shift(d, {g}, alpha=float("inf"), m={m})  # LLR of the server\'s '
            "mod-m view", "theorem_params(1, '1', 1024, '1e-6'): g and m", m_thm1)

    def rdp_plan():
        pl = a_plan("rdp", "1", 1024, "10")
        return dict(g=str(pl.g), tau=str(pl.tau), tau_bound=str(pl.tau_bound), m=str(pl.m),
                    bits=str(pl.bits))

    reg.add("api.rdp-plan", COMPUTED,
            "p.g, p.tau, p.tau_bound, p.m, p.bits  # {g}, {tau} (certified) vs {tau_bound} "
            "(Prop. 1), {m}, {bits}\nfrom verification.plan_check import verify_plan",
            "plan(privacy='rdp', epsilon=1, n=1024, horizon=10**6, s=10, tail='exact')", rdp_plan)

    def sampling_tv():
        from privtools.noise import DiscreteGaussian

        return dict(tv=sci(DiscreteGaussian(10**9).sampling_tv, 1))

    reg.add("api.sampling-tv", COMPUTED,
            "DiscreteGaussian(10**9).sampling_tv  # certified TV of the default sampler (~{tv})",
            "DiscreteGaussian(10**9).sampling_tv", sampling_tv)

    def fact1_tv():
        from privtools.certified.intervals import ends
        from privtools.exact import ExactPMF, sum_pmf, total_variation
        from privtools.noise import DiscreteLaplace

        d = DiscreteLaplace(scale="32")
        P = sum_pmf(d.shares(1024), 1024, dps=50, method="convolve")
        lo, hi = ends(total_variation(P, ExactPMF.from_distribution(d, dps=50)))
        return dict(lo="0" if lo == 0 else sci(lo, 2), hi=sci(hi, 2, up=True))

    reg.add("api.fact1-total-variation", COMPUTED,
            "total_variation(P, Q)  # certified interval: [{lo}, {hi}]",
            "total_variation(sum_pmf(Lap_Z(32).shares(1024), 1024, dps=50, method='convolve'), "
            "ExactPMF.from_distribution(Lap_Z(32), dps=50)), upper end rounded up", fact1_tv)

    def counterexample():
        import numpy as np
        from hypothesis import strategies as st

        from privtools.testing import find_counterexample

        def leaky_mean(data, size, rng):
            n = max(len(data), 1)
            return float(np.clip(data, 0, 10).sum()) / n + rng.laplace(0, 1 / n, size)

        cx = find_counterexample(leaky_mean, 1.0, st.lists(st.integers(0, 10), max_size=20))
        return dict(d=str(list(cx.d)), dp=str(list(cx.d_prime)), eps=fixed(cx.epsilon_lower, 2))

    reg.add("api.find-counterexample", COMPUTED,
            "cx.d, cx.d_prime, cx.epsilon_lower  # ({d}, {dp}, {eps}): the minimal pair",
            "find_counterexample(leaky_mean, 1.0, lists(integers(0, 10), max_size=20)) as in "
            "the API tour (seeded by DEFAULT_SEED)", counterexample)


def accounting(reg: Registry) -> None:
    path = "docs/tables/pld_benchmark.md"

    def doc_row(view_label: str, k: int) -> tuple[Table, tuple[str, ...]]:
        t = table(path, "ours [lower, upper]")
        return t, t.find({"view": view_label, "k": str(k), "δ": "1e-06"})

    def api_code():
        return dict(eps=sig(pld_epsilon("lapz", 100)[1], 8))

    def api_doc():
        t, r = doc_row("Lap_Z(320), Δ = 32 (ε = 0.1 per release)", 100)
        return dict(eps=sig(interval(t.get(r, "ours [lower, upper]"))[1], 8))

    reg.add("pld.api-epsilon", COMPUTED, "# r.epsilon = {eps} (certified upper end)",
            "PldAccountant().compose(DiscreteLaplaceEvent(scale=320, sensitivity=32), "
            "count=100).epsilon(1e-6).epsilon", api_code, table=path, table_value=api_doc)

    lap = "Lap_Z(320), Δ = 32 (ε = 0.1 per release)"
    rows = [  # the table's label, view, k, dp_accounting column, slow
        (lap, "lapz", 100, True, False), (lap, "lapz", 1000, True, False),
        (lap, "lapz", 10000, True, False),
        ("N_Z(0, 100²), Δ = 10", "nz", 1000, True, True),
        ("Sk(0, 100), Δ = 1", "sk", 1000, False, True),
        ("Σ of 16 N_Z(0, 25/4), Δ = 1", "sum16", 100, False, True),
        ("N(0, 10²), Δ = 1 (continuous)", "gauss", 1000, True, True),
    ]
    for dlabel, view, k, theirs, slow in rows:
        rdp = view == "lapz"

        def code(view=view, k=k, rdp=rdp):
            lo, hi = pld_epsilon(view, k)
            out = dict(lo=sig(lo, 8), hi=sig(hi, 8))
            if rdp:
                out["rdp"] = sig(rdp_epsilon(view, k), 5)
            return out

        def doc(dlabel=dlabel, k=k, rdp=rdp):
            t, r = doc_row(dlabel, k)
            lo, hi = interval(t.get(r, "ours [lower, upper]"))
            out = dict(lo=sig(lo, 8), hi=sig(hi, 8))
            if rdp:
                out["rdp"] = sig(number(t.get(r, "RDP")), 5)
            return out

        name = f"pld.table.{view}-k{k}"
        reg.add(f"{name}.certified", COMPUTED, ("lo", "hi") + (("rdp",) if rdp else ()),
                f"PldAccountant().compose({PLD_EVENTS[view]}, count={k}).epsilon(1e-6): "
                "[lower, upper]" + ("; RdpAccountant for the RDP column" if rdp else ""),
                code, table=path, table_value=doc, full=slow)

        def measured(dlabel=dlabel, k=k, theirs=theirs):
            t, r = doc_row(dlabel, k)
            secs = number(t.get(r, "time (s)"))
            out = dict(t=fixed(secs, 2) if secs < 1 else fixed(secs, 1))
            if theirs:
                opt, pess = interval(t.get(r, "dp_accounting [opt, pess]"))
                out |= dict(opt=sig(opt, 8), pess=sig(pess, 8))
            return out

        reg.add(f"{name}.measured", MEASURED, (("opt", "pess") if theirs else ()) + ("t",),
                "time" + (" and dp_accounting's [optimistic, pessimistic]" if theirs else ""),
                measured, table=path)

    def reading_code():
        hi100, hi1000, hi10k = (pld_epsilon("lapz", k)[1] for k in (100, 1000, 10000))
        return dict(p1=pct_above(rdp_epsilon("lapz", 100), hi100),
                    p2=pct_above(rdp_epsilon("lapz", 10000), hi10k),
                    e1=fixed(hi100, 4), e2=fixed(hi1000, 4))

    def reading_doc():
        vals = {}
        for k in (100, 1000, 10000):
            t, r = doc_row("Lap_Z(320), Δ = 32 (ε = 0.1 per release)", k)
            vals[k] = (interval(t.get(r, "ours [lower, upper]"))[1], number(t.get(r, "RDP")))
        return dict(p1=pct_above(vals[100][1], vals[100][0]),
                    p2=pct_above(vals[10000][1], vals[10000][0]),
                    e1=fixed(vals[100][0], 4), e2=fixed(vals[1000][0], 4))

    reg.add("pld.reading.rdp-route", COMPUTED,
            ("p1", "p2", "e1", "e2"),
            "PldAccountant vs RdpAccountant on Lap_Z(320), Δ = 32, k = 100 / 1 000 / 10 000, "
            "δ = 1e-6", reading_code, table=path, table_value=reading_doc)

    def cost():
        t = table(path, "ours [lower, upper]")
        secs = [number(t.get(r, "time (s)")) for r in t.rows if t.get(r, "k") == "1000"]
        mb = doc_find(path, r"Peak resident memory of the whole run: (\d+) MB")
        return dict(t=fixed(max(secs), 0) if max(secs) == int(max(secs))
                    else str(math.ceil(max(secs))), mb=mb)

    reg.add("pld.reading.cost", MEASURED,
            ("t", "mb"),
            "largest time at k = 1 000 (rounded up); peak resident memory", cost, table=path)

    def widths():
        t = table(path, "ours [lower, upper]")
        lattice = ("Lap_Z(320), Δ = 32", "N_Z(0, 100²)")      # exact lattices: no width
        w = {k: max(number(t.get(r, "rel. width")) for r in t.rows
                    if t.get(r, "k") == str(k) and t.get(r, "δ") == "1e-06"
                    and not t.get(r, "view").startswith(lattice))
             for k in (100, 1000)}
        return dict(w1=sci(w[100], 1), w2=sci(w[1000], 2))

    reg.add("pld.reading.first-order-width", MEASURED,
            ("w1", "w2"),
            "largest relative width at δ = 1e-6 of the non-lattice views", widths, table=path)

    reg.add("limitations.pld-width", MEASURED, ("w1",),
            "largest relative width at δ = 1e-6, k = 100, of the non-lattice views",
            lambda: dict(w1=widths()["w1"]), table=path)

    def gauss_gap():
        t, r = doc_row("N(0, 10²), Δ = 1 (continuous)", 1000)
        return dict(r=sci(1 - number(t.get(r, "ours/pess")), 1))

    reg.add("pld.reading.gauss-below-pessimistic", MEASURED,
            ("r",),
            "1 − ours/pess of N(0, 10²), k = 1 000, δ = 1e-6", gauss_gap, table=path)


def fewest_bits(reg: Registry) -> None:
    path = "docs/tables/bits.md"

    def tab() -> Table:
        return table(path, "bits exact τ")

    def saved() -> list[int]:
        t = tab()
        return [int(number(t.get(r, "saved vs paper (radius / floor)").split("/")[0]))
                for r in t.rows]

    reg.add("bits.runtime", MEASURED,
            ("s",),
            "run time in the table's header",
            lambda: dict(s=doc_find(path, r"--out docs/tables/bits.md` in (\d+) s")), table=path)
    reg.add("bits.saved", MEASURED,
            ("k", "n"),
            "rows whose saving (radius rule) is at least one bit",
            lambda: dict(k=str(sum(1 for s in saved() if s >= 1)), n=str(len(saved()))),
            table=path)
    reg.add("bits.at-most", MEASURED, ("most",),
            "largest saving (radius rule), in words", lambda: dict(most=word(max(saved()))),
            table=path)

    def example_code():
        from privtools.planning import fewest_bits

        r = fewest_bits("pure-dp", 1, "1e-6", 1024, HORIZON)
        return dict(b0=str(r.paper.bits_bound), b1=str(r.bits), g0=str(r.paper.g), g1=str(r.g))

    def example_doc():
        t = tab()
        r = t.find({"Thm": "1", "ε": "1", "n": "2^10"})
        g1, _tau, b1 = (number(x) for x in t.get(r, "fewest, same radius: g / τ / bits")
                        .split("/"))
        return dict(b0=t.get(r, "bits paper (τ bound)"), b1=str(b1), g0=t.get(r, "g paper"),
                    g1=str(g1))

    reg.add("bits.example", COMPUTED,
            ("b0", "b1", "g0", "g1"),
            "fewest_bits('pure-dp', 1, '1e-6', 1024, 10**6)", example_code, table=path,
            table_value=example_doc)

    def heuristic():
        t = tab()
        col = "4-sd heuristic: bits / certified P(fail)"
        cells = [t.get(r, col) for r in t.rows]
        misses = sum(1 for c in cells if "> p" in c)
        fails = [number(c.split("/")[1]) for c in cells]
        fewer = sum(1 for r in t.rows if number(t.get(r, col).split("/")[0])
                    < number(t.get(r, "fewest, same radius: g / τ / bits").split("/")[2]))
        return dict(fewer=str(fewer), misses=f"all {misses}" if misses == len(cells)
                    else f"{misses} of {len(cells)}",
                    lo=sci_dot(min(fails), 1), hi=sci_dot(max(fails), 2))

    reg.add("bits.heuristic", MEASURED,
            ("fewer", "misses", "lo", "hi"),
            "4-sd heuristic column: rows with fewer bits than the fewest plan, rows > p, and the "
            "range of its certified failure", heuristic, table=path)


def returning_users(reg: Registry) -> None:
    path = "docs/tables/figures/returning-users/table.md"

    def tab() -> Table:
        return table(path, "k = 16", nth=0)

    def regrets(method: str) -> list[str]:
        t = tab()
        r = next((r for r in t.rows if r[0] == method), None)
        if r is None:
            raise FigureError(f"{path}: no row {method!r}")
        return list(r[1:6])

    reg.add("returning.runtime", MEASURED,
            ("m",),
            "run time in the table's header (seconds / 60)",
            lambda: dict(m=fixed(_dec(doc_find(path, r"returning-users` in (\d+) s")) / 60, 0)),
            table=path)
    rows = [("Dist-DP-SE (Thm 1, pure DP)", "CDP-SE (Thm 5, central)"),
            ("Dist-RDP-SE (Thm 2, Skellam, s=10)", None),
            ("Dist-CDP-SE (Thm 4, discrete Gaussian, s=10)", None),
            ("LDP-SE (Thm 6, local)", None),
            ("AdaC-UCB (001, zCDP)", None)]
    for method, same in rows:
        def value(method=method, same=same):
            cells = regrets(method)
            if same is not None and regrets(same) != cells:
                raise FigureError(f"the page merges {method!r} and {same!r}, which now differ")
            return {f"k{k}": grouped(number(c)) for k, c in zip((1, 2, 4, 8, 16), cells)}

        reg.add(f"returning.table.{method.split(' ')[0]}", MEASURED,
                ("k1", "k2", "k4", "k8", "k16"),
                f"row {method!r} (mean Reg(T))", value, table=path)

    def crossover():
        ks = (1, 2, 4, 8, 16)
        methods = {"dp": "Dist-DP-SE (Thm 1, pure DP)", "rdp": "Dist-RDP-SE (Thm 2, Skellam, s=10)",
                   "cdp": "Dist-CDP-SE (Thm 4, discrete Gaussian, s=10)",
                   "ldp": "LDP-SE (Thm 6, local)", "ucb": "AdaC-UCB (001, zCDP)"}
        vals = {m: [number(c) for c in regrets(name)] for m, name in methods.items()}
        best = [min(vals, key=lambda m, i=i: vals[m][i]) for i in range(len(ks))]
        n_dp = next((i for i, b in enumerate(best) if b != "dp"), len(ks))
        if n_dp == 0 or any(b != "cdp" for b in best[n_dp:]) or n_dp == len(ks):
            raise FigureError(f"best private method per k is now {dict(zip(ks, best))}")
        return dict(kdp=str(ks[n_dp - 1]), kcdp=str(ks[n_dp]))

    reg.add("returning.crossover", MEASURED,
            ("kdp", "kcdp"),
            "the private method with the least Reg(T) at each k", crossover, table=path)

    def ldp():
        ks = (1, 2, 4, 8, 16)
        flat = [c.endswith("± 0") for c in regrets("LDP-SE (Thm 6, local)")]
        first = next((i for i in range(len(ks)) if all(flat[i:])), None)
        if first is None:
            raise FigureError("LDP-SE now eliminates an arm at every k")
        return dict(k=str(ks[first]))

    reg.add("returning.ldp-linear", MEASURED, ("k",),
            "first k from which every LDP-SE run has the same (linear) regret, ± 0", ldp,
            table=path)
    reg.add("returning.mixtures", MEASURED, ("eps",),
            "the mixtures' spot check in docs/returning_users.md",
            lambda: dict(eps=short(doc_find("docs/returning_users.md",
                                            r"Theorem 1 at k = 16: .*? gave ε ≤ ([\d.]+)"), 4)),
            table="docs/returning_users.md")


