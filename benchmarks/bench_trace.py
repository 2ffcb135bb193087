"""The grey-box trace on the zoos, side by side with the black-box audit in the same run.

Four tables:

1. **zoo** — every mechanism of DP-Sniper's and StatDP's suites traced on each of its first
   ``--pairs`` benchmark pairs (:func:`verification.audit.trace_mechanism`, real-arithmetic
   model, as the suites' true ε are stated): the verdict of the worst pair, its certified ε
   interval against the zoo's true ε, the finding kinds and the slowest pair's time; then the
   black-box audit (:func:`verification.audit.audit_mechanism`, ``--draws`` draws per
   dataset, α = 0.01) on the pair the trace ranked worst, its verdict, ε lower bound and
   time, and the time ratio;
2. **floats** — the float-attack suite traced with the default exact arithmetic: the trace
   certifies real-arithmetic laws only, so none of these may hold;
3. **glue** — the glue-code zoo (:mod:`verification.zoo.glue`) on its exposing pair, trace and
   black-box side by side;
4. **deployments** — :func:`verification.audit.trace.trace_plan` on the protocol's views for
   every trust model and batch sizes 16 and 256, and on the two seeded deployment bugs.

Usage::

    python benchmarks/bench_trace.py [--quick] [--json] [--markdown PATH] [--pairs K]
        [--draws N] [--seed S]

``--quick``: 2 pairs per mechanism, 10³ black-box draws (a smoke run).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

from _bench import fmt_number as _fmt  # noqa: E402
from _bench import print_table  # noqa: E402

from privtools.certified import ends  # noqa: E402
from privtools.errors import ParameterError  # noqa: E402
from verification import zoo  # noqa: E402
from verification.audit import audit_mechanism, trace_mechanism  # noqa: E402

ALPHA = 0.01


def _interval(r) -> str:
    b = r.epsilon_bounds
    return "—" if b is None else f"[{_fmt(b[0])}, {_fmt(b[1])}]"


def _contains(r, truth) -> str:
    """Does a decided pair's interval hold the zoo's true ε (a supremum over every pair)?
    "yes"; "below" where the pair's whole interval is under it (a pair that is not the
    worst: no contradiction); "NO" where its lower end is above it (a false finding). An
    undecided pair's interval (an upper bound through a node, for this pair) makes no claim
    about the supremum: "—"."""
    if truth is None or r.epsilon_interval is None or r.verdict == "inconclusive":
        return "—"
    lo, hi = ends(r.epsilon_interval)
    t = truth if math.isfinite(truth) else math.inf
    if lo > t * (1 + 2**-40):
        return "NO"
    return "yes" if hi >= t * (1 - 2**-40) else "below"


def _rank(r) -> tuple:
    """The worst pair: a failing one (largest certified lower end), else an undecided one
    (largest upper end: a bound from above only), and a holding pair last — a mechanism
    holds in the table only when every traced pair holds."""
    b = r.epsilon_bounds
    return (r.verdict == "fail", r.verdict != "holds", b[0] if b else -1.0,
            b[1] if b else -1.0)


def _trace(mech, d, dp, eps, delta, seed, arithmetic, cache=None):
    t0 = time.perf_counter()
    r = trace_mechanism(mech, d, dp, eps, delta, rng=seed, arithmetic=arithmetic,
                        path_cache=cache)
    return r, time.perf_counter() - t0


class _Refused:
    """The black-box audit's answer when it refuses the outputs (e.g. dicts)."""

    verdict = "refused"
    epsilon_lower = None


def _blackbox(mech, d, dp, eps, delta, draws, seed):
    t0 = time.perf_counter()
    try:
        a = audit_mechanism(mech, d, dp, eps, draws, rng=seed, delta=delta, alpha=ALPHA,
                            learners=("logistic",))
    except ParameterError:
        a = _Refused()
    return a, time.perf_counter() - t0


def zoo_table(entries, pairs: int, draws: int, seed: int, arithmetic: str, blackbox: bool):
    rows = []
    for z in entries:
        best, slowest = None, 0.0
        cache: dict = {}                 # each dataset's paths explored once
        for d, dp in z.pairs[:pairs]:
            r, dt = _trace(z.mechanism, d, dp, z.epsilon, z.delta, seed, arithmetic, cache)
            slowest = max(slowest, dt)
            if best is None or _rank(r) > _rank(best[0]):
                best = (r, (d, dp))
        r, (d, dp) = best
        row = {"name": z.name, "private": z.private, "true_epsilon": z.true_epsilon,
               "verdict": r.verdict, "interval": r.epsilon_bounds, "kinds": list(r.kinds()),
               "contains_truth": _contains(r, z.true_epsilon), "trace_seconds": slowest,
               "pair": [list(d), list(dp)]}
        if blackbox and r.verdict in ("fail", "holds"):
            a, bt = _blackbox(z.mechanism, d, dp, z.epsilon, z.delta, draws, seed)
            row.update({"blackbox_verdict": a.verdict, "blackbox_epsilon_lower":
                        a.epsilon_lower, "blackbox_seconds": bt})
        rows.append(row)
    return rows


