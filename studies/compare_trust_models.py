"""Distributed (paper 000) vs zCDP (paper 001) bandits at equal (ε, δ).

    python studies/compare_trust_models.py [--runs 20] [--horizon 1000000] [--quick] [--json]
        [--out docs/tables/figures/trust-models]

Every policy is calibrated so that each user (each reward) is (ε, δ)-DP for the same
target (ε, δ = 10^-6), then all run on the same K = 10 Bernoulli instance (the
``zcdp-finite`` one) through the one experiment runner. ``--accountant pld`` (default)
certifies each view with ``PldAccountant`` (tight, two-sided); ``--accountant rdp`` converts
Rényi / zCDP curves (Lemma 10), as the first version of this comparison did:

* Dist-DP-SE (000 Thm 1): pure ε-DP, ε_param = ε (δ = 0: stronger than the target; the
  certified ε(10^-6) of Lap_Z(g/ε) is below ε by ~2e-6 relative, not worth a parameter);
* Dist-RDP-SE (Thm 2, s = 10): ε_param such that the per-batch view Sk(0, g²/ε²) with
  Δ = g is (ε, δ)-DP — PLD: certified ε(δ) of that view; rdp: the Lemma 3 curve converted
  by Lemma 10 — worst over batch sizes;
* Dist-CDP-SE (Thm 4, s = 10): likewise for the n-fold discrete-Gaussian sum (PLD) or
  Lemma 4's ½ε̂²-CDP (rdp);
* CDP-SE (central, Thm 5): pure ε;
* AdaC-UCB (001): ρ such that its Gaussian release (Δ²/(2σ²) = ρ) is (ε, δ)-DP — PLD of
  the Gaussian mechanism, or the zCDP conversion (rdp);
* SE and the UCB twin (non-private) for reference.

Users are unique to a batch/episode in both families, so the per-batch (per-release)
guarantee is each user's guarantee (parallel composition).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

from privtools.accounting import (
    DiscreteGaussianSumEvent,
    GaussianEvent,
    PldAccountant,
    RdpAccountant,
    SkellamEvent,
    discrete_gaussian_sum_cdp,
    zcdp_to_dp,
)
from privtools.bandits import policy
from privtools.bandits.experiments.plots import plot_regret
from privtools.bandits.experiments.presets import FINITE_TEN
from privtools.bandits.experiments.runner import make_tasks, run_tasks, summarize
from privtools.bandits.zcdp import simulate_ucb, zcdp_policy
from privtools.planning import plan

DELTA = 1e-6
S = 10


def _batch_sizes(horizon: int, base: int = 4) -> list[int]:
    out, b = [], 1
    while base ** b <= horizon:
        out.append(base ** b)
        b += 1
    return out


def dist_rdp_epsilon(eps_param: float, horizon: int) -> float:
    """(ε at δ) of Dist-RDP-SE at parameter ε, worst over batch sizes."""
    worst = 0.0
    for n in _batch_sizes(horizon):
        p = plan(privacy="rdp", epsilon=eps_param, n=n, horizon=horizon, s=S)
        ev = SkellamEvent(var=p.total_noise.variance, sensitivity=p.g)
        worst = max(worst, RdpAccountant().compose(ev).epsilon(DELTA).epsilon)
    return worst


def dist_cdp_epsilon(eps_param: float, horizon: int) -> float:
    """(ε at δ) of Dist-CDP-SE at parameter ε via Lemma 4, worst over batch sizes."""
    worst = 0.0
    for n in _batch_sizes(horizon):
        p = plan(privacy="cdp", epsilon=eps_param, n=n, horizon=horizon, s=S)
        e_hat = discrete_gaussian_sum_cdp(n, p.share.sigma2, p.g)
        worst = max(worst, zcdp_to_dp(e_hat * e_hat / 2, DELTA).epsilon)
    return worst


SEARCH_POINTS = 2**12          # PLD grid of the calibration (certified; a little looser)


def _pld_view(event) -> float:
    return PldAccountant(max_points=SEARCH_POINTS).compose(event).epsilon(DELTA).epsilon


def pld_view_epsilon(kind: str, eps_param: float, n: int, horizon: int) -> float:
    """Certified ε(δ) of one batch's view at parameter ε (Skellam or discrete-Gaussian sum)."""
    if kind == "rdp":
        p = plan(privacy="rdp", epsilon=eps_param, n=n, horizon=horizon, s=S)
        return _pld_view(SkellamEvent(var=p.total_noise.variance, sensitivity=p.g))
    p = plan(privacy="cdp", epsilon=eps_param, n=n, horizon=horizon, s=S)
    return _pld_view(DiscreteGaussianSumEvent(n, p.share.sigma2, p.g))


def pld_calibrate(kind: str, eps: float, horizon: int) -> float:
    """Largest ε_param whose every batch view is certified (ε, δ)-DP: bisection on the two
    smallest batch sizes, then a certificate at every batch size (lowered 0.5 % at a time
    until all hold)."""
    sizes = _batch_sizes(horizon)
    e = _invert(lambda x: max(pld_view_epsilon(kind, x, n, horizon) for n in sizes[:2]),
                eps, 1e-3, 50.0, 18)
    while max(pld_view_epsilon(kind, e, n, horizon) for n in sizes) > eps:
        e *= 0.995
    return e


