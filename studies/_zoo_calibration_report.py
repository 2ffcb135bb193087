"""The page of ``studies/audit_zoo_calibration.py``: the records summarised (false alarms
with exact binomial statistics, detection rates, curator verdicts), the Markdown and the
power figure."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import scipy.stats as st
from _zoo_calibration_tasks import (
    Settings,
    bits_status,
    curator_entries,
    entry,
    nonprivate_entries,
    private_entries,
)

from verification.audit.fixed.mechanism import default_train
from verification.audit.stats import poisson_ratio_bound
from verification.zoo.curator import detection_limit

TESTER_NAMES = {"fixed": "fixed-size audit", "sequential": "sequential audit",
                "search": "pair search", "bits": "bits audit", "trace": "grey-box trace"}
NOTES = {
    "integer": "integer outputs: there is no float encoding for the bits audit to read.",
    "real-arithmetic": "private in real arithmetic only: the double-precision implementation "
                       "adds float noise to the answer and is not ε-DP for any finite ε "
                       "(Mironov, CCS 2012), so a fail of the bits audit here is a detection, "
                       "not a false alarm (see [the float attacks](float_attacks.md)).",
    "noise-dependent-control-flow": "the noise steers the control flow (finding "
                       "`noise-dependent-control-flow` on every seed): the trace decides "
                       "nothing and hands its candidate events to `confirm`, a sampled test.",
    "undecided": "the trace decided nothing on any seed (every verdict inconclusive).",
}


# ---------------------------------------------------------------- statistics
def binomial_row(k: int, n: int, alpha: float) -> dict:
    """False alarms ``k`` of ``n``: the exact 95 % Clopper–Pearson interval of the rate and
    the one-sided binomial p-value of H0: rate ≤ ``alpha`` (P(Bin(n, α) ≥ k))."""
    if n == 0:
        return {"k": 0, "n": 0, "lo": math.nan, "hi": math.nan, "p": math.nan,
                "consistent": True}
    ci = st.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    p = 1.0 if k == 0 else float(st.binom.sf(k - 1, n, alpha))
    return {"k": int(k), "n": int(n), "lo": float(ci.low), "hi": float(ci.high), "p": p,
            "consistent": bool(p >= 0.01)}


def leaks_needed(epsilon: float, alpha: float) -> int:
    """The fewest leaks among a fixed audit's test draws that can fail an ε claim: the
    smallest k whose counts (k, 0) give a bound above ε."""
    k = 1
    while float(poisson_ratio_bound(k, 0, alpha)) <= epsilon:
        k += 1
    return k


def draws_needed(leaks: int, p: float) -> int:
    """Draws per dataset of a fixed audit whose test split expects ``leaks`` leaks at
    probability ``p`` (the test split is ``n − default_train(n)``)."""
    lo, hi = 1, 2
    while hi - default_train(hi) < leaks / p:
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if mid - default_train(mid) >= leaks / p:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _lows(recs) -> np.ndarray:
    vals = [r.get("epsilon_lower") for r in recs]
    return np.array([math.inf if v == "inf" else float(v) for v in vals if v is not None])


# ---------------------------------------------------------------- the summary
def summarize(records: list[dict], s: Settings) -> dict:
    """The page's numbers from the audit records."""
    by = defaultdict(list)
    for r in records:
        by[(r["section"], r["tester"], r["name"])].append(r)
    out = {"false_alarms": {}, "totals": {}, "power": [], "curator": [], "no_signal": {}}
    for tester in TESTER_NAMES:
        rows, k_all, n_all = [], 0, 0
        for e in private_entries(s):
            recs = by[("false-alarm", tester, e.name)]
            row = {"name": e.name, "suite": getattr(e, "suite", "curator"),
                   "epsilon": e.epsilon, "delta": getattr(e, "delta", 0.0), "status": None}
            if tester == "bits" and bits_status(e) is not None:
                row["status"] = bits_status(e)
            elif tester == "trace" and recs and all(r["verdict"] == "inconclusive"
                                                     for r in recs):
                kinds = {k for r in recs for k in r.get("kinds", [])}
                row["status"] = ("noise-dependent-control-flow"
                                 if "noise-dependent-control-flow" in kinds else "undecided")
            if row["status"] is None:
                k = sum(r["verdict"] == "fail" for r in recs)
                row.update(binomial_row(k, len(recs), s.alpha))
                row["verdicts"] = dict(Counter(r["verdict"] for r in recs))
                lows = _lows(recs)
                row["median_ratio"] = (float(np.median(lows)) / e.epsilon
                                       if lows.size and e.epsilon > 0 else None)
                k_all, n_all = k_all + k, n_all + len(recs)
            rows.append(row)
        out["false_alarms"][tester] = rows
        out["totals"][tester] = binomial_row(k_all, n_all, s.alpha)
    for e in nonprivate_entries(s):
        pilot = by[("pilot", "search", e.name)]
        row = {"name": e.name, "suite": e.suite, "epsilon": e.epsilon,
               "true_epsilon": e.true_epsilon,
               "pair": pilot[0].get("pair") if pilot else None, "rates": {}, "median": {}}
        for tester in ("fixed", "sequential"):
            for n in s.power_draws:
                recs = [r for r in by[("power", tester, e.name)] if r["draws"] == n]
                row["rates"][(tester, n)] = (sum(r["verdict"] == "fail" for r in recs),
                                             len(recs))
                if tester == "sequential" and recs:
                    row["median"][n] = float(np.median([r["used"] for r in recs]))
        out["power"].append(row)
    for e in curator_entries(s):
        for n in s.curator_draws:
            row = {"name": e.name, "leak": e.leak, "private": e.private, "draws": n,
                   "expected": 2 * n * e.leak, "limit": detection_limit(n, e.leak, s.alpha)}
            for tester in ("fixed", "sequential"):
                recs = [r for r in by[("curator", tester, e.name)] if r["draws"] == n]
                row[tester] = dict(Counter(r["verdict"] for r in recs))
                row[tester + "_n"] = len(recs)
                if tester == "sequential" and recs:
                    row["seq_median"] = float(np.median([r["used"] for r in recs]))
            out["curator"].append(row)
    for tester in ("fixed", "sequential"):
        recs = [r for key, rs in by.items() if key[2] == "NoSignal" and key[1] == tester
                for r in rs]
        lows = _lows(recs)
        if lows.size:
            out["no_signal"][tester] = {
                "n": int(lows.size), "fails": sum(r["verdict"] == "fail" for r in recs),
                "min": float(lows.min()), "median": float(np.median(lows)),
                "q90": float(np.quantile(lows, 0.9)), "max": float(lows.max())}
    eps = {e.epsilon for e in curator_entries(s)}
    out["leaks_needed"] = {x: leaks_needed(x, s.alpha) for x in eps}
    out["trace_fails"] = [
        {"name": r["name"], "index": r["index"], "seed": r["seed"], "kinds": r.get("kinds", []),
         "pair": entry(r["name"]).pairs[r["index"] % len(entry(r["name"]).pairs)]}
        for r in records if r["section"] == "false-alarm" and r["tester"] == "trace"
        and r["verdict"] == "fail"]
    return out


