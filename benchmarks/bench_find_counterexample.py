"""find_counterexample on every non-private mechanism of the zoo: found, how small, how fast.

For each mechanism of :func:`verification.zoo.dpsniper_suite` and
:func:`verification.zoo.statdp_suite` whose claim does not hold, the search runs over
*arbitrary* datasets (not the benchmark's pairs) with
:func:`privtools.testing.find_counterexample` at α = 10⁻³, at most ``--max-examples`` pairs
scored (default 30), confirmations of ``--max-samples`` draws per dataset (default 10⁶: a
claim of 0.1 against a true 0.175, SVT4's, needs about that many) whose events are chosen
with the logistic learner (besides the audit's other families and the cells), and the
other budgets at their defaults:

* relation "query": lists of 1–20 answers in {0, 1, 2, 3}, every answer moved by at most 1
  (``neighbours="linf"``: StatDP's patterns are raced first on two of these lists, then
  hypothesis's pairs); the truncated geometric's one count in [0, 5], moved by one;
* relation "histogram": lists of 1–20 counts in {0, …, 3}, one count moved by one
  (``neighbours="l1"``: the patterns "one below" and "one above" first);
* relation "value" (RAPPOR): two distinct values in [-10, 10].

Reported per mechanism: whether a counterexample was confirmed on fresh draws, the shrunk
pair, its size against the canonical pair of the mechanism's paper (the length of the
benchmark's smallest input: 1, 5 or 10), ε_lower (confidence 1 − α/k for the k ≤ 2 pairs
confirmed), pairs scored, and the wall time against the 30 s target. Seeds are fixed
(``--seed``; a mechanism's seed is its place in the full list), so a run — or one row with
``--only`` — repeats.

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
MAX_SAMPLES = 10**6
LEARNERS = ("logistic",)


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


def run(entry, seed: int, max_examples: int, max_samples: int = MAX_SAMPLES) -> dict:
    datasets, neighbours = search_space(entry)
    canonical = min(len(d) for d in entry.datasets)
    t0 = time.perf_counter()
    cx = find_counterexample(entry.mechanism, entry.epsilon, datasets, neighbours,
                             alpha=ALPHA, rng=seed, max_examples=max_examples,
                             max_samples=max_samples, learners=LEARNERS)
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
        f"`find_counterexample(mechanism, claim, datasets, neighbours, alpha={ALPHA:g}, "
        f"max_examples={res['max_examples']}, max_samples={res['max_samples']:_}, "
        f"learners={LEARNERS!r})`. Pairs are scored on held-out draws (an event chosen on "
        "half of a pair's draws, read on the other half as the bound it projects for the "
        "confirmation): StatDP's input patterns first, raced by successive halving on two "
        "datasets drawn from the space (2·max_samples draws); a flagged pattern is shrunk "
        "on shorter datasets of the space, otherwise hypothesis scores its own pairs "
        "(20 000 draws per dataset each) and shrinks the first flagged one. At most two "
        "pairs — the minimal flagged one, the race's finalists, the best scored — are "
        "confirmed on fresh draws, each by one test at α/k for the k confirmed (a fifth of "
        "max_samples choose the event). *size* is the length of the longer dataset of the "
        "pair; *canonical* the length of the smallest input the mechanism's paper "
        "(DP-Sniper / StatDP) evaluates. ε_lower holds with confidence 1 − α/k; *tried* "
        "counts the pairs scored.",
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
        ap.add_argument("--max-samples", type=int, default=MAX_SAMPLES,
                        help=f"draws per dataset of a confirmation (default {MAX_SAMPLES})")

    args = bench_args(__doc__, argv, quick_help="the DP-Sniper suite only", repeats=None,
                      extra=extra)
    if args.seed < 0 or args.max_examples < 1 or args.max_samples < 200:
        print("--seed must be >= 0, --max-examples >= 1 and --max-samples >= 200",
              file=sys.stderr)
        return 2
    entries = [z for z in dpsniper_suite() + statdp_suite() if not z.private]
    # a mechanism's seed is its place in the full list: --only and --quick repeat its row
    seeds = {z.name: args.seed + i for i, z in enumerate(entries)}
    if args.quick:
        entries = [z for z in entries if z.suite == "dpsniper"]
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
    for entry in entries:
        row = run(entry, seeds[entry.name], args.max_examples, args.max_samples)
        rows.append(row)
        if not args.json:
            found = (f"found {row['d']} vs {row['d_prime']}" if row["found"] else
                     "NOT found")
            print(f"{entry.name}: {found} ({row['seconds']:.1f} s)", file=sys.stderr,
                  flush=True)
    res = {"rows": rows, "seconds": time.perf_counter() - t0, "machine": machine(),
           "max_examples": args.max_examples, "max_samples": args.max_samples}
    if args.markdown:
        command = "python benchmarks/bench_find_counterexample.py " + " ".join(
            a for a in (argv if argv is not None else sys.argv[1:]) if a != "--json")
        with open(args.markdown, "w") as fh:
            fh.write(markdown(res, command.strip()))
    return emit(res, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
