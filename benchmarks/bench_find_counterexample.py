"""find_counterexample on every non-private mechanism of the zoo: found, how small, how fast.

For each mechanism of :func:`verification.zoo.dpsniper_suite` and
:func:`verification.zoo.statdp_suite` whose claim does not hold, hypothesis searches
neighbouring pairs of *arbitrary* datasets (not the benchmark's pairs) with
:func:`privtools.testing.find_counterexample` at α = 10⁻³, the default audit budgets and at
most ``--max-examples`` pairs (default 30):

* relation "query": lists of 1–20 answers in {0, 1, 2, 3}, every answer moved by at most 1
  (``neighbours="linf"``); the truncated geometric's one count in [0, 5], moved by one;
* relation "histogram": lists of 1–20 counts in {0, …, 3}, one count moved by one
  (``neighbours="l1"``);
* relation "value" (RAPPOR): two distinct values in [-10, 10].

Reported per mechanism: whether a counterexample was confirmed on fresh draws, the shrunk
pair, its size against the canonical pair of the mechanism's paper (the length of the
benchmark's smallest input: 1, 5 or 10), ε_lower (confidence 1 − 2α), pairs tried, and
the wall time against the 30 s target. Seeds are fixed (``--seed``), so a run repeats.

Usage::

    python benchmarks/bench_find_counterexample.py --markdown docs/tables/find_counterexample.md
    python benchmarks/bench_find_counterexample.py --quick       # DP-Sniper suite only
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from _bench import bench_args, emit, machine, print_table  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from privtools.testing import find_counterexample  # noqa: E402
from verification.zoo import dpsniper_suite, statdp_suite  # noqa: E402

TARGET_SECONDS = 30.0
ALPHA = 1e-3
MAX_LENGTH = 20


def search_space(entry):
    """(datasets, neighbours) for the entry's relation (module doc)."""
    if entry.relation == "value":
        values = st.integers(-10, 10)
        pairs = st.tuples(values, values).filter(lambda p: p[0] != p[1]).map(
            lambda p: ((p[0],), (p[1],)))
        return None, pairs
    if entry.name.startswith("TruncatedGeometric"):
        counts = st.integers(0, 4)
        pairs = st.tuples(counts, st.booleans()).map(
            lambda p: ((p[0],), (p[0] + 1,)) if p[1] else ((p[0] + 1,), (p[0],)))
        return None, pairs
    vectors = st.lists(st.integers(0, 3), min_size=1, max_size=MAX_LENGTH)
    return vectors, ("l1" if entry.relation == "histogram" else "linf")


def _size(d) -> int:
    return len(d) if isinstance(d, (list, tuple)) else 1


def run(entry, seed: int, max_examples: int) -> dict:
    datasets, neighbours = search_space(entry)
    canonical = min(len(d) for d in entry.datasets)
    t0 = time.perf_counter()
    cx = find_counterexample(entry.mechanism, entry.epsilon, datasets, neighbours,
                             alpha=ALPHA, rng=seed, max_examples=max_examples)
    seconds = time.perf_counter() - t0
    row = {"name": entry.name, "claim": entry.epsilon, "true_epsilon": entry.true_epsilon,
           "relation": entry.relation, "canonical_size": canonical, "seconds": seconds,
           "found": cx is not None}
    if cx is not None:
        size = max(_size(cx.d), _size(cx.d_prime))
        row.update(d=list(cx.d), d_prime=list(cx.d_prime), size=size,
                   within_canonical=size <= canonical, epsilon_lower=cx.epsilon_lower,
                   tried=cx.examples, draws=cx.draws, event=cx.event.describe(),
                   reproduce=cx.reproduce)
    return row


def _fmt_eps(x) -> str:
    return "∞" if x is None or math.isinf(x) else f"{x:.4g}"


def report(res) -> None:
    print_table(["mechanism", "claim", "true eps", "found", "pair", "size", "canonical",
                 "eps_lower", "tried", "s"],
                [[r["name"], f"{r['claim']:g}", _fmt_eps(r["true_epsilon"]),
                  "yes" if r["found"] else "NO",
                  f"{r['d']} vs {r['d_prime']}" if r["found"] else "–",
                  str(r.get("size", "–")), str(r["canonical_size"]),
                  f"{r['epsilon_lower']:.3f}" if r["found"] else "–",
                  str(r.get("tried", "–")), f"{r['seconds']:.1f}"]
                 for r in res["rows"]], "lrrlllrrrr")
    print()
    for line in _targets(res):
        print(line.replace("**", ""))


