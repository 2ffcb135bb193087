"""Do the searches keep their promises at every seed? Time and work of ``find_counterexample``
with ``max_examples=20`` over a correct mechanism, and the draws of
``search_counterexample`` against its ``budget``, across seeds.

What is measured
----------------
1. ``find_counterexample(mechanism, 1.0, datasets, max_examples=20)`` on a private float
   Laplace sum (records in [0, 10], scale 10: ε = 1), datasets ``lists(integers(0, 10),
   1..5)``, default screening (20 000 draws) and confirmation (200 000 draws), at 20 seeds
   starting with the library's default seed: seconds and pairs screened per seed, and the
   spread (max / min). The promise: at most 20 pairs screened (shrinking included), so
   the time is about the same at every seed.
2. ``search_counterexample`` on the same mechanism over 4 datasets (dozens of replace-one
   pairs) with ``budget`` 10^4 and 10^5 at 20 seeds: the search draws never exceed the
   budget.

Usage: ``python benchmarks/bench_search_promises.py [--quick] [--json]`` (``--quick``: 5
seeds).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _bench import bench_args, emit, print_table  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from privtools.testing import DEFAULT_SEED, assert_private  # noqa: E402
from verification.audit import search_counterexample  # noqa: E402


def private_sum(dataset, size, rng):
    return float(np.clip(dataset, 0, 10).sum()) + rng.laplace(0.0, 10.0, size)


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None, quick_help="5 seeds")
    seeds = [DEFAULT_SEED + i for i in range(5 if args.quick else 20)]
    datasets = st.lists(st.integers(0, 10), min_size=1, max_size=5)
    finds = []
    for seed in seeds:
        t0 = time.perf_counter()
        res = assert_private(private_sum, epsilon=1.0, datasets=datasets, max_examples=20,
                             rng=seed)
        finds.append({"seed": seed, "seconds": time.perf_counter() - t0,
                      "screened": res.examples, "confirmation_draws": res.draws})
    budgets = []
    space = [[0, 3, 7], [10, 10, 0], [5], [1, 2, 3, 4]]
    for budget in (10**4, 10**5):
        worst = 0
        for seed in seeds:
            cx = search_counterexample(private_sum, 1.0, space, budget=budget, rng=seed,
                                       n_confirm=1000, learners=())
            worst = max(worst, cx.search_draws)
            assert cx.search_draws <= budget
        budgets.append({"budget": budget, "largest_search_draws": worst,
                        "pairs_found": cx.pairs_found, "pairs_scored": cx.pairs})
    secs = [f["seconds"] for f in finds]
    out = {"seeds": len(seeds), "find": finds, "seconds_min": min(secs),
           "seconds_median": statistics.median(secs), "seconds_max": max(secs),
           "spread": max(secs) / min(secs), "most_screened": max(f["screened"] for f in finds),
           "budgets": budgets}

    def report(r):
        print(f"find_counterexample, max_examples=20, private Laplace sum, {r['seeds']} seeds "
              f"from {seeds[0]}")
        print_table(["seed", "seconds", "pairs screened", "confirmation draws"],
                    [[str(f["seed"]), f"{f['seconds']:.2f}", str(f["screened"]),
                      str(f["confirmation_draws"])] for f in r["find"]], "rrrr")
        print(f"seconds: min {r['seconds_min']:.2f}, median {r['seconds_median']:.2f}, max "
              f"{r['seconds_max']:.2f} (max/min {r['spread']:.2f}); at most "
              f"{r['most_screened']} pairs screened")
        print_table(["budget", "largest search draws", "pairs found", "pairs scored"],
                    [[f"{b['budget']:,}", f"{b['largest_search_draws']:,}",
                      str(b["pairs_found"]), str(b["pairs_scored"])] for b in r["budgets"]],
                    "rrrr")
    return emit(out, args.json, report)


if __name__ == "__main__":
    raise SystemExit(main())
