"""The black box measured against the truth: the search's power at small budgets, and how
close the sampled ε lower bound comes to the ε the trace certifies.

For every mechanism of DP-Sniper's and StatDP's suites (:mod:`verification.zoo`) the grey-box
trace (:func:`verification.audit.trace_mechanism`, real-arithmetic model) ranks the first
``--pairs`` benchmark pairs; the worst one (a failing pair with the largest certified lower
end, else an undecided one, else a holding one) is the mechanism's *worst pair*. Two tables:

1. **search power** — at N draws per dataset (``--budgets``, default 10³, 10⁴, 10⁵) the
   fixed audit of the worst pair (:func:`verification.audit.audit_mechanism`, N draws per
   dataset) beside the search over the mechanism's whole space
   (:func:`verification.audit.search_counterexample`, StatDP's patterns of the benchmark's
   bases or, for RAPPOR, replace-one over the inputs −10…10: ``budget`` N·D for the D
   datasets of the space, the chosen pair confirmed on N fresh draws per dataset), both at
   α = 0.01 on ``--seeds`` seeds. A non-private mechanism is *caught* when the verdict is
   fail; on a private one a fail is a false alarm. The target: at 10³ draws the search
   catches every mechanism the worst-pair audit catches.
2. **tightness** — for every mechanism whose worst pair the trace decides with a finite
   certified ε > 0, the fixed audit's ε_lower on that pair at ``--draws`` per dataset
   (default 10⁴, 10⁵, 10⁶; seed 0) as a fraction of the certified lower end. The target:
   median ≥ 0.8 at 10⁶.

Usage::

    python benchmarks/bench_black_box_limits.py [--quick] [--json] [--markdown PATH]
        [--only NAME ...] [--table power|tightness|both] [--workers W]

``--quick``: two mechanisms, 10³ and 10⁴ draws (a smoke run).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402

from _bench import bench_args, emit, machine  # noqa: E402
from _bench import fmt_number as _num  # noqa: E402
from bench_audit_suite import PairTable  # noqa: E402

from verification import zoo  # noqa: E402
from verification.audit import (  # noqa: E402
    audit_mechanism,
    search_counterexample,
    trace_mechanism,
)

ALPHA = 0.01


def space(entry):
    """The search space of an entry: (datasets, relation, distinct datasets of its pairs)."""
    if entry.relation == "value":
        data = [(v,) for v in range(-10, 11)]
        return data, "replace-one", len(data)
    table = PairTable(entry.pairs)
    distinct = {x for p in table.pairs for x in p}
    return table.bases(), table, len(distinct)


def _rank(r) -> tuple:
    b = r.epsilon_bounds
    return (r.verdict == "fail", r.verdict != "holds", b[0] if b else -1.0,
            b[1] if b else -1.0)


def worst_pair(entry, pairs: int, seed: int):
    """The trace's worst pair of the first ``pairs`` and its trace result."""
    best, cache = None, {}
    for d, dp in entry.pairs[:pairs]:
        r = trace_mechanism(entry.mechanism, list(d), list(dp), entry.epsilon, entry.delta,
                            rng=seed, arithmetic="real", path_cache=cache)
        if best is None or _rank(r) > _rank(best[0]):
            best = (r, (list(d), list(dp)))
    return best


def _certified(r):
    b = r.epsilon_bounds
    if r.verdict in ("fail", "holds") and b is not None and 0 < b[0] < math.inf:
        return b[0]
    return None


def power_row(e, pair, budgets, seeds) -> dict:
    """The search-power row of one entry: fails of the worst-pair audit and of the search."""
    r, (d, dp) = pair
    data, rel, n_data = space(e)
    cells = []
    for n in budgets:
        pair_fails = search_fails = 0
        t0 = time.perf_counter()
        for seed in seeds:
            a = audit_mechanism(e.mechanism, d, dp, e.epsilon, n, rng=seed, delta=e.delta,
                                alpha=ALPHA, learners=("logistic",))
            pair_fails += a.verdict == "fail"
        t1 = time.perf_counter()
        for seed in seeds:
            cx = search_counterexample(e.mechanism, e.epsilon, data, neighbours=rel,
                                       delta=e.delta, budget=max(4000, n * n_data),
                                       n_confirm=max(100, n), rng=seed, alpha=ALPHA,
                                       max_pairs=64, max_datasets=len(data))
            search_fails += cx.verdict == "fail"
        cells.append({"draws": n, "pair_fails": pair_fails, "search_fails": search_fails,
                      "pairs_found": cx.pairs_found, "pair_seconds": t1 - t0,
                      "search_seconds": time.perf_counter() - t1})
    return {"name": e.name, "private": e.private, "true_epsilon": e.true_epsilon,
            "worst_pair": [d, dp], "trace_verdict": r.verdict, "cells": cells}


