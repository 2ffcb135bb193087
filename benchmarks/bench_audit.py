"""Time of the black-box audits, excluding the time of the code under audit.

What is measured
----------------
1. ``audit_sampler`` on 10^6 draws of Lap_Z(4), Sk(0, 100) and the sum of 16 Pólya shares
   against its exact 16-fold PMF. The draws are made once beforehand and handed back by
   the "sampler", so only the audit is timed. Target: under 2 s.
2. ``audit_mechanism`` on 10^6 draws per dataset of the Theorem-1 server view at n = 16,
   ε = 1 (draws made beforehand, as above). Target: under 10 s.
3. Baselines measured in the same run: the time to *draw* the same samples with the
   library's own vectorized samplers, and ``scipy.stats.chisquare`` on a ``np.bincount``
   of the same sample (the cheapest possible goodness-of-fit test). Ratios are printed so
   the figures survive a noisy shared machine.

Usage: ``python benchmarks/bench_audit.py [--quick] [--json] [--repeats R]``
(``--quick``: 2·10^5 draws, one repeat.)
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402
from _bench import bench_args, best_of, print_table  # noqa: E402

from privtools import exact  # noqa: E402
from privtools.noise import DiscreteLaplace, Skellam  # noqa: E402
from verification.audit import audit_mechanism, audit_sampler  # noqa: E402
from verification.mechanisms import protocol_mechanism  # noqa: E402


def _replay(x):
    return lambda size, rng: x[:size]


def main(argv=None) -> int:
    args = bench_args(__doc__, argv)
    size = 200_000 if args.quick else 1_000_000
    reps = 1 if args.quick else args.repeats
    rng = np.random.default_rng(0)
    rows, results = [], []

    lap = DiscreteLaplace(4)
    share = lap.shares(16)
    cases = [("Lap_Z(4)", lap, lambda: lap.sample(size, rng)),
             ("Sk(0, 100)", Skellam(100), lambda: Skellam(100).sample(size, rng)),
             ("sum of 16 Pólya shares vs exact PMF", exact.sum_pmf(share, 16, dps=30),
              lambda: share.sample((size, 16), rng).sum(axis=1))]
    for name, ref, draw in cases:
        t_draw, x = best_of(draw, reps)
        t_audit, res = best_of(lambda x=x, ref=ref: audit_sampler(_replay(x), ref, size, rng=1),
                               reps)

        def chi2(x=x):
            v, c = np.unique(x, return_counts=True)
            return st.chisquare(c)

        t_chi, _ = best_of(chi2, reps)
        results.append({"audit": "sampler", "case": name, "n": size, "audit_s": t_audit,
                        "draw_s": t_draw, "chisquare_s": t_chi,
                        "ratio_vs_draw": t_audit / t_draw, "ratio_vs_chisquare": t_audit / t_chi,
                        "verdict": res.verdict})
        rows.append(["audit_sampler", name, f"{t_audit:.3f}", f"{t_draw:.3f}",
                     f"{t_audit / t_draw:.2f}", f"{t_audit / t_chi:.1f}", res.verdict])

    pm = protocol_mechanism("dist-dp", 1, 16)
    t_draw, (xd, xp) = best_of(lambda: (pm.mechanism(pm.d, size, rng),
                                        pm.mechanism(pm.d_prime, size, rng)), reps)
    views = {id(pm.d): xd, id(pm.d_prime): xp}

    def replay_mech(d, k, r):
        # The audit asks for seeded chunks of at most 2^16 draws; each is a random slice of
        # the pre-drawn sample (overlapping: this measures time, not the verdict).
        x = views[id(d)]
        start = int(r.integers(0, x.size - k + 1))
        return x[start:start + k]

    t_audit, res = best_of(lambda: audit_mechanism(replay_mech, pm.d, pm.d_prime, pm.epsilon,
                                                   size, rng=2), reps)
    results.append({"audit": "mechanism", "case": "Theorem 1 view, n = 16, ε = 1",
                    "n": size, "audit_s": t_audit, "draw_s": t_draw,
                    "ratio_vs_draw": t_audit / t_draw,
                    "epsilon_lower": res.epsilon_lower, "verdict": res.verdict})
    rows.append(["audit_mechanism", "Thm 1 view n=16 ε=1 (per dataset)", f"{t_audit:.3f}",
                 f"{t_draw:.3f}", f"{t_audit / t_draw:.2f}", "-", res.verdict])

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"draws: {size} (per dataset for audit_mechanism); best of {reps}")
        print_table(["audit", "case", "audit s", "draw s", "audit/draw", "audit/chi2",
                     "verdict"], rows, "llrrrrl")
        for r in results:
            target = 2.0 if r["audit"] == "sampler" else 10.0
            ok = "PASS" if r["audit_s"] * (1e6 / r["n"]) < target else "MISS"
            print(f"{ok}: {r['audit']} {r['case']}: {r['audit_s']:.3f} s for {r['n']} draws "
                  f"(target {target:g} s at 10^6)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