def _targets(res) -> list[str]:
    rows = res["rows"]
    missed = [r["name"] for r in rows if not r["found"]]
    big = [r["name"] for r in rows if r["found"] and not r["within_canonical"]]
    slow = [r["name"] for r in rows if r["seconds"] > TARGET_SECONDS]
    out = []
    out.append("**Found: " + ("target met** — a confirmed counterexample for every "
                              f"mechanism ({len(rows)})." if not missed else
                              "target missed** — none for " + ", ".join(missed) + "."))
    out.append("**Shrunk: " + ("target met** — every pair at most the canonical size."
                               if not big else "target missed** — larger than canonical: "
                               + ", ".join(big) + "."))
    out.append("**Time: " + (f"target met** — every search within {TARGET_SECONDS:g} s "
                             f"(slowest {max(r['seconds'] for r in rows):.1f} s)."
                             if not slow else f"target missed** — over {TARGET_SECONDS:g} s: "
                             + ", ".join(slow) + "."))
    return out


def markdown(res, command: str) -> str:
    m = res["machine"]
    lines = [
        "# find_counterexample on the zoo's non-private mechanisms",
        "",
        f"Generated by `{command}` in {res['seconds'] / 60:.1f} min on {m['cpu']} "
        f"({m['cores']} cores; one process), Python {m['python']}, numpy {m['numpy']}, "
        f"scipy {m['scipy']}. Do not edit by hand.",
        "",
        "Each mechanism is searched over arbitrary datasets (not the benchmark's own pairs; "
        "see `benchmarks/bench_find_counterexample.py`) by "
        f"`find_counterexample(mechanism, claim, datasets, neighbours, alpha={ALPHA:g})` "
        f"and `max_examples={res['max_examples']}`: at most that many pairs, each screened "
        "by a sequential audit of at most 20 000 draws at min(10α, 0.01); the shrunk pair "
        "(or, when none was flagged, the pair with the largest screening e-value) confirmed "
        "on fresh draws by a sequential audit of at most 200 000 draws at α. *size* is the "
        "length "
        "of the longer dataset of the pair; *canonical* the length of the smallest input "
        "the mechanism's paper (DP-Sniper / StatDP) evaluates. ε_lower holds with "
        f"confidence {1 - 2 * ALPHA:g}; *tried* counts the pairs hypothesis screened.",
        "",
        "| mechanism | claim ε | true ε | found | minimal pair | size | canonical | "
        "ε_lower | tried | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in res["rows"]:
        pair = f"`{r['d']}` vs `{r['d_prime']}`" if r["found"] else "–"
        lines.append(
            f"| {r['name']} | {r['claim']:g} | {_fmt_eps(r['true_epsilon'])} | "
            f"{'yes' if r['found'] else '**no**'} | {pair} | {r.get('size', '–')} | "
            f"{r['canonical_size']} | "
            f"{(format(r['epsilon_lower'], '.3f')) if r['found'] else '–'} | "
            f"{r.get('tried', '–')} | {r['seconds']:.1f} |")
    lines += ["", *[f"- {t}" for t in _targets(res)], ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    def extra(ap):
        ap.add_argument("--markdown", metavar="PATH", help="also write the report here")
        ap.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
        ap.add_argument("--max-examples", type=int, default=30,
                        help="pairs hypothesis may screen per mechanism (default 30)")
        ap.add_argument("--only", metavar="NAME", action="append",
                        help="run only this mechanism (repeatable)")

    args = bench_args(__doc__, argv, quick_help="the DP-Sniper suite only", repeats=None,
                      extra=extra)
    if args.seed < 0 or args.max_examples < 1:
        print("--seed must be >= 0 and --max-examples >= 1", file=sys.stderr)
        return 2
    entries = [z for z in dpsniper_suite() + ([] if args.quick else statdp_suite())
               if not z.private]
    if args.only:
        known = {z.name for z in entries}
        unknown = [n for n in args.only if n not in known]
        if unknown:
            print(f"--only: unknown mechanism {', '.join(unknown)}; choose from "
                  f"{', '.join(sorted(known))}", file=sys.stderr)
            return 2
        entries = [z for z in entries if z.name in args.only]
    t0 = time.perf_counter()
    rows = []
    for i, entry in enumerate(entries):
        row = run(entry, args.seed + i, args.max_examples)
        rows.append(row)
        if not args.json:
            found = (f"found {row['d']} vs {row['d_prime']}" if row["found"] else
                     "NOT found")
            print(f"{entry.name}: {found} ({row['seconds']:.1f} s)", file=sys.stderr,
                  flush=True)
    res = {"rows": rows, "seconds": time.perf_counter() - t0, "machine": machine(),
           "max_examples": args.max_examples}
    if args.markdown:
        command = "python benchmarks/bench_find_counterexample.py " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a != "--json")
        with open(args.markdown, "w") as fh:
            fh.write(markdown(res, command.strip()))
    return emit(res, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