def pld_rho(eps: float) -> float:
    """Largest ρ (bisection) with the Gaussian mechanism Δ²/(2σ²) = ρ certified (ε, δ)-DP;
    σ is rounded down to a rational, which only adds loss."""
    def f(rho):
        sigma = Fraction(1 / math.sqrt(2 * rho))
        while sigma * sigma * 2 * Fraction(rho) > 1:
            sigma = Fraction(math.nextafter(float(sigma), 0))
        return _pld_view(GaussianEvent(sigma=sigma, sensitivity=1))
    return _invert(f, eps, 1e-6, 100.0, 24)


def _invert(f, target: float, lo: float, hi: float, steps: int = 30) -> float:
    """Largest x in [lo, hi] with f(x) <= target (f increasing), by bisection."""
    if f(lo) > target:
        raise ValueError(f"target {target} below f({lo})")
    for _ in range(steps):
        mid = math.sqrt(lo * hi)
        if f(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


def calibrate(eps: float, horizon: int, accountant: str = "pld") -> dict:
    if accountant == "pld":
        return {"dist-dp-se": eps, "central-dp-se": eps,
                "dist-rdp-se": pld_calibrate("rdp", eps, horizon),
                "dist-cdp-se": pld_calibrate("cdp", eps, horizon),
                "adac-ucb": pld_rho(eps)}
    rho = _invert(lambda r: zcdp_to_dp(r, DELTA).epsilon, eps, 1e-6, 100.0)
    return {
        "dist-dp-se": eps,
        "central-dp-se": eps,
        "dist-rdp-se": _invert(lambda e: dist_rdp_epsilon(e, horizon), eps, 1e-3, 50.0, 18),
        "dist-cdp-se": _invert(lambda e: dist_cdp_epsilon(e, horizon), eps, 1e-3, 50.0, 18),
        "adac-ucb": rho,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--horizon", type=int, default=10**6)
    ap.add_argument("--quick", action="store_true", help="2 runs, T = 10^5, ε = 1 only")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--accountant", choices=("pld", "rdp"), default="pld",
                    help="pld: certified privacy-loss distributions (default); rdp: Rényi/zCDP "
                         "curves converted by Lemma 10")
    args = ap.parse_args(argv)
    runs, T = (2, 10**5) if args.quick else (args.runs, args.horizon)
    targets = (1.0,) if args.quick else (0.5, 1.0, 2.0)
    t0 = time.perf_counter()
    cal = {eps: calibrate(eps, T, args.accountant) for eps in targets}
    print(f"calibrated in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    specs, meta = [], []
    for eps, c in cal.items():
        for name, label in (("dist-dp-se", "Dist-DP-SE"), ("central-dp-se", "CDP-SE"),
                            ("dist-rdp-se", "Dist-RDP-SE"), ("dist-cdp-se", "Dist-CDP-SE")):
            kw = {"s": S} if name in ("dist-rdp-se", "dist-cdp-se") else {}
            specs.append(policy(name, epsilon=c[name], **kw))
            meta.append((label, eps, c[name]))
        specs.append(zcdp_policy("adac-ucb", epsilon=c["adac-ucb"]))
        meta.append(("AdaC-UCB", eps, c["adac-ucb"]))
    # Each family on its own simulator, through the same runner and seeds.
    batch = make_tasks(specs[:0] + [s for s in specs if not hasattr(s, "beta")] +
                       [policy("se")], FINITE_TEN, runs, T)
    zcdp = make_tasks([s for s in specs if hasattr(s, "beta")] + [zcdp_policy("ucb-twin")],
                      FINITE_TEN, runs, T, simulator=simulate_ucb)
    t1 = time.perf_counter()
    import pandas as pd

    df_b = run_tasks(batch, seed=0, workers=2, progress=False)
    df_z = run_tasks(zcdp, seed=1, workers=2, progress=False)
    # Label rows by the common target ε rather than each policy's own parameter.
    param_to_target = {(lab.split(" (")[0], round(p, 12)): e for lab, e, p in meta}
    df = pd.concat([df_b, df_z], ignore_index=True)

    def target_of(row):
        key = (row["policy"].split(" (")[0], round(row["epsilon"], 12))
        return param_to_target.get(key, float("nan"))

    df["epsilon"] = df.apply(target_of, axis=1)
    df["policy"] = df["policy"].str.replace(r" \(ρ=.*\)$", "", regex=True)
    summary = summarize(df)
    rows = summary["final_time_average_regret"]
    res = {"delta": DELTA, "s": S, "horizon": T, "runs": runs, "accountant": args.accountant,
           "calibration": {str(k): v for k, v in cal.items()}, "results": rows,
           "seconds": time.perf_counter() - t1}
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        plot_regret(df, args.out / "regret.png",
                    title=f"equal (ε, δ = 1e-6): distributed (000) vs zCDP (001), Bernoulli "
                          f"K = 10, T = {T:,}, {runs} runs")
        (args.out / "summary.json").write_text(json.dumps(res, indent=2) + "\n")
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"(ε, δ = {DELTA:g}) per user; K = 10 Bernoulli, T = {T:,}, {runs} runs")
        for eps, c in cal.items():
            print(f"  ε = {eps:g}: parameters " + ", ".join(f"{k} {v:.4g}" for k, v in c.items()))
        for r in rows:
            e = "—" if r["epsilon"] is None else f"{r['epsilon']:g}"
            print(f"  {r['policy']:20s} ε = {e:<4s} Reg(T)/T = {r['mean']:.5f} "
                  f"± {r['se']:.5f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
