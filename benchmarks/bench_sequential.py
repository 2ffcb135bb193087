"""Sequential (anytime-valid) audits: how early they stop on bugs, how often they false-alarm.

Three tables, measured in one run, in one process:

1. **Samplers** — every case of :func:`verification.bugs.buggy_cases` (the noise of
   Theorem 1 of 000 at n = 16, ε = 1: Lap_Z(4) in total, Pólya-difference shares) audited by
   :func:`verification.audit.audit_sampler_sequential` with at most 200 000 draws at
   α = 10⁻³ over ``--seeds`` seeds: catch rate, median and 90th percentile of the draws
   taken; the fixed-size :func:`verification.audit.audit_sampler` at 200 000 draws on
   ``--fixed-seeds`` seeds as the baseline. As a sensitivity check, the median draws of the
   sequential audit with a first round of 1024 draws instead of the default 256.
2. **Mechanisms** — ``sum(d) + noise`` claimed (1/4)-DP on d = [0, 1] vs [0, 0]
   (Lap_Z(4) is exactly (1/4)-DP at sensitivity 1) with four bugs, audited by
   :func:`verification.audit.audit_mechanism_sequential` (at most 200 000 draws per
   dataset, α = 10⁻³, no learned events) against the fixed-size
   :func:`verification.audit.audit_mechanism` at 200 000 draws per dataset.
3. **False alarms** — the correct cases of :func:`verification.bugs.correct_cases` (sampler
   form) and the correct mechanism, at ``max_samples`` = 20 000, over ``--fa-seeds`` seeds
   at α = 0.05 (so that the rate is measurable) and at α = 10⁻³: observed count, rate,
   one-sided 99 % Clopper–Pearson upper bound, and the exact binomial test of
   "rate ≤ α".

Every audit has its own seed, ``SeedSequence(--seed, spawn_key=(table, case, i))``, so a run
is repeatable for a given ``--seed``.

Usage::

    python benchmarks/bench_sequential.py --markdown docs/tables/sequential.md    # ~10 min
    python benchmarks/bench_sequential.py --quick                          # ~1 min

``--quick`` runs 10 seeds per bug, 2 fixed-size seeds and 100 false-alarm seeds.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402
from _bench import emit, machine, print_table  # noqa: E402

from privtools.noise import DiscreteLaplace  # noqa: E402
from verification.audit import (  # noqa: E402
    audit_mechanism,
    audit_mechanism_sequential,
    audit_sampler,
    audit_sampler_sequential,
)
from verification.bugs import N_USERS, SCALE, buggy_cases, correct_cases  # noqa: E402

BUDGET = 200_000          # draws (per dataset) of the bug audits, sequential and fixed
FA_BUDGET = 20_000        # max_samples of the false-alarm audits
ALPHA = 1e-3              # level of the bug audits (the default of privtools.testing)
FA_ALPHAS = (0.05, 1e-3)  # levels of the false-alarm counts
CLAIM = 0.25              # ε claimed by the mechanisms: Lap_Z(4) at sensitivity 1
TARGET_DRAWS = 1000       # target: gross bugs caught with a median ≤ this many draws
OTHER_FIRST = 1024        # first round of the sampler sensitivity check
BOUND_LEVEL = 0.99        # one-sided Clopper–Pearson level of the false-alarm bounds
TEST_LEVEL = 0.01         # exact binomial test of "rate ≤ α"

# Bugs that a useful early-stopping audit must catch fast; the others are subtle.
GROSS_SAMPLER = ("scale-x2", "scale-x10", "scale-div2", "swapped-parameter")
GROSS_MECHANISM = ("scale ÷2", "sensitivity halved", "swapped parameter")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _seed(base: int, table: int, case: int, i: int) -> int:
    """A distinct non-negative 63-bit seed for audit ``i`` of ``case`` in ``table``."""
    state = np.random.SeedSequence(base, spawn_key=(table, case, i)).generate_state(
        1, np.uint64)[0]
    return int(state >> np.uint64(1))


def _decided_at(res) -> int | None:
    """The draw (per dataset) at which the e-process crossed 1/α: the draws of the earlier
    rounds plus the position in the crossing round; None if it never crossed. ``res.draws``
    counts whole rounds (what was actually drawn)."""
    done = 0
    for rec in res.rounds:
        if "stopped_at" in rec:
            return done + rec["stopped_at"]
        done += rec["draws"]
    return None


def _summary(draws: list[int], decided: list[int | None], verdicts: list[str],
             final_log_k: list[float]) -> dict:
    d = np.asarray(draws)
    hit = [x for x in decided if x is not None]
    return {"runs": len(verdicts), "caught": sum(v == "fail" for v in verdicts),
            "catch_rate": sum(v == "fail" for v in verdicts) / len(verdicts),
            "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
            "median_draws": float(np.median(d)),
            "p90_draws": float(np.percentile(d, 90, method="higher")),
            "max_draws": int(d.max()),
            "median_decided_at": float(np.median(hit)) if hit else None,
            "median_final_log_e": float(np.median(final_log_k))}


# ------------------------------------------------------------------ 1. samplers
def sampler_rows(args) -> list[dict]:
    rows = []
    for c, case in enumerate(buggy_cases()):
        t0 = time.perf_counter()
        draws, decided, verdicts, small, logk = [], [], [], [], []
        for i in range(args.seeds):
            res = audit_sampler_sequential(case.sampler, case.reference, BUDGET,
                                           rng=_seed(args.seed, 1, c, i), alpha=ALPHA)
            draws.append(res.draws)
            decided.append(_decided_at(res))
            verdicts.append(res.verdict)
            logk.append(res.rounds[-1]["log_e_value"])
        for i in range(args.other_first_seeds):
            res = audit_sampler_sequential(case.sampler, case.reference, BUDGET,
                                           rng=_seed(args.seed, 1, c, i), alpha=ALPHA,
                                           first=OTHER_FIRST)
            small.append(res)
        t_seq = time.perf_counter() - t0
        t1 = time.perf_counter()
        fixed = [audit_sampler(case.sampler, case.reference, BUDGET,
                               rng=_seed(args.seed, 11, c, i), alpha=ALPHA).verdict
                 for i in range(args.fixed_seeds)]
        t_fixed = time.perf_counter() - t1
        row = {"name": case.name, "description": case.description,
               "gross": case.name in GROSS_SAMPLER,
               **_summary(draws, decided, verdicts, logk),
               "fixed_runs": len(fixed), "fixed_caught": fixed.count("fail"),
               "fixed_draws": BUDGET,
               "other_first": {"first": OTHER_FIRST, "runs": len(small),
                               "caught": sum(r.verdict == "fail" for r in small),
                               "median_draws": float(np.median([r.draws for r in small]))
                               if small else None},
               "seconds_sequential": t_seq, "seconds_fixed": t_fixed}
        row["ratio"] = BUDGET / row["median_draws"]
        rows.append(row)
        _log(f"sampler {case.name:>20}: caught {row['caught']}/{row['runs']}, median "
             f"{row['median_draws']:.0f} draws; fixed {row['fixed_caught']}/"
             f"{row['fixed_runs']} ({t_seq:.0f} s + {t_fixed:.0f} s)")
    return rows


# ------------------------------------------------------------------ 2. mechanisms
class Release:
    """``mechanism(d, size, rng)``: ``sum(d)`` plus ``noise(size, rng)`` (picklable)."""

    def __init__(self, noise):
        self.noise = noise

    def __call__(self, d, size, rng):
        return sum(d) + np.asarray(self.noise(size, rng), dtype=np.int64)


def _nb_difference_epsilon(total_r: float, p: float, reach: int = 100,
                           support: int = 4000) -> float:
    """max over |k| ≤ ``reach`` of |log f(k) / f(k + 1)|, f the law of X − Y with X, Y
    i.i.d. NB(``total_r``, ``p``) (numpy's parameterisation: ``p`` is the success
    probability): the true ε at sensitivity 1 of ``sum(d)`` plus that noise."""
    a = st.nbinom(total_r, p).pmf(np.arange(support))
    f = np.convolve(a, a[::-1])                     # index j ↔ k = j − (support − 1)
    k0 = support - 1
    lo, hi = k0 - reach, k0 + reach
    return float(np.max(np.abs(np.log(f[lo:hi] / f[lo + 1:hi + 1]))))


def mechanism_cases() -> list[dict]:
    lap, lap2 = DiscreteLaplace(SCALE), DiscreteLaplace(SCALE // 2)
    share = lap.shares(N_USERS)
    beta = math.exp(-1 / SCALE)
    r = 1 / N_USERS

    def lap_noise(size, rng):
        return lap.sample(size, rng)

    def lap2_noise(size, rng):
        return lap2.sample(size, rng)

    def missing(size, rng):
        return share.sample((size, N_USERS - 1), rng).sum(axis=1)

    def swapped(size, rng):
        # numpy's negative_binomial(n, p) takes the success probability p = 1 - β
        shape = (size, N_USERS)
        return (rng.negative_binomial(r, beta, shape)
                - rng.negative_binomial(r, beta, shape)).sum(axis=1)

    return [
        {"name": "correct", "description": "Lap_Z(4) on records in {0, 1}", "d": [0, 1],
         "mechanism": Release(lap_noise), "true_epsilon": 1 / SCALE},
        {"name": "scale ÷2", "description": "Lap_Z(2) on records in {0, 1}", "d": [0, 1],
         "mechanism": Release(lap2_noise), "true_epsilon": 2 / SCALE},
        {"name": "sensitivity halved", "description": "Lap_Z(4), calibrated for records in "
         "{0, 1}, on records in {0, 1, 2} (d = [0, 2])", "d": [0, 2],
         "mechanism": Release(lap_noise), "true_epsilon": 2 / SCALE},
        {"name": "missing share", "description": "sum of 15 of the 16 Pólya-difference "
         "shares of Lap_Z(4)", "d": [0, 1], "mechanism": Release(missing),
         "true_epsilon": _nb_difference_epsilon((N_USERS - 1) * r, 1 - beta)},
        {"name": "swapped parameter", "description": "16 shares drawn with "
         "negative_binomial(r, β) instead of (r, 1 − β)", "d": [0, 1],
         "mechanism": Release(swapped), "true_epsilon": _nb_difference_epsilon(1.0, beta)},
    ]


def mechanism_rows(args, cases) -> list[dict]:
    rows = []
    for c, case in enumerate(cases):
        if case["name"] == "correct":
            continue
        t0 = time.perf_counter()
        draws, decided, verdicts, lowers, logk = [], [], [], [], []
        for i in range(args.seeds):
            res = audit_mechanism_sequential(case["mechanism"], case["d"], [0, 0], CLAIM,
                                             BUDGET, rng=_seed(args.seed, 2, c, i),
                                             alpha=ALPHA, learners=())
            draws.append(res.draws)
            decided.append(_decided_at(res))
            verdicts.append(res.verdict)
            lowers.append(res.epsilon_lower)
            logk.append(res.rounds[-1]["log_e_value"])
        t_seq = time.perf_counter() - t0
        t1 = time.perf_counter()
        fixed = [audit_mechanism(case["mechanism"], case["d"], [0, 0], CLAIM, BUDGET,
                                 rng=_seed(args.seed, 12, c, i), alpha=ALPHA, learners=())
                 for i in range(args.fixed_seeds)]
        t_fixed = time.perf_counter() - t1
        row = {"name": case["name"], "description": case["description"], "d": case["d"],
               "true_epsilon": case["true_epsilon"],
               "gross": case["name"] in GROSS_MECHANISM,
               **_summary(draws, decided, verdicts, logk),
               "median_epsilon_lower": float(np.median(lowers)),
               "fixed_runs": len(fixed),
               "fixed_caught": sum(f.verdict == "fail" for f in fixed),
               "fixed_median_epsilon_lower": float(np.median([f.epsilon_lower
                                                              for f in fixed])),
               "fixed_draws": BUDGET, "seconds_sequential": t_seq, "seconds_fixed": t_fixed}
        row["ratio"] = BUDGET / row["median_draws"]
        rows.append(row)
        _log(f"mechanism {case['name']:>18}: caught {row['caught']}/{row['runs']}, median "
             f"{row['median_draws']:.0f} draws; fixed {row['fixed_caught']}/"
             f"{row['fixed_runs']} ({t_seq:.0f} s + {t_fixed:.0f} s)")
    return rows


# ------------------------------------------------------------------ 3. false alarms
def _rate_stats(k: int, n: int, alpha: float) -> dict:
    upper = 1.0 if k == n else float(st.beta.ppf(BOUND_LEVEL, k + 1, n - k))
    p = float(st.binomtest(k, n, alpha, alternative="greater").pvalue)
    return {"false_alarms": k, "runs": n, "rate": k / n, "upper99": upper,
            "p_value": p, "consistent": p >= TEST_LEVEL}


def false_alarm_rows(args, mech_cases) -> list[dict]:
    rows = []
    correct_mech = next(m for m in mech_cases if m["name"] == "correct")
    for a, alpha in enumerate(FA_ALPHAS):
        targets = [(c.name, "sampler", c) for c in correct_cases()]
        targets.append(("Lap_Z(4), claim ε = 1/4", "mechanism", correct_mech))
        for c, (name, kind, case) in enumerate(targets):
            t0 = time.perf_counter()
            fails, above, draws, logk = 0, 0, [], []
            for i in range(args.fa_seeds):
                seed = _seed(args.seed, 3 + a, c, i)
                if kind == "sampler":
                    res = audit_sampler_sequential(case.sampler, case.reference, FA_BUDGET,
                                                   rng=seed, alpha=alpha)
                else:
                    res = audit_mechanism_sequential(case["mechanism"], case["d"], [0, 0],
                                                     CLAIM, FA_BUDGET, rng=seed, alpha=alpha,
                                                     learners=())
                    above += res.epsilon_lower > CLAIM
                fails += res.verdict == "fail"
                draws.append(res.draws)
                logk.append(res.rounds[-1]["log_e_value"])
            row = {"name": name, "kind": kind, "alpha": alpha,
                   **_rate_stats(fails, args.fa_seeds, alpha),
                   "median_draws": float(np.median(draws)),
                   "median_final_log_e": float(np.median(logk)),
                   "seconds": time.perf_counter() - t0}
            if kind == "mechanism":
                row["epsilon_lower_above_claim"] = above
            rows.append(row)
            _log(f"false alarms at α = {alpha:g}, {name:>24}: {fails}/{args.fa_seeds} "
                 f"({row['seconds']:.0f} s)")
        part = [r for r in rows if r["alpha"] == alpha]
        k, n = sum(r["false_alarms"] for r in part), sum(r["runs"] for r in part)
        rows.append({"name": "all of the above", "kind": "pooled", "alpha": alpha,
                     **_rate_stats(k, n, alpha), "median_draws": None,
                     "median_final_log_e": None,
                     "seconds": sum(r["seconds"] for r in part)})
    return rows


# ------------------------------------------------------------------ report


def _command(args) -> str:
    cmd = "python benchmarks/bench_sequential.py" + (" --quick" if args.quick else "")
    cmd += (f" --seeds {args.seeds} --fixed-seeds {args.fixed_seeds} --fa-seeds "
            f"{args.fa_seeds} --seed {args.seed}")
    if args.markdown:
        cmd += f" --markdown {args.markdown}"
    return cmd


def _n(x) -> str:
    return "–" if x is None else f"{x:,.0f}"


def _f1(x) -> str:
    return "–" if x is None else f"{x:.1f}"


def _targets(res) -> list[str]:
    """Plain statements on the two targets, computed from the results."""
    out = []
    for label, rows in (("sampler", res["samplers"]), ("mechanism", res["mechanisms"])):
        gross = [r for r in rows if r["gross"]]
        slow = [r["name"] for r in gross if r["median_draws"] > TARGET_DRAWS]
        missed = [r["name"] for r in gross if r["catch_rate"] < 1]
        if not slow and not missed:
            out.append(f"Gross bugs, {label} form: target met — every gross bug caught in "
                       f"every run, median draws ≤ {TARGET_DRAWS:,}.")
        else:
            parts = []
            if missed:
                parts.append("not caught in every run: " + ", ".join(missed))
            if slow:
                parts.append(f"median draws above {TARGET_DRAWS:,}: " + ", ".join(slow))
            out.append(f"Gross bugs, {label} form: **target missed** — " + "; ".join(parts)
                       + ".")
    for alpha in FA_ALPHAS:
        rows = [r for r in res["false_alarms"] if r["alpha"] == alpha and
                r["kind"] != "pooled"]
        bad = [r["name"] for r in rows if not r["consistent"]]
        if bad:
            out.append(f"False alarms at α = {alpha:g}: **target missed** — significantly "
                       f"above α for " + ", ".join(bad) + ".")
        else:
            out.append(f"False alarms at α = {alpha:g}: target met — no row significantly "
                       f"above α (exact binomial test at level {TEST_LEVEL:g}).")
    return out


def markdown(res, args) -> str:
    m = res["machine"]
    s_first = res["samplers"][0]["other_first"]["runs"] if res["samplers"] else 0
    lines = [
        "# Sequential audits: early stopping on bugs, false alarms",
        "",
        f"Generated by `{_command(args)}` in {res['seconds'] / 60:.1f} min on {m['cpu']} "
        f"({m['cores']} cores), Python {m['python']}, numpy {m['numpy']}, scipy "
        f"{m['scipy']}; one process. Do not edit by hand.",
        "",
        f"Bug audits: at most {BUDGET:,} draws (per dataset for mechanisms) at α = "
        f"{ALPHA:g}, {args.seeds} seeds per bug for the sequential audits "
        f"(`verification.audit.audit_sampler_sequential`, `audit_mechanism_sequential` with "
        f"`learners=()`), {args.fixed_seeds} seeds per bug for the fixed-size baselines "
        f"(`audit_sampler`, `audit_mechanism` with `learners=()`, always {BUDGET:,} draws). "
        f"False alarms: `max_samples` = {FA_BUDGET:,}, {args.fa_seeds} seeds per row at each "
        f"α in {', '.join(f'{a:g}' for a in FA_ALPHAS)}. Audit i of case c in table t runs "
        f"from the seed `SeedSequence({args.seed}, spawn_key=(t, c, i))`.",
        "",
        "*draws* is `SequentialAudit.draws`: the draws actually taken, in whole rounds. The "
        "rounds are a first round of 256 draws (per dataset for mechanisms) that only "
        "chooses the event, or for samplers bets nothing yet (its alternatives are p₀ "
        "itself), then rounds of the same size doubling, so a fail in the first betting "
        "round reports 512 draws. *decided at* is the draw "
        "at which the e-process crossed 1/α inside its round (the draws of the earlier "
        "rounds included). *ratio* is the fixed-size budget over the sequential median "
        "draws.",
        "",
        "## 1. Buggy samplers (sampler form)",
        "",
        "Theorem 1 of 000 at n = 16, ε = 1 (`verification.bugs.buggy_cases()`): each bug "
        "against the law it claims. Gross bugs (the target applies): "
        + ", ".join(GROSS_SAMPLER) + ".",
        "",
        "| bug | claim | caught | median draws | p90 draws | median decided at | "
        f"median final log K | fixed: caught | ratio | median draws, first round "
        f"{OTHER_FIRST} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["samplers"]:
        sf = r["other_first"]
        lines.append(
            f"| {r['name']} | {r['description']} | {r['caught']}/{r['runs']} | "
            f"{_n(r['median_draws'])} | {_n(r['p90_draws'])} | {_n(r['median_decided_at'])} | "
            f"{r['median_final_log_e']:.1f} | {r['fixed_caught']}/{r['fixed_runs']} | "
            f"{r['ratio']:.1f} | {_n(sf['median_draws'])} ({sf['caught']}/{sf['runs']} "
            "caught) |")
    lines += [
        "",
        f"*final log K* is the log e-value when the audit stopped (at a fail it is at least "
        f"ln(1/α) = {math.log(1 / ALPHA):.1f}). The last column reruns the first {s_first} "
        f"seeds with `first={OTHER_FIRST}` (the selection round); everything else uses the "
        "default `first=256`.",
        "",
        "## 2. Buggy mechanisms (mechanism form)",
        "",
        f"`sum(d) + noise`, claimed ε = {CLAIM:g} between d and [0, 0] (Lap_Z(4) is exactly "
        f"{CLAIM:g}-DP at sensitivity 1). True ε is exact for the Laplace rows and computed "
        "numerically (max |log f(k)/f(k+1)| over |k| ≤ 100 of the noise pmf f) for the "
        "Pólya rows. Gross bugs: " + ", ".join(GROSS_MECHANISM) + ".",
        "",
        "| bug | mechanism | d | true ε | caught | median draws | p90 draws | median decided "
        "at | median ε_lower | fixed: caught | fixed: median ε_lower | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["mechanisms"]:
        lines.append(
            f"| {r['name']} | {r['description']} | {r['d']} | {r['true_epsilon']:.4f} | "
            f"{r['caught']}/{r['runs']} | {_n(r['median_draws'])} | {_n(r['p90_draws'])} | "
            f"{_n(r['median_decided_at'])} | {r['median_epsilon_lower']:.3f} | "
            f"{r['fixed_caught']}/{r['fixed_runs']} | "
            f"{r['fixed_median_epsilon_lower']:.3f} | {r['ratio']:.1f} |")
    lines += [
        "",
        "## 3. False alarms",
        "",
        f"Correct samplers (`verification.bugs.correct_cases()`) and the correct mechanism "
        f"(Lap_Z(4) on d = [0, 1] vs [0, 0], claim {CLAIM:g}), `max_samples` = "
        f"{FA_BUDGET:,}. *bound* is the one-sided {BOUND_LEVEL:.0%} Clopper–Pearson upper "
        "bound on the false-alarm rate; *p* is the exact binomial test of rate ≤ α against "
        f"rate > α (`scipy.stats.binomtest(..., alternative=\"greater\")`); *consistent* "
        f"means p ≥ {TEST_LEVEL:g}. The pooled row adds the rows above it.",
        "",
        "| α | case | form | false alarms | rate | bound | p | consistent with α | "
        "median final log K |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["false_alarms"]:
        lines.append(
            f"| {r['alpha']:g} | {r['name']} | {r['kind']} | {r['false_alarms']}/{r['runs']} | "
            f"{r['rate']:.4f} | {r['upper99']:.4f} | {r['p_value']:.3g} | "
            f"{'yes' if r['consistent'] else '**no**'} | "
            f"{_f1(r['median_final_log_e'])} |")
    mech = [r for r in res["false_alarms"] if r["kind"] == "mechanism"]
    if mech:
        lines += ["", "ε_lower above the claim on the correct mechanism (it holds with "
                  "confidence 1 − α): " + "; ".join(
                      f"{r['epsilon_lower_above_claim']}/{r['runs']} at α = {r['alpha']:g}"
                      for r in mech) + "."]
    lines += ["", "## What the numbers mean", ""]
    lines += [f"* {t}" for t in _targets(res)]
    lines += ["", res["reading"], ""]
    return "\n".join(lines)


def _reading(res) -> str:
    """Short paragraphs on what the figures mean, from the figures."""
    subtle_s = [r for r in res["samplers"] if not r["gross"]]
    subtle_m = [r for r in res["mechanisms"] if not r["gross"]]
    gross_s = [r for r in res["samplers"] if r["gross"]]
    gross_m = [r for r in res["mechanisms"] if r["gross"]]
    fa_s = [r for r in res["false_alarms"] if r["kind"] == "sampler" and
            r["alpha"] == FA_ALPHAS[0]]
    paras = []
    if gross_s:
        paras.append(
            "Samplers, gross bugs. The first 256 draws only estimate the alternatives, so "
            "no sampler audit can fail before draw 257. Median draws: "
            + ", ".join(f"{r['name']} {_n(r['median_draws'])} (decided at "
                        f"{_n(r['median_decided_at'])})" for r in gross_s)
            + f", against {BUDGET:,} for the fixed audit; "
            f"{sum(r['median_draws'] <= TARGET_DRAWS for r in gross_s)} of {len(gross_s)} "
            f"gross bugs meet the {TARGET_DRAWS:,}-draw target. With a first round of "
            f"{OTHER_FIRST} the medians are "
            + ", ".join(f"{r['name']} {_n(r['other_first']['median_draws'])}"
                        for r in gross_s) + ".")
    if gross_m:
        paras.append(
            "Mechanisms, gross bugs (first round 256 per dataset). Median draws per dataset: "
            + ", ".join(f"{r['name']} {_n(r['median_draws'])} (decided at "
                        f"{_n(r['median_decided_at'])})" for r in gross_m) + ".")
    if subtle_s:
        loss = ", ".join(f"{r['name']} {r['median_final_log_e']:.1f}" for r in fa_s)
        paras.append(
            "Samplers, subtle bugs: "
            + "; ".join(f"{r['name']} caught in {r['caught']} of {r['runs']} sequential runs "
                        f"(median final log K {r['median_final_log_e']:.1f}) and in "
                        f"{r['fixed_caught']} of {r['fixed_runs']} fixed-size runs"
                        for r in subtle_s)
            + ". The audit bets at two resolutions (16 groups of equal mass and every bin) "
            "on mixtures (1 − w) p₀ + w f̂ for w = 1/2 … 1/64, f̂ the smoothed frequencies "
            "of the earlier draws, and averages the twelve e-processes; the small weights "
            "lose little on correct draws (median final log K after "
            f"{FA_BUDGET:,} draws of the correct samplers: {loss}), so a shape error that "
            "shows only over many draws can still build up to ln(1/α) = "
            f"{math.log(1 / ALPHA):.1f}.")
    for r in subtle_m:
        paras.append(
            f"Mechanisms, {r['name']} (true ε {r['true_epsilon']:.4f} against the claim "
            f"{CLAIM:g}): caught in {r['caught']} of {r['runs']} sequential runs (median "
            f"{_n(r['median_draws'])} draws per dataset) and in {r['fixed_caught']} of "
            f"{r['fixed_runs']} fixed-size runs (median ε_lower "
            f"{r['fixed_median_epsilon_lower']:.3f}).")
    if res["mechanisms"]:
        paras.append(
            "On a mechanism fail the reported ε_lower (confidence 1 − 2α: the e-process "
            "inverted over ε, and each round's Clopper–Pearson bound at level α·2^-r) is at "
            "least the claim — median "
            + ", ".join(f"{r['name']} {r['median_epsilon_lower']:.3f} (true "
                        f"{r['true_epsilon']:.3f})" for r in res["mechanisms"])
            + ". When the audit stops early it has few draws, so the bound sits close to "
            "the claim even for a gross bug; the fixed audit's bound is tighter.")
    paras.append(
        "A pass only says the e-process did not reach 1/α within the budget. The "
        "false-alarm counts check the other side: a rate significantly above α would mean "
        "the anytime-valid guarantee does not hold as implemented; a rate well below α "
        "means the audit is conservative on these cases.")
    return "\n\n".join(paras)


def report(res) -> None:
    print("1. Buggy samplers (sequential at α = 0.001, at most 200 000 draws)")
    print_table(["bug", "caught", "median", "p90", "decided", "log K", "fixed", "ratio",
                 f"first={OTHER_FIRST}"],
                [[r["name"], f"{r['caught']}/{r['runs']}", _n(r["median_draws"]),
                  _n(r["p90_draws"]), _n(r["median_decided_at"]),
                  _f1(r["median_final_log_e"]), f"{r['fixed_caught']}/{r['fixed_runs']}",
                  f"{r['ratio']:.1f}", _n(r["other_first"]["median_draws"])]
                 for r in res["samplers"]], "lrrrrrrrr")
    print()
    print(f"2. Buggy mechanisms (claim ε = {CLAIM:g}, per dataset)")
    print_table(["bug", "true eps", "caught", "median", "p90", "decided", "eps_lower",
                 "fixed", "fixed eps_lower", "ratio"],
                [[r["name"], f"{r['true_epsilon']:.4f}", f"{r['caught']}/{r['runs']}",
                  _n(r["median_draws"]), _n(r["p90_draws"]), _n(r["median_decided_at"]),
                  f"{r['median_epsilon_lower']:.3f}", f"{r['fixed_caught']}/{r['fixed_runs']}",
                  f"{r['fixed_median_epsilon_lower']:.3f}", f"{r['ratio']:.1f}"]
                 for r in res["mechanisms"]], "lrrrrrrrrr")
    print()
    print(f"3. False alarms (max_samples = {FA_BUDGET:,})")
    print_table(["alpha", "case", "fails", "rate", "upper 99%", "p", "consistent", "log K"],
                [[f"{r['alpha']:g}", r["name"], f"{r['false_alarms']}/{r['runs']}",
                  f"{r['rate']:.4f}", f"{r['upper99']:.4f}", f"{r['p_value']:.3g}",
                  "yes" if r["consistent"] else "NO", _f1(r["median_final_log_e"])]
                 for r in res["false_alarms"]], "llrrrrlr")
    print()
    for t in _targets(res):
        print(t.replace("**", ""))
    print(f"\n{res['seconds']:.0f} s in all")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="10 seeds per bug, 2 fixed-size seeds, 100 false-alarm seeds")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--markdown", metavar="PATH", help="also write the report to this file")
    ap.add_argument("--seeds", type=int, default=None,
                    help="seeds per bug of the sequential audits (default 100; quick 10)")
    ap.add_argument("--fixed-seeds", type=int, default=None,
                    help="seeds per bug of the fixed-size baselines (default 5; quick 2)")
    ap.add_argument("--fa-seeds", type=int, default=None,
                    help="seeds per false-alarm row (default 1000; quick 100)")
    ap.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    args = ap.parse_args(argv)
    q = args.quick
    args.seeds = args.seeds if args.seeds is not None else (10 if q else 100)
    args.fixed_seeds = args.fixed_seeds if args.fixed_seeds is not None else (2 if q else 5)
    args.fa_seeds = args.fa_seeds if args.fa_seeds is not None else (100 if q else 1000)
    for name in ("seeds", "fixed_seeds", "fa_seeds"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    args.other_first_seeds = min(args.seeds, 20)

    t0 = time.perf_counter()
    mech_cases = mechanism_cases()
    res = {"samplers": sampler_rows(args), "mechanisms": mechanism_rows(args, mech_cases),
           "false_alarms": false_alarm_rows(args, mech_cases)}
    res["seconds"] = time.perf_counter() - t0
    res["machine"] = machine()
    res["command"] = _command(args)
    res["reading"] = _reading(res)
    res["args"] = {k: v for k, v in vars(args).items()}
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(markdown(res, args))
    return emit(res, args.json, report, default=str)


if __name__ == "__main__":
    sys.exit(main())