def glue_table(draws: int, seed: int):
    from verification.zoo.glue import glue_suite

    rows = []
    for g in glue_suite():
        d, dp = g.pair
        arithmetic = "real"
        r, dt = _trace(g.mechanism, d, dp, g.epsilon, g.delta, seed, arithmetic)
        a, bt = _blackbox(g.mechanism, d, dp, g.epsilon, g.delta, draws, seed)
        rows.append({"name": g.name, "private": g.private, "true_epsilon": g.true_epsilon,
                     "verdict": r.verdict, "interval": r.epsilon_bounds,
                     "kinds": list(r.kinds()), "expected_kinds": list(g.kinds),
                     "trace_seconds": dt, "blackbox_verdict": a.verdict,
                     "blackbox_epsilon_lower": a.epsilon_lower, "blackbox_seconds": bt})
    return rows


def deployment_table(seed: int):
    from privtools.planning import plan
    from verification.audit.trace import trace_plan
    from verification.zoo.deployments import gamma_poisson_view, inverted_gamma_view

    kinds = [("pure-dp distributed", dict(privacy="pure-dp")),
             ("pure-dp shuffle", dict(privacy="pure-dp", secure="shuffle")),
             ("rdp distributed", dict(privacy="rdp")),
             ("cdp distributed", dict(privacy="cdp")),
             ("pure-dp central", dict(privacy="pure-dp", trust="central")),
             ("pure-dp local", dict(privacy="pure-dp", trust="local", tail="exact"))]
    rows = []
    for n in (16, 256):
        for label, kw in kinds:
            p = plan(epsilon=1, n=n, horizon=10**5, **kw)
            t0 = time.perf_counter()
            res = trace_plan(p, rng=seed)
            rows.append({"path": f"{label}, n = {n}", "verdict": res.verdict,
                         "checks": {name: st for name, st, _ in res.checks},
                         "seconds": time.perf_counter() - t0})
    p = plan(privacy="pure-dp", epsilon=1, n=16, horizon=10**5)
    for label, view in (("Pólya shares by Poisson(Gamma) (control)", gamma_poisson_view(p)),
                        ("Pólya shares, Gamma scale inverted (seed bug)",
                         inverted_gamma_view(p))):
        t0 = time.perf_counter()
        res = trace_plan(p, view=view, rng=seed)
        rows.append({"path": label + ", n = 16", "verdict": res.verdict,
                     "checks": {name: st for name, st, _ in res.checks},
                     "seconds": time.perf_counter() - t0})
    return rows


def summary(out: dict) -> str:
    """The counts: decided, false findings (a private mechanism failed), truths contained."""
    zoo_rows = out["zoo"]
    decided = [r for r in zoo_rows if r["verdict"] in ("fail", "holds")]
    false = [r["name"] for r in zoo_rows if r["private"] and r["verdict"] == "fail"]
    caught = [r for r in zoo_rows if not r["private"] and r["verdict"] == "fail"]
    contained = [r for r in caught if r["contains_truth"] == "yes"]
    glue = out["glue"]
    glue_ok = [r for r in glue if set(r["kinds"]) == set(r["expected_kinds"])]
    slow = max((r["trace_seconds"] for r in glue), default=0.0)
    return (f"zoo: the trace decides {len(decided)} of {len(zoo_rows)} mechanisms on their "
            f"worst traced pair; {len(caught)} non-private caught, the certified interval "
            f"holding the true ε in {len(contained)} of them; false findings on private "
            f"mechanisms: {len(false)} {false or ''}; float suite: "
            f"{sum(r['verdict'] == 'holds' for r in out['floats'])} hold (must be 0); glue "
            f"zoo: {len(glue_ok)} of {len(glue)} with exactly the expected finding kinds, "
            f"slowest trace {slow:.2f} s")


