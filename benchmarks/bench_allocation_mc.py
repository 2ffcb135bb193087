"""Balls-in-bins batching: privtools' certified random allocation beside jax_privacy's Monte
Carlo accountant (the only other anchor for this scheme), in the same run.

    python benchmarks/bench_allocation_mc.py [--quick] [--samples N] [--json] [--markdown PATH]

jax_privacy (``pip install -e ".[compare]"``) samples privacy losses from the balls-in-bins
dominating pair (``jax_privacy.experimental.monte_carlo``): each record in one uniformly
chosen bin of a cycle of t steps, a Gaussian of noise multiplier σ at every step. Its bin
is kept in every cycle, so E cycles are one allocation of a Gaussian whose E steps add up:
sensitivity √E — read here as ``RandomAllocationEvent(GaussianEvent(σ, √E), t)`` for E a
square. For each case, ε is the certified ε(δ = 1e-3) of privtools; the Monte Carlo
estimate of δ(ε) at that ε (both directions, the larger reported) is set beside privtools'
certified δ(ε) interval, with the estimate's standard error and the z-score of the
interval's nearer end (above 4 would say that the two disagree).
"""

from __future__ import annotations

import math
import sys
import time
from fractions import Fraction

import numpy as np
from _bench import bench_args, emit, fmt_number, machine, print_table

from privtools.accounting import GaussianEvent, PldAccountant, RandomAllocationEvent
from privtools.certified.intervals import ends

DELTA = Fraction(1, 10**3)
CASES = ((Fraction(1), 10, 1), (Fraction(2), 10, 1), (Fraction(1), 100, 1),
         (Fraction(2), 100, 1), (Fraction(2), 10, 4))


def _options(ap):
    ap.add_argument("--samples", type=int, default=None,
                    help="Monte Carlo samples per direction (default 200000; --quick 20000)")


def _jax_privacy():
    try:
        from jax_privacy import batch_selection
        from jax_privacy.experimental.monte_carlo import sample_generation
    except ImportError as exc:
        sys.exit(f"error: jax_privacy is not installed ({exc}); pip install -e '.[compare]'")
    return batch_selection, sample_generation


def _mc_delta(losses: np.ndarray, eps: float) -> tuple[float, float]:
    """The sample mean of (1 − e^{ε − L})₊ and its standard error."""
    v = -np.expm1(np.minimum(eps - losses, 0.0))
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


def _case(sigma: Fraction, t: int, epochs: int, samples: int, seed: int) -> dict:
    batch_selection, sample_generation = _jax_privacy()
    root = math.isqrt(epochs)
    t0 = time.perf_counter()
    acc = PldAccountant(neighbouring="add-remove").compose(
        RandomAllocationEvent(GaussianEvent(sigma=sigma, sensitivity=root), t))
    eps_r = acc.epsilon(DELTA)
    eps = float(ends(eps_r.interval)[1])
    d = acc.delta(Fraction(eps))
    ours = [float(x) for x in ends(d.interval)]
    ours_s = time.perf_counter() - t0
    strategy = batch_selection.BallsInBinsSampling(iterations=epochs * t, cycle_length=t)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)]
    t0 = time.perf_counter()
    est = []
    for positive, rng in zip((True, False), rngs):
        # positive: losses log P/Q under P; negative: log Q/P under Q (the reverse pair)
        losses, _ = sample_generation.get_privacy_loss_sample(
            strategy, float(sigma), np.array([1.0]), seed=rng, positive_sample=positive,
            num_samples=samples)
        est.append(_mc_delta(np.asarray(losses, dtype=float), eps))
    mc_s = time.perf_counter() - t0
    mean, se = max(est)
    gap = 0.0 if ours[0] <= mean <= ours[1] else min(abs(mean - ours[0]), abs(mean - ours[1]))
    return {"sigma": str(sigma), "t": t, "epochs": epochs, "epsilon": eps,
            "certified_delta": ours, "certified_seconds": ours_s, "mc_delta": mean,
            "mc_se": se, "mc_seconds": mc_s, "samples": samples,
            "z": gap / se if se > 0 else math.inf}


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None, markdown=True, extra=_options)
    samples = args.samples or (20_000 if args.quick else 200_000)
    if samples < 100:
        sys.exit("error: --samples must be >= 100")
    cases = CASES[:2] if args.quick else CASES
    rows = [_case(s, t, e, samples, seed=i) for i, (s, t, e) in enumerate(cases)]
    result = {"machine": machine(), "delta": float(DELTA), "rows": rows}

    def cells(r):
        lo, hi = r["certified_delta"]
        return [r["sigma"], str(r["t"]), str(r["epochs"]), f"{r['epsilon']:.6f}",
                f"[{lo:.6e}, {hi:.6e}]", fmt_number(r["certified_seconds"]),
                f"{r['mc_delta']:.4e} ± {r['mc_se']:.1e}", fmt_number(r["mc_seconds"]),
                f"{r['z']:.2f}"]

    headers = ["σ", "t", "cycles", "ε", "privtools δ(ε), certified", "s",
               f"jax_privacy MC δ(ε) ± se ({samples:,} samples)", "s", "distance (se)"]

    def report(result):
        print("balls in bins: certified random allocation vs jax_privacy's Monte Carlo")
        print_table(headers, [cells(r) for r in result["rows"]], "rrrrlrlrr")
    if args.markdown:
        m = result["machine"]
        lines = ["# Balls in bins: certified allocation beside jax_privacy's Monte Carlo", "",
                 "Generated by `python benchmarks/bench_allocation_mc.py --markdown "
                 f"docs/tables/allocation_mc.md` on {m['cpu']} ({m['cores']} cores, "
                 f"Python {m['python']}); one run each, same process. ε is privtools' "
                 "certified ε(δ = 10⁻³) of one record in one uniformly chosen bin of t "
                 "steps (add/remove, Gaussian of noise multiplier σ); the bin is kept "
                 "for every cycle, as jax_privacy's `BallsInBinsSampling` keeps it. Both "
                 "columns are δ at that ε, the larger of the two directions; the distance is "
                 "that of the Monte Carlo mean from the certified interval in standard "
                 "errors (0 inside it).", "",
                 "| " + " | ".join(headers) + " |",
                 "|---:|---:|---:|---:|---|---:|---|---:|---:|"]
        lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return emit(result, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
