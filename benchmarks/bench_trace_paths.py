"""Noise-steered mechanisms decided by their paths: DP-Sniper's suite and the steered suite.

For each mechanism of DP-Sniper's suite (Bichsel et al., S&P 2021; :mod:`verification.zoo`)
and of the steered suite (the exponential mechanism, randomised response, a clamp after
the noise, a noisy binary search, a peeled top-2: :mod:`verification.zoo.steered`) this
traces every benchmark pair (StatDP's input patterns, both orders) with
:func:`verification.audit.trace_mechanism` in the real-arithmetic model (the suites' true ε
are those of the real laws), the explorations of a dataset shared between its pairs, and
reports

* the verdicts over the pairs, and the worst pair's certified ε interval — its lower end is
  a certified lower bound of the mechanism's ε, compared with the zoo's true ε (relative
  gap) and with DP-Sniper's published 90 % lower confidence bound (2×10⁸ draws on their
  machine; ratio ours / theirs);
* the proof: a randomness alignment for every pair of the query relation (answers moving
  by at most 1), searched once per mechanism (``relation="query"``), and its cost;
* the time per pair (median, slowest) and in all, on this machine, against the same pairs
  traced with the paths switched off (the linear model alone: the baseline of the previous
  trace, measured in this run).

Usage::

    python benchmarks/bench_trace_paths.py [--quick] [--suite dpsniper|steered|all]
        [--only NAME ...] [--json] [--markdown PATH]

``--quick``: the first 4 pairs of each mechanism.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from fractions import Fraction  # noqa: E402

from _bench import fmt_number as _fmt  # noqa: E402
from _bench import machine, print_table  # noqa: E402

from privtools.certified import ends  # noqa: E402
from verification import zoo  # noqa: E402
from verification.audit import guard, trace_mechanism  # noqa: E402
from verification.audit.draws import root_seed  # noqa: E402
from verification.audit.trace.api import _Trace  # noqa: E402
from verification.audit.trace.record.runs import Runner  # noqa: E402
from verification.zoo.steered import steered_suite  # noqa: E402

_PROOF_RELATIONS = ("query",)


def _trace_pairs(m, pairs, use_paths: bool):
    """Every pair traced; (results, seconds per pair)."""
    cache: dict = {}
    out, times = [], []
    for d, dp in pairs:
        t = time.perf_counter()
        if use_paths:
            r = trace_mechanism(m.mechanism, d, dp, m.epsilon, m.delta, rng=0,
                                arithmetic="real", path_cache=cache)
        else:
            r = _linear_only(m, d, dp)
        times.append(time.perf_counter() - t)
        out.append(r)
    return out, times


def _linear_only(m, d, dp):
    """The trace with its paths off: the linear model of the releases alone."""
    wrapped = guard.wrap(m.mechanism, "mechanism")

    def work(_tick):
        return _Trace(runner=Runner(wrapped), d=d, dp=dp, eps=m.epsilon,
                     delta=Fraction(m.delta), declared=None, modulus=None, arithmetic="real",
                     seed=root_seed(0) % (2**62), use_paths=False).run()
    return guard.run(work, what="the trace", shared=(wrapped,))


def _worst(results):
    best = None
    for r in results:
        if r.interval_ends is None:
            continue
        lo = ends(r.epsilon_interval)[0]
        if best is None or lo > best[0]:
            best = (lo, r)
    return best


def row(m, pairs):
    results, times = _trace_pairs(m, pairs, use_paths=True)
    _, base_times = _trace_pairs(m, pairs, use_paths=False)
    verdicts = {}
    for r in results:
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    worst = _worst(results)
    lo = None if worst is None else float(worst[0])
    hi = None if worst is None else worst[1].epsilon_bounds[1]
    true = m.true_epsilon
    gap = None
    if lo is not None and true is not None and math.isfinite(true) and true > 0:
        gap = abs(lo - true) / true
    refused = sorted({r.paths.refused for r in results if r.paths is not None and
                      r.paths.refused is not None})
    proof = None
    t_proof = None
    if m.relation in _PROOF_RELATIONS:
        d, dp = pairs[0]
        t = time.perf_counter()
        pr = trace_mechanism(m.mechanism, d, dp, m.epsilon, m.delta, rng=0,
                             arithmetic="real", relation="query")
        t_proof = time.perf_counter() - t
        proof = pr.proof
        cost = next((x for x in pr.decided if "randomness alignment of cost" in x), None)
        proof_text = (f"{float(proof.cost):.4g}" if proof is not None else
                      ("> claim" if cost else "none"))
    else:
        proof_text = f"— ({m.relation})"
    decided = verdicts.get("fail", 0) + verdicts.get("holds", 0)
    correct = (verdicts.get("fail", 0) > 0) == (not m.private)
    return {
        "name": m.name, "private": m.private, "true_epsilon": true, "pairs": len(pairs),
        "verdicts": verdicts, "decided": decided, "worst_lower": lo, "worst_upper": hi,
        "relative_gap": gap, "dpsniper": m.dpsniper,
        "ratio_to_dpsniper": None if (lo is None or not m.dpsniper) else lo / m.dpsniper,
        "proof_cost": None if proof is None else float(proof.cost), "proof": proof_text,
        "proof_seconds": t_proof, "median_seconds": statistics.median(times),
        "slowest_seconds": max(times), "total_seconds": sum(times),
        "baseline_total_seconds": sum(base_times), "refused": refused,
        "verdict_matches_truth": correct,
    }


def report(out: dict) -> None:
    rows = out["rows"]
    print(f"# noise-steered mechanisms decided by their paths ({out['machine']['cpu']}, "
          f"{out['machine']['cores']} cores)")
    headers = ["mechanism", "private", "true ε", "pairs", "fail/holds/inc", "worst ε ≥",
               "gap", "DP-Sniper", "ours/theirs", "proof cost", "median s", "all s",
               "linear s"]
    table = []
    for r in rows:
        v = r["verdicts"]
        table.append([r["name"], "yes" if r["private"] else "no", _fmt(r["true_epsilon"]),
                      str(r["pairs"]),
                      f"{v.get('fail', 0)}/{v.get('holds', 0)}/{v.get('inconclusive', 0)}",
                      _fmt(r["worst_lower"]),
                      "—" if r["relative_gap"] is None else f"{r['relative_gap']:.1e}",
                      _fmt(r["dpsniper"]), _fmt(r["ratio_to_dpsniper"]), r["proof"],
                      f"{r['median_seconds']:.2f}", f"{r['total_seconds']:.1f}",
                      f"{r['baseline_total_seconds']:.1f}"])
    print_table(headers, table, "lllrrrrrrlrrr")
    s = out["summary"]
    print(f"\nnon-private failing on some pair: {s['leaky_found']}/{s['leaky']}; private "
          f"holding on every pair: {s['private_held']}/{s['private']}; fails on private "
          f"mechanisms (false alarms): {s['false_certificates']}; proofs within the claim: "
          f"{s['proofs']}")
    for r in rows:
        if r["refused"]:
            print(f"  {r['name']}: the paths decide nothing on some pair: {r['refused'][0]}")


TITLE = "# Noise-steered mechanisms decided by their paths"


def _markdown(out: dict) -> str:
    s = out["summary"]
    lines = [TITLE, "",
             "Generated by `python benchmarks/bench_trace_paths.py --markdown "
             "docs/tables/trace-paths.md`. Do not edit by hand.", "",
             f"Non-private mechanisms failing on some pair: {s['leaky_found']} of "
             f"{s['leaky']}; private mechanisms holding on every pair: {s['private_held']} of "
             f"{s['private']}; fails on private mechanisms: {s['false_certificates']}; "
             f"proofs within the claim: {s['proofs']}. Every pair of each mechanism is traced "
             "in the real-arithmetic model; the proof is searched once per mechanism of the "
             "query relation. The last column times the same pairs with the paths off "
             "(the linear model alone), in the same run.", "",
             "| mechanism | private | true ε | pairs | fail / holds / inconclusive | "
             "worst pair's certified ε ≥ | relative gap | DP-Sniper 90 % | ours / theirs | "
             "proof (cost) | median s / pair | all s | linear model s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out["rows"]:
        v = r["verdicts"]
        lines.append(
            f"| {r['name']} | {'yes' if r['private'] else 'no'} | {_fmt(r['true_epsilon'])} "
            f"| {r['pairs']} | {v.get('fail', 0)} / {v.get('holds', 0)} / "
            f"{v.get('inconclusive', 0)} | {_fmt(r['worst_lower'])} | "
            f"{'—' if r['relative_gap'] is None else format(r['relative_gap'], '.1e')} | "
            f"{_fmt(r['dpsniper'])} | {_fmt(r['ratio_to_dpsniper'])} | {r['proof']} | "
            f"{r['median_seconds']:.2f} | {r['total_seconds']:.1f} | "
            f"{r['baseline_total_seconds']:.1f} |")
    m = out["machine"]
    lines.append("")
    lines.append(f"Measured on {m['cpu']} ({m['cores']} cores), Python {m['python']}: "
                 "`python benchmarks/bench_trace_paths.py --markdown PATH`.")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--suite", choices=("dpsniper", "steered", "all"), default="all")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", metavar="PATH")
    args = ap.parse_args(argv)
    rows = []
    entries = ((zoo.dpsniper_suite() if args.suite in ("dpsniper", "all") else []) +
               (steered_suite() if args.suite in ("steered", "all") else []))
    for m in entries:
        if args.only and m.name not in args.only:
            continue
        pairs = list(m.pairs[:4] if args.quick else m.pairs)
        rows.append(row(m, pairs))
        if not args.json:
            print(f"  {m.name}: {rows[-1]['verdicts']} in {rows[-1]['total_seconds']:.1f} s",
                  flush=True)
    leaky = [r for r in rows if not r["private"]]
    private = [r for r in rows if r["private"]]
    out = {"machine": machine(), "rows": rows, "summary": {
        "leaky": len(leaky), "leaky_found": sum(r["verdicts"].get("fail", 0) > 0 for r in leaky),
        "private": len(private),
        "private_held": sum(r["verdicts"].get("holds", 0) == r["pairs"] for r in private),
        "false_certificates": sum(r["verdicts"].get("fail", 0) for r in private),
        "proofs": sum(r["proof_cost"] is not None for r in rows)}}
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(_markdown(out))
    if args.json:
        print(json.dumps(out, default=str))
    else:
        report(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
