"""Wall time of one AdaC-UCB run (001, finite arms), against a per-round Python loop.

What is measured
----------------
``simulate_ucb(zcdp_policy("adac-ucb", epsilon=ρ), bernoulli_instance(10), T = 10^7)``:
one Python iteration per episode (O(K log T)), each episode's rewards drawn by one
``env.sample`` call, one Gaussian draw per released episode. Best of ``--repeats`` runs;
the discrete variant (exact CKS discrete Gaussian) and the non-private twin are timed too.

Baseline (same algorithm, same index): a per-round Python loop — one ``rng.random()`` per
round for the Bernoulli reward, the running sum in Python floats, the index and argmax at
each episode start. It runs ``T_base`` = 10^6 rounds (2·10^5 with ``--quick``) and its time
is scaled linearly to T (constant cost per round). ``ratio`` = scaled baseline / vectorized
time. The vectorized run does not draw the rewards of the last, truncated episode (its
statistic is never released); the baseline does, as a naive implementation would.

Target: K = 10, T = 10^7, one run under 2 s on one core. PASS/MISS are informational;
the script always exits 0.

Usage: ``python benchmarks/bench_zcdp_ucb.py [--quick] [--json] [--repeats R]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402

import numpy as np  # noqa: E402
from _bench import bench_args, best_of, print_table  # noqa: E402 - sibling module

from privtools.bandits.envs import bernoulli_instance  # noqa: E402
from privtools.bandits.zcdp import simulate_ucb, zcdp_policy  # noqa: E402

SEED = 20240607
K = 10
T = 10**7
RHO = 0.1
BETA = 3.1
TARGET_TIME = 2.0


def baseline_loop(means, horizon: int, rho: float, rng: np.random.Generator) -> float:
    """AdaC-UCB one round at a time; returns the pseudo-regret after ``horizon`` rounds."""
    K = len(means)
    best = max(means)
    n = [1] * K
    est = [0.0] * K
    regret = 0.0
    for a in range(K):
        x = 1.0 if rng.random() < means[a] else 0.0
        est[a] = x + rng.normal() / math.sqrt(2 * rho)
        regret += best - means[a]
    t = K
    arm, left, total, length = -1, 0, 0.0, 0
    while t < horizon:
        if left == 0:
            if arm >= 0:
                est[arm] = total / length + rng.normal() / (length * math.sqrt(2 * rho))
                n[arm] = length
            lt = math.log(t + 1)
            idx = [est[a] + math.sqrt(BETA * lt / (2 * n[a])) + math.sqrt(BETA * lt / rho) / n[a]
                   for a in range(K)]
            arm = max(range(K), key=idx.__getitem__)
            length = left = 2 * n[arm]
            total = 0.0
        total += 1.0 if rng.random() < means[arm] else 0.0
        regret += best - means[arm]
        left -= 1
        t += 1
    return regret


def main() -> None:
    args = bench_args(__doc__, None)
    T_run = 10**6 if args.quick else T
    T_base = 2 * 10**5 if args.quick else 10**6
    env = bernoulli_instance(K)
    rows, out = [], {"K": K, "T": T_run, "rho": RHO, "python": platform.python_version(),
                     "machine": platform.machine(), "runs": {}}
    for name, eps in (("adac-ucb", RHO), ("adac-ucb-discrete", RHO), ("ucb-twin", None)):
        spec = zcdp_policy(name, epsilon=eps)
        tm, res = best_of(lambda s=spec: simulate_ucb(s, env, T_run, rng=SEED), args.repeats)
        out["runs"][name] = {"seconds": tm, "episodes": int(len(res.episodes)),
                             "regret": res.final_regret}
        rows.append([spec.label, f"{tm:.3f}", str(len(res.episodes)),
                     f"{res.final_regret:.1f}"])
    tb, _ = best_of(lambda: baseline_loop(env.means.tolist(), T_base, RHO,
                                          np.random.default_rng(SEED)), 1)
    scaled = tb * T_run / T_base
    main_t = out["runs"]["adac-ucb"]["seconds"]
    ratio = scaled / main_t
    verdict = "PASS" if main_t < TARGET_TIME * T_run / T else "MISS"
    out.update(baseline={"T_base": T_base, "seconds": tb, "scaled_seconds": scaled},
               ratio=ratio, target_seconds=TARGET_TIME * T_run / T, verdict=verdict)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"AdaC-UCB, K = {K}, T = {T_run:.0e}, ρ = {RHO}, best of {args.repeats}")
    print_table(["policy", "seconds", "episodes", "regret"], rows, "lrrr")
    print(f"per-round loop: {tb:.2f} s for T = {T_base:.0e}, scaled to T: {scaled:.1f} s; "
          f"ratio {ratio:.0f}x")
    print(f"target < {TARGET_TIME * T_run / T:.2g} s: {verdict}")


if __name__ == "__main__":
    main()
