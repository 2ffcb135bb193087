"""Regret against the number of participations k at equal certified per-user (ε, δ).

    python studies/regret_vs_participations.py [--runs 20] [--ks 1,2,4,8,16]
        [--epsilon 1] [--delta 1e-6] [--seed 0] [--workers 2] [--quick] [--json]
        [--out docs/tables/figures/returning-users]

Each user joins up to k batches (k releases for AdaC-UCB) of a run and must be
(ε, δ)-DP over the whole run (000 App. H, Assumption 2). Every method is calibrated to that
one per-user target:

* Dist-DP-SE (000 Thm 1, Pólya shares → Lap_Z), Dist-RDP-SE (Thm 2, Skellam, s = 10),
  Dist-CDP-SE (Thm 4, discrete Gaussian, s = 10), CDP-SE (Thm 5, central) and LDP-SE
  (Thm 6, local): each batch of n users is planned by
  ``privtools.planning.plan(..., delta=δ, participations=k)``, whose per-batch ε
  (``plan.epsilon_view``) is certified by the PLD accountant so that k views compose to
  (ε, δ) (``plan.certified_epsilon``, an interval);
* AdaC-UCB (001): per-release ρ with kρ-zCDP ⇒ (ε, δ) by the Lemma 10 conversion
  (``privtools.bandits.zcdp.calibrate_rho``) — a conversion, not a PLD certificate;
* non-private SE and the UCB twin for reference (independent of k).

Environment: the ``zcdp-finite-5arm`` preset (001 §VII: 5 Bernoulli arms, means 0.75, 0.625,
0.5, 0.375, 0.25) at its horizon T = 10^6, batch base 4, p = 0.1 (the presets' defaults).
Its gaps (>= 0.125) let batch SE stop within batch sizes of a few thousand, so the plans
needed (calibrated lazily, one per batch size reached; the slow part) stay few. Run r uses
the seed ``SeedSequence(seed, spawn_key=(1, r))`` for every method and k (common random
numbers). Each (method, k) runs all its seeds in one worker process, so each plan is
calibrated once.

Per-batch ε of the plans varies a little with the batch size n (through g); the table shows
the range over the sizes the runs reached, and the hull of the certified per-user ε
intervals over those sizes. Each plan certifies a user's k batches *of its own size*.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import mpmath
import numpy as np

from privtools.bandits import policy, simulate
from privtools.bandits.experiments.presets import FINITE_FIVE, ZCDP_FINITE_PRESETS
from privtools.bandits.experiments.runner import task_seed
from privtools.bandits.se import batch_plan
from privtools.bandits.zcdp import calibrate_rho, simulate_ucb, zcdp_policy
from privtools.certified.intervals import ends

PRESET = ZCDP_FINITE_PRESETS["zcdp-finite-5arm"]
S = 10
KS = (1, 2, 4, 8, 16)
#: (key, label, policy name, extra policy kwargs); order = table order
METHODS = (
    ("dist-dp", "Dist-DP-SE (Thm 1, pure DP)", "dist-dp-se", {"mode": "aggregate"}),
    ("dist-rdp", "Dist-RDP-SE (Thm 2, Skellam, s=10)", "dist-rdp-se",
     {"s": S, "mode": "aggregate"}),
    ("dist-cdp", "Dist-CDP-SE (Thm 4, discrete Gaussian, s=10)", "dist-cdp-se", {"s": S}),
    ("central", "CDP-SE (Thm 5, central)", "central-dp-se", {"mode": "aggregate"}),
    ("local", "LDP-SE (Thm 6, local)", "ldp-se", {}),
    ("adac-ucb", "AdaC-UCB (001, zCDP)", "adac-ucb", {}),
)
BASELINES = (("se", "SE (non-private)"), ("ucb-twin", "UCB twin (non-private)"))
#: heavy calibrations first (rdp/cdp plans take seconds to minutes each)
_COST = {"dist-cdp": 0, "dist-rdp": 1}


def _spec(key: str, k: int, eps: float, delta: float):
    if key == "se":
        return policy("se", mode="aggregate")
    if key == "ucb-twin":
        return zcdp_policy("ucb-twin")
    name, kw = next((m[2], m[3]) for m in METHODS if m[0] == key)
    if key == "adac-ucb":
        return zcdp_policy("adac-ucb", epsilon=calibrate_rho(eps, delta, k).rho,
                           participations=k)
    return policy(name, epsilon=eps, delta=delta, participations=k, **kw)


def _run_group(job: tuple) -> dict:
    """All seeds of one (method, k), in this process (its plans are cached here)."""
    key, k, eps, delta, runs, horizon, seed = job
    t0 = time.perf_counter()
    spec = _spec(key, k, eps, delta)
    ucb = key in ("adac-ucb", "ucb-twin")
    env = FINITE_FIVE.build(np.random.default_rng(0))       # a fixed instance
    regret, batches = [], []
    for r in range(runs):
        rng = np.random.default_rng(task_seed(seed, r))
        if ucb:
            res = simulate_ucb(spec, env, horizon, rng, checkpoints=[horizon])
        else:
            res = simulate(spec, env, horizon, rng, checkpoints=[horizon])
            batches.append(res.batches)
        regret.append(res.final_regret)
    out = {"key": key, "k": k, "policy": spec.label, "regret": regret,
           "seconds": time.perf_counter() - t0}
    if key == "adac-ucb":
        cal = calibrate_rho(eps, delta, k)
        out["per_batch"] = {"rho": cal.rho}
        out["certified"] = {"upper": cal.epsilon_achieved, "method": cal.method}
    elif key != "se" and key != "ucb-twin":
        sizes = {}
        for b in range(1, max(batches) + 1):
            n = spec.base ** b
            p = batch_plan(spec, n, horizon)
            lo, hi = ends(p.certified_epsilon)
            sizes[n] = {"epsilon_view": float(p.epsilon_view),
                        "epsilon_view_exact": str(p.epsilon_view),
                        "certified": [float(mpmath.mpf(lo)), float(mpmath.mpf(hi))],
                        "g": p.g}
        out["sizes"] = sizes
        out["max_batches"] = max(batches)
    return out


def _stats(v) -> tuple[float, float]:
    a = np.asarray(v, dtype=np.float64)
    se = float(a.std(ddof=1) / math.sqrt(a.size)) if a.size > 1 else 0.0
    return float(a.mean()), se


def _fmt_regret(v) -> str:
    m, se = _stats(v)
    return f"{m:,.0f} ± {se:,.0f}"


def _per_batch(g: dict) -> str:
    if "per_batch" in g:
        return f"ρ = {g['per_batch']['rho']:.4g}"
    vals = [s["epsilon_view"] for s in g["sizes"].values()]
    lo, hi = min(vals), max(vals)
    return f"{lo:.4g}" if lo == hi else f"{lo:.4g}–{hi:.4g}"


def _certified(g: dict) -> str:
    if "certified" in g:
        return f"≤ {g['certified']['upper']:.4g} (conversion)"
    lo = min(s["certified"][0] for s in g["sizes"].values())
    hi = max(s["certified"][1] for s in g["sizes"].values())
    return f"[{lo:.6f}, {hi:.6f}]"


def tables(res: dict) -> str:
    ks = res["ks"]
    by = {(g["key"], g["k"]): g for g in res["groups"]}
    head = "| method | " + " | ".join(f"k = {k}" for k in ks) + " |"
    rule = "|---|" + "---|" * len(ks)
    out = [f"**Reg(T)**, mean ± standard error over {res['runs']} runs "
           f"(T = {res['horizon']:,}, per-user target ε = {res['epsilon']:g}, "
           f"δ = {res['delta']:g}):", "", head, rule]
    for key, label, *_ in METHODS:
        out.append(f"| {label} | " + " | ".join(_fmt_regret(by[key, k]["regret"])
                                                 for k in ks) + " |")
    for key, label in BASELINES:
        out.append(f"| {label} | " + " | ".join(_fmt_regret(by[key, 1]["regret"])
                                                 for _ in ks) + " |")
    out += ["", "**Per-batch privacy parameter** the plans end up with (range over the batch "
            "sizes the runs reached; Theorems 2 and 4: the theorem's ε parameter of the "
            "Skellam / discrete-Gaussian noise, not a pure-DP ε; AdaC-UCB: ρ per release):",
            "", head, rule]
    for key, label, *_ in METHODS:
        out.append(f"| {label} | " + " | ".join(_per_batch(by[key, k]) for k in ks) + " |")
    out += ["", f"**Certified per-user ε at δ = {res['delta']:g}** over k participations "
            "(hull of the PLD certificates `plan.certified_epsilon` over the batch sizes "
            "reached; AdaC-UCB: the Lemma 10 conversion of kρ-zCDP, an upper bound only):",
            "", head, rule]
    for key, label, *_ in METHODS:
        out.append(f"| {label} | " + " | ".join(_certified(by[key, k]) for k in ks) + " |")
    sizes = sorted({int(n) for g in res["groups"] for n in g.get("sizes", {})})
    out += ["", "Batch sizes reached (plans calibrated): " + ", ".join(map(str, sizes)) + "."]
    return "\n".join(out) + "\n"


def plot(res: dict, path: Path) -> Path | None:
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = res["ks"]
    by = {(g["key"], g["k"]): g for g in res["groups"]}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, (key, label, *_) in enumerate(METHODS):
        st = [_stats(by[key, k]["regret"]) for k in ks]
        central = key == "central"            # same noise law as Dist-DP-SE: draw it dashed
        ax.errorbar(ks, [m for m, _ in st], yerr=[s for _, s in st],
                    marker="s" if central else "o", ms=6 if central else 4,
                    mfc="none" if central else None, ls="--" if central else "-",
                    capsize=3, color=f"C{i}", label=label)
    for j, (key, label) in enumerate(BASELINES):
        m, _ = _stats(by[key, 1]["regret"])
        ax.axhline(m, color="0.4", ls=("--", ":")[j], lw=1, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("participations k per user")
    ax.set_ylabel("Reg(T)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"equal certified per-user (ε = {res['epsilon']:g}, δ = {res['delta']:g}); "
                 f"5 Bernoulli arms, T = {res['horizon']:.0e}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run(ks, runs: int, horizon: int, eps: float, delta: float, seed: int,
        workers: int) -> dict:
    jobs = [(key, k, eps, delta, runs, horizon, seed) for key, *_ in METHODS for k in ks]
    jobs.sort(key=lambda j: (_COST.get(j[0], 2), -j[1]))
    jobs += [(key, 1, eps, delta, runs, horizon, seed) for key, _ in BASELINES]
    t0 = time.perf_counter()
    if workers == 1:
        groups = [_run_group(j) for j in jobs]
    else:
        with ProcessPoolExecutor(max_workers=workers) as ex:
            groups = list(ex.map(_run_group, jobs))
    return {"epsilon": eps, "delta": delta, "ks": list(ks), "runs": runs, "horizon": horizon,
            "seed": seed, "env": FINITE_FIVE.name, "preset": PRESET.name, "base": 4,
            "p": 0.1, "s": S, "workers": workers, "seconds": time.perf_counter() - t0,
            "cpu_count": os.cpu_count(), "groups": groups}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20, help="seeds per (method, k)")
    ap.add_argument("--ks", default=",".join(map(str, KS)),
                    help="participation counts, comma-separated")
    ap.add_argument("--epsilon", type=float, default=1.0, help="certified per-user ε")
    ap.add_argument("--delta", type=float, default=1e-6, help="per-user δ")
    ap.add_argument("--horizon", type=int, default=PRESET.horizon)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--quick", action="store_true",
                    help="small run: k ∈ {1, 2}, 2 runs, T = 2000")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--out", type=Path, default=None,
                    help="directory for table.md, regret.png and summary.json")
    ap.add_argument("--from-json", type=Path, default=None,
                    help="re-render the table and plot of a saved summary.json (no runs)")
    args = ap.parse_args(argv)
    ks = tuple(int(x) for x in args.ks.split(","))
    runs, horizon = args.runs, args.horizon
    if args.quick:
        ks, runs, horizon = (1, 2), 2, 2000
    if runs < 1 or min(ks) < 1 or horizon < FINITE_FIVE.K or args.workers < 1:
        ap.error("--runs, --ks, --workers must be >= 1 and --horizon >= 5")
    if args.from_json is not None:
        res = json.loads(args.from_json.read_text())
    else:
        res = run(ks, runs, horizon, args.epsilon, args.delta, args.seed, args.workers)
    md = tables(res)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        cmd = res.get("command") or ("python studies/regret_vs_participations.py " + " ".join(
            argv if argv is not None else sys.argv[1:])).strip()
        res["command"] = cmd
        (args.out / "table.md").write_text(
            f"<!-- generated by `{cmd}` in {res['seconds']:.0f} s "
            f"({res['workers']} workers) -->\n\n" + md)
        (args.out / "summary.json").write_text(json.dumps(res, indent=2) + "\n")
        png = plot(res, args.out / "regret.png")
        if png is None:
            print("matplotlib not installed: no plot", file=sys.stderr)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(md)
        print(f"({res['seconds']:.0f} s with {res['workers']} workers)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
