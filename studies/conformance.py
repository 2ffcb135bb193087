"""Conformance of third-party differential-privacy libraries: their laws and their claims.

Every mechanism is audited twice with the black-box auditors of :mod:`verification.audit`:

* its **law** — ``audit_sampler`` on the noise it adds to 0, against the law its
  documentation claims, with the library's parameterisation translated exactly (integer
  mechanisms against privtools' exact ``DiscreteLaplace`` / ``DiscreteGaussian``, float
  mechanisms against ``scipy.stats``);
* its **privacy claim** — ``audit_mechanism`` on the neighbouring query answers 0 and 1
  (sensitivity 1) and 2^20 and 2^20 + 1 (where float artefacts grow), at ε ∈ {0.1, 1, 3, 10}
  and, for the approximate-DP mechanisms, δ ∈ {1e-6, 1e-3, 0.1}.

Libraries, each where installed (otherwise the table says so): OpenDP (``make_laplace``,
``make_geometric``, ``make_gaussian`` on float and integer domains), diffprivlib
(``diffprivlib.mechanisms``), python-dp (``pydp.algorithms.numerical_mechanisms``), and the
numpy share samplers people write for distributed DP — Pólya shares
``rng.negative_binomial(r, 1 - exp(-1/s))`` with fractional r, their differences (the share
of the discrete Laplace, Theorem 1 of paper 000) and Skellam shares
``rng.poisson(mu) - rng.poisson(mu)`` — with the sums of n shares against the laws they
should sum to.

Privacy audits of float outputs also try the auditor's bit-level events (``bits=True``;
``--no-bits`` audits the real-arithmetic algorithm
only), so they judge the doubles a library returns (Mironov, CCS 2012). Laws are audited in
real arithmetic.

Every row is tested at level α = 0.01 / m, m the number of rows of the full grid of the
mode (Bonferroni), so the chance of any false alarm anywhere in the table is at most 1 %.
Each row has its own seed, derived from ``--seed`` and the row's id, so one row can be
repeated alone with ``--only ROW_ID``; the draws repeat bit for bit where the library can be
seeded (numpy, diffprivlib), not where it uses its own randomness (OpenDP, python-dp).

Usage::

    python studies/conformance.py                  # full grid -> docs/tables/conformance.md
    python studies/conformance.py --quick          # reduced grid, about a minute
    python studies/conformance.py --only diffprivlib.Laplace --json out.json
    python studies/conformance.py --only 'opendp.gaussian_float/privacy/*'
    python studies/conformance.py --list           # the row ids

``--only`` takes comma-separated library names, mechanism keys, row ids or shell patterns
over row ids. Runs of a selection or of ``--quick`` print the markdown unless ``--markdown``
is given, so they never overwrite the full table.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import fnmatch  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from fractions import Fraction  # noqa: E402
from multiprocessing import get_context  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

# sibling modules (this script's directory is on sys.path when it runs); the samplers, loaders
# and transforms are also this script's names for the code that imports it
from _conformance_libraries import (  # noqa: E402, F401
    LIBRARIES,
    _library,
    bounded_pit,
    load_diffprivlib,
    load_opendp,
    load_pydp,
    polya_difference_share,
    polya_share,
    rounded_laplace_table,
    share_sum,
    skellam_share,
    truncated_pit,
)
from _conformance_report import _library_status, to_markdown  # noqa: E402
from _conformance_targets import ENTRIES, ENTRY, _fmt  # noqa: E402
from _machine import describe  # noqa: E402

from privtools.errors import ParameterError  # noqa: E402
from privtools.validation import check_int  # noqa: E402
from verification.audit import audit_mechanism, audit_sampler  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MARKDOWN = "docs/tables/conformance.md"
FAMILY_ALPHA = 0.01                     # chance of any false alarm in the whole table
BIG = 2**20                             # the large-magnitude pair: 2^20 and 2^20 + 1

FULL = {"eps": (0.1, 1.0, 3.0, 10.0), "delta": (1e-6, 1e-3, 0.1),
        "law_eps": (0.1, 1.0, 10.0), "law_delta": 1e-3, "pairs": ((0, 1), (BIG, BIG + 1)),
        "shares_n": (16, 1024)}
QUICK = {"eps": (1.0,), "delta": (1e-3,), "law_eps": (1.0,), "law_delta": 1e-3,
         "pairs": ((0, 1),), "shares_n": (16,)}
QUICK_DRAWS = 20_000
SUM_DRAW_BUDGET = 10**8         # shares drawn per law audit of a sum of n shares (at most)


# ====================================================================== the grid
@dataclass(frozen=True)
class Row:
    """One audit: ``check`` is "law" or "privacy"; ``eps`` is n for the share-law rows."""

    id: str
    key: str
    check: str
    eps: float
    delta: float
    pair: tuple | None
    n_samples: int
    cost: float = field(default=0.0, compare=False)


def build_grid(quick: bool) -> list[Row]:
    """Every row of the mode, installed or not (so α = 0.01/m does not depend on what is
    installed)."""
    g = QUICK if quick else FULL
    rows = []
    for e in ENTRIES:
        if e.kind == "law":
            for n in g["shares_n"]:
                size = QUICK_DRAWS if quick else e.n_law
                if e.key.endswith("_sum"):
                    size = max(10_000, min(size, SUM_DRAW_BUDGET // n))
                rid = f"{e.key}/law/n={n}"
                rows.append(Row(rid, e.key, "law", n, 0.0, None, size,
                                size * e.cost_us * (n if e.key.endswith("_sum") else 1)))
            continue
        law_delta = g["law_delta"] if e.kind == "approx" else 0.0
        n_law = QUICK_DRAWS if quick else e.n_law
        n_priv = QUICK_DRAWS if quick else e.n_privacy
        for eps in g["law_eps"]:
            if eps > e.max_epsilon:
                continue
            claim = f"eps={_fmt(eps)}" + (f"/delta={law_delta:g}" if law_delta else "")
            rows.append(Row(f"{e.key}/law/{claim}", e.key, "law", eps, law_delta, None, n_law,
                            n_law * e.cost_us))
        deltas = g["delta"] if e.kind == "approx" else (0.0,)
        for eps in g["eps"]:
            if eps > e.max_epsilon:
                continue
            for delta in deltas:
                claim = f"eps={_fmt(eps)}" + (f"/delta={delta:g}" if delta else "")
                for pair in g["pairs"]:
                    x = "0" if pair[0] == 0 else "2^20"
                    rows.append(Row(f"{e.key}/privacy/{claim}/x={x}", e.key,
                                    "privacy", eps, delta, pair, n_priv,
                                    2 * n_priv * e.cost_us))
    return rows


def select(rows: list[Row], only: str | None) -> list[Row]:
    """The rows matching ``only`` (comma-separated library names, mechanism keys, row ids or
    shell patterns over row ids)."""
    if only is None:
        return rows
    if not isinstance(only, str) or not only.strip():
        raise ParameterError(f"only must be a non-empty selection, got {only!r}")
    pats = [p.strip() for p in only.split(",") if p.strip()]
    out = [r for r in rows if any(p in (ENTRY[r.key].library, r.key, r.id)
                                  or fnmatch.fnmatchcase(r.id, p) for p in pats)]
    if not out:
        raise ParameterError(f"only: no configuration matches {only!r}; library names are "
                             f"{sorted(LIBRARIES)}, keys e.g. {ENTRIES[0].key!r}")
    return out


def row_seed(seed: int, row_id: str) -> int:
    """The audit seed of a row: a function of ``--seed`` and the row's id only."""
    digest = hashlib.sha256(f"{seed}/{row_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


# ====================================================================== running a row
def run_row(row: Row, seed: int, alpha: float, bits: bool = True) -> dict:
    """Audit one row; returns the JSON-ready record (never raises for a library's error:
    the record says what went wrong). ``bits``: privacy audits of float outputs also try
    the bit-level events of the auditor (when it has them)."""
    e = ENTRY[row.key]
    rec = {"id": row.id, "library": e.library, "mechanism": e.label, "key": e.key,
           "check": row.check, "epsilon": row.eps if e.kind != "law" else None,
           "delta": row.delta, "pair": list(row.pair) if row.pair else None,
           "n_samples": row.n_samples, "seed": row_seed(seed, row.id), "alpha": alpha,
           "seeded": e.library in ("numpy", "diffprivlib"),
           "bits": bool(bits and row.check == "privacy" and not e.integer)}
    if e.kind == "law":
        rec["n_users"] = int(row.eps)
    lib = _library(e.library)
    if lib is None:
        rec.update(verdict="skipped", reason=f"{e.library} is not installed")
        return rec
    t0 = time.perf_counter()
    try:
        x0 = row.pair[0] if row.pair else 0
        built = e.build(lib, row.eps, row.delta, x0)
        rec["parameters"] = built.parameters
        rec["reference"] = built.reference_text
        if row.check == "law":
            res = audit_sampler(built.sampler, built.reference, row.n_samples,
                                rng=rec["seed"], alpha=alpha)
            rec.update(verdict=res.verdict, p_value=res.p_value, reason=res.reason,
                       tests={k: v["p_value"] for k, v in res.tests.items()},
                       worst=_worst(res.tests))
        else:
            res = audit_mechanism(built.mechanism, row.pair[0], row.pair[1], row.eps,
                                  row.n_samples, rng=rec["seed"], delta=row.delta,
                                  alpha=alpha, bits=rec["bits"])
            rec.update(verdict=res.verdict, epsilon_lower=res.epsilon_lower,
                       epsilon_estimate=res.epsilon_estimate,
                       epsilon_max_detectable=res.epsilon_max_detectable,
                       p_value=res.p_value, reason=res.reason,
                       event=res.event.describe() if res.event else None,
                       counts={k: res.counts.get(k) for k in
                               ("count_favoured", "count_other", "n_favoured", "n_other")},
                       family=res.selection.get("family"),
                       bit_event=_is_bit_event(res.event))
    except Exception as exc:  # a library refusing a configuration is a finding, not a crash
        rec.update(verdict="error", reason=f"{type(exc).__name__}: {exc}")
    rec["seconds"] = time.perf_counter() - t0
    return rec


def _is_bit_event(event) -> bool:
    """Whether the auditor's event reads the float encoding (a bit-level view)."""
    from verification.audit.events import Binade, BitClass, Lattice, LowBits

    return event is not None and isinstance(event.view, (LowBits, Binade, Lattice, BitClass))


def _worst(tests: dict) -> str:
    """The most telling detail of a law audit's tests, in words."""
    if not tests:
        return ""
    name, t = min(tests.items(), key=lambda kv: kv[1]["p_value"])
    if name == "tails" and t.get("thresholds"):
        th = t["thresholds"][0]
        return (f"tails: {th['tail']} seen {th['observed']} times, expected "
                f"{th['expected']:.4g}")
    if name == "moments":
        m = min((t["mean"], t["variance"]), key=lambda x: x["p_value"])
        which = "mean" if m is t["mean"] else "variance"
        return f"{which}: {m['observed']:.6g} vs {m['expected']:.6g} (z = {m['z']:.3g})"
    if name == "g_test" and t.get("worst_bins"):
        b = t["worst_bins"][0]
        where = b.get("bin", b.get("value"))
        return (f"G-test: worst bin {where} seen {b['observed']}, expected "
                f"{b['expected']:.4g}")
    if name == "ks_test":
        return f"KS statistic {t['statistic']:.3g}"
    return name


def _run_task(task):
    row, seed, alpha, bits = task
    return run_row(row, seed, alpha, bits)


# ====================================================================== main
def run(rows: list[Row], seed: int, alpha: float, workers: int, log=None,
        bits: bool = True) -> list[dict]:
    """Audit ``rows`` (longest first across ``workers`` processes); records in grid order."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    order = sorted(rows, key=lambda r: -r.cost)
    done: dict[str, dict] = {}
    total = len(rows)

    def report(rec):
        done[rec["id"]] = rec
        extra = ""
        if rec.get("epsilon_lower") is not None:
            extra = f" ε_lower = {rec['epsilon_lower']:.4g}"
        elif rec.get("p_value") is not None:
            extra = f" p = {rec['p_value']:.3g}"
        log(f"[{len(done)}/{total}] {rec['id']}: {rec['verdict']}{extra} "
            f"({rec.get('seconds', 0.0):.1f} s)")

    tasks = [(r, seed, alpha, bits) for r in order]
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            report(_run_task(t))
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_run_task, t) for t in tasks]
            for fut in as_completed(futures):
                report(fut.result())
    return [done[r.id] for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="reduced grid (ε = 1, δ = 1e-3, the pair 0/1, 20000 draws)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every record here")
    ap.add_argument("--markdown", default=None, metavar="PATH",
                    help=f"write the table here (default {DEFAULT_MARKDOWN} for the full, "
                    "unselected run; otherwise printed)")
    ap.add_argument("--seed", type=int, default=0, help="root seed of every row's audit")
    ap.add_argument("--only", default=None, metavar="NAME",
                    help="comma-separated libraries, mechanism keys, row ids or patterns")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes auditing rows in parallel (results do not depend on it)")
    ap.add_argument("--no-bits", action="store_true",
                    help="audit float mechanisms in real arithmetic only: no bit-level events")
    ap.add_argument("--list", action="store_true", help="list the row ids and exit")
    args = ap.parse_args(argv)
    seed = check_int("seed", args.seed, minimum=0)
    workers = check_int("workers", args.workers, minimum=1)
    grid = build_grid(args.quick)
    rows = select(grid, args.only)
    if args.list:
        print("\n".join(r.id for r in rows))
        return 0
    alpha = FAMILY_ALPHA / len(grid)
    t0 = time.perf_counter()
    bits = not args.no_bits
    records = run(rows, seed, alpha, workers, bits=bits)
    meta = {"quick": args.quick, "only": args.only, "seed": seed, "alpha": alpha,
            "bits": bits, "bits_requested": not args.no_bits,
            "n_rows": len(grid), "n_run": len(rows), "workers": workers,
            "seconds": time.perf_counter() - t0, "machine": describe(),
            "libraries": _library_status()}
    text = to_markdown(records, meta)
    target = args.markdown
    if target is None and not args.quick and args.only is None:
        target = str(ROOT / DEFAULT_MARKDOWN)
    if target is None:
        print(text)
    else:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(text, encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": records}, indent=1,
                                              default=_json_default), encoding="utf-8")
    return 0


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, Fraction):
        return str(x)
    return str(x)


if __name__ == "__main__":
    sys.exit(main())