def tightness_row(e, pair, draws) -> dict:
    """The tightness row of one entry: ε_lower of the worst pair against its certified ε."""
    r, (d, dp) = pair
    cert = _certified(r)
    row = {"name": e.name, "private": e.private, "worst_pair": [d, dp],
           "trace_verdict": r.verdict, "certified": cert, "cells": []}
    if cert is None:
        return row
    for n in draws:
        t0 = time.perf_counter()
        a = audit_mechanism(e.mechanism, d, dp, e.epsilon, n, rng=0, delta=e.delta,
                            alpha=ALPHA, learners=("logistic",))
        row["cells"].append({"draws": n, "epsilon_lower": a.epsilon_lower,
                             "fraction": a.epsilon_lower / cert, "verdict": a.verdict,
                             "seconds": time.perf_counter() - t0})
    return row


def entry_rows(job) -> tuple:
    """Both rows of one entry (run in a worker process; the worst pair traced once)."""
    name, table, budgets, draws, seeds, pairs = job
    e = zoo.get(name)
    pair = worst_pair(e, pairs, 0)
    return (power_row(e, pair, budgets, seeds) if table in ("power", "both") else None,
            tightness_row(e, pair, draws) if table in ("tightness", "both") else None)


def _entries(args):
    if args.only:
        return [zoo.get(n) for n in args.only]
    entries = zoo.dpsniper_suite() + zoo.statdp_suite()
    return entries[:2] if args.quick else entries


def run(args) -> dict:
    entries = _entries(args)
    budgets = (10**3, 10**4) if args.quick else (10**3, 10**4, 10**5)
    draws = (10**4, 10**5) if args.quick else (10**4, 10**5, 10**6)
    seeds = list(range(args.seeds))
    out = {"machine": machine(), "seeds": seeds, "budgets": budgets, "draws": draws,
           "pairs": args.pairs, "workers": args.workers}
    t0 = time.perf_counter()
    rows = []
    with ProcessPoolExecutor(args.workers) as pool:
        for e, row in zip(entries, pool.map(entry_rows, [
                (e.name, args.table, budgets, draws, seeds, args.pairs) for e in entries])):
            rows.append(row)
            print(f"{e.name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    if args.table in ("power", "both"):
        out["power"] = [p for p, _ in rows]
    if args.table in ("tightness", "both"):
        out["tightness"] = [t for _, t in rows]
    out["seconds"] = time.perf_counter() - t0
    out["summary"] = summary(out)
    return out


def summary(out) -> dict:
    s = {}
    if "power" in out:
        for j, n in enumerate(out["budgets"]):
            rows = [r for r in out["power"] if not r["private"]]
            both = [r for r in rows if r["cells"][j]["pair_fails"] > 0]
            s[f"power_{n}"] = {
                "non_private": len(rows),
                "pair_caught": sum(r["cells"][j]["pair_fails"] for r in rows),
                "search_caught": sum(r["cells"][j]["search_fails"] for r in rows),
                "search_misses_where_pair_caught": sorted(
                    r["name"] for r in both
                    if r["cells"][j]["search_fails"] < r["cells"][j]["pair_fails"]),
                "false_alarms": sum(r["cells"][j]["search_fails"] + r["cells"][j]["pair_fails"]
                                    for r in out["power"] if r["private"])}
    if "tightness" in out:
        for j, n in enumerate(out["draws"]):
            fr = [r["cells"][j]["fraction"] for r in out["tightness"] if r["cells"]]
            s[f"tightness_{n}"] = {"mechanisms": len(fr),
                                   "median": statistics.median(fr) if fr else None,
                                   "lowest": min(fr) if fr else None}
    return s


def _head(first: list, a: str, b: str, sizes) -> list:
    """A table's header and rule: the ``first`` columns, then two per size."""
    cols = first + [x for n in sizes for x in (a.format(n), b.format(n))]
    return ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]