# ---------------------------------------------------------------- formatting
def _g(x, digits=4) -> str:
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    if math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def _pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def _ci(row) -> str:
    return f"[{_pct(row['lo'])}, {_pct(row['hi'])}]"


def _p(row) -> str:
    return "1" if row["p"] >= 0.9995 else f"{row['p']:.3g}"


def _pair(pair) -> str:
    if not pair:
        return "—"
    a, b = pair
    return ",".join(f"{x:g}" for x in a) + " vs " + ",".join(f"{x:g}" for x in b)


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _n(n: int) -> str:
    """10³ for 1000; other numbers with thousands separators."""
    e = round(math.log10(n)) if n > 0 else 0
    return f"10{str(e).translate(_SUP)}" if 10 ** e == n else f"{n:,}"


def _prob(p: float) -> str:
    """10⁻³ for 0.001; other probabilities with three significant digits."""
    e = round(math.log10(p)) if p > 0 else 0
    return f"10{str(e).translate(_SUP)}" if p > 0 and math.isclose(10.0 ** e, p) else f"{p:.3g}"


def _round2(n: float) -> str:
    """A count to two significant digits, with separators (19,999 -> 20,000)."""
    if n <= 0:
        return "0"
    digits = max(0, int(math.floor(math.log10(n))) - 1)
    return f"{int(round(n, -digits)):,}"


