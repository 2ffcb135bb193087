"""Flake study: run the statistical assertions of ``privtools.testing`` many times with fresh
seeds on code that is correct, and check that they fail no more often than they say.

Every assertion states its false-alarm rate α (``privtools.testing.DEFAULT_ALPHA`` = 10⁻³
unless given): on a correct mechanism or sampler it raises with probability at most α,
whatever the seed. The suite below is the pass side of the package's own tests — the
sequential audits (the default), the fixed-size audits, the counterexample search over
``datasets=``, an (ε, δ) claim and, when the ``[adapters]`` libraries are installed, an
OpenDP measurement and a diffprivlib mechanism. Run ``--runs`` times with fresh seeds
(``SeedSequence(--seed, spawn_key=(run, assertion))``), it reports per assertion the
failures, the one-sided 99 % Clopper–Pearson upper bound on the rate and the exact binomial
test of "rate ≤ α"; and the same for the whole suite against the Bonferroni sum of its αs.
A CI run uses one fixed seed per assertion (``DEFAULT_SEED``), so it is deterministic; this
script measures what a fresh seed would risk.

Usage::

    python studies/flake_study.py --workers 2 --markdown docs/tables/flake_study.md  # ~20 min
    python studies/flake_study.py --runs 50                                  # a quick look
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402
from _machine import describe  # noqa: E402 - sibling modules of this script
from conformance import load_diffprivlib  # noqa: E402

from privtools.testing import (  # noqa: E402
    DEFAULT_ALPHA,
    PrivacyAssertionError,
    assert_follows,
    assert_private,
)

SCALE = 4                  # Lap_Z(4): exactly (1/4)-DP at sensitivity 1 (Theorem 1 (000), n = 16)
CLAIM = 1 / SCALE
GAUSS_SIGMA = 4.0          # N(0, 4²) on a sensitivity-1 query
GAUSS_EPSILON = 1.0


@dataclass(frozen=True)
class Assertion:
    name: str
    call: str              # the assertion as a user would write it
    alpha: float
    optional: str = ""     # the library this row needs, if any


def _lap():
    from privtools.noise import DiscreteLaplace
    return DiscreteLaplace(SCALE)


def noisy_sum(d, size, rng):
    return int(sum(d)) + _lap().sample(size, rng)


def float_laplace_sum(d, size, rng):
    return float(sum(d)) + rng.laplace(0.0, 1 / CLAIM, size)


def gaussian_sum(d, size, rng):
    return float(sum(d)) + rng.normal(0.0, GAUSS_SIGMA, size)


def gaussian_delta() -> float:
    """The exact δ(ε) of N(0, σ²) at sensitivity 1 (Balle and Wang 2018, Theorem 8)."""
    s, e = GAUSS_SIGMA, GAUSS_EPSILON
    return float(st.norm.cdf(1 / (2 * s) - e * s) - math.exp(e) * st.norm.cdf(-1 / (2 * s)
                                                                             - e * s))


def _share():
    return _lap().shares(16)


SUITE = [
    Assertion("sequential, integer noise", "assert_private(noisy_sum, [0, 1], [0, 0], "
              "epsilon=0.25)", DEFAULT_ALPHA),
    Assertion("sequential, float noise", "assert_private(float_laplace_sum, [0, 1], [0, 0], "
              "epsilon=0.25, max_samples=50_000)", DEFAULT_ALPHA),
    Assertion("sequential, (ε, δ) claim", "assert_private(gaussian_sum, [1], [0], "
              "epsilon=1, delta=δ(1) of N(0, 4²), max_samples=50_000)", DEFAULT_ALPHA),
    Assertion("fixed size", "assert_private(noisy_sum, [0, 1], [0, 0], epsilon=0.25, "
              "n_samples=50_000)", DEFAULT_ALPHA),
    Assertion("search over datasets", "assert_private(noisy_sum, epsilon=0.25, "
              "datasets=lists(integers(0, 1), max_size=5), max_examples=5)", DEFAULT_ALPHA),
    Assertion("sampler, sequential", "assert_follows(Lap_Z(4).sample, Lap_Z(4))",
              DEFAULT_ALPHA),
    Assertion("sampler, sequential, share", "assert_follows(share.sample, share) for one "
              "user's Pólya-difference share (n = 16)", DEFAULT_ALPHA),
    Assertion("sampler, fixed size", "assert_follows(Lap_Z(4).sample, Lap_Z(4), "
              "n_samples=50_000)", DEFAULT_ALPHA),
    Assertion("OpenDP measurement", "assert_private(adapters.opendp(make_laplace(int, "
              "scale=4)), 0, 1, max_samples=1_000)", DEFAULT_ALPHA, "opendp"),
    Assertion("diffprivlib mechanism", "assert_private(adapters.diffprivlib(Geometric("
              "epsilon=0.25)), 0, 1, max_samples=5_000)", DEFAULT_ALPHA, "diffprivlib"),
]


def available(a: Assertion) -> bool:
    if not a.optional:
        return True
    try:
        if a.optional == "opendp":
            import opendp  # noqa: F401
        else:
            return load_diffprivlib()[0] is not None
    except Exception:
        return False
    return True


def run_one(index: int, seed: int) -> None:
    """Run assertion ``index`` once with ``seed``; raises PrivacyAssertionError on a fail."""
    name = SUITE[index].name
    if name == "sequential, integer noise":
        assert_private(noisy_sum, [0, 1], [0, 0], epsilon=CLAIM, rng=seed)
    elif name == "sequential, float noise":
        assert_private(float_laplace_sum, [0, 1], [0, 0], epsilon=CLAIM, max_samples=50_000,
                       rng=seed)
    elif name == "sequential, (ε, δ) claim":
        assert_private(gaussian_sum, [1], [0], epsilon=GAUSS_EPSILON,
                       delta=gaussian_delta(), max_samples=50_000, rng=seed)
    elif name == "fixed size":
        assert_private(noisy_sum, [0, 1], [0, 0], epsilon=CLAIM, n_samples=50_000, rng=seed)
    elif name == "search over datasets":
        from hypothesis import strategies as hst
        assert_private(noisy_sum, epsilon=CLAIM, datasets=hst.lists(hst.integers(0, 1),
                                                                    max_size=5),
                       max_examples=5, rng=seed)
    elif name == "sampler, sequential":
        lap = _lap()
        assert_follows(lap.sample, lap, rng=seed)
    elif name == "sampler, sequential, share":
        share = _share()
        assert_follows(share.sample, share, rng=seed)
    elif name == "sampler, fixed size":
        lap = _lap()
        assert_follows(lap.sample, lap, n_samples=50_000, rng=seed)
    elif name == "OpenDP measurement":
        import opendp.prelude as dp

        from privtools.testing import adapters
        dp.enable_features("contrib")
        meas = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                 scale=float(SCALE))
        assert_private(adapters.opendp(meas), 0, 1, max_samples=1_000, rng=seed)
    elif name == "diffprivlib mechanism":
        from privtools.testing import adapters
        mech = load_diffprivlib()[0].Geometric(epsilon=CLAIM, sensitivity=1)
        assert_private(adapters.diffprivlib(mech), 0, 1, max_samples=5_000, rng=seed)
    else:  # pragma: no cover - the suite and this dispatch are edited together
        raise KeyError(name)


def _seed(base: int, run: int, index: int) -> int:
    return int(np.random.SeedSequence(base, spawn_key=(run, index)).generate_state(1,
                                                                                  np.uint64)[0]
               >> 1)


def one_run(job: tuple[int, int, tuple[int, ...]]) -> tuple[int, list[str | None]]:
    """All assertions of one run; per assertion None (pass) or the failure's first line."""
    base, run, indices = job
    out = []
    for i in indices:
        try:
            run_one(i, _seed(base, run, i))
            out.append(None)
        except PrivacyAssertionError as exc:
            out.append(str(exc).splitlines()[0][:300])
    return run, out


