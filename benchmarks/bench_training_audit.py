"""The DP-SGD audit on the zoo: every deployed bug found in one call with its call named, the
correct run certified beside the accountant's value for its scheme, and the canary lower
bounds beside the certified upper bound — all in the same run.

    python benchmarks/bench_training_audit.py [--quick] [--json] [--markdown PATH]
                                              [--skip-canaries]

Bugs: the numpy reference trainer (:mod:`verification.zoo.training`: logistic regression,
5 features) over 10⁴ records, 10³ steps, Poisson sampling at q = 0.01, noise multiplier 1,
claim ε = 2 at δ = 10⁻⁵ (the correct run's certified ε is 1.84), 1000 one-run canaries;
each bug as a trainer configuration, each faulty sampler with the correct step. The
correct run is also audited told ``PoissonScheme(0.01)``: its certified interval is set
beside the PLD accountant's for ``PoissonSampledEvent(GaussianEvent(1), 0.01)`` over the
same steps.

jax_privacy (where installed): its clipping and privatizer as a step (the noise, keyed from
the step's ``rng``, is sampled by the audit: the trace cannot follow jax's generator), and
its batch-selection strategies as samplers.

Canaries: 10³ steps at q = 0.01 over 10⁴ records whose features are padded with one zero
column per canary; canary i is a record whose clipped gradient points along its own column
(a white-box gradient canary, present in a batch whenever the sampler draws its slot); σ
calibrated so the run is certified (ε, 10⁻⁵)-DP for ε ∈ {1, 4, 8}. One run with m canaries
(m = 100 and 1000), and the repeated-runs audit over R = 200 runs of one canary; each bound
at 95 % confidence. ``--quick``: m = 100 only, R = 50, ε ∈ {4}.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

import numpy as np
from _bench import bench_args, emit, machine, print_table

from privtools.accounting import GaussianEvent, PldAccountant, PoissonSampledEvent, calibrate
from privtools.certified.intervals import ends
from verification.audit import PoissonScheme
from verification.training import audit_training
from verification.zoo.training import BUGS, TrainerConfig, make_data, make_sampler, make_step

N, DIM, STEPS, Q, CLAIM, DELTA = 10_000, 5, 1000, 0.01, 2.0, 1e-5


def _one(label, cfg, sampler, data, **kw):
    t0 = time.perf_counter()
    r = audit_training(make_step(cfg), sampler, data, STEPS, CLAIM, DELTA,
                       params=np.zeros(data.shape[1]), rng=0, **kw)
    secs = time.perf_counter() - t0
    return {"case": label, "verdict": r.verdict, "calls": sorted({f.call for f in r.findings}),
            "finding": r.findings[0].describe() if r.findings else "",
            "certified": r.certified_ends, "epsilon_lower": r.epsilon_lower,
            "scheme": r.scheme.kind, "seconds": secs}


def bugs(quick: bool) -> list:
    data = make_data(N, DIM, 0)
    m = 100 if quick else 1000
    rows = [_one("correct", TrainerConfig(), make_sampler("poisson", N, q=Q), data,
                 canaries=m)]
    rows += [_one(bug, TrainerConfig(bug=bug), make_sampler("poisson", N, q=Q), data,
                  canaries=m) for bug in BUGS]
    gen = np.random.default_rng(0)
    for kind in ("weighted", "blocks", "sequential", "shuffle", "fixed_size"):
        opts = {"q": Q} if kind in ("weighted", "blocks") else {"batch": 100}
        if kind == "weighted":
            opts["weights"] = gen.random(N)
        rows.append(_one(f"sampler: {kind}", TrainerConfig(), make_sampler(kind, N, **opts),
                         data, canaries=m))
    rows.append(_one("sampler: shuffle, told Poisson", TrainerConfig(),
                     make_sampler("shuffle", N, batch=100), data, canaries=m,
                     scheme=PoissonScheme(Q)))
    return rows


def exactness() -> dict:
    data = make_data(N, DIM, 0)
    r = audit_training(make_step(TrainerConfig()), make_sampler("poisson", N, q=Q), data,
                       STEPS, CLAIM, DELTA, params=np.zeros(DIM + 1), rng=0, canaries=0,
                       scheme=PoissonScheme(Q))
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=Fraction(1)), Fraction(Q)), count=STEPS)
    lo, hi = (float(x) for x in ends(acc.epsilon(DELTA).interval))
    got = r.certified_ends
    return {"audit": got, "accountant": [lo, hi], "noise_multiplier": r.noise_multiplier,
            "relative": abs(got[1] - hi) / hi}


def canaries(quick: bool) -> list:
    rows = []
    epsilons = (4.0,) if quick else (1.0, 4.0, 8.0)
    for m in ((100,) if quick else (100, 1000)):
        base = make_data(N, DIM, 0)
        data = np.column_stack([base[:, :-1], np.zeros((N, m)), base[:, -1]])
        crafted = np.zeros((m, data.shape[1]))
        crafted[np.arange(m), DIM + np.arange(m)] = 1e3
        crafted[:, -1] = 1e3                  # the logistic residual stays near −10³: alive
        for eps in epsilons:
            sigma = calibrate(lambda s: PoissonSampledEvent(GaussianEvent(sigma=Fraction(s)),
                                                            Fraction(Q)),
                              count=STEPS, epsilon=eps, delta=DELTA)
            runs = (50 if quick else 200) if m == 100 else 0
            t0 = time.perf_counter()
            r = audit_training(make_step(TrainerConfig(noise_multiplier=sigma)),
                               make_sampler("poisson", N, q=Q), data, STEPS, eps, DELTA,
                               params=np.zeros(data.shape[1]), rng=1, canaries=m,
                               canary_rows=crafted, canary_runs=runs,
                               scheme=PoissonScheme(Q))
            hi = r.certified_ends[1]
            one = r.canary if r.canary.method == "one run" else None
            rows.append({"epsilon": eps, "sigma": sigma, "canaries": m,
                         "certified": r.certified_ends, "verdict": r.verdict,
                         "one_run": None if one is None else one.to_dict(),
                         "runs": None if r.runs is None else r.runs.to_dict(),
                         "ratio_one_run": None if one is None else one.epsilon_lower / hi,
                         "ratio_runs": None if r.runs is None else
                         r.runs.epsilon_lower / hi,
                         "seconds": time.perf_counter() - t0})
    return rows


def jax_privacy_samplers(quick: bool) -> list:
    """jax_privacy's batch selection (``jax_privacy.batch_selection``), identified and tested
    inside ``audit_training`` with the correct step (the accountant told nothing)."""
    try:
        import jax_privacy.batch_selection as bs
    except ImportError:
        return []
    n = 2000 if quick else N
    data = make_data(n, DIM, 0)

    def wrap(make):
        def sampler(n_batches, rng):
            return [np.asarray(b).ravel() for b in make(n_batches).batch_iterator(n, rng=rng)]
        return sampler
    cases = [("CyclicPoissonSampling(q=0.01)",
              lambda it: bs.CyclicPoissonSampling(sampling_prob=Q, iterations=it), None),
             ("CyclicPoissonSampling(q=0.04, cycle 4), told Poisson 0.01",
              lambda it: bs.CyclicPoissonSampling(sampling_prob=4 * Q, iterations=it,
                                                  cycle_length=4), PoissonScheme(Q)),
             ("FixedBatchSampling(100)",
              lambda it: bs.FixedBatchSampling(batch_size=100, iterations=it), None),
             ("BallsInBinsSampling(cycle 100)",
              lambda it: bs.BallsInBinsSampling(iterations=it, cycle_length=100), None)]
    rows = _jax_privacy_steps(data, n)
    for label, make, told in cases:
        t0 = time.perf_counter()
        r = audit_training(make_step(TrainerConfig()), wrap(make), data, STEPS, CLAIM, DELTA,
                           params=np.zeros(DIM + 1), rng=0, canaries=0, scheme=told)
        rows.append({"case": f"jax_privacy {label}", "verdict": r.verdict,
                     "calls": sorted({f.call for f in r.findings}),
                     "finding": r.findings[0].describe() if r.findings else "",
                     "certified": r.certified_ends, "epsilon_lower": r.epsilon_lower,
                     "scheme": r.scheme.kind, "seconds": time.perf_counter() - t0})
    return rows


def _jax_privacy_steps(data, n) -> list:
    """jax_privacy's clipping and Gaussian privatizer as a step (``jax_privacy_step``), with
    the expected batch size as divisor and with the realised one."""
    import jax.numpy as jnp

    from verification.training.adapters import jax_privacy_step

    def loss(w, rows):
        x, y = rows[:, :-1], rows[:, -1]
        z = x @ w[:-1] + w[-1]
        return jnp.sum(jnp.logaddexp(0.0, z) - y * z)
    rows = []
    for how in ("expected", "batch"):
        step = jax_privacy_step(loss, l2_clip_norm=1.0, noise_multiplier=1.0,
                                learning_rate=0.5, normalize_by=how, expected_batch=n * Q)
        t0 = time.perf_counter()
        r = audit_training(step, make_sampler("poisson", n, q=Q), data, STEPS, CLAIM, DELTA,
                           params=np.zeros(DIM + 1), rng=0, canaries=0,
                           scheme=PoissonScheme(Q))
        named = {"expected": "expected", "batch": "realised"}[how]
        rows.append({"case": f"jax_privacy step, divided by the {named} batch size",
                     "verdict": r.verdict, "calls": sorted({f.call for f in r.findings}),
                     "finding": r.findings[0].describe() if r.findings else "",
                     "certified": r.certified_ends, "epsilon_lower": r.epsilon_lower,
                     "scheme": r.scheme.kind, "seconds": time.perf_counter() - t0})
    return rows


def calibration(seeds: int) -> dict:
    """The one-run bound on the correct trainer over ``seeds`` seeds (2000 records, 200
    steps, q = 0.05, σ = 1, 200 crafted canaries, 95 % confidence), through the canary
    module's public steps: how often the bound exceeds the run's certified ε."""
    from verification.training import canaries as can
    from verification.training.canaries import guess_bound

    n, T, q, m = 2000, 200, 0.05, 200
    base = make_data(n, DIM, 0)
    data = np.column_stack([base[:, :-1], np.zeros((n, m)), base[:, -1]])
    crafted = np.zeros((m, data.shape[1]))
    crafted[np.arange(m), DIM + np.arange(m)] = 1e3
    crafted[:, -1] = 1e3
    cfg = TrainerConfig(expected_batch=n * q)
    step, sampler = make_step(cfg), make_sampler("poisson", n, q=q)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=Fraction(1)), Fraction(q)), count=T)
    upper = float(ends(acc.epsilon(DELTA).interval)[1])
    tau = cfg.learning_rate * cfg.noise_multiplier * cfg.clip / cfg.expected_batch
    bounds = []
    for seed in range(seeds):
        gen = np.random.default_rng(seed)
        slots = gen.choice(n, size=m, replace=False)
        included = gen.random(m) < 0.5
        w0 = np.zeros(data.shape[1])
        moves, norms = can.canary_moves(step, data, w0, np.arange(50, 150), crafted,
                                        int(gen.integers(2**62)))
        ups = can.train(step, sampler, data, T, w0, int(gen.integers(2**62)), slots=slots,
                        canaries=crafted, included=included)
        b = guess_bound(can.scores(ups, moves, norms, tau, q), included, DELTA, 0.95)
        bounds.append(b.epsilon_lower)
    bounds = np.array(bounds)
    return {"seeds": seeds, "certified_upper": upper, "over": int(np.sum(bounds > upper)),
            "median": float(np.median(bounds)), "max": float(bounds.max())}


def _bug_cells(r):
    return [r["case"], r["verdict"], ", ".join(r["calls"]) or "—", r["scheme"],
            "—" if r["certified"] is None else f"[{r['certified'][0]:.5g}, "
            f"{r['certified'][1]:.5g}]", f"{r['epsilon_lower']:.3g}", f"{r['seconds']:.1f}"]


def _canary_cells(r):
    one, runs = r["one_run"], r["runs"]
    return [f"{r['epsilon']:g}", f"{r['sigma']:.4f}", str(r["canaries"]),
            f"{r['certified'][1]:.4f}", r["verdict"],
            "—" if one is None else f"{one['epsilon_lower']:.3f} ({one['correct']}/"
            f"{one['guesses']})", "—" if one is None else f"{r['ratio_one_run']:.3f}",
            "—" if runs is None else f"{runs['epsilon_lower']:.3f}",
            "—" if runs is None else f"{r['ratio_runs']:.3f}", f"{r['seconds']:.0f}"]


BUG_HEAD = ["case", "verdict", "calls named", "scheme found", "certified ε", "canary ε ≥", "s"]
CAN_HEAD = ["claimed ε", "σ", "m", "certified ε", "verdict", "one-run ε ≥ (W/r)",
            "one-run / certified", "runs ε ≥ (R = 200)", "runs / certified", "s"]


def main(argv=None) -> int:
    def extra(ap):
        ap.add_argument("--skip-canaries", action="store_true",
                        help="the bug table only")
    args = bench_args(__doc__, argv, repeats=None, markdown=True, extra=extra)
    result = {"machine": machine(), "bugs": bugs(args.quick) + jax_privacy_samplers(args.quick),
              "exactness": exactness(),
              "canaries": [] if args.skip_canaries else canaries(args.quick),
              "calibration": None if args.skip_canaries else calibration(
                  20 if args.quick else 100)}

    def report(res):
        print(f"DP-SGD audit: {N} records, {STEPS} steps, Poisson q = {Q}, claim ε = {CLAIM}")
        print_table(BUG_HEAD, [_bug_cells(r) for r in res["bugs"]], "llllllr")
        e = res["exactness"]
        print(f"correct run told Poisson: audit {e['audit']} vs accountant {e['accountant']}"
              f" (relative {e['relative']:.2e})")
        if res["canaries"]:
            print_table(CAN_HEAD, [_canary_cells(r) for r in res["canaries"]], "rrrrlrrrrr")
        if res["calibration"]:
            c = res["calibration"]
            print(f"calibration: one-run bound above the certified ε {c['certified_upper']:.4f}"
                  f" in {c['over']} of {c['seeds']} seeds (95 % confidence); median bound "
                  f"{c['median']:.3f}, largest {c['max']:.3f}")
    if args.markdown:
        _markdown(args.markdown, result)
    return emit(result, args.json, report)


def _markdown(path, result):
    m, e = result["machine"], result["exactness"]
    lines = ["# The DP-SGD audit on the zoo", "",
             "Generated by `python benchmarks/bench_training_audit.py --markdown "
             f"docs/tables/training_audit.md` on {m['cpu']} ({m['cores']} cores, Python "
             f"{m['python']}); one call of `audit_training` per row, seed 0.", "",
             f"## Bugs ({N} records, {STEPS} steps, Poisson q = {Q}, σ = 1, claim ε = "
             f"{CLAIM} at δ = {DELTA:g}, 1000 one-run canaries)", "",
             "| " + " | ".join(BUG_HEAD) + " |", "|---|---|---|---|---|---:|---:|"]
    lines += ["| " + " | ".join(_bug_cells(r)) + " |" for r in result["bugs"]]
    lines += ["", f"The correct run told `PoissonScheme({Q})`: certified "
              f"[{e['audit'][0]:.7g}, {e['audit'][1]:.7g}] against the PLD accountant's "
              f"[{e['accountant'][0]:.7g}, {e['accountant'][1]:.7g}] for the same scheme "
              f"(relative difference of the upper ends {e['relative']:.1e}; measured noise "
              f"multiplier {e['noise_multiplier']:.15g})."]
    if result["canaries"]:
        lines += ["", "## Canary lower bounds (95 % confidence)", "",
                  "| " + " | ".join(CAN_HEAD) + " |", "|" + "---:|" * len(CAN_HEAD)]
        lines += ["| " + " | ".join(_canary_cells(r)) + " |" for r in result["canaries"]]
    c = result["calibration"]
    if c:
        lines += ["", f"Calibration: over {c['seeds']} seeds of the correct trainer (2000 "
                  "records, 200 steps, q = 0.05, σ = 1, 200 crafted canaries), the one-run "
                  f"bound at 95 % confidence exceeded the certified ε = "
                  f"{c['certified_upper']:.4f} in {c['over']} (at most 5 % expected); median "
                  f"bound {c['median']:.3f}, largest {c['max']:.3f}."]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