def _verdicts(counts: dict, n: int) -> str:
    return f"{counts.get('fail', 0)} / {counts.get('pass', 0)} / {counts.get('inconclusive', 0)}"


def _fa_table(rows, tester, total) -> list[str]:
    head = ["mechanism", "suite", "claimed ε", "false alarms", "95 % CI of the rate",
            "p (H0: rate ≤ α)", "consistent with α at 1 %"]
    if tester == "fixed":
        head.append("median ε_lower / ε")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r["status"] is not None:
            continue
        cells = [r["name"], r["suite"], _g(r["epsilon"]), f"{r['k']}/{r['n']}", _ci(r), _p(r),
                 "yes" if r["consistent"] else "**no**"]
        if tester == "fixed":
            cells.append(_g(r.get("median_ratio"), 3))
        lines.append("| " + " | ".join(cells) + " |")
    cells = ["**all**", "", "", f"{total['k']}/{total['n']}", _ci(total), _p(total),
             "yes" if total["consistent"] else "**no**"] + ([""] if tester == "fixed" else [])
    lines.append("| " + " | ".join(cells) + " |")
    return lines


def _overview(summary) -> list[str]:
    testers = list(TESTER_NAMES)
    head = ["mechanism", "suite", "claimed ε"] + [TESTER_NAMES[t] for t in testers]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    names = [r["name"] for r in summary["false_alarms"]["fixed"]]
    for i, name in enumerate(names):
        first = summary["false_alarms"]["fixed"][i]
        cells = [name, first["suite"], _g(first["epsilon"])]
        for t in testers:
            r = summary["false_alarms"][t][i]
            if r["status"] is not None:
                cells.append(f"n/a[^{r['status']}]")
            else:
                cells.append(f"{r['k']}/{r['n']}" + ("" if r["consistent"] else " **(no)**"))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _power_table(summary, s: Settings) -> list[str]:
    head = (["mechanism", "claimed ε", "true ε", "pair (pilot search)"]
            + [f"fixed {_n(n)}" for n in s.power_draws]
            + [f"sequential {_n(n)}" for n in s.power_draws]
            + [f"median draws, sequential {_n(s.power_draws[-1])}"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in summary["power"]:
        cells = [r["name"], _g(r["epsilon"]), _g(r["true_epsilon"]), _pair(r["pair"])]
        for tester in ("fixed", "sequential"):
            for n in s.power_draws:
                k, m = r["rates"][(tester, n)]
                cells.append(f"{k}/{m}")
        cells.append(f"{r['median'].get(s.power_draws[-1], math.nan):,.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def power_lines(summary, s: Settings) -> list[str]:
    """One line per tester and budget: mean detection rate and how many mechanisms are
    caught in at least 90 % of the audits."""
    out = []
    rows = summary["power"]
    for tester in ("fixed", "sequential"):
        parts = []
        for n in s.power_draws:
            rates = [k / m for r in rows for k, m in [r["rates"][(tester, n)]] if m]
            full = sum(x >= 0.9 for x in rates)
            parts.append(f"{_n(n)}: mean rate {np.mean(rates):.2f}, {full} of {len(rates)} "
                         "mechanisms caught in ≥ 90 % of the audits")
        out.append(f"* {TESTER_NAMES[tester]} — " + "; ".join(parts) + ".")
    return out


def _curator_table(summary) -> list[str]:
    head = ["mechanism", "leak p", "draws per dataset", "expected leaks (2np)",
            "any black-box test fails with probability ≤", "fixed: fail / pass / inconclusive",
            "sequential: fail / pass / inconclusive", "sequential median draws"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in summary["curator"]:
        limit = "α (no signal)" if r["private"] else f"{r['limit']:.3g}"
        cells = [r["name"], _prob(r["leak"]), f"{r['draws']:,}", f"{r['expected']:g}", limit,
                 _verdicts(r["fixed"], r["fixed_n"]), _verdicts(r["sequential"],
                                                                r["sequential_n"]),
                 f"{r.get('seq_median', math.nan):,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def false_alarm_lines(summary) -> list[str]:
    """Per tester: the pooled count with its interval and test, and the rows that are not
    consistent with α (named: that would be a finding)."""
    out = []
    for tester, rows in summary["false_alarms"].items():
        t = summary["totals"][tester]
        bad = [r["name"] for r in rows if r["status"] is None and not r["consistent"]]
        na = sum(r["status"] is not None for r in rows)
        line = (f"* {TESTER_NAMES[tester]}: {t['k']} false alarm{'' if t['k'] == 1 else 's'} "
                f"in {t['n']} audits "
                f"(95 % CI {_ci(t)}, p = {_p(t)}); ")
        line += (f"not consistent with α: **{', '.join(bad)}**" if bad
                 else "every mechanism consistent with α")
        if tester == "trace" and t["k"]:
            line += (" — but the trace is not a level-α test: its findings are exact, so "
                     f"**each of these {t['k']} fails is a false finding** (see its table)")
        out.append(line + (f"; n/a on {na} mechanisms." if na else "."))
    return out


def trace_note(summary) -> list[str]:
    """The trace's fails on private mechanisms, each with what reproduces it."""
    fails = summary.get("trace_fails", [])
    if not fails:
        return ["The trace decides exactly (it does not sample), so its count must be 0 — "
                "and is."]
    kinds = sorted({k for f in fails for k in f["kinds"]})
    out = [f"**Finding.** The trace decides exactly — it does not sample — so any fail on a "
           f"private mechanism is a false finding, not a level-α event. It failed {len(fails)} "
           f"times (kinds: {', '.join(f'`{k}`' for k in kinds)}), each reproducible with "
           "`trace_mechanism(mechanism, d, d_prime, epsilon, rng=seed, arithmetic=\"real\")`:",
           ""]
    for f in fails:
        out.append(f"* {f['name']}, pair {_pair(f['pair'])}, seed {f['seed']}")
    return out


def _undetected(summary, s: Settings) -> list[str]:
    top = s.power_draws[-1]
    never = [r["name"] for r in summary["power"]
             if r["rates"][("fixed", top)][0] == 0 and r["rates"][("sequential", top)][0] == 0]
    if not never:
        return [f"Every non-private mechanism is caught at least once at {_n(top)} draws."]
    return [f"Never caught at {_n(top)} draws per dataset by either tester (on the pilot's "
            f"pair): {', '.join(never)}. Their violations need more draws or a better pair — "
            "see the pair search on [the benchmark](audit_benchmark.md), which spends 10⁷ "
            "draws per mechanism."]


def _caught(fails: int, n: int, alpha: float) -> bool:
    """Fails beyond what a level-α test gives without seeing anything (binomial p < 0.01)."""
    return n > 0 and fails > 0 and float(st.binom.sf(fails - 1, n, alpha)) < 0.01


def curator_reading(summary, s: Settings) -> list[str]:
    """What the curator rows say, written from the numbers. A budget *catches* a mechanism
    when its fails are more than a level-α test gives by chance (binomial p < 0.01 against
    α, i.e. at least 2 of 10); a lone fail is reported as such."""
    out, blinded = [], False
    rows = [r for r in summary["curator"] if not r["private"]]
    names = list(dict.fromkeys(r["name"] for r in rows))
    for name in names:
        e = entry(name)
        k = summary["leaks_needed"][e.epsilon]
        need = draws_needed(k, e.leak)
        mine = [r for r in rows if r["name"] == name]
        said = []
        for t in ("fixed", "sequential"):
            caught = [r for r in mine if _caught(r[t].get("fail", 0), r[t + "_n"], s.alpha)]
            lone = sum(r[t].get("fail", 0) for r in mine if r not in caught)
            if caught:
                r = caught[0]
                text = (f"the {TESTER_NAMES[t]} catches it from {r['draws']:,} draws "
                        f"({r[t].get('fail', 0)} of {r[t + '_n']} audits fail)")
            else:
                text = (f"the {TESTER_NAMES[t]} never catches it up to "
                        f"{max(s.curator_draws):,} draws")
            if lone and not caught:
                text += (f" ({lone} lone fail{'s' if lone > 1 else ''} over its budgets — "
                         "what a level-α test gives without seeing the leak)")
            said.append(text)
        blind = [r["draws"] for r in mine
                 if not _caught(r["fixed"].get("fail", 0), r["fixed_n"], s.alpha)
                 and (r["draws"] - default_train(r["draws"])) * e.leak >= 3 * k]
        extra = ""
        if blind:
            extra = (f" At {', '.join(f'{n:,}' for n in blind)} draws the fixed audit's test "
                     f"split holds about {(blind[0] - default_train(blind[0])) * e.leak:.0f}+ "
                     f"leaks, far more than {k}, and it still passes: there the limit is this "
                     "auditor's — its events miss the leak's outcome — not black-box "
                     "auditing's.")
        out.append(f"* **{name}** (p = {_prob(e.leak)}): a fixed audit needs at least {k} "
                   f"leaks among its test draws, so about {_round2(need)} draws per dataset "
                   "or more; " + "; ".join(said) + "." + extra)
        blinded = blinded or bool(blind)
    if blinded:
        out += ["", "Why the auditor misses leaks it has seen: exact-outcome events are "
                "proposed only when the outputs repeat (the selection gives them up when the "
                "distinct outputs outnumber about 2/5 of the draws), so an atom inside a "
                "continuous release — the answer itself, the raw histogram — is never an "
                "event, however often it occurs; the leak far in the tail is found by the "
                "threshold events. Proposing the values that repeat (an atom of a continuous "
                "law) as events would close this gap."]
    return out


def _no_signal(summary) -> list[str]:
    out = []
    eps = entry("NoSignal").epsilon
    for tester, d in summary["no_signal"].items():
        conf = "99 %" if tester == "fixed" else "98 %"
        out.append(f"* {TESTER_NAMES[tester]}: {d['fails']} fails in {d['n']} audits; ε_lower "
                   f"({conf}) min {d['min']:.4g}, median {d['median']:.4g}, 90th percentile "
                   f"{d['q90']:.4g}, max {d['max']:.4g} (claimed ε = {eps:g}, true ε = 0).")
    return out


def markdown(summary, s: Settings, meta: dict) -> str:
    """The whole page."""
    L = ["# Calibration and power of the auditor on the zoo", "",
         f"Generated by `{meta['command']}`. Do not edit by hand.", "",
         f"Machine: {meta['machine']}; {meta['workers']} worker "
         f"process{'es' if meta['workers'] != 1 else ''}; "
         f"{meta['minutes']:.1f} min wall time"
         + (f" ({meta['audit_minutes']:.0f} min of audits summed over the workers)"
            if "audit_minutes" in meta else "")
         + f"{' (quick mode)' if s.quick else ''}."
         + (f" {meta['redone']}" if meta.get("redone") else ""), "",
         "| setting | value |", "|---|---|"]
    L += [f"| {a} | {b} |" for a, b in s.describe()]
    L += ["", "## False alarms on the private mechanisms", "",
          "A false alarm is a *fail* verdict on a mechanism whose claim holds (every private "
          "entry of `verification.zoo` and the curator suite's no-signal control). Each audit "
          f"runs at α = {s.alpha:g}, so a calibrated tester fails at most a fraction α of "
          "them. Per mechanism: the count k/N, the exact 95 % Clopper–Pearson interval of the "
          "rate, and the one-sided binomial p-value P(Bin(N, α) ≥ k) of H0: rate ≤ α; "
          "*consistent* means p ≥ 0.01. Pooled rows add the counts (independent audits whose "
          "rates are each ≤ α give a pooled count no larger than Bin(N, α)). With about "
          f"{sum(1 for t in summary['false_alarms'].values() for r in t if r['status'] is None)}"
          " rows, a \"no\" at 1 % can occur by chance even for a calibrated tester.", ""]
    L += false_alarm_lines(summary)
    L += ["", "### Overview: false alarms k/N per tester", ""]
    L += _overview(summary)
    for tester in TESTER_NAMES:
        L += ["", f"### {TESTER_NAMES[tester].capitalize()}", ""]
        L += _fa_table(summary["false_alarms"][tester], tester, summary["totals"][tester])
        if tester == "trace":
            L += ["", *trace_note(summary)]
    L += ["", "## Power on the non-private mechanisms", "",
          "Each non-private mechanism of the DP-Sniper and StatDP suites is audited on one "
          "pair: the pair a pilot search (`search_counterexample` over the entry's pairs of "
          "the longest length, its own seed) ranks first. Cells: fail verdicts / audits "
          "(the detection rate) at each budget of draws per dataset; for the sequential audit "
          "the budget is its maximum.", ""]
    L += power_lines(summary, s)
    L += ["", *_undetected(summary, s)]
    L += ["", "![Detection rate against draws per dataset, fixed-size and sequential audits]"
          f"({meta['figure']})", ""]
    L += _power_table(summary, s)
    L += ["", "## Curator mechanisms: mass hidden at small probabilities", "",
          "`verification.zoo.curator` (after Wang et al., *Curator attack*, CCS 2024, "
          "arXiv:2411.16516): a correct Laplace release (claimed ε = 0.5) that with probability "
          "p releases the data itself — the answer (*CuratorAnswer*), the answer + 100 far in "
          "the noise's tail (*CuratorTail*) or the raw 5-bin histogram (*CuratorRecord*). "
          "True privacy: no finite ε at δ = 0, exactly (0.5, p)-DP; *NoSignal* releases "
          "Lap(2) or the constant 0 whatever the data (true ε = 0). Audited on their witness "
          "pair; cells count fail / pass / inconclusive verdicts.", "",
          "**The limit of black-box auditing.** Without a leak among its draws an audit sees "
          "exactly the correct Laplace mechanism, so *any* level-α black-box test fails with "
          "probability at most α + 1 − (1 − p)^(2n) after n draws per dataset (column 5). "
          "Below about 1/p draws a pass is therefore expected whatever the auditor: it is "
          "not evidence of privacy. What the auditor said:", ""]
    L += curator_reading(summary, s)
    L += ["", *_curator_table(summary), "", "**The no-signal control** (every audit of it, "
          "false-alarm and curator sections together):", ""]
    L += _no_signal(summary)
    used = {r["status"] for t in summary["false_alarms"].values() for r in t} - {None}
    if used:
        L += [""] + [f"[^{k}]: {NOTES[k]}" for k in sorted(used)]
    return "\n".join(L) + "\n"


def plot_power(summary, s: Settings, path: Path) -> Path | None:
    """Detection rate against draws per dataset, one panel per tester, one line per
    non-private mechanism (the mean over them in black); None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    colours = {"dpsniper": "tab:blue", "statdp": "tab:orange"}
    xs = np.array(s.power_draws, dtype=float)
    for ax, tester in zip(axes, ("fixed", "sequential")):
        mean = np.zeros(len(xs))
        for r in summary["power"]:
            ys = np.array([k / m if m else np.nan for k, m in
                           (r["rates"][(tester, n)] for n in s.power_draws)])
            mean += ys / max(len(summary["power"]), 1)
            ax.plot(xs, ys, color=colours.get(r["suite"], "grey"), alpha=0.35, lw=1,
                    marker="o", ms=3)
        ax.plot(xs, mean, color="black", lw=2.5, marker="o", label="mean over mechanisms")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("draws per dataset" + (" (maximum)" if tester == "sequential" else ""))
        ax.set_title(TESTER_NAMES[tester])
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("detection rate (fail / audits)")
    for suite, c in colours.items():
        axes[1].plot([], [], color=c, label=f"{suite} suite")
    axes[1].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
