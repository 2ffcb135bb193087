"""Throughput of privtools' exact (float-free) samplers versus OpenDP's, in one run.

Usage::

    python benchmarks/bench_exact_samplers.py [--n N] [--n-opendp M] [--repeat R] [--json]

Measures samples/second of ``privtools.noise.exact_sampling.discrete_laplace`` (scale 1,
10, 100) and ``discrete_gaussian`` (sigma 1, 10, 100, i.e. sigma2 "1", "100", "10000"),
all with decimal-string parameters, and of OpenDP's samplers for the same parameters:
``make_laplace`` / ``make_gaussian`` on ``vector_domain(atom_domain(T=int))`` applied to a
list of ``M`` zeros (OpenDP samples integer noise with CKS20-style exact samplers driven by
the OS CSPRNG).  OpenDP's time includes the Python list <-> Rust vector round trip; that
round trip is measured separately with ``make_identity`` (needs the "honest-but-curious"
feature, enabled in this process only to time it) and also reported subtracted.

Also reports the int64 fast path against the Python-int fallback of the same sampler on
(nearly) the same distribution: ``discrete_gaussian("2.89")`` vs
``discrete_gaussian(Fraction(1.7)**2)`` (2**104 denominator) and ``bernoulli_exp(7, 3)`` vs
``bernoulli_exp(7 * 2**80, 3 * 2**80)``.

Timing: best of ``--repeat`` runs (wall clock, ``time.perf_counter``), single process.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from fractions import Fraction

import numpy as np

from privtools.noise.exact_sampling import bernoulli_exp, discrete_gaussian, discrete_laplace

LAPLACE_SCALES = ["1", "10", "100"]
GAUSSIAN_SIGMAS = ["1", "10", "100"]


def best_time(fn, repeat: int) -> float:
    """Smallest wall-clock time of ``repeat`` calls of ``fn()``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def load_opendp():
    """``opendp.prelude`` with the "contrib" feature enabled, or ``None`` if missing."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    return dp


def opendp_version() -> str | None:
    """The installed OpenDP's version (``None`` if its metadata cannot be read)."""
    from importlib import metadata

    try:
        return metadata.version("opendp")
    except metadata.PackageNotFoundError:
        return None


def opendp_measurements(dp):
    """Constructors of OpenDP integer-noise measurements on vectors of ints."""
    int_vec = dp.vector_domain(dp.atom_domain(T=int))

    def laplace(scale: str):
        return dp.m.make_laplace(int_vec, dp.l1_distance(T=int), scale=float(scale))

    def gaussian(sigma: str):
        return dp.m.make_gaussian(int_vec, dp.l2_distance(T=float), scale=float(sigma))

    return laplace, gaussian


def opendp_roundtrip_time(dp, zeros: list[int], repeat: int) -> float | None:
    """Time of passing ``zeros`` through an identity transformation (FFI round trip)."""
    try:
        dp.enable_features("honest-but-curious")
        ident = dp.t.make_identity(dp.vector_domain(dp.atom_domain(T=int)),
                                   dp.l1_distance(T=int))
    except Exception:  # optional measurement; the API may differ between versions
        return None
    return best_time(lambda: ident(zeros), repeat)


