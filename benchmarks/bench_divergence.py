"""Time and accuracy of certified Rényi divergences of the Skellam mechanism.

What is measured
----------------
1. Target: ``privtools.exact.divergence.renyi_shift_curve(Skellam(10**6), Δ, alphas, dps=30)``
   — the exact RDP curve D_α(Sk(0, 10^6) + Δ ‖ Sk(0, 10^6)) of Theorem 2 (paper 000) with
   σ = Δ/ε, ε = 1, i.e. Δ = 1000 (and Δ = 100 reported too), for every integer
   α = 2..256 (255 orders) at 30 digits, each an interval that provably contains the
   value. Also the 8 powers of two 2, 4, ..., 256.
2. Baselines measured in the same run:
   * float: ``renyi_float`` (float logpmf + scipy logsumexp over a widened grid) for the
     same orders; ratio certified / float, and the largest relative difference.
   * naive Arb: the same window sums computed term by term as ``exp(α log p(y) +
     (1−α) log p(y+Δ))`` in Arb (no incremental powers, no shared table), for a few
     orders; its per-order cost is extrapolated to all orders for the ratio.
   * naive mpmath: ``Σ p(y)^α p(y+Δ)^{1−α}`` with mpmath numbers at 40 digits over the
     same window (PMF values from the certified table), for one order.
3. The AKL21 bound of Lemma 3 (000), ε(α) <= αΔ²/(2σ²) + min(((2α−1)Δ² + 6Δ)/(4σ⁴),
   3Δ/(2σ²)), checked against the certified upper ends (how much slack it has).

Target (issue): "Exact D_α for Skellam with total variance 10^6 and α in {2,...,256} at
30 digits: under 5 s total."

Times are best of ``--repeats`` (default 2) with ``time.perf_counter``; everything runs in
this process, single-threaded. PASS/MISS lines are informational (exit code 0).

Usage: ``python benchmarks/bench_divergence.py [--quick] [--json] [--repeats R]``
(``--quick``: Δ = 1000 only, powers of two plus the all-orders target, one repeat.)
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from fractions import Fraction  # noqa: E402

import mpmath  # noqa: E402
from _bench import bench_args, best_of  # noqa: E402 - sibling module (scripts run from benchmarks/)

from privtools.certified import balls as _arb  # noqa: E402
from privtools.exact import divergence as dv  # noqa: E402
from privtools.exact.divergence import tabulated as _tab  # noqa: E402 - the engine's internals, for the naive baselines
from privtools.noise import Skellam  # noqa: E402

VAR = 10**6
DPS = 30
TARGET_SECONDS = 5.0
ALL_ORDERS = list(range(2, 257))
POW2 = [2, 4, 8, 16, 32, 64, 128, 256]


def naive_arb(noise, d: int, alphas) -> tuple[float, list]:
    """Window sums term by term in Arb (exp/log per term), tails ignored: a cost baseline."""
    model = _tab._model_for(noise)
    lam = (DPS + 2) * math.log(10) + 6
    grid, plans = _tab._plan_windows(noise, model, d, [Fraction(a) for a in alphas], lam)
    bits = _tab._bits(DPS + 6)
    t0 = time.perf_counter()
    out = []
    with _arb.precision(bits):
        for plan in plans:
            balls = noise.pmf_balls(plan.lo, plan.hi + d, bits)
            a = _arb.to_arb(plan.alpha)
            logs = [b.log() for b in balls]
            total = _arb.arb(0)
            for i in range(plan.hi - plan.lo + 1):
                total += (a * logs[i] + (1 - a) * logs[i + d]).exp()
            out.append(total.log() / (a - 1))
    return time.perf_counter() - t0, out


def naive_mpmath(noise, d: int, alpha: int) -> tuple[float, mpmath.mpf]:
    model = _tab._model_for(noise)
    lam = (DPS + 2) * math.log(10) + 6
    grid, plans = _tab._plan_windows(noise, model, d, [Fraction(alpha)], lam)
    plan = plans[0]
    with _arb.precision(_tab._bits(DPS + 6)):
        vals = [_arb.to_mpf(b) for b in noise.pmf_balls(plan.lo, plan.hi + d, _tab._bits(DPS + 6))]
    t0 = time.perf_counter()
    with mpmath.workdps(40):
        s = mpmath.fsum(vals[i] ** alpha * vals[i + d] ** (1 - alpha)
                        for i in range(plan.hi - plan.lo + 1))
        out = mpmath.log(s) / (alpha - 1)
    return time.perf_counter() - t0, out


def akl21(alpha: int, d: int, var: int) -> float:
    return (alpha * d * d / (2 * var)
            + min(((2 * alpha - 1) * d * d + 6 * d) / (4 * var * var), 3 * d / (2 * var)))


def run(d: int, orders, repeats: int, label: str) -> dict:
    noise = Skellam(VAR)
    t_cert, res = best_of(lambda: dv.renyi_shift_curve(noise, d, orders, dps=DPS), repeats)
    t_float, flt = best_of(lambda: [dv.renyi_float(noise, d, a) for a in orders], 1)
    worst_width = mpmath.mpf(0)
    worst_float = 0.0
    worst_slack = math.inf
    for a, r, f in zip(orders, res, flt):
        lo, hi = dv.endpoints(r)
        with mpmath.workprec(256):
            worst_width = max(worst_width, (hi - lo) * (a - 1))
        worst_float = max(worst_float, abs(float(lo) - f) / float(lo))
        worst_slack = min(worst_slack, akl21(a, d, VAR) - float(hi))
    return {
        "label": label, "delta": d, "orders": len(orders), "seconds": t_cert,
        "per_order_ms": 1000 * t_cert / len(orders),
        "float_seconds": t_float, "ratio_vs_float": t_cert / t_float,
        "max_width_times_alpha_minus_1": mpmath.nstr(worst_width, 3),
        "max_rel_diff_float": worst_float,
        "min_slack_akl21": worst_slack,
        "D_first": mpmath.nstr(dv.endpoints(res[0])[0], 25),
        "D_last": mpmath.nstr(dv.endpoints(res[-1])[0], 25),
        "target_met": (t_cert < TARGET_SECONDS) if len(orders) == len(ALL_ORDERS) else None,
    }


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None)
    repeats = args.repeats or (1 if args.quick else 2)
    deltas = [1000] if args.quick else [1000, 100]
    rows = []
    for d in deltas:
        rows.append(run(d, ALL_ORDERS, repeats, f"Δ={d}, α=2..256"))
        rows.append(run(d, POW2, repeats, f"Δ={d}, α=2,4,..,256"))
    noise = Skellam(VAR)
    some = [2, 64, 256] if args.quick else [2, 32, 128, 256]
    t_naive, _ = naive_arb(noise, 1000, some)
    naive_all = t_naive / len(some) * len(ALL_ORDERS)
    t_mp, _ = naive_mpmath(noise, 1000, 64)
    target = rows[0]
    out = {
        "python": platform.python_version(), "machine": platform.machine(),
        "variance": VAR, "dps": DPS, "rows": rows,
        "naive_arb_seconds_per_order": t_naive / len(some),
        "naive_arb_extrapolated_all_orders": naive_all,
        "ratio_naive_arb_vs_ours": naive_all / target["seconds"],
        "naive_mpmath_seconds_one_order": t_mp,
        "ratio_naive_mpmath_vs_ours_per_order": t_mp / (target["seconds"] / len(ALL_ORDERS)),
        "target": f"all 255 orders, Δ=1000, 30 digits < {TARGET_SECONDS} s",
        "target_met": bool(target["target_met"]),
    }
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    print(f"Skellam(var={VAR}) certified Rényi curve, dps={DPS} "
          f"(python {out['python']}, {out['machine']})")
    for r in rows:
        print(f"  {r['label']:<22} {r['seconds']:7.2f} s  ({r['per_order_ms']:6.1f} ms/order)"
              f"  float {r['float_seconds']:6.2f} s  ratio cert/float {r['ratio_vs_float']:5.1f}"
              f"  max (α−1)·width {r['max_width_times_alpha_minus_1']}"
              f"  max |cert−float|/cert {r['max_rel_diff_float']:.1e}"
              f"  min AKL21 slack {r['min_slack_akl21']:.2e}")
    print(f"  D_2 (Δ=1000) = {rows[0]['D_first']}   D_256 = {rows[0]['D_last']}")
    print(f"  naive Arb (exp/log per term, no tails): {out['naive_arb_seconds_per_order']:.3f} "
          f"s/order -> {naive_all:.1f} s for 255 orders; ratio naive/ours "
          f"{out['ratio_naive_arb_vs_ours']:.1f}")
    print(f"  naive mpmath (40 digits, one order): {t_mp:.2f} s; ratio vs ours per order "
          f"{out['ratio_naive_mpmath_vs_ours_per_order']:.0f}")
    verdict = "PASS" if out["target_met"] else "MISS"
    print(f"{verdict}: {out['target']} (measured {target['seconds']:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
