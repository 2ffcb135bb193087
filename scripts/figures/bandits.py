"""Entries: paper 000's claims, the bandit experiments of papers 000 and 001, and the rest."""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

from figures.compute import claim, claim_details
from figures.core import COMPUTED, MEASURED, Registry
from figures.formats import FigureError, _dec, fixed, pow10, sci, short, sig, span
from figures.tables import doc_json

CLAIM_ROWS = [  # name, slack formatter
    ("fact1", None),
    ("fact2", None),
    ("prop1", lambda x: sig(x, 3)),
    ("lemma3", lambda x: short(x, 6)),
    ("lemma4", lambda x: short(x, 6)),
    ("lemma5", None),
    ("lemma10", lambda x: short(x, 6)),
    ("theorem1", lambda x: short(x, 6)),
    ("theorem2", lambda x: short(x, 4)),
    ("theorem2-algebra", lambda x: short(x, 2)),
    ("theorem4", lambda x: short(x, 6)),
    ("theorem5", lambda x: short(x, 6)),
    ("theorem6", lambda x: short(x, 6)),
]


def claims(reg: Registry) -> None:
    def verdict(name: str) -> str:
        res = claim(name)
        n, bad = len(res.rows), sum(1 for r in res.rows if r.status == res.status)
        return res.status if res.status == "holds" else f"{res.status} ({bad}/{n})"

    for name, fmt in CLAIM_ROWS:
        def value(name=name, fmt=fmt):
            res = claim(name)
            out = dict(points=str(len(res.rows)), verdict=verdict(name))
            slack = res.worst_slack
            out["slack"] = "–" if slack is None or fmt is None else fmt(slack)
            return out

        reg.add(f"claims.table.{name}", COMPUTED,
                ("points", "verdict", "slack"),
                f"verification.claims.check({name!r}, 'full'): rows, status, worst slack", value)

    def counts():
        from verification import claims

        cs = claims.all_claims()
        return dict(n=str(len(cs)), pts=str(sum(len(c.grid("full")) for c in cs)))

    reg.add("claims.size", COMPUTED,
            ("n", "pts"),
            "verification.claims.all_claims(): claims and full-grid points", counts)
    reg.add("claims.size-performance", COMPUTED,
            ("pts",),
            "verification.claims.all_claims(): full-grid points",
            lambda: dict(pts=counts()["pts"]))

    def fact1():
        tvs = [v for _, v in claim_details("fact1", r"in \[[^,]+, ([^\]]+)\]")]
        return dict(tv=sci(max(tvs), 2, up=True))

    reg.add("claims.fact1-tv", COMPUTED, ("tv",),
            "claims.check('fact1', 'full'): largest certified upper end of the TV", fact1)

    def fact2():
        gaps = [v for _, v in claim_details("fact2", r"exact tail: (\S+)$")]
        return dict(gap=sci(max(gaps), 2, up=True))

    reg.add("claims.fact2-gap", COMPUTED, ("gap",),
            "claims.check('fact2', 'full'): largest relative gap", fact2)

    def prop1():
        ratios = [v for _, v in claim_details("prop1", r"threshold/needed <= (\S+)$")]
        return dict(lo=sig(min(ratios), 2), hi=sig(max(ratios), 1))

    reg.add("claims.prop1-threshold", COMPUTED,
            ("lo", "hi"),
            "claims.check('prop1', 'full'): threshold over the exact quantile, min and max", prop1)

    def lemma3():
        res = claim("lemma3")
        worst = min(res.rows, key=lambda r: r.slack)
        return dict(tight=pow10(worst.slack - 1), var=pow10(Fraction(worst.params["var"])))

    reg.add("claims.lemma3-tight", COMPUTED, ("tight", "var"),
            "claims.check('lemma3', 'full'): worst slack − 1 and where", lemma3)

    def lemma4():
        res = claim("lemma4")
        return dict(s=sig(max(r.slack for r in res.rows if r.params["sigma2"] == "0.25"), 2))

    reg.add("claims.lemma4-quarter", COMPUTED, ("s",),
            "claims.check('lemma4', 'full'): largest slack at σ² = 1/4", lemma4)

    def lemma5():
        cs: dict[int, list[Decimal]] = {}
        for params, c in claim_details("lemma5", r"c >= (\S+)"):
            cs.setdefault(int(params["n"]), []).append(c)
        return {f"c{n}": span(fixed(min(v), 2), fixed(max(v), 2)) for n, v in cs.items()}

    reg.add("claims.lemma5-constant", COMPUTED,
            ("c1", "c4", "c16"), "claims.check('lemma5', 'full'): smallest c per n", lemma5)

    def algebra():
        from privtools.accounting import skellam_rdp_bound, theorem2_rdp
        from privtools.certified.intervals import ends
        from privtools.exact.divergence import renyi_shift
        from privtools.planning import theorem_params

        prm = theorem_params(2, "0.5", 1, "1e-6", s="2")
        printed = theorem2_rdp(16, 0.5, 2.0, 1)
        lemma = skellam_rdp_bound(16, prm.noise.variance, prm.g)
        lo, hi = ends(renyi_shift(prm.noise, prm.g, 16, dps=25))
        res = claim("theorem2-algebra")
        bad = sum(1 for r in res.rows if r.status == "fails")
        return dict(printed=short(printed, 6), lemma=short(lemma, 6), k=str(bad),
                    n=str(len(res.rows)), exact=sig((lo + hi) / 2, 3))

    reg.add("claims.theorem2-algebra", COMPUTED,
            ("printed", "lemma", "k", "n"),
            "theorem2_rdp(16, 0.5, 2, 1), skellam_rdp_bound(16, σ², g) of theorem_params(2, "
            "'0.5', 1, '1e-6', s='2'); failing rows of theorem2-algebra",
            lambda: {k: v for k, v in algebra().items() if k != "exact"})
    reg.add("claims.theorem2-exact", COMPUTED,
            ("exact",),
            "renyi_shift(Sk(0, g²/ε²), g, 16) at ε = ½, s = 2, n = 1",
            lambda: dict(exact=algebra()["exact"]))


