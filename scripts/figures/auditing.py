"""Entries: audits, implementation attacks, privacy assertions."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from decimal import Decimal

from figures.core import MEASURED, Registry
from figures.formats import FigureError, fixed, grouped, pow10, short, span, word
from figures.tables import Table, doc_find, doc_text, number, table, tables

DPSNIPER = ("Laplace", "TruncatedGeometric", "NoisyHist1", "NoisyHist2", "ReportNoisyMax1",
            "ReportNoisyMax2", "ReportNoisyMax3", "ReportNoisyMax4", "SVT1", "SVT2", "SVT3", "SVT4",
            "SVT5", "SVT6", "Rappor", "OneTimeRappor", "LaplaceParallel", "SVT34Parallel",
            "PrefixSum", "NumericalSVT")
# the columns of a row of docs/tables/audit_benchmark.md after the mechanism and claimed ε
_ROW = ("truly", "verdict", "eps", "eps90", "pub", "ratio", "beats", "beats90", "s")


def audits(reg: Registry) -> None:
    path = "docs/tables/audit_benchmark.md"
    for mech in DPSNIPER:
        def row(mech=mech):
            t = table(path, "published (90 %)")
            r = t.find({"mechanism": mech, "claimed ε": "0.1"})
            return dict(zip(_ROW, r[2:2 + len(_ROW)]))

        reg.add(f"audit.bench.{mech}", MEASURED, _ROW,
                "the table row (copied verbatim)", row, table=path)
    reg.add("audit.bench.summary", MEASURED,
            ("k", "n", "k90", "m"),
            "the summary line under the table",
            lambda: dict(zip(("k", "n", "k90", "m"), re.search(
                r"Beats the published figure on (\d+) of (\d+) with our 99 % bound, on "
                r"(\d+) of \d+ at the published figure's own confidence.*?total ([\d.]+) min",
                doc_text(path), re.S).groups())), table=path)

    def verdicts():
        t = table(path, "published (90 %)")
        false = [r for r in t.rows if t.get(r, "truly") != t.get(r, "claimed ε")]
        true = [r for r in t.rows if t.get(r, "truly") == t.get(r, "claimed ε")]
        fails = sum(1 for r in false if t.get(r, "verdict") == "fail")
        passes = sum(1 for r in true if t.get(r, "verdict") == "pass")
        return dict(f=str(fails), nf=str(len(false)), p=str(passes), np=str(len(true)))

    reg.add("audit.bench.verdicts", MEASURED,
            ("f", "nf", "p", "np"), "verdicts by truly ≠ claimed", verdicts, table=path)

    def svt():
        t = table(path, "published (90 %)")
        rows = [r for r in t.rows if r[0] in ("SVT1", "SVT2")]
        return dict(ours=fixed(max(number(t.get(r, "ε_lower (99 %)")) for r in rows), 4),
                    pub=fixed(min(number(t.get(r, "published (90 %)")) for r in rows), 3))

    reg.add("audit.bench.svt-gap", MEASURED,
            ("ours", "pub"),
            "SVT1/SVT2 rows: our ε_lower and DP-Sniper's figure", svt, table=path)

    wide = "docs/tables/audit_benchmark_svt_2e8.md"

    def published_size():
        t = table(wide, "published (90 %)")
        rows = [r for r in t.rows if r[0] in ("SVT1", "SVT2")]
        if len(rows) != 2:
            raise FigureError(f"{wide}: rows SVT1 and SVT2 not found")
        return dict(lo99=fixed(min(number(t.get(r, "ε_lower (99 %)")) for r in rows), 4),
                    hi99=fixed(max(number(t.get(r, "ε_lower (99 %)")) for r in rows), 4),
                    lo90=fixed(min(number(t.get(r, "ε_lower (90 %)")) for r in rows), 4),
                    hi90=fixed(max(number(t.get(r, "ε_lower (90 %)")) for r in rows), 4))

    reg.add("audit.bench.svt-2e8", MEASURED, ("lo99", "hi99", "lo90", "hi90"),
            "SVT1/SVT2 at 2e8 test draws: our ε_lower at 99 % and 90 %", published_size,
            table=wide)

    cal = "docs/tables/audit_calibration.md"

    def false_alarms():
        t = table(cal, "failures at alpha = 0.05")
        a05 = [int(number(t.get(r, "failures at alpha = 0.05"))) for r in t.rows]
        a01 = [int(number(t.get(r, "at alpha = 0.01"))) for r in t.rows]
        return dict(n=str(len(t.rows)), a05=span(str(min(a05)), str(max(a05))),
                    a01=span(str(min(a01)), str(max(a01))))

    reg.add("audit.calibration.false-alarms", MEASURED,
            ("n", "a05", "a01"), "false alarms per 100 runs of the correct samplers", false_alarms,
            table=cal)

    def power(*bugs: str) -> str:
        t = table(cal, "samples for 99% power")
        rows = [r for r in t.rows if r[0].startswith(bugs)]
        if len(rows) != len(bugs):
            raise FigureError(f"{cal}: rows {bugs} not found")
        return grouped(max(number(t.get(r, "samples for 99% power")) for r in rows))

    reg.add("audit.calibration.gross", MEASURED,
            ("n",), "samples for 99% power of the four gross bugs",
            lambda: dict(n=power("Lap_Z(8) claimed", "Lap_Z(40) claimed", "Lap_Z(2) claimed",
                                 "Pólya share drawn")), table=cal)
    reg.add("audit.calibration.missing-share", MEASURED,
            ("n",),
            "samples for 99% power", lambda: dict(n=power("sum of 15 shares")), table=cal)
    reg.add("audit.calibration.rounded", MEASURED,
            ("d", "n"),
            "samples for 99% power; the P(0) difference from the reading",
            lambda: dict(d=doc_find(cal, r"only P\(0\) differs, by about ([\d.]+)"),
                         n=power("round(Laplace(4))")), table=cal)

    def mech():
        t = table(cal, "result")
        cells = {r[0]: r[1] for r in t.rows}
        ok = cells.get("correct (Lap_Z(4), ε = 1/4)", "")
        half = cells.get("half the noise (true ε = 1/2), claimed ε = 1/4", "")
        none = cells.get("no noise, claimed ε = 1/4", "")
        m = re.search(r"in (\d+)/100 runs at alpha = 0.05 .*median ε_lower ([\d.]+)", ok)
        h = re.search(r"at ([\d,]+) samples", half)
        z = re.search(r"at ([\d,]+) samples", none)
        if not (m and h and z):
            raise FigureError(f"{cal}: unexpected audit_mechanism rows")
        return dict(k=m.group(1), med=fixed(m.group(2), 3), half=grouped(number(h.group(1))),
                    none=grouped(number(z.group(1))))

    reg.add("audit.calibration.mechanism", MEASURED,
            ("k", "med"),
            "audit_mechanism rows", mech, table=cal)
    reg.add("audit.calibration.mechanism-bugs", MEASURED,
            ("half", "none"),
            "audit_mechanism rows", lambda: {k: mech()[k] for k in ("half", "none")}, table=cal)


def implementation(reg: Registry) -> None:
    fa = "docs/tables/float_attacks.md"

    def mechanisms() -> tuple[Table, list, list]:
        t = table(fa, "witness family")
        leaky, controls = [], []
        for r in t.rows:
            truth, claimed = t.get(r, "true ε"), number(t.get(r, "claimed ε"))
            is_leaky = truth.startswith("∞") or (not truth.startswith("≤")
                                                 and number(truth) > claimed)
            (leaky if is_leaky else controls).append(r)
        return t, leaky, controls

    def leaky():
        t, rows, _ = mechanisms()
        col = t.col("bits: verdict")
        if any(r[col] != "fail" for r in rows):
            raise FigureError(f"{fa}: a leaky mechanism passes with bits=True")
        eps = {r[0]: number(r[col + 1]) for r in rows}
        trunc = eps.pop("LaplaceNoiseTruncated", None)
        if trunc is None:
            raise FigureError(f"{fa}: no LaplaceNoiseTruncated row")
        return dict(n=word(len(rows)), lo=fixed(min(eps.values()), 1),
                    hi=fixed(max(eps.values()), 1), trunc=fixed(trunc, 2))

    reg.add("floats.runtime", MEASURED, ("m",),
            "run time in the header",
            lambda: dict(m=fixed(doc_find(fa, r"float_attacks.md` in ([\d.]+) min"), 0)),
            table=fa)
    reg.add("floats.leaky", MEASURED,
            ("n", "lo", "hi", "trunc"),
            "mechanisms with true ε above the claim: bits verdicts and ε_lower", leaky, table=fa)

    def alarms():
        k, n = re.search(r"In all: (\d+) false alarms in (\d+) audits", doc_text(fa)).groups()
        t = table(fa, "false alarms")
        return dict(six=word(len(t.rows)), k=k, n=grouped(n))

    reg.add("floats.false-alarms", MEASURED,
            ("six", "k", "n"),
            "the controls' false alarms", alarms, table=fa)

    def dpsniper():
        t = table(fa, "bits: verdict", "DP-Sniper")
        eps = [number(t.get(r, "ε_lower")) for r in t.rows]
        return dict(lo=fixed(min(eps), 1), hi=fixed(max(eps), 1))

    reg.add("floats.dpsniper", MEASURED, ("lo", "hi"),
            "DP-Sniper's float mechanisms with bits=True", dpsniper, table=fa)

    cf = "docs/tables/conformance.md"
    libs = [("a", "diffprivlib", "Laplace"), ("b", "diffprivlib", "LaplaceTruncated"),
            ("c", "diffprivlib", "LaplaceBoundedDomain"), ("d", "diffprivlib", "Gaussian"),
            ("e", "diffprivlib", "GaussianAnalytic"),
            ("f", "python-dp", "GaussianMechanism, float add_noise")]

    def counts(cell: str) -> dict[str, int]:
        out = {k: int(v) for v, k in re.findall(r"(\d+) (pass|fail|inconclusive)", cell)}
        m = re.search(r"\((\d+) through bits\)", cell)
        out["bits"] = int(m.group(1)) if m else 0
        return out

    def summary() -> tuple[Table, dict]:
        t = table(cf, "privacy", "Summary")
        return t, {(r[0], r[1]): counts(t.get(r, "privacy")) for r in t.rows}

    def fails():
        _, c = summary()
        total = sum(v.get("fail", 0) for v in c.values())
        if any(v.get("fail", 0) != v["bits"] for v in c.values()):
            raise FigureError(f"{cf}: a privacy failure not through the float bits")
        out = {"total": str(total)}
        for key, lib, mech_ in libs:
            v = c.get((lib, mech_))
            if v is None:
                raise FigureError(f"{cf}: no summary row {lib} {mech_}")
            out[key], out[key + "n"] = str(v.get("fail", 0)), str(sum(
                v.get(s, 0) for s in ("pass", "fail", "inconclusive")))
        if sum(int(out[k]) for k, _, _ in libs) != total:
            raise FigureError(f"{cf}: failures outside the six mechanisms the page lists")
        return out

    reg.add("conformance.fails", MEASURED,
            ("total", "a", "an", "b", "bn", "c", "cn", "d", "dn", "e", "en", "f", "fn"),
            "the Summary table's privacy column", fails, table=cf)

    def findings() -> list[tuple[str, tuple[str, ...], Table]]:
        return [(t.section, r, t) for t in tables(cf)
                if "event held in (favoured vs other)" in t.header for r in t.rows]

    def witnesses():
        rows = findings()
        if any(t.get(r, "answers") != "0 vs 1" for _, r, t in rows):
            raise FigureError(f"{cf}: a failure on answers other than 0 vs 1")
        excl = [number(t.get(r, "ε_lower")) for _, r, t in rows
                if re.search(r"vs 0/\d+$", t.get(r, "event held in (favoured vs other)"))]
        if 2 * len(excl) <= len(rows):
            raise FigureError(f"{cf}: most witnesses are no longer exclusive")
        return dict(lo=short(min(excl), 2), hi=short(max(excl), 2))

    reg.add("conformance.exclusive-witnesses", MEASURED,
            ("lo", "hi"),
            "ε_lower of the failing rows whose event never occurs on the other dataset",
            witnesses, table=cf)

    def mildest():
        rows = findings()
        eps = {(s, t.get(r, "claim")): number(t.get(r, "ε_lower")) for s, r, t in rows}
        key = ("python-dp GaussianMechanism, float add_noise", "ε = 0.1, δ = 1e-06")
        if key not in eps or min(eps.values()) != eps[key]:
            raise FigureError(f"{cf}: python-dp's Gaussian at ε = 0.1, δ = 1e-6 is no longer "
                              "the mildest failure")
        return dict(eps=fixed(eps[key], 3))

    reg.add("conformance.mildest", MEASURED,
            ("eps",),
            "the smallest ε_lower among the failures", mildest, table=cf)
    reg.add("conformance.inconclusive", MEASURED,
            ("n",),
            "inconclusive privacy audits in the Summary table",
            lambda: dict(n=str(sum(v.get("inconclusive", 0) for v in summary()[1].values()))),
            table=cf)
    reg.add("conformance.grid", MEASURED,
            ("n",),
            "the grid size in the header",
            lambda: dict(n=doc_find(cf, r"(\d+) configurations make the grid")), table=cf)
    reg.add("conformance.runtime", MEASURED,
            ("m",),
            "run time in the header",
            lambda: dict(m=fixed(doc_find(cf, r"--seed 0` in ([\d.]+) min"), 0)), table=cf)

    sp = "docs/tables/sampling.md"

    def word_rate(gen: str):
        t = table(sp, "compiled / raw")
        rows = [r for r in t.rows if t.get(r, "generator") == gen]
        fast = [number(t.get(r, "compiled / raw")) for r in rows]
        plain = [number(t.get(r, "numpy / raw")) for r in rows]
        raw = number(t.get(rows[0], "raw words/s").split()[0])
        return dict(lo=short(min(fast), 2), hi=short(max(fast), 2), raw=str(int(raw)),
                    np=short(statistics.median(plain), 2), k=str(sum(x >= Decimal("0.75")
                                                                     for x in fast)),
                    n=str(len(fast)))

    for gen, key in (("PCG64", "pcg"), ("ChaCha20", "chacha")):
        reg.add(f"sampling.rate.{key}", MEASURED,
                ("lo", "hi", "raw", "np", "k", "n"),
                f"word-rate table, {gen}: compiled/raw range, raw M words/s, median numpy/raw, "
                "tables at >= 0.75 of the raw rate",
                lambda gen=gen: word_rate(gen), table=sp)

    def every_sampler():
        t = table(sp, "word audit")
        cold = [number(t.get(r, "cold (s)")) for r in t.rows]
        warm = [number(t.get(r, "warm (ms)")) for r in t.rows]
        single = [number(t.get(r, "single calls (s)")) for r in t.rows]
        passed = sum(t.get(r, "word audit") == "**pass**" for r in t.rows)
        return dict(n=str(len(t.rows)), ok=str(passed), cold=short(max(cold), 2),
                    warm=short(max(warm), 2), single=short(max(single), 2))

    reg.add("sampling.every", MEASURED,
            ("n", "ok", "cold", "warm", "single"),
            "every-sampler table: rows, word audits passed, slowest cold (s), warm (ms) and "
            "1000 single calls (s)", every_sampler, table=sp)

    def tvs():
        t = table(sp, "sd / law sd")
        tab_tv = [number(t.get(r, "certified TV")) for r in t.rows
                  if t.get(r, "sampler") == "table"]
        wide = [number(t.get(r, "certified TV")) for r in t.rows
                if t.get(r, "sampler") in ("digits", "rejection")]
        return dict(tab=pow10(statistics.median(tab_tv)), wide=pow10(max(wide), "ceil"))

    reg.add("sampling.tv", MEASURED,
            ("tab", "wide"),
            "wide laws table: median TV of the tables, largest TV of digits/rejection", tvs,
            table=sp)


def assertions(reg: Registry) -> None:
    fc = "docs/tables/find_counterexample.md"

    def fc_rows() -> tuple[Table, list]:
        t = table(fc, "minimal pair")
        return t, list(t.rows)

    def confirms():
        t, rows = fc_rows()
        found = sum(1 for r in rows if t.get(r, "found") == "yes")
        return dict(n=str(len(rows)), found=str(found), miss=str(len(rows) - found))

    reg.add("counterexample.found", MEASURED,
            ("n", "found", "miss"),
            "rows found / not found", confirms, table=fc)

    def sizes():
        t, rows = fc_rows()
        found = [r for r in rows if t.get(r, "found") == "yes"]
        big = [int(t.get(r, "size")) for r in found
               if int(t.get(r, "size")) > int(t.get(r, "canonical"))]
        return dict(k=str(len(found) - len(big)), found=str(len(found)), other=word(len(big)),
                    lo=str(min(big)), hi=str(max(big)))

    reg.add("counterexample.sizes", MEASURED,
            ("k", "found", "other", "lo", "hi"),
            "size against canonical of the found pairs", sizes, table=fc)

    def slow():
        t, rows = fc_rows()
        secs = [number(t.get(r, "seconds")) for r in rows]
        return dict(k=word(sum(1 for s in secs if s > 30), capital=True),
                    most=fixed(max(secs), 0))

    reg.add("counterexample.time", MEASURED,
            ("k", "most"),
            "searches over 30 s and the longest", slow, table=fc)

    sq = "docs/tables/sequential.md"

    def seq() -> dict[str, str]:
        ts = table(sq, "claim", "1.")
        tm = table(sq, "mechanism", "2.")
        gross = [ts.find({"bug": b}) for b in ("scale-x2", "scale-x10", "scale-div2",
                                               "swapped-parameter")]
        med = {number(ts.get(r, "median draws")) for r in gross}
        miss = ts.find({"bug": "missing-user"})
        rc = ts.find({"bug": "rounded-continuous"})
        half = tm.find({"bug": "scale ÷2"})
        sens = tm.find({"bug": "sensitivity halved"})
        caught, fixed_caught = ts.get(rc, "caught").split("/"), ts.get(rc, "fixed: caught")
        return dict(
            g=span(grouped(min(med)), grouped(max(med))),
            mu=grouped(number(ts.get(miss, "median draws"))), mc=ts.get(miss, "caught"),
            rc=caught[0], rcn=caught[1], fx=fixed_caught.split("/")[0],
            fxn=fixed_caught.split("/")[1],
            m1=grouped(number(tm.get(half, "median draws"))),
            m2=grouped(number(tm.get(sens, "median draws"))),
            d1=grouped(number(tm.get(half, "median decided at"))),
            d2=grouped(number(tm.get(sens, "median decided at"))),
            lower=short(number(tm.get(half, "median ε_lower")), 3),
            truth=short(number(tm.get(half, "true ε")), 3))

    def pick(*keys: str) -> Callable[[], dict[str, str]]:
        return lambda: {k: seq()[k] for k in keys}

    reg.add("sequential.samplers", MEASURED,
            ("g", "mu", "mc", "rc", "rcn", "fx", "fxn"),
            "sampler table: median draws and catches", pick("g", "mu", "mc", "rc", "rcn", "fx",
                                                            "fxn"), table=sq)
    reg.add("sequential.mechanisms", MEASURED,
            ("m1", "m2", "d1", "d2"),
            "mechanism table: median draws and median decision draw",
            pick("m1", "m2", "d1", "d2"), table=sq)
    reg.add("sequential.early-epsilon", MEASURED, ("lower", "truth"),
            "scale ÷2: median ε_lower and true ε", pick("lower", "truth"), table=sq)
    reg.add("sequential.api", MEASURED,
            ("m1", "d1", "g"), "scale ÷2 mechanism row; gross sampler bugs",
            pick("m1", "d1", "g"), table=sq)

    mu = "docs/tables/mutation.md"

    def mutation():
        text = doc_text(mu)
        pop = re.search(r"Population: (\d+) privacy-relevant mutants", text)
        kf = re.search(r"Kill fraction: (\d+)/(\d+) = ([\d.]+) % \(Clopper–Pearson 95 %: "
                       r"([\d.]+) % – ([\d.]+) %\)", text)
        sv = re.search(r"\((\d+): (\d+) conservative, (\d+) equivalent, (\d+) guess, (\d+) "
                       r"message, (\d+) performance, (\d+) tolerance", text)
        if not (pop and kf and sv):
            raise FigureError(f"{mu}: the Result section changed shape")
        return dict(pop=grouped(pop.group(1)), killed=kf.group(1), n=kf.group(2), pct=kf.group(3),
                    lo=kf.group(4), hi=kf.group(5), surv=sv.group(1), cons=sv.group(2),
                    eq=sv.group(3), guess=sv.group(4), msg=sv.group(5), perf=sv.group(6),
                    tol=sv.group(7))

    reg.add("mutation.study", MEASURED,
            ("pop", "killed", "n", "pct", "lo", "hi", "surv", "eq", "perf", "guess", "tol", "cons",
             "msg"), "the Result section", mutation, table=mu)
    reg.add("mutation.status", MEASURED, ("pct",),
            "the kill fraction", lambda: dict(pct=mutation()["pct"]), table=mu)

    rc = "docs/tables/mutation_recheck.md"

    def recheck():
        text = doc_text(rc)
        now = re.search(r"Killed now: (\d+) of (\d+)", text)
        kf = re.search(r"these kills: (\d+)/(\d+) of the mutants .*? = ([\d.]+) %", text)
        if not (now and kf):
            raise FigureError(f"{rc}: the summary changed shape")
        return dict(now=now.group(1), of=now.group(2), killed=kf.group(1), n=kf.group(2),
                    pct=kf.group(3))

    reg.add("mutation.recheck", MEASURED, ("now", "of", "killed", "n", "pct"),
            "the summary of the re-check", recheck, table=rc)
