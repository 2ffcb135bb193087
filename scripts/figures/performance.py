"""Entries: measured performance, read from docs/tables/performance.json and the benchmarks'
tables."""

from __future__ import annotations

import ast
import math
import re
from decimal import ROUND_CEILING, Decimal

from figures.core import COMPUTED, MEASURED, Registry
from figures.formats import _SUP, FigureError, _dec, fixed, grouped, pow10, sci, short, sig, span
from figures.tables import COMMANDS, ROOT, doc_find, doc_json, interval, number, table

PERF = "docs/tables/performance.json"


def perf(name: str) -> dict:
    """The result of one benchmark in docs/tables/performance.json (refused if measured with
    ``--quick`` or failed).

    Parameters
    ----------
    name : str
        The benchmark's name in benchmarks/measure_performance.py (``bandits``, …).

    Returns
    -------
    dict
        Its entry: ``result`` (the benchmark's JSON, or ``wall_s`` of a command), ``machine``.
    """
    entry = doc_json(PERF).get("benchmarks", {}).get(name)
    if entry is None:
        raise FigureError(f"{PERF}: no {name!r} (run `{COMMANDS[PERF]} --only {name}`)")
    if entry.get("quick") or not entry.get("ok", False):
        raise FigureError(f"{PERF}: {name!r} was measured with --quick or failed: rerun it")
    return entry


def approx(x) -> str:
    """A time quoted with "~" or "about": one significant digit (18.7 -> "20")."""
    return short(x, 1)


def sig_up(x, digits: int) -> str:
    """Significant digits rounded up, for a bound quoted with "≤" (0.031 -> "0.04")."""
    d = _dec(x)
    return format(d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1),
                             rounding=ROUND_CEILING), "f")


def _target(ok: bool, what: str) -> None:
    if not ok:
        raise FigureError(f"{what}: the page's prose says the target is met; it no longer is "
                          "(rewrite the sentence, then the figure)")