def bandits(reg: Registry) -> None:
    def fig(preset: str) -> dict:
        return doc_json(f"docs/tables/figures/{preset}.json")

    def mean(preset: str, policy: str, eps) -> float:
        rows = [r for r in fig(preset)["final_time_average_regret"]
                if r["policy"] == policy and (eps is None or r["epsilon"] == eps)]
        if len(rows) != 1:
            raise FigureError(f"docs/tables/figures/{preset}.json: {len(rows)} rows {policy} "
                              f"ε={eps}")
        return rows[0]["mean"]

    def row3(preset, policies, places=4):
        def value():
            out = {}
            for j, e in enumerate(fig(preset)["epsilons"]):
                for p_i, pol in enumerate(policies):
                    out[f"e{j}p{p_i}"] = fixed(mean(preset, pol, e), places)
            return out
        return value

    table_rows = [
        ("fig1-easy", ("Dist-DP-SE",), 4),
        ("fig1-easy", ("Dist-RDP-SE (s=10)", "Dist-RDP-SE (s=100)"), 4),
        ("fig1-easy", ("DP-SE",), 4),
        ("fig1-hard", ("Dist-DP-SE", "DP-SE"), 4),
        ("fig4", ("CDP-SE", "Dist-DP-SE"), 4),
        ("fig4", ("Dist-RDP-SE (s=10)", "Dist-CDP-SE (s=10)"), 4),
        ("fig4", ("LDP-SE",), 3),
    ]
    for preset, policies, places in table_rows:
        reg.add(f"bandits.{preset}.{'-'.join(p.split(' ')[0] for p in policies)}", MEASURED,
                tuple(f"e{j}p{i}" for j in range(3) for i in range(len(policies))),
                f"mean Reg(T)/T of {', '.join(policies)} at each ε",
                row3(preset, policies, places), table=f"docs/tables/figures/{preset}.json")

    def se_bound():
        worst = max(r["se"] for p in ("fig1-easy", "fig1-hard", "fig4")
                    for r in fig(p)["final_time_average_regret"] if r["policy"] != "LDP-SE")
        return dict(se=format(_dec(worst).quantize(Decimal("0.0001"), rounding=ROUND_CEILING),
                              "f"))

    reg.add("bandits.standard-error", MEASURED,
            ("se",),
            "largest standard error of the table's rows except LDP-SE, rounded up", se_bound,
            table="docs/tables/figures/fig4.json")

    def gap():
        a = mean("fig1-easy", "Dist-DP-SE", 0.1)
        b = mean("fig1-easy", "DP-SE", 0.1)
        c = mean("fig1-hard", "Dist-DP-SE", 0.1) / mean("fig1-hard", "DP-SE", 0.1)
        return dict(r1=fixed(a / b, 1), a=fixed(a, 4), b=fixed(b, 4), r2=fixed(c, 1))

    reg.add("bandits.gap-at-small-epsilon", MEASURED,
            ("r1", "a", "b", "r2"),
            "Dist-DP-SE / DP-SE at ε = 0.1 on fig1-easy and fig1-hard", gap,
            table="docs/tables/figures/fig1-easy.json")

    def movielens():
        ml = "movielens"
        out = dict(dpse=sig(mean(ml, "DP-SE", 1.0), 2), se=sig(mean(ml, "SE", None), 2))
        for key, pol in (("dist", "Dist-DP-SE"), ("cdp", "CDP-SE"), ("ldp", "LDP-SE")):
            for j, e in enumerate((1.0, 5.0, 10.0)):
                out[f"{key}{j}"] = sig(mean(ml, pol, e), 2)
        return out

    reg.add("bandits.movielens-dp-se", MEASURED,
            ("dpse", "se"), "DP-SE and SE on movielens",
            lambda: {k: movielens()[k] for k in ("dpse", "se")},
            table="docs/tables/figures/movielens.json")
    reg.add("bandits.movielens", MEASURED,
            ("dist0", "dist1", "dist2", "cdp0", "cdp1", "cdp2", "ldp0", "ldp1", "ldp2", "se"),
            "movielens at ε = 1, 5, 10", lambda: {k: v for k, v in movielens().items()
                                                  if k != "dpse"},
            table="docs/tables/figures/movielens.json")

    def runtimes():
        s = {p: fig(p)["seconds"] for p in ("fig1-easy", "fig1-hard", "fig4", "movielens")}
        n = {p: str(fig(p)["tasks"]) for p in s}
        return dict(ne=n["fig1-easy"], nh=n["fig1-hard"], n4=n["fig4"], nm=n["movielens"],
                    e=fixed(s["fig1-easy"], 1), h=fixed(s["fig1-hard"], 1),
                    both=fixed(_dec(fixed(s["fig1-easy"], 1)) + _dec(fixed(s["fig1-hard"], 1)),
                               0),
                    f=fixed(s["fig4"], 1), m=fixed(s["movielens"], 1))

    reg.add("bandits.runtimes", MEASURED,
            ("ne", "nh", "n4", "nm", "e", "h", "both", "f", "m"),
            "tasks and seconds of each preset's summary", runtimes,
            table="docs/tables/figures/fig1-easy.json")

    zrows = [  # preset, policy, twin, decimals, with the discrete variant's difference
        ("zcdp-finite", "AdaC-UCB (ρ={})", "UCB twin", 4, True),
        ("zcdp-linear", "AdaC-GOPE (ρ={})", "GOPE", 3, False),
        ("zcdp-linear", "AdaC-GOPE-sum (ρ={})", "GOPE", 3, False),
        ("zcdp-contextual", "AdaC-OFUL (ρ={})", "RS-OFUL", 4, False),
    ]
    for preset, pattern, twin, places, extra in zrows:
        def zvalue(preset=preset, pattern=pattern, twin=twin, places=places, extra=extra):
            rhos = fig(preset)["epsilons"]
            out = {f"r{j}": fixed(mean(preset, pattern.format(short(r, 3)), r), places)
                   for j, r in enumerate(rhos)}
            out["twin"] = fixed(mean(preset, twin, None), places)
            if extra:
                diffs = [abs(mean(preset, f"AdaC-UCB (discrete) (ρ={short(r, 3)})", r)
                             - mean(preset, pattern.format(short(r, 3)), r)) for r in rhos]
                out["d"] = fixed(max(diffs), 4)
            return out

        reg.add(f"bandits.{preset}.{pattern.split(' ')[0]}", MEASURED,
                ("r0", "r1", "r2") + (("d",) if extra else ()) + ("twin",),
                f"mean Reg(T)/T of {pattern.format('·')} at each ρ and of {twin}", zvalue,
                table=f"docs/tables/figures/{preset}.json")

    tm = "docs/tables/figures/trust-models/summary.json"

    def trust(eps: float) -> dict[str, str]:
        from privtools.planning import policy_name  # tables written before central-dp-se

        d = doc_json(tm)
        res = {(policy_name(r["algorithm"]), r["epsilon"]): r["mean"] for r in d["results"]}
        cal = d["calibration"][str(float(eps))]
        rho = cal["adac-ucb"]
        return dict(dp=sig(res["dist-dp-se", eps], 3), cdp=sig(res["central-dp-se", eps], 3),
                    rdp=sig(res["dist-rdp-se", eps], 3), rdp_e=fixed(cal["dist-rdp-se"], 3),
                    dg=sig(res["dist-cdp-se", eps], 3), dg_e=fixed(cal["dist-cdp-se"], 3),
                    ucb=sig(res["adac-ucb", eps], 3),
                    rho=sig(rho, 2) if rho < 0.1 else fixed(rho, 3))

    for eps, label in ((0.5, "0.5"), (1.0, "1"), (2.0, "2")):
        reg.add(f"trust-models.epsilon-{label}", MEASURED,
                ("dp", "cdp", "rdp", "rdp_e", "dg", "dg_e", "ucb", "rho"),
                "PLD-calibrated means and parameters (the bracketed --accountant rdp values are "
                "not in the summary)", lambda eps=eps: trust(eps), table=tm)

    def nonprivate():
        d = doc_json(tm)
        res = {r["algorithm"]: r for r in d["results"]}
        ses = [r["se"] for r in d["results"] if r["epsilon"] is not None]
        return dict(se=sig(res["se"]["mean"], 3), ucb=sig(res["ucb-twin"]["mean"], 3),
                    lo=sci(min(ses), 1), hi=sci(max(ses), 2), sim=fixed(d["seconds"], 1))

    reg.add("trust-models.errors", MEASURED,
            ("lo", "hi", "se", "ucb"),
            "standard errors of the private policies; non-private means",
            lambda: {k: v for k, v in nonprivate().items() if k != "sim"}, table=tm)
    reg.add("trust-models.simulation-time", MEASURED, ("sim",),
            "simulation seconds", lambda: dict(sim=nonprivate()["sim"]), table=tm)
    reg.add("trust-models.pld-rdp-se", MEASURED, ("rdp",),
            "Dist-RDP-SE at ε = 0.5 (PLD calibration)", lambda: dict(rdp=trust(0.5)["rdp"]),
            table=tm)


def misc(reg: Registry) -> None:
    def fact1_bench():
        import mpmath

        from privtools.exact import sum_pmf
        from privtools.noise import DiscreteLaplace

        conv = sum_pmf(DiscreteLaplace(Fraction(32)).shares(64), 64, dps=50, method="convolve")
        ref = DiscreteLaplace(Fraction(32)).exact_pmf_range(conv.lo, conv.hi, dps=50)
        with mpmath.workdps(80):
            diff = max(abs(a - b) for a, b in zip(conv.values(), ref))
        return dict(d=sci(diff, 2))

    reg.add("performance.fact1-difference", COMPUTED,
            ("d",), "benchmarks/bench_exact_pmf.py's Fact 1 check: max |sum_pmf(...) − "
            "Lap_Z(32)| at 50 digits", fact1_bench)

    def shuffle():
        from privtools.protocol import ShuffleSecAgg

        return dict(k=str(ShuffleSecAgg.required_k(10**4, 2**32, 40)))

    reg.add("limitations.shuffle-messages", COMPUTED,
            ("k",),
            "ShuffleSecAgg.required_k(10**4, 2**32, 40)", shuffle)


