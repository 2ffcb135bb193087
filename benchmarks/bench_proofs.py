"""Time of the sympy proofs of the closed forms the exact engine relies on
(``verification.proofs.all_checks``: Fact 1, Fact 2, Skellam closure, the Pólya-difference and
Bessel recurrences).

Target: all proofs in under 60 s on one core (they run in the demo and the test suite).
Baseline measured in the same run: sympy's own ``simplify`` of a trivial identity, so a
slow machine shows as a ratio, not as a regression.

Usage: ``python benchmarks/bench_proofs.py [--json] [--repeats R]``
"""

from __future__ import annotations

import platform
import sys

from _bench import bench_args, best_of, emit  # noqa: E402 - sibling module (run from benchmarks/)

from verification.proofs import all_checks  # noqa: E402

TARGET_S = 60.0


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=1)
    import sympy as sp

    x = sp.Symbol("x")
    base, _ = best_of(lambda: sp.simplify(sp.sin(x) ** 2 + sp.cos(x) ** 2), args.repeats)
    t, checks = best_of(all_checks, args.repeats)
    result = {"python": platform.python_version(), "sympy": sp.__version__,
              "proofs": len(checks), "all_hold": all(c.holds for c in checks),
              "seconds": round(t, 3), "baseline_simplify_seconds": round(base, 4),
              "ratio_to_baseline": round(t / base, 1), "target_seconds": TARGET_S,
              "meets_target": t < TARGET_S}

    def report(r):
        print(f"sympy proofs ({r['proofs']}, all hold: {r['all_hold']}): {r['seconds']} s "
              f"(target {TARGET_S:.0f} s: {'PASS' if r['meets_target'] else 'MISS'}); "
              f"{r['ratio_to_baseline']}x one trivial simplify "
              f"({r['baseline_simplify_seconds']} s) "
              f"on python {r['python']}, sympy {r['sympy']}")

    return emit(result, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