def performance(reg: Registry) -> None:
    """The "Measured performance" table, the demo's times and the OpenDP
    comparison, from docs/tables/performance.json."""
    def machine():
        m = perf("protocol")["machine"]
        return dict(cores=str(m["cores"]), cpu=m["cpu"])

    reg.add("performance.machine", MEASURED,
            ("cores", "cpu"),
            "the machine of the benchmarks (the protocol benchmark's entry)", machine,
            table=PERF)

    def exact_samplers():
        r = perf("exact-samplers")["result"]
        if not r["opendp_installed"]:
            raise FigureError(f"{PERF}: OpenDP was not installed when exact-samplers ran")
        rows = r["samplers"]
        ratios = [x["ratio"] for x in rows]
        _target(min(ratios) >= 10, "exact samplers ≥ 10× OpenDP")

        def rate(name):
            v = [Decimal(x["ours_per_s"]) / 10**6 for x in rows if x["sampler"] == name]
            return span(fixed(min(v), 0), fixed(max(v), 0))

        return dict(odv=".".join(r["opendp_version"].split(".")[:2]),
                    lap=rate("discrete_laplace"), gau=rate("discrete_gaussian"),
                    ratio=span(fixed(min(ratios), 0), fixed(max(ratios), 0)))

    reg.add("performance.exact-samplers", MEASURED,
            ("odv", "lap", "gau", "ratio"),
            "samples per second of ours (M/s) and ours / OpenDP, every parameter",
            exact_samplers, table=PERF)
    reg.add("compare.opendp", MEASURED,
            ("odv", "ratio"),
            "ours / OpenDP's throughput, every parameter",
            lambda: {k: exact_samplers()[k] for k in ("odv", "ratio")}, table=PERF)

    def exact_pmf():
        r = perf("exact-pmf")["result"]
        rng, base = r["skellam_range"], r["baselines"]
        _target(rng["target_met"], "Skellam exact_pmf_range under 5 s")
        top = [p for p in base["points"] if p["k_sigma"] == 20]
        if not top or top[0]["scipy_sf_status"] != "0":
            raise FigureError(f"{PERF}: scipy's skellam.sf no longer returns 0 at 20σ")
        if not any((m["error"] or "").startswith("NoConvergence") for m in base["mpmath"]):
            raise FigureError(f"{PERF}: plain mpmath besseli no longer raises NoConvergence")
        return dict(points=grouped(rng["points"]), t=approx(rng["time_s"]),
                    sum=approx(r["skellam_sum"]["time_s"]), fact1=short(r["fact1"]["time_s"], 2))

    reg.add("performance.exact-pmf", MEASURED,
            ("points", "t"), "Skellam(10**6).exact_pmf_range(±20σ): points and time; the "
            "baselines' failures", lambda: {k: exact_pmf()[k] for k in ("points", "t")},
            table=PERF)
    reg.add("performance.sum-pmf", MEASURED,
            ("sum",),
            "time of sum_pmf(Skellam(10**6/1024), 1024, dps=40, tail=1e-85)",
            lambda: dict(sum=exact_pmf()["sum"]), table=PERF)
    reg.add("performance.fact1-time", MEASURED,
            ("fact1",), "time of sum_pmf(DiscreteLaplace(32).shares(64), 64, dps=50, "
            "method='convolve')", lambda: dict(fact1=exact_pmf()["fact1"]), table=PERF)

    def divergence():
        r = perf("divergence")["result"]
        _target(r["target_met"], "all 255 Rényi orders under 5 s")
        row = next(x for x in r["rows"] if x["delta"] == 1000 and x["orders"] == 255)
        return dict(t=fixed(row["seconds"], 1), arb=fixed(r["ratio_naive_arb_vs_ours"], 0),
                    mp=fixed(r["ratio_naive_mpmath_vs_ours_per_order"], 0))

    reg.add("performance.divergence", MEASURED,
            ("t", "arb", "mp"),
            "renyi_shift_curve of Skellam(10**6), Δ = 1000, α = 2…256: time, and the naive "
            "baselines' time over it", divergence, table=PERF)

    def claims_time():
        e = perf("verify-claims")
        secs = e["result"]["wall_s"]
        _target(secs < 120, "verify-claims --full under 2 min")
        return dict(t=approx(secs), cores=str(e["machine"]["cores"]))

    reg.add("performance.verify-claims", MEASURED, ("t",),
            "wall time of `privtools verify-claims --full`",
            lambda: dict(t=claims_time()["t"]), table=PERF)
    reg.add("claims.runtime", MEASURED, ("t", "cores"),
            "wall time of `privtools verify-claims --full`; the machine's cores", claims_time,
            table=PERF)

    def protocol():
        r = perf("protocol")["result"]
        _target(r["summary"]["target_met"], "an ideal-SecAgg batch of 10^6 users under 0.5 s")
        ms = {x["theorem"]: fixed(Decimal(x["batch_s"]) * 1000, 0) for x in r["rows"]}
        ratios = [x["ratio_vs_loop"] for x in r["rows"]]
        return dict(t1=ms[1], t2=ms[2], t4=ms[4],
                    ratio=span(fixed(min(ratios), 0), fixed(max(ratios), 0)))

    reg.add("performance.protocol", MEASURED,
            ("t1", "t2", "t4", "ratio"),
            "batch_s of each theorem; scaled per-user loop / batch", protocol, table=PERF)

    def secagg():
        r = perf("secagg")["result"]
        s = r["summary"]
        if r["capacity"] < 1.8:
            raise FigureError(f"{PERF}: secagg ran with {r['capacity']:.2f} cores free, not "
                              "both (rerun it on an idle machine)")
        one = Decimal(s["masked_time_s"]) * Decimal(s["speedup"])
        _target(s["target_met"] and one < 30, "1000 masked users under 30 s, also on one core")
        return dict(n=str(s["target_n"]), pairs=grouped(short(r["masked"][0]["pair_agreements"],
                                                              1)),
                    t=fixed(s["masked_time_s"], 1), pu=fixed(r["masked"][0]["per_user_ms"], 0),
                    td=fixed(s["masked_drop_time_s"], 1), sp=fixed(s["speedup"], 1),
                    sn=str(s["speedup_n"]), one=fixed(one, 0),
                    x=fixed(r["components"]["exchange_us"], 0))

    reg.add("performance.secagg", MEASURED,
            ("n", "pairs", "t", "pu", "td", "sp", "sn", "one"),
            "masked runs without and with 10% dropouts (parallel capacity ≥ 1.8 checked); the "
            "speed-up of 2 workers over 1, and the 1000-user time times it",
            lambda: {k: v for k, v in secagg().items() if k != "x"}, table=PERF)
    reg.add("performance.x25519", MEASURED,
            ("x",),
            "X25519 per pair, measured on 2000 pairs", lambda: dict(x=secagg()["x"]),
            table=PERF)

    def plan():
        r = perf("plan")["result"]
        _target(r["target_met"], "plan + verify under 10 s")

        def worst(privacy):
            t = max(x["plan_and_verify_seconds"] for x in r["rows"] if x["privacy"] == privacy)
            return sig_up(t, 1 if t < 1 else 2)

        return dict(pd=worst("pure-dp"), rdp=worst("rdp"), cdp=worst("cdp"))

    reg.add("performance.plan", MEASURED,
            ("pd", "rdp", "cdp"),
            "largest plan + verify time per privacy kind (s = 1 and 10), rounded up",
            plan, table=PERF)

    def audit():
        r = perf("audit")["result"]
        smp = [x["audit_s"] for x in r if x["audit"] == "sampler"]
        mech = [x["audit_s"] for x in r if x["audit"] == "mechanism"]
        _target(max(smp) < 2 and max(mech) < 10, "audits under 2 s and 10 s")
        return dict(smp=span(fixed(min(smp), 2), fixed(max(smp), 2)), mech=fixed(mech[0], 2))

    reg.add("performance.audit", MEASURED,
            ("smp", "mech"), "audit times on 10^6 draws (per dataset)", audit,
            table=PERF)

    def bandits():
        r = perf("bandits")["result"]
        inst = r["faithful_dist_dp_se_instances"]
        per_round = Decimal(r["baseline"]["per_round_s"])
        ratio = [per_round * r["T"] / Decimal(x["warm_s"]) for x in inst]
        _target(min(ratio) >= 500, "500× the per-round loop on every instance")
        warm = [Decimal(x["warm_s"]) * 1000 for x in inst]
        users = [Decimal(x["simulated_users"]) / 1000 for x in inst]
        ns = Decimal(r["faithful_ns_per_user_slowest"])
        floor = Decimal(r["numpy_floor_ns_per_user"])
        return dict(warm=span(fixed(min(warm), 1), fixed(max(warm), 1)),
                    ulo=fixed(min(users), 0), uhi=fixed(max(users), 0),
                    cold=approx(r["faithful_dist_dp_se"]["cold_s"]),
                    loop=fixed(per_round * 10**6, 1), k=str(sum(q >= 500 for q in ratio)),
                    n=str(len(inst)), med=fixed(r["ratio_vs_baseline_T_median_instance"], 0),
                    slow=fixed(r["ratio_vs_baseline_T"], 0), ns=fixed(ns, 1),
                    floor=fixed(floor, 0), ceil=short(Decimal(r["ratio_ceiling_per_user"]), 2))

    reg.add("performance.bandits", MEASURED,
            ("warm", "ulo", "uhi", "cold", "loop", "k", "n", "med", "slow", "ns", "floor",
             "ceil"),
            "per-instance warm times and simulated users, cold time, the per-round loop, the "
            "ratios (loop scaled to T / warm), the compiled loop's cost per simulated user and "
            "numpy's floor and ceiling", bandits,
            table=PERF)
    reg.add("limitations.fact1-time", MEASURED,
            ("fact1",),
            "time of sum_pmf(DiscreteLaplace(32).shares(64), 64, dps=50, method='convolve')",
            lambda: dict(fact1=exact_pmf()["fact1"]), table=PERF)

    def zcdp():
        u, lin = perf("zcdp-ucb")["result"], perf("zcdp-linear")["result"]
        _target(u["verdict"] == "PASS", "AdaC-UCB under 2 s")
        g, o = (next(x for x in lin["results"] if x["algorithm"] == a)
                for a in ("adac-gope", "adac-oful"))
        _target(g["status"] == "PASS" and o["status"] == "PASS", "GOPE / OFUL under 10 / 30 s")
        return dict(ucb=sig(u["runs"]["adac-ucb"]["seconds"], 2), ucbr=fixed(u["ratio"], 0),
                    gope=sig(g["seconds"], 2), gr=fixed(g["ratio"], 0), oful=sig(o["seconds"], 2),
                    orr=fixed(o["ratio"], 0))

    reg.add("performance.zcdp", MEASURED,
            ("ucb", "ucbr", "gope", "gr", "oful", "orr"),
            "one run each and the per-round loops scaled to T", zcdp, table=PERF)

    def quickstart():
        e = perf("test-suite")
        return dict(m=approx(Decimal(e["result"]["wall_s"]) / 60), cores=str(e["machine"]["cores"]))

    reg.add("quickstart.test-suite", MEASURED, "# the test suite (~{m} min on {cores} cores)",
            "wall time of `python -m pytest`", quickstart, table=PERF)

    def demo():
        e = perf("demo")
        return dict(t=approx(e["result"]["wall_s"]), cores=str(e["machine"]["cores"]),
                    q=approx(perf("demo-quick")["result"]["wall_s"]))

    reg.add("quickstart.demo", MEASURED,
            ("t", "cores", "q"),
            "wall times of `privtools demo` and `privtools demo --quick`", demo, table=PERF)

    def test_body(path: str, *funcs: str) -> str:
        """The source of some test functions."""
        src = (ROOT / path).read_text(encoding="utf-8")
        found = {n.name: ast.get_source_segment(src, n) for n in ast.walk(ast.parse(src))
                 if isinstance(n, ast.FunctionDef) and n.name in funcs}
        if len(found) != len(funcs):
            raise FigureError(f"{path}: tests {sorted(set(funcs) - set(found))} are gone")
        return "\n".join(found[f] for f in funcs)

    def largest(body: str, pattern: str) -> str:
        """The largest tolerance matching ``pattern``, as the test writes it."""
        found = re.findall(pattern, body)
        if not found:
            raise FigureError(f"no {pattern!r} in the dp_accounting tests")
        return max(found, key=float)

    def rdp_tolerances():
        body = test_body("tests/privtools/accounting/test_accounting.py",
                         "test_gaussian_rdp_and_conversion_match_dp_accounting",
                         "test_laplace_rdp_matches_dp_accounting")
        if "order == o_ref" not in body:
            raise FigureError("tests/privtools/accounting/test_accounting.py no longer compares "
                              "the best order")
        return dict(rdp=largest(body, r"rtol=([\d.e-]+)"), eps=largest(body, r"rel=([\d.e-]+)"))

    reg.add("compare.rdp-tolerance", COMPUTED,
            ("rdp", "eps"),
            "the largest rtol / rel the dp_accounting tests of "
            "tests/privtools/accounting/test_accounting.py assert",
            rdp_tolerances)

    def pld_tolerances():
        body = test_body("tests/privtools/exact/test_divergence.py",
                         "test_hockey_stick_agrees_with_dp_accounting_pld")
        return dict(h=largest(body, r"h, slack = ([\d.e-]+),"),
                    gap=largest(body, r"< ([\d.e-]+) \* max\(theirs"))

    reg.add("compare.pld-tolerance", COMPUTED,
            ("h", "gap"),
            "the discretisation and the relative gap "
            "tests/privtools/exact/test_divergence.py asserts",
            pld_tolerances)

    pld = "docs/tables/pld_benchmark.md"

    def pld_compare():
        t = table(pld, "ours [lower, upper]")
        lattice = [r for r in t.rows if t.get(r, "view").startswith(("Lap_Z(320)", "N_Z("))]
        tol = Decimal("1e-7")                  # dp_accounting's values are printed to 8 digits
        for r in lattice:
            theirs = t.get(r, "dp_accounting [opt, pess]")
            if "inf" in theirs:
                continue
            (lo, hi), (opt, pess) = interval(t.get(r, "ours [lower, upper]")), interval(theirs)
            if not (opt * (1 - tol) <= hi <= pess * (1 + tol)       # the upper end we claim
                    and lo <= hi and number(t.get(r, "ours/pess")) <= 1):
                raise FigureError(f"{pld}: ours is outside dp_accounting's bracket at {r[:3]}")
        inf_deltas = [number(t.get(r, "δ")) for r in t.rows
                      if "inf" in t.get(r, "dp_accounting [opt, pess]")]
        k = max(int(t.get(r, "k")) for r in lattice)
        e = round(math.log10(k))
        if 10**e != k:
            raise FigureError(f"{pld}: largest k {k} is not a power of ten")
        # N_Z(0, 100²): the composed lattice is kept while both ends agree (to 8 digits)
        nz = [r for r in lattice if t.get(r, "view").startswith("N_Z(0, 100²)")]
        exact = {int(t.get(r, "k")): (lambda lo, hi: hi - lo <= hi * Decimal("1e-8"))(
            *interval(t.get(r, "ours [lower, upper]"))) for r in nz}
        kfit = max(kk for kk, ok in exact.items() if ok)
        kwide = min(kk for kk, ok in exact.items() if not ok and kk > kfit)
        width = max((hi - lo) / hi for r in nz if int(t.get(r, "k")) == kwide
                    for lo, hi in [interval(t.get(r, "ours [lower, upper]"))])

        def sup(kk):
            return f"10{str(round(math.log10(kk))).translate(_SUP)}"

        return dict(v=doc_find(pld, r"Google's PLD library \(v([\d.]+),"),
                    k=f"10{str(e).translate(_SUP)}", dinf=pow10(max(inf_deltas)),
                    dmin=pow10(min(number(t.get(r, "δ")) for r in t.rows)),
                    kfit=sup(kfit), kwide=sup(kwide), wide=sci(width, 1))

    reg.add("compare.pld", MEASURED,
            ("kfit", "kwide", "wide", "dmin", "v", "k", "dinf"),
            "the Lap_Z / N_Z rows: our upper end inside dp_accounting's bracket; its version, "
            "the largest k, "
            "the largest δ where it returns ∞, the smallest δ", pld_compare, table=pld)
