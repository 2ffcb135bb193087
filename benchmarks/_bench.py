"""Helpers shared by the benchmark scripts: best-of timing and a plain-text table."""

from __future__ import annotations

import math
import time


def best_of(fn, repeats: int):
    """(best wall time, result of the last call) over ``repeats`` calls of ``fn``."""
    best, out = math.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def fmt_number(x) -> str:
    """A figure for a table: "—" for None, "∞" for an infinite float, else 4 digits."""
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.4g}"


def print_table(headers: list[str], rows: list[list[str]], align: str) -> None:
    """Columns padded to width; ``align`` has one 'l' or 'r' per column."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells):
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                         for c, w, a in zip(cells, widths, align)).rstrip()

    print(line(headers))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))


def bench_args(doc: str, argv=None, *, quick_help: str = "smaller sizes, a few seconds",
               repeats: int | None = 3, extra=None, markdown: bool = False):
    """The options every benchmark takes: ``--quick``, ``--json`` and ``--repeats R``
    (``None`` default: the benchmark picks R from ``--quick``); ``markdown=True`` adds
    ``--markdown PATH`` (a blank path refused, exit 2); ``extra(parser)`` adds a
    benchmark's own options."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.strip().split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--repeats", type=int, default=repeats, help="best of R runs")
    if markdown:
        ap.add_argument("--markdown", metavar="PATH", help="also write the table as Markdown")
    if extra is not None:
        extra(ap)
    args = ap.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        ap.error("--repeats must be >= 1")
    if markdown and args.markdown is not None and not args.markdown.strip():
        ap.error("--markdown: give a file path")
    return args


def emit(result, as_json: bool, report, default=None) -> int:
    """Print ``result`` as one JSON line (``--json``; ``default`` as in :func:`json.dump`)
    or as text via ``report(result)``; returns the exit status 0."""
    import json
    import sys

    if as_json:
        json.dump(result, sys.stdout, default=default)
        sys.stdout.write("\n")
    else:
        report(result)
    return 0



def machine() -> dict:
    """The machine the figures are measured on: platform, CPU model, core count and the
    Python / numpy / scipy versions (the studies state theirs with ``studies/_machine.py``;
    the benchmarks, run from their own folder, keep these few lines of their own)."""
    import os
    import platform
    from pathlib import Path

    import numpy
    import scipy

    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               None) if Path("/proc/cpuinfo").is_file() else None
    return {"platform": platform.platform(),
            "cpu": cpu or platform.processor() or platform.machine() or "unknown CPU",
            "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": numpy.__version__, "scipy": scipy.__version__}
