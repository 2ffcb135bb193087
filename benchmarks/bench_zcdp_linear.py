"""Wall time of AdaC-GOPE and AdaC-OFUL runs (001 §VII), against straightforward per-round
implementations in the same run.

What is measured
----------------
* ``simulate_gope(gope_policy("adac-gope", epsilon=1), sphere_instance(100, d=3), T = 10^6)``:
  phases vectorized (all plays of a phase drawn at once). Baseline: the same algorithm
  with a per-round Python loop drawing one clipped reward at a time and accumulating
  a·r into S per round; it runs ``T_base`` = 10^5 rounds (2·10^4 with ``--quick``) and its
  time is scaled linearly to T.
* ``simulate_oful(oful_policy("adac-oful", epsilon=1), contextual_instance(20, d=3),
  T = 10^5)``: choices vectorized between switches. Baseline: per-round loop that adds
  x xᵀ to V and recomputes V^{-1} with ``np.linalg.inv`` and log det V with ``slogdet``
  every round; ``T_base`` = 2·10^4 rounds (5·10^3 with ``--quick``), scaled linearly. The
  baseline draws random numbers in the same order, so for RS-OFUL its regret must equal
  the vectorized run's (``agree``).

Times are the best of ``--repeats`` runs. Targets: GOPE < 10 s, OFUL < 30 s (one core).
PASS/MISS are informational; the script always exits 0.

Usage: ``python benchmarks/bench_zcdp_linear.py [--quick] [--json] [--repeats R]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ.setdefault(_var, "1")

import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _bench import bench_args, best_of, print_table  # noqa: E402 - sibling module

from privtools.bandits.envs.linear import contextual_instance, sphere_instance  # noqa: E402
from privtools.bandits.zcdp.gope import (  # noqa: E402
    _span_basis,
    g_optimal_design,
    gope_policy,
    phase_length,
    phase_sensitivity,
    simulate_gope,
)
from privtools.bandits.zcdp.oful import (  # noqa: E402
    CHUNK,
    max_switches,
    oful_policy,
    radius,
    regulariser,
    simulate_oful,
)

SEED = 20240607
RHO = 1.0
T_GOPE, T_OFUL = 10**6, 10**5
TARGET_GOPE, TARGET_OFUL = 10.0, 30.0


def gope_loop(spec, env, horizon: int, rng: np.random.Generator) -> float:
    """AdaC-GOPE one round at a time; returns the pseudo-regret after ``horizon`` rounds."""
    k = env.n
    active = np.arange(k)
    t, ell, regret = 0, 0, 0.0
    while t < horizon:
        if len(active) == 1:
            return regret + env.gaps[active[0]] * (horizon - t)
        ell += 1
        X = env.actions[active] @ _span_basis(env.actions[active])
        des = g_optimal_design(X, spec.tol)
        N = phase_length(spec, des.g, ell, k)
        counts = np.where(des.weights > 0, np.ceil(des.weights * N), 0).astype(np.int64)
        S = np.zeros(X.shape[1])
        for i, a in enumerate(active):
            for _ in range(int(counts[i])):
                if t >= horizon:
                    return regret
                r = min(max(env.means[a] + env.noise_sd * rng.standard_normal(), -1.0), 1.0)
                S += X[i] * r
                regret += env.gaps[a]
                t += 1
        V = X.T @ (X * counts[:, None])
        Vinv = np.linalg.inv(V)
        sigma = phase_sensitivity(X, counts) / math.sqrt(2 * spec.epsilon)
        theta = Vinv @ S + sigma * (np.linalg.cholesky(Vinv) @ rng.standard_normal(X.shape[1]))
        est = X @ theta
        active = active[est.max() - est <= 2 * 2.0 ** -ell]
    return regret


def oful_loop(spec, env, horizon: int, rng: np.random.Generator) -> float:
    """RS-OFUL / AdaC-OFUL one round at a time, V^{-1} by ``np.linalg.inv`` every round."""
    d, theta = env.d, env.theta
    M = max_switches(d, horizon)
    lam = regulariser(spec, d, horizon)
    sigma = spec.sigma
    V = lam * np.eye(d)
    logdet_tau = d * math.log(lam)
    P, theta_tau = np.eye(d) / lam, np.zeros(d)
    beta = radius(spec, logdet_tau, lam, d, 0, M, lam)
    b_priv, s_ep, m, regret = np.zeros(d), np.zeros(d), 0, 0.0
    for c0 in range(0, horizon, CHUNK):
        n = min(CHUNK, horizon - c0)
        sets = env.action_sets(n, rng)
        noise = env.noise_sd * rng.standard_normal(n)
        for i in range(n):
            X = sets[i]
            mu = X @ theta
            ucb = X @ theta_tau + beta * np.sqrt(np.einsum("ij,jk,ik->i", X, P, X))
            j = int(np.argmax(ucb))
            x = X[j]
            regret += mu.max() - mu[j]
            s_ep += min(max(mu[j] + noise[i], -1.0), 1.0) * x
            V = V + np.outer(x, x)
            Vinv = np.linalg.inv(V)
            ld = np.linalg.slogdet(V)[1]
            if ld > logdet_tau + math.log(2.0):
                b_priv += s_ep + (sigma * rng.standard_normal(d) if sigma else 0.0)
                m += 1
                P = Vinv
                theta_tau = P @ b_priv
                logdet_tau = ld
                beta = radius(spec, ld, lam, d, m, M, float(np.linalg.eigvalsh(V)[0]))
                s_ep = np.zeros(d)
    return regret


def main() -> None:
    args = bench_args(__doc__, None)
    tg_base = 20_000 if args.quick else 100_000
    to_base = 5_000 if args.quick else 20_000
    rows, out = [], {"platform": platform.platform(), "python": platform.python_version(),
                     "rho": RHO, "results": []}

    env = sphere_instance(100, SEED, d=3)
    spec = gope_policy("adac-gope", epsilon=RHO)
    t_vec, res = best_of(lambda: simulate_gope(spec, env, T_GOPE, rng=SEED), args.repeats)
    t0 = time.perf_counter()
    gope_loop(spec, env, tg_base, np.random.default_rng(SEED))
    t_loop = (time.perf_counter() - t0) * T_GOPE / tg_base
    out["results"].append({"algorithm": "adac-gope", "horizon": T_GOPE, "seconds": t_vec,
                           "baseline_rounds": tg_base, "baseline_seconds_scaled": t_loop,
                           "ratio": t_loop / t_vec, "target_s": TARGET_GOPE,
                           "pseudo_regret": res.final_regret, "phases": len(res.releases)})

    cenv = contextual_instance(20, SEED, d=3)
    ospec = oful_policy("adac-oful", epsilon=RHO)
    t_ovec, ores = best_of(lambda: simulate_oful(ospec, cenv, T_OFUL, rng=SEED), args.repeats)
    t0 = time.perf_counter()
    oful_loop(ospec, cenv, to_base, np.random.default_rng(SEED))
    t_oloop = (time.perf_counter() - t0) * T_OFUL / to_base
    rs = oful_policy("rs-oful")
    agree = math.isclose(oful_loop(rs, cenv, to_base, np.random.default_rng(1)),
                         simulate_oful(rs, cenv, to_base, rng=1).final_regret, rel_tol=1e-9)
    out["results"].append({"algorithm": "adac-oful", "horizon": T_OFUL, "seconds": t_ovec,
                           "baseline_rounds": to_base, "baseline_seconds_scaled": t_oloop,
                           "ratio": t_oloop / t_ovec, "target_s": TARGET_OFUL,
                           "pseudo_regret": ores.final_regret, "episodes": len(ores.releases),
                           "rs_oful_agrees_with_loop": agree})
    for r in out["results"]:
        r["status"] = "PASS" if r["seconds"] < r["target_s"] else "MISS"
        rows.append([r["algorithm"], f"{r['horizon']:.0e}", f"{r['seconds']:.3f}",
                     f"{r['baseline_seconds_scaled']:.2f}", f"{r['ratio']:.0f}x",
                     f"{r['target_s']:.0f}", r["status"]])
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(["algorithm", "T", "time s", "loop s (scaled)", "ratio", "target s",
                     "status"], rows, "lrrrrrl")
        print(f"RS-OFUL vectorized == per-round loop: {agree}")


if __name__ == "__main__":
    main()
