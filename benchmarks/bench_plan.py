"""Time to plan and exactly verify one batch of n = 2^20 users (``privtools plan``).

What is measured
----------------
For each privacy kind of paper 000 — pure DP (Theorem 1, Pólya shares / Lap_Z total), RDP
(Theorem 2, Skellam) and CDP (Theorem 4, discrete Gaussian) — at ε = 1, n = 2^20, T = 10^6
(p = 10^-6), s = 1 and s = 10:

* ``bound plan``: ``planning.plan(..., tail="bound")`` — the theorem's closed-form g, τ, m
  (the baseline: formulas only, no certification);
* ``exact plan``: ``plan(..., tail="exact")`` — the certified smallest τ (Fact 2 closed form
  for Lap_Z, characteristic-function inversion for Skellam and the n-fold discrete-Gaussian sum);
* ``verify``: ``verification.plan_check.verify_plan`` on the exact plan — certified privacy
  (exact LLR / exact Rényi curve / Lemma 3 or Lemma 4 where tabulation is too large) and the
  certified failure probability, with the (ε, δ) conversion;
* ratios: (exact plan + verify) / bound plan, measured in the same run.

Target (issue): plan + verify for n = 2^20 under 10 s for each privacy kind.

Times are best of ``--repeats`` (default 3; ``--quick``: 1 and s = 1 only) with
``time.perf_counter``; single-threaded, one process. PASS/MISS lines are informational (exit
code 0).

Usage: ``python benchmarks/bench_plan.py [--quick] [--json] [--repeats R]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402

from _bench import bench_args, best_of, print_table  # noqa: E402 - sibling module (run from benchmarks/)

from privtools.planning import plan  # noqa: E402
from verification.plan_check import verify_plan  # noqa: E402

N = 2**20
HORIZON = 10**6
EPSILON = "1"
TARGET_SECONDS = 10.0


def run(privacy: str, s: str, repeats: int) -> dict:
    kw = dict(privacy=privacy, epsilon=EPSILON, n=N, horizon=HORIZON,
              s=s if privacy != "pure-dp" else 1)
    t_bound, bound = best_of(lambda: plan(tail="bound", **kw), repeats)
    t_exact, exact = best_of(lambda: plan(tail="exact", **kw), repeats)
    t_verify, check = best_of(lambda: verify_plan(exact), repeats)
    total = t_exact + t_verify
    return {
        "privacy": privacy, "s": s if privacy != "pure-dp" else None, "theorem": exact.theorem,
        "g": exact.g, "tau_bound": bound.tau, "tau_exact": exact.tau,
        "bits_bound": bound.bits, "bits_exact": exact.bits,
        "bound_plan_seconds": t_bound, "exact_plan_seconds": t_exact,
        "verify_seconds": t_verify, "plan_and_verify_seconds": total,
        "ratio_vs_bound_plan": total / t_bound if t_bound > 0 else None,
        "passed": check.passed, "privacy_method": check.privacy_method,
        "tail_method": exact.tail_method, "target_met": total < TARGET_SECONDS,
    }


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None)
    repeats = args.repeats or (1 if args.quick else 3)
    cases = [("pure-dp", "1"), ("rdp", "1"), ("cdp", "1")]
    if not args.quick:
        cases += [("rdp", "10"), ("cdp", "10")]
    rows = [run(privacy, s, repeats) for privacy, s in cases]
    out = {
        "python": platform.python_version(), "machine": platform.machine(),
        "n": N, "horizon": HORIZON, "epsilon": EPSILON, "repeats": repeats, "rows": rows,
        "target": f"plan + verify for n = 2^20 < {TARGET_SECONDS} s per privacy kind",
        "target_met": all(r["target_met"] for r in rows),
    }
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    print(f"plan + exact verification, n = 2^20, ε = {EPSILON}, T = {HORIZON} "
          f"(python {out['python']}, {out['machine']}, best of {repeats})")
    table = [[r["privacy"], str(r["s"] or "-"), str(r["theorem"]), str(r["tau_bound"]),
              str(r["tau_exact"]), f"{r['bits_bound']}/{r['bits_exact']}",
              f"{r['bound_plan_seconds'] * 1e3:.2f}", f"{r['exact_plan_seconds'] * 1e3:.1f}",
              f"{r['verify_seconds']:.3f}", f"{r['plan_and_verify_seconds']:.3f}",
              f"{r['ratio_vs_bound_plan']:.0f}", "yes" if r["passed"] else "NO"]
             for r in rows]
    print_table(["privacy", "s", "thm", "τ bound", "τ exact", "bits b/e", "bound ms",
                 "exact ms", "verify s", "total s", "× bound", "passed"], table,
                "lllrrrrrrrrl")
    for r in rows:
        print(f"  {r['privacy']} s={r['s'] or '-'}: privacy by {r['privacy_method']}")
    verdict = "PASS" if out["target_met"] else "MISS"
    worst = max(r["plan_and_verify_seconds"] for r in rows)
    print(f"{verdict}: {out['target']} (slowest {worst:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