def _markdown(out: dict) -> str:
    lines = ["# The grey-box trace on the zoos", "",
             f"Generated by `python benchmarks/bench_trace.py --pairs {out['pairs']} --draws "
             f"{out['draws']} --seed {out['seed']} --markdown docs/tables/trace.md`. Do not "
             "edit by hand.", "",
             f"Machine: {out['machine']}; {out['pairs']} pairs per zoo mechanism; black-box "
             f"audits at {out['draws']:,} draws per dataset, α = {ALPHA}; seed "
             f"{out['seed']}; {out['seconds']:.0f} s in all.", "", summary(out) + ".", ""]

    def table(headers, rows):
        lines.append("| " + " | ".join(headers) + " |")
        lines.append("|" + "|".join("---" for _ in headers) + "|")
        lines.extend("| " + " | ".join(r) + " |" for r in rows)
        lines.append("")
    for key, title in (("zoo", "DP-Sniper and StatDP suites (real-arithmetic model)"),
                       ("glue", "Glue-code zoo")):
        lines.append(f"**{title}**")
        lines.append("")
        table(["mechanism", "private", "true ε", "trace", "certified ε", "contains true ε",
               "kinds", "trace s", "black-box", "ε lower", "black-box s"],
              [[r["name"], "yes" if r["private"] else "no", _fmt(r["true_epsilon"]),
                r["verdict"], "—" if r["interval"] is None else
                f"[{_fmt(r['interval'][0])}, {_fmt(r['interval'][1])}]",
                r.get("contains_truth", "—"), ", ".join(r["kinds"]) or "—",
                f"{r['trace_seconds']:.2f}", r.get("blackbox_verdict", "—"),
                _fmt(r.get("blackbox_epsilon_lower")),
                "—" if "blackbox_seconds" not in r else f"{r['blackbox_seconds']:.2f}"]
               for r in out[key]])
    lines.append("**Float-attack suite (exact arithmetic: continuous noise is never "
                 "certified)**")
    lines.append("")
    table(["mechanism", "true ε", "trace", "kinds"],
          [[r["name"], _fmt(r["true_epsilon"]), r["verdict"], ", ".join(r["kinds"]) or "—"]
           for r in out["floats"]])
    lines.append("**Deployment paths against their plans**")
    lines.append("")
    table(["path", "verdict", "shares", "view", "loss", "s"],
          [[r["path"], r["verdict"], r["checks"].get("shares", "—"),
            r["checks"].get("view", "—"), r["checks"].get("loss", "—"),
            f"{r['seconds']:.2f}"] for r in out["deployments"]])
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", metavar="PATH")
    ap.add_argument("--pairs", type=int, default=None)
    ap.add_argument("--draws", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    pairs = args.pairs or (2 if args.quick else 8)
    draws = args.draws or (1000 if args.quick else 10_000)
    t0 = time.perf_counter()
    out = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                      f"{platform.python_version()}",
           "pairs": pairs, "draws": draws, "seed": args.seed}
    out["zoo"] = zoo_table(zoo.dpsniper_suite() + zoo.statdp_suite(), pairs, draws,
                           args.seed, "real", True)
    out["floats"] = zoo_table(zoo.float_suite(), 1, draws, args.seed, "exact", False)
    out["glue"] = glue_table(draws, args.seed)
    out["deployments"] = deployment_table(args.seed)
    out["seconds"] = time.perf_counter() - t0
    if args.json:
        print(json.dumps(out, indent=2, default=str))
    else:
        for key in ("zoo", "glue"):
            rows = out[key]
            print_table(["mechanism", "priv", "true ε", "trace", "certified ε", "⊇ true",
                         "kinds", "trace s", "black-box", "ε lower", "bb s", "bb/trace"],
                        [[r["name"], "y" if r["private"] else "n", _fmt(r["true_epsilon"]),
                          r["verdict"], "—" if r["interval"] is None else
                          f"[{_fmt(r['interval'][0])}, {_fmt(r['interval'][1])}]",
                          r.get("contains_truth", "—"), ",".join(k[:12] for k in r["kinds"]),
                          f"{r['trace_seconds']:.2f}", r.get("blackbox_verdict", "—"),
                          _fmt(r.get("blackbox_epsilon_lower")),
                          "—" if "blackbox_seconds" not in r else
                          f"{r['blackbox_seconds']:.2f}",
                          "—" if "blackbox_seconds" not in r else
                          f"{r['blackbox_seconds'] / r['trace_seconds']:.1f}×"]
                         for r in rows], "llrllllrlrrr")
            print()
        print(summary(out))
        for r in out["deployments"]:
            print(f"  {r['path']:55s} {r['verdict']:12s} {r['seconds']:.2f} s")
        print(f"total {out['seconds']:.0f} s on {out['machine']}")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(_markdown(out) + "\n")


if __name__ == "__main__":
    main()