def run(n: int, n_opendp: int, repeat: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rows = []
    dp = load_opendp()
    zeros = [0] * n_opendp
    roundtrip = opendp_roundtrip_time(dp, zeros, repeat) if dp is not None else None
    od_laplace, od_gaussian = opendp_measurements(dp) if dp is not None else (None, None)

    cases = [("discrete_laplace", "scale", s, s) for s in LAPLACE_SCALES]
    cases += [
        ("discrete_gaussian", "sigma", s, str(Fraction(s) ** 2)) for s in GAUSSIAN_SIGMAS
    ]
    for name, pname, shown, param in cases:
        if name == "discrete_laplace":
            ours_t = best_time(lambda p=param: discrete_laplace(p, size=n, rng=rng), repeat)
        else:
            ours_t = best_time(lambda p=param: discrete_gaussian(p, size=n, rng=rng), repeat)
        row = {
            "sampler": name,
            "param": f"{pname}={shown}",
            "ours_per_s": n / ours_t,
            "opendp_per_s": None,
            "ratio": None,
            "opendp_sampling_only_per_s": None,
            "ratio_vs_sampling_only": None,
        }
        if dp is not None:
            meas = od_laplace(shown) if name == "discrete_laplace" else od_gaussian(shown)
            od_t = best_time(lambda m=meas: m(zeros), repeat)
            row["opendp_per_s"] = n_opendp / od_t
            row["ratio"] = row["ours_per_s"] / row["opendp_per_s"]
            if roundtrip is not None and od_t > roundtrip:
                row["opendp_sampling_only_per_s"] = n_opendp / (od_t - roundtrip)
                row["ratio_vs_sampling_only"] = (
                    row["ours_per_s"] / row["opendp_sampling_only_per_s"]
                )
        rows.append(row)

    paths = []
    fast = best_time(lambda: discrete_gaussian("2.89", size=n, rng=rng), repeat)
    slow = best_time(lambda: discrete_gaussian(Fraction(1.7) ** 2, size=n, rng=rng), repeat)
    paths.append({"case": "discrete_gaussian sigma2=2.89 vs Fraction(1.7)**2",
                  "int64_per_s": n / fast, "pyint_per_s": n / slow, "ratio": slow / fast})
    num_small = np.full(n, 7, dtype=np.int64)
    num_big = np.full(n, 7 * 2**80, dtype=object)
    fast = best_time(lambda: bernoulli_exp(num_small, 3, rng), repeat)
    slow = best_time(lambda: bernoulli_exp(num_big, 3 * 2**80, rng), repeat)
    paths.append({"case": "bernoulli_exp 7/3 vs (7*2**80)/(3*2**80)",
                  "int64_per_s": n / fast, "pyint_per_s": n / slow, "ratio": slow / fast})

    return {
        "n": n,
        "n_opendp": n_opendp,
        "repeat": repeat,
        "opendp_installed": dp is not None,
        "opendp_version": opendp_version() if dp is not None else None,
        "opendp_roundtrip_s": roundtrip,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "samplers": rows,
        "paths": paths,
    }


def _fmt(x: float | None, spec: str = ",.0f") -> str:
    return "-" if x is None else format(x, spec)


def print_table(res: dict) -> None:
    od = f" (OpenDP: {res['n_opendp']:,})" if res["opendp_installed"] else ""
    print(f"n = {res['n']:,} samples per call{od}, "
          f"best of {res['repeat']}; numpy {res['numpy']}, Python {res['python']}")
    if not res["opendp_installed"]:
        print("opendp is not installed: measuring privtools only "
              "(pip install 'privtools[bench]' to compare)")
    head = (f"{'sampler':<18} {'param':<10} {'ours /s':>13} {'OpenDP /s':>11} "
            f"{'ours/OpenDP':>11} {'OpenDP no-FFI /s':>16} {'ratio':>7}")
    print(head)
    print("-" * len(head))
    for r in res["samplers"]:
        print(f"{r['sampler']:<18} {r['param']:<10} {_fmt(r['ours_per_s']):>13} "
              f"{_fmt(r['opendp_per_s']):>11} {_fmt(r['ratio'], '.1f'):>11} "
              f"{_fmt(r['opendp_sampling_only_per_s']):>16} "
              f"{_fmt(r['ratio_vs_sampling_only'], '.1f'):>7}")
    if res["opendp_roundtrip_s"] is not None:
        print(f"(OpenDP list<->Rust round trip for {res['n_opendp']:,} ints: "
              f"{res['opendp_roundtrip_s'] * 1e3:.1f} ms, subtracted in 'no-FFI')")
    print()
    head = f"{'int64 fast path vs Python-int path':<48} {'int64 /s':>12} {'Py-int /s':>12} {'x':>6}"
    print(head)
    print("-" * len(head))
    for p in res["paths"]:
        print(f"{p['case']:<48} {_fmt(p['int64_per_s']):>12} {_fmt(p['pyint_per_s']):>12} "
              f"{p['ratio']:>6.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="samples per call (ours)")
    ap.add_argument("--n-opendp", type=int, default=None,
                    help="samples per call for OpenDP (default: min(n, 200000))")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many calls")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        ap.error("--n and --repeat must be >= 1")
    n_opendp = args.n_opendp if args.n_opendp is not None else min(args.n, 200_000)
    if n_opendp < 1:
        ap.error("--n-opendp must be >= 1")
    res = run(args.n, n_opendp, args.repeat, args.seed)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
