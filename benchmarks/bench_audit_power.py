"""Power where black-box audits were short: (ε, δ) claims of mis-calibrated Gaussians, and
outputs that are dicts or ragged lists (:mod:`verification.zoo.power`).

For each case and each budget (draws per dataset) the fixed-size audit
(:func:`verification.audit.audit_mechanism`, α = 0.01, no learners: the outputs are
scalars or structured) runs on ``--seeds`` seeds; reported are the fail verdicts, the
median ε_lower, and — on the same runs, the same chosen event and the same test counts —
what the previous test of (ε, δ) claims would have said: two Clopper–Pearson intervals at
α/2 each, ε_lower = log((p_lo − δ)/q_hi). The sequential audit
(:func:`verification.audit.audit_mechanism_sequential`) runs at the largest budget beside
them. A control (a correct claim) must fail in at most α of its runs.

Usage::

    python benchmarks/bench_audit_power.py --markdown docs/tables/audit_power.md
    python benchmarks/bench_audit_power.py --quick
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402
from _bench import bench_args, emit, machine, print_table  # noqa: E402

from verification.audit import audit_mechanism, audit_mechanism_sequential  # noqa: E402
from verification.audit.stats import log_ratio_bound  # noqa: E402
from verification.zoo.power import power_cases  # noqa: E402

ALPHA = 0.01


def _one(task):
    index, n, seed, sequential = task
    case = power_cases()[index]
    if sequential:
        r = audit_mechanism_sequential(case.mechanism, list(case.d), list(case.d_prime),
                                       case.epsilon, n, rng=seed, delta=case.delta,
                                       learners=(), alpha=ALPHA)
        return index, n, seed, True, r.verdict, r.epsilon_lower, None, r.draws
    r = audit_mechanism(case.mechanism, list(case.d), list(case.d_prime), case.epsilon, n,
                        rng=seed, delta=case.delta, learners=(), alpha=ALPHA)
    old = None
    if case.delta > 0 and r.event is not None:
        c = r.counts
        old = max(0.0, float(log_ratio_bound(c["count_favoured"], c["count_other"],
                                             c["n_test"], ALPHA, case.delta)))
    return index, n, seed, False, r.verdict, r.epsilon_lower, old, n


def run(args) -> dict:
    cases = power_cases()
    budgets = [2_000, 20_000] if args.quick else [1_000, 10_000, 100_000, 200_000]
    seeds = args.seeds or (4 if args.quick else 30)
    tasks = []
    for i, case in enumerate(cases):
        grid = list(case.budgets) if case.budgets and not args.quick else \
            budgets if case.delta > 0 else [b for b in budgets if b <= 10_000]
        tasks += [(i, n, s, False) for n in grid for s in range(seeds)]
        tasks += [(i, grid[-1], s, True) for s in range(seeds)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        got = list(pool.map(_one, tasks, chunksize=2))
    took = time.perf_counter() - t0
    rows = []
    for i, case in enumerate(cases):
        mine = [g for g in got if g[0] == i]
        for n in sorted({g[1] for g in mine if not g[3]}):
            runs = [g for g in mine if g[1] == n and not g[3]]
            fails = sum(g[4] == "fail" for g in runs)
            old = [g[6] for g in runs if g[6] is not None]
            rows.append({"case": case.name, "claim": [case.epsilon, case.delta],
                         "true_epsilon": case.true_epsilon, "private": case.private,
                         "tester": "fixed", "draws": n, "runs": len(runs), "fails": fails,
                         "median_epsilon_lower": float(np.median([g[5] for g in runs])),
                         "old_fails": (sum(x > case.epsilon for x in old)
                                       if case.delta > 0 else None),
                         "old_median": float(np.median(old)) if old else None})
        seq = [g for g in mine if g[3]]
        rows.append({"case": case.name, "claim": [case.epsilon, case.delta],
                     "true_epsilon": case.true_epsilon, "private": case.private,
                     "tester": "sequential", "draws": seq[0][1], "runs": len(seq),
                     "fails": sum(g[4] == "fail" for g in seq),
                     "median_epsilon_lower": float(np.median([g[5] for g in seq])),
                     "median_draws_used": float(np.median([g[7] for g in seq])),
                     "old_fails": None, "old_median": None})
    return {"rows": rows, "seconds": took, "seeds": seeds, "machine": machine(),
            "workers": args.workers, "alpha": ALPHA}


def _fmt_rate(k, n):
    lo, hi = st.beta.ppf(0.025, k, n - k + 1) if k else 0.0, \
        st.beta.isf(0.025, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} [{lo:.2f}, {hi:.2f}]"


def table(res) -> tuple[list[str], list[list[str]]]:
    head = ["case", "claim (ε, δ)", "true ε", "tester", "draws", "fails (95 % CI)",
            "median ε_lower", "two intervals: fails", "two intervals: median"]
    body = []
    for r in res["rows"]:
        eps, dl = r["claim"]
        true = "∞" if math.isinf(r["true_epsilon"]) else f"{r['true_epsilon']:.3f}"
        draws = f"{r['draws']:,}"
        if r["tester"] == "sequential":
            draws += f" (median used {r['median_draws_used']:,.0f})"
        body.append([r["case"], f"({eps:.3g}, {dl:g})", true, r["tester"], draws,
                     _fmt_rate(r["fails"], r["runs"]), f"{r['median_epsilon_lower']:.3f}",
                     "–" if r["old_fails"] is None else f"{r['old_fails']}/{r['runs']}",
                     "–" if r["old_median"] is None else f"{r['old_median']:.3f}"])
    return head, body


def markdown(res, args) -> str:
    m = res["machine"]
    head, body = table(res)
    lines = ["# Auditor power: (ε, δ) claims and outputs of any shape", "",
             f"Generated by `python benchmarks/bench_audit_power.py --markdown "
             f"docs/tables/audit_power.md` in {res['seconds'] / 60:.1f} min on {m['cpu']} "
             f"({m['cores']} cores; {res['workers']} worker process"
             f"{'es' if res['workers'] > 1 else ''}), Python {m['python']}, "
             f"numpy {m['numpy']}, scipy {m['scipy']}. Do not edit by hand.", "",
             f"{res['seeds']} seeds per row, α = {res['alpha']}, no learners. *fails* counts "
             "fail verdicts with their exact 95 % interval: on a private control a "
             "calibrated audit fails in at most α of its runs; on a bug, it is the "
             "detection rate. *two intervals* re-reads the same runs' test counts with "
             "the previous (ε, δ) test, log((p_lo − δ)/q_hi) from two Clopper–Pearson "
             "bounds at α/2; the hockey-stick test "
             "(`verification.audit.stats.hockey`) replaces it.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    def extra(ap):
        ap.add_argument("--seeds", type=int, default=None)
        ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
        ap.add_argument("--markdown", metavar="PATH")

    args = bench_args(__doc__, argv, extra=extra, repeats=None)
    res = run(args)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(markdown(res, args))

    def report(r):
        print_table(*table(r), "lllllllll")
        print(f"{r['seconds']:.0f} s")
    return emit(res, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
