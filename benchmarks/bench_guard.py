"""Cost of the user-code guard (privtools.usercode) on vectorised audits, side by side.

What is measured
----------------
The same fixed-size audit, ``audit_mechanism`` with 10^6 draws per dataset and the default
learners, on two vectorised mechanisms — a float Laplace sum (``sum(d) + Lap(1)``, one
float per output) and a three-bin noisy histogram (``counts(d) + Lap(2)`` per bin, where the
learned events are trained) — run two ways:

* **guarded** — the public entry point: the audit in a forked child process, each call of
  the mechanism with a fresh copy of its dataset and a watchdog slot, the result pickled
  back to the parent;
* **unguarded** — the audit engine the entry point wraps (``verification.audit.fixed.mechanism.
  run_audit`` on the same draws), with the bare mechanism, in the calling process.

Both give the same verdict and counts (checked). Each is timed two ways: in a **fresh
process** per run (one audit per process, as the command line and a CI job run it: the
figure of record), and **warm**, alternating in one process that has run the audit before
(there the unguarded engine reuses memory the process already touched while the child
must copy-on-write it, so this is the guard's worst case). Best of R per cell; the ratio
guarded / unguarded is the guard's cost, target at most 1.05. ``--quick``: 2·10^5 draws,
two repeats.

Usage: ``python benchmarks/bench_guard.py [--quick] [--json] [--repeats R]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _bench import bench_args, emit, print_table  # noqa: E402

from verification.audit import audit_mechanism  # noqa: E402
from verification.audit.draws import Draws  # noqa: E402
from verification.audit.fixed.mechanism import default_train, run_audit  # noqa: E402
from verification.audit.values import AuditBudget, Claim  # noqa: E402

D, D_PRIME, EPSILON, SEED = [1, 2, 3], [1, 2, 4], 1.0, 11
HIST_D, HIST_D_PRIME = [0, 0, 1], [0, 1, 1]


def laplace_sum(dataset, size, rng):
    return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, size)


def histogram(dataset, size, rng):
    counts = np.bincount(np.asarray(dataset, dtype=int), minlength=3)[:3]
    return counts + rng.laplace(0.0, 2.0, (size, 3))


MECHANISMS = {"laplace-sum": (laplace_sum, D, D_PRIME),
              "histogram": (histogram, HIST_D, HIST_D_PRIME)}


def guarded(name, n):
    fn, d, dp = MECHANISMS[name]
    return audit_mechanism(fn, d, dp, EPSILON, n, rng=SEED)


def unguarded(name, n):
    fn, d, dp = MECHANISMS[name]
    with Draws(fn, SEED) as draws:
        return run_audit(draws, d, dp, Claim(EPSILON, 0.0),
                         AuditBudget(n_samples=n, n_train=default_train(n), alpha=0.01))


def _fresh(path: str, name: str, n: int) -> float:
    """Seconds of one audit in a new interpreter (imports excluded)."""
    code = (f"import sys, time; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            f"import bench_guard as b; t = time.perf_counter(); b.{path}({name!r}, {n}); "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None)
    n = 200_000 if args.quick else 10**6
    repeats = args.repeats or (2 if args.quick else 5)
    rows = []
    for name in MECHANISMS:
        a, b = guarded(name, n), unguarded(name, n)
        assert (a.verdict, a.counts, a.epsilon_lower) == (b.verdict, b.counts,
                                                          b.epsilon_lower), \
            f"the guard changed the audit of {name}"
        cell = {"mechanism": name, "verdict": a.verdict}
        for mode in ("fresh", "warm"):
            times = {"guarded": [], "unguarded": []}
            for _ in range(repeats):        # alternate: drift on a shared machine hits both
                for path, fn in (("unguarded", unguarded), ("guarded", guarded)):
                    if mode == "fresh":
                        times[path].append(_fresh(path, name, n))
                    else:
                        t0 = time.perf_counter()
                        fn(name, n)
                        times[path].append(time.perf_counter() - t0)
            g, u = min(times["guarded"]), min(times["unguarded"])
            cell[mode] = {"guarded_s": g, "unguarded_s": u, "ratio": g / u}
        rows.append(cell)
    out = {"draws_per_dataset": n, "repeats": repeats, "target_ratio": 1.05, "rows": rows}

    def report(r):
        print(f"audit_mechanism, {n:,} draws per dataset, default learners; best of "
              f"{repeats}, guarded and unguarded alternating")
        table = []
        for c in r["rows"]:
            for mode in ("fresh", "warm"):
                m = c[mode]
                table.append([c["mechanism"], mode + (" process" if mode == "fresh" else ""),
                              f"{m['unguarded_s']:.3f}", f"{m['guarded_s']:.3f}",
                              f"{m['ratio']:.3f}"])
        print_table(["mechanism", "process", "unguarded s", "guarded s", "ratio"], table,
                    "llrrr")
        print(f"target: ratio <= {r['target_ratio']} (the fresh-process figure is the one "
              "a command-line or CI run pays)")
    return emit(out, args.json, report)


if __name__ == "__main__":
    raise SystemExit(main())