def binomial_row(name: str, fails: int, runs: int, alpha: float) -> dict:
    upper = float(st.beta.ppf(0.99, fails + 1, runs - fails)) if fails < runs else 1.0
    p = float(st.binomtest(fails, runs, alpha, alternative="greater").pvalue)
    return {"name": name, "fails": fails, "runs": runs, "alpha": alpha,
            "rate": fails / runs, "upper99": upper, "p_value": p, "consistent": p >= 0.01}


def study(args) -> dict:
    indices = tuple(i for i, a in enumerate(SUITE) if available(a))
    skipped = [a.name for a in SUITE if not available(a)]
    jobs = [(args.seed, r, indices) for r in range(args.runs)]
    results: dict[int, list] = {}
    t0 = time.perf_counter()
    step = max(1, args.runs // 20)
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            for k, (run, out) in enumerate(pool.map(one_run, jobs, chunksize=4), 1):
                results[run] = out
                if not args.json and k % step == 0:
                    print(f"  {k}/{args.runs} runs, {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
    else:
        for k, job in enumerate(jobs, 1):
            run, out = one_run(job)
            results[run] = out
            if not args.json and k % step == 0:
                print(f"  {k}/{args.runs} runs, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    rows, failures = [], []
    for j, i in enumerate(indices):
        a = SUITE[i]
        fails = [r for r in range(args.runs) if results[r][j] is not None]
        rows.append({**binomial_row(a.name, len(fails), args.runs, a.alpha),
                     "call": a.call})
        failures += [{"assertion": a.name, "run": r, "seed": _seed(args.seed, r, i),
                      "message": results[r][j]} for r in fails]
    suite_fails = sum(any(x is not None for x in results[r]) for r in range(args.runs))
    suite_alpha = min(1.0, sum(SUITE[i].alpha for i in indices))
    rows.append({**binomial_row("whole suite (any assertion)", suite_fails, args.runs,
                                suite_alpha), "call": "every row above, one run"})
    return {"rows": rows, "failures": failures, "skipped": skipped, "runs": args.runs,
            "seed": args.seed, "workers": args.workers,
            "seconds": time.perf_counter() - t0, "machine": describe()}


def markdown(res: dict, command: str) -> str:
    m = res["machine"]
    lines = [
        "# Flake study: the statistical assertions on correct code, fresh seeds",
        "",
        f"Generated by `{command}` in {res['seconds'] / 60:.1f} min on {m['cpu']} "
        f"({m['cores']} cores, {res['workers']} worker processes), Python {m['python']}, "
        f"numpy {m['numpy']}, scipy {m['scipy']}. Do not edit by hand.",
        "",
        f"Each of {res['runs']:,} runs calls every assertion below once on a mechanism or "
        "sampler that is correct, with its own fresh seed (run r, assertion j: "
        f"`SeedSequence({res['seed']}, spawn_key=(r, j))`). An assertion that raises "
        "`PrivacyAssertionError` — a fail or an inconclusive verdict — is a false alarm. "
        "*upper 99 %* is the one-sided Clopper–Pearson bound on the false-alarm rate; *p* "
        "the exact binomial test of \"rate ≤ α\"; *consistent* means p ≥ 0.01. The suite row "
        "counts runs with any false alarm against the Bonferroni sum of the αs.",
        "",
        "| assertion | call | α | false alarms | rate | upper 99 % | p | consistent |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in res["rows"]:
        lines.append(f"| {r['name']} | `{r['call']}` | {r['alpha']:g} | "
                     f"{r['fails']}/{r['runs']} | {r['rate']:.4f} | {r['upper99']:.4f} | "
                     f"{r['p_value']:.3g} | {'yes' if r['consistent'] else '**no**'} |")
    lines.append("")
    if res["skipped"]:
        lines += [f"Not run (library not installed): {', '.join(res['skipped'])}.", ""]
    if res["failures"]:
        lines += ["## The false alarms", "",
                  "Each reproduces with its seed as `rng=`.", "",
                  "| assertion | run | seed | message |", "|---|---|---|---|"]
        for f in res["failures"]:
            msg = f["message"].replace("|", "\\|")
            lines.append(f"| {f['assertion']} | {f['run']} | {f['seed']} | {msg} |")
        lines.append("")
    ok = all(r["consistent"] for r in res["rows"])
    lines.append("Verdict: " + ("every observed false-alarm count is consistent with the "
                                "stated α (exact binomial test at level 0.01)." if ok else
                                "**some observed false-alarm count is significantly above "
                                "its stated α.**"))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="runs of the suite (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--markdown", metavar="PATH", help="also write the report to this file")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    if args.seed < 0:
        ap.error("--seed must be >= 0")
    if args.workers < 1:
        ap.error("--workers must be >= 1")
    res = study(args)
    command = "python studies/flake_study.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a != "--json")
    if args.markdown:
        Path(args.markdown).write_text(markdown(res, command.strip()))
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for r in res["rows"]:
            print(f"{r['name']:<32} {r['fails']:>4}/{r['runs']:<5} α = {r['alpha']:g}  "
                  f"upper99 {r['upper99']:.4f}  p {r['p_value']:.3g}  "
                  f"{'consistent' if r['consistent'] else 'NOT CONSISTENT'}")
        print(f"{res['seconds']:.0f} s")
    return 0 if all(r["consistent"] for r in res["rows"]) else 1


if __name__ == "__main__":
    sys.exit(main())
