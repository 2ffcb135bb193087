"""Laws read without a grid, side by side with the grid in the same run.

    python benchmarks/bench_pld_exact_laws.py [--quick] [--json]

Rows: a Poisson-sampled randomized response (ε₀ = 1) and discrete Laplace (scale 2, Δ = 1)
at q = 10⁻³ composed k times, and one Poisson-sampled Gaussian (σ = 1) at q = 10⁻⁹ … 10⁻³.
Each is answered twice by ``PldAccountant``: by default (the atomic law composed in closed
form, or the sampled Gaussian's closed form — :mod:`privtools.accounting.pld.readers`) and
with the grid forced (``step=`` given: the same accountant as before the exact readers,
the baseline; ``REPEAT_MIN`` is raised for it so that no repeated law is composed in closed
form before the grid either). The figures are the certified interval's relative width and
the time, and the ratio of the times. The exact values are in the tests
(``tests/privtools/accounting/pld/test_pld_exact_laws.py``).
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

from _bench import bench_args, emit, fmt_number, machine, print_table

from privtools.accounting import (
    DiscreteLaplaceEvent,
    GaussianEvent,
    PldAccountant,
    PoissonSampledEvent,
    PureDPEvent,
)
from privtools.accounting.pld import accountant as _accountant
from privtools.certified.intervals import ends

DELTA = Fraction(1, 10**6)


def _grid_step(event, count) -> Fraction:
    """The step the default accountant's grid planning picks for the ledger (read off a
    plain grid build), so the baseline runs the grid the accountant would have used."""
    acc = PldAccountant(neighbouring="add-remove").compose(event, count=count)
    groups = acc._groups()
    return acc._choose_step(groups)


def _width(iv) -> float:
    lo, hi = ends(iv)
    return float((hi - lo) / hi) if hi > 0 else 0.0


def _run(event, count, question):
    out = {}
    for name in ("exact", "grid"):
        saved = _accountant.REPEAT_MIN
        try:
            if name == "grid":
                _accountant.REPEAT_MIN = 2**62          # the grid alone, as before
                kw = {"step": _grid_step(event, count)}
            else:
                kw = {}
            t0 = time.perf_counter()
            acc = PldAccountant(neighbouring="add-remove", **kw).compose(event, count=count)
            iv = question(acc)
        finally:
            _accountant.REPEAT_MIN = saved
        out[name] = {"width": _width(iv), "seconds": time.perf_counter() - t0,
                     "interval": [float(x) for x in ends(iv)]}
    return out


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None)
    ks = (10, 100) if args.quick else (10, 100, 1000)
    rows = []
    for label, inner in (("sampled RR(1)", PureDPEvent(1)),
                         ("sampled Lap_Z(2)", DiscreteLaplaceEvent(scale=2, sensitivity=1))):
        for k in ks:
            r = _run(PoissonSampledEvent(inner, Fraction(1, 1000)), k,
                     lambda acc: acc.epsilon(DELTA).interval)
            rows.append({"law": f"{label}, q = 1e-3", "k": k, "question": "ε(1e-6)", **r})
    for q in (Fraction(1, 10**9), Fraction(1, 10**6), Fraction(1, 1000)):
        r = _run(PoissonSampledEvent(GaussianEvent(sigma=1, sensitivity=1), q), 1,
                 lambda acc: acc.delta(Fraction(1, 100)).interval)
        rows.append({"law": f"sampled N(σ = 1), q = {float(q):g}", "k": 1,
                     "question": "δ(0.01)", **r})
    result = {"machine": machine(), "rows": rows}

    def report(result):
        print("laws read without a grid vs the grid forced (same run)")
        table = [[r["law"], str(r["k"]), r["question"], f"{r['exact']['width']:.1e}",
                  f"{r['grid']['width']:.1e}", fmt_number(r["exact"]["seconds"]),
                  fmt_number(r["grid"]["seconds"]),
                  fmt_number(r["grid"]["seconds"] / max(r["exact"]["seconds"], 1e-9))]
                 for r in result["rows"]]
        print_table(["law", "k", "question", "width exact", "width grid", "s exact",
                     "s grid", "grid/exact"], table, "lrlrrrrr")
    return emit(result, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