def markdown(out) -> str:
    m = out["machine"]
    lines = ["# The black box at the limit: search power and tightness", "",
             f"Generated by `python benchmarks/bench_black_box_limits.py --markdown "
             f"docs/tables/black_box_limits.md` in {out['seconds'] / 60:.1f} min on "
             f"{m.get('cpu', m.get('platform', ''))} ({os.cpu_count()} cores; "
             f"{out['workers']} worker process(es), a mechanism each). Do not edit by hand.",
             "", "Each mechanism's worst pair is the one the grey-box trace ranks worst among "
             f"its first {out['pairs']} benchmark pairs (real-arithmetic model). α = 0.01 "
             "everywhere.", ""]
    if "power" in out:
        b = out["budgets"]
        seeds = len(out["seeds"])
        lines += ["## Search power at small budgets", "",
                  f"Fails on {seeds} seed{'s' if seeds > 1 else ''} per cell: the fixed audit "
                  "of the worst pair at N draws per "
                  "dataset, and the search over the whole space (budget N·D for its D "
                  "datasets, the chosen pair confirmed on N fresh draws per dataset). On a "
                  "private mechanism every fail is a false alarm.", "",
                  *_head(["mechanism", "private", "pairs"], "pair audit at {:,}",
                         "search at {:,}", b)]
        for r in out["power"]:
            cells = " | ".join(f"{c['pair_fails']}/{seeds} | {c['search_fails']}/{seeds}"
                               for c in r["cells"])
            lines.append(f"| {r['name']} | {'yes' if r['private'] else 'no'} | "
                         f"{r['cells'][0]['pairs_found']} | {cells} |")
        lines.append("")
        for n in b:
            s = out["summary"][f"power_{n}"]
            miss = ", ".join(s["search_misses_where_pair_caught"]) or "none"
            lines.append(f"- {n:,} draws per dataset: the worst-pair audit catches "
                         f"{s['pair_caught']}, the search {s['search_caught']} (of "
                         f"{s['non_private']} non-private × {seeds} seed"
                         f"{'s' if seeds > 1 else ''}); the search "
                         f"misses where the pair audit caught: {miss}; false alarms on "
                         f"private mechanisms: {s['false_alarms']}.")
        lines.append("")
    if "tightness" in out:
        d = out["draws"]
        lines += ["## Tightness: the sampled ε lower bound against the certified ε", "",
                  "The fixed audit's ε_lower on the worst pair (seed 0) as a fraction of "
                  "the lower end of the ε the trace certifies for that pair.", "",
                  *_head(["mechanism", "certified ε ≥"], "ε_lower at {:,}", "fraction", d)]
        for r in out["tightness"]:
            if not r["cells"]:
                continue
            cells = " | ".join(f"{_num(c['epsilon_lower'])} | {c['fraction']:.2f}"
                               for c in r["cells"])
            lines.append(f"| {r['name']} | {_num(r['certified'])} | {cells} |")
        lines.append("")
        for n in d:
            s = out["summary"][f"tightness_{n}"]
            lines.append(f"- {n:,} draws per dataset: median fraction "
                         f"{_num(s['median'])}, lowest {_num(s['lowest'])} over "
                         f"{s['mechanisms']} mechanisms.")
        lines.append("")
    return "\n".join(lines)


def report(out) -> None:
    print(markdown(out))


def main(argv=None) -> int:
    def extra(ap):
        ap.add_argument("--only", nargs="*", default=None)
        ap.add_argument("--table", choices=("power", "tightness", "both"), default="both")
        ap.add_argument("--seeds", type=int, default=1)
        ap.add_argument("--pairs", type=int, default=8)
        ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)

    args = bench_args(__doc__, argv, repeats=None, extra=extra, markdown=True,
                      quick_help="two mechanisms, 10^3 and 10^4 draws")
    if args.quick:
        args.seeds = min(args.seeds, 2)
    out = run(args)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(markdown(out))
    return emit(out, args.json, report, default=str)


if __name__ == "__main__":
    raise SystemExit(main())
