"""The auditor's own calibration and power, measured on the zoo.

Three studies, one page (``docs/tables/audit_zoo_calibration.md``):

1. **False alarms.** Every private entry of :mod:`verification.zoo` (the DP-Sniper, StatDP
   and float suites) and the curator suite's no-signal control is audited ``--seeds`` times
   by each tester — the fixed-size :func:`verification.audit.audit_mechanism`, the
   sequential :func:`verification.audit.audit_mechanism_sequential`, the pair search
   :func:`verification.audit.search_counterexample` over the entry's own pairs, the bits
   audit ``audit_mechanism(..., bits=True)`` (float outputs private at double precision) and
   the grey-box :func:`verification.audit.trace_mechanism` — at α = 0.01. Reported per
   tester and mechanism: fails k/N, the exact 95 % Clopper–Pearson interval and the
   one-sided binomial p-value of H0: rate ≤ α.
2. **Power.** Every non-private entry of the DP-Sniper and StatDP suites, on the pair a
   pilot search ranks first: the detection rate of the fixed and the sequential audit
   against draws per dataset (table and figure).
3. **Curator mechanisms** (:mod:`verification.zoo.curator`): what the fixed and sequential
   audits say at 10³ … 10⁶ draws on mechanisms that leak the data with probability p, and
   on a control whose output does not depend on the data.

Usage::

    python studies/audit_zoo_calibration.py --markdown docs/tables/audit_zoo_calibration.md
    python studies/audit_zoo_calibration.py --quick          # a handful of audits, < 1 min

``--json FILE`` saves the audit records with the run's command, machine and wall time;
``--from-json FILE`` writes the page (and figure) again from them without an audit; with
``--redo TESTER`` it first runs that tester's audits again (the same seeds a full run gives
them), for a change that touches one tester only.

Every audit has its own seed (``SeedSequence(--seed, spawn_key=…)``, see
``studies/_zoo_calibration_tasks.py``), so the page does not depend on ``--workers``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the sibling modules

from _machine import describe  # noqa: E402
from _zoo_calibration_report import markdown, plot_power, summarize  # noqa: E402
from _zoo_calibration_tasks import (  # noqa: E402
    Settings,
    Task,
    curator_tasks,
    false_alarm_tasks,
    pilot_tasks,
    power_tasks,
    quick_settings,
    run_task,
    warm_up,
)

__all__ = ["run", "summarize", "markdown", "plot_power", "Settings", "quick_settings",
           "main"]

SCRIPT = "studies/audit_zoo_calibration.py"
FIGURE = "audit_zoo_calibration.png"


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _follow(task: Task, rec: dict, s: Settings) -> list[Task]:
    """The tasks a finished one opens: a pilot search opens its mechanism's power audits."""
    if task.section == "pilot":
        return power_tasks(s, task.name, tuple(tuple(x) for x in rec["pair"]))
    return []


def run(s: Settings, workers: int = 1, log=_log) -> list[dict]:
    """Every audit of the settings, on ``workers`` processes (1: in this process); the
    records, sorted so that the result does not depend on the order audits finished in."""
    warm_up()     # before any fork: the pool's workers and the audits' children inherit it
    first = pilot_tasks(s) + sorted(false_alarm_tasks(s) + curator_tasks(s),
                                    key=lambda t: -t.cost())
    records: list[dict] = []
    t0, done, total = time.perf_counter(), 0, len(first)

    def note(rec):
        nonlocal done
        done += 1
        if log and (done % 200 == 0 or done == total):
            log(f"  {done}/{total} audits, {(time.perf_counter() - t0) / 60:.1f} min")

    if workers <= 1:
        queue = list(first)
        while queue:
            task = queue.pop(0)
            rec = run_task(task)
            records.append(rec)
            more = _follow(task, rec, s)
            total += len(more)
            queue = sorted(queue + more, key=lambda t: -t.cost())
            note(rec)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            queue = list(first)
            running: dict = {}
            while queue or running:
                while queue and len(running) < 2 * workers:
                    task = queue.pop(0)
                    running[pool.submit(run_task, task)] = task
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    task = running.pop(fut)
                    rec = fut.result()
                    records.append(rec)
                    more = _follow(task, rec, s)
                    if more:
                        total += len(more)
                        queue = sorted(queue + more, key=lambda t: -t.cost())
                    note(rec)
    return _ordered(records)


REDO = ("fixed", "sequential", "bits", "trace")


def redo(records: list[dict], s: Settings, tester: str, workers: int = 1,
         log=_log) -> list[dict]:
    """``records`` with every audit of ``tester`` run again — the same tasks and seeds a
    full run gives it, the power audits on the pairs the saved pilot searches chose — for a
    change that touches that tester only: the records are then those a full run of the
    current code gives. (The pair search is not redone alone: the pilots are searches.)"""
    if tester not in REDO:
        raise ValueError(f"--redo takes one of {', '.join(REDO)}, got {tester!r}")
    tasks = [t for t in false_alarm_tasks(s) + curator_tasks(s) if t.tester == tester]
    for rec in records:
        if rec["section"] == "pilot":
            pair = tuple(tuple(x) for x in rec["pair"])
            tasks += [t for t in power_tasks(s, rec["name"], pair) if t.tester == tester]
    tasks.sort(key=lambda t: -t.cost())
    warm_up()
    new, t0 = [], time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, rec in enumerate(pool.map(run_task, tasks), 1):
            new.append(rec)
            if log and (i % 200 == 0 or i == len(tasks)):
                mins = (time.perf_counter() - t0) / 60
                log(f"  {i}/{len(tasks)} {tester} audits, {mins:.1f} min")
    return _ordered([r for r in records if r["tester"] != tester] + new)


def _ordered(records: list[dict]) -> list[dict]:
    """The records in one order, whatever order the audits finished in."""
    return sorted(records, key=lambda r: (r["section"], r["tester"], r["name"], r["draws"],
                                          r["index"]))


def _command(args) -> str:
    cmd = f"python {SCRIPT}"
    if args.quick:
        cmd += " --quick"
    for flag, default in (("seeds", None), ("seed", None)):
        val = getattr(args, flag)
        if val is not default:
            cmd += f" --{flag} {val}"
    return cmd + (f" --markdown {args.markdown}" if args.markdown else "")


def _machine() -> str:
    m = describe()
    return (f"{m['platform']}, {m['cpu']}, {m['cores']} cores, Python {m['python']}, "
            f"numpy {m['numpy']}, scipy {m['scipy']}")


def main(argv=None) -> int:
    """The command line (see the module doc)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="a handful of mechanisms and seeds (< 1 min)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="false-alarm audits per mechanism and tester (default 100)")
    ap.add_argument("--seed", type=int, default=None, help="root seed (default 2411)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--markdown", default=None, help="write the page here")
    ap.add_argument("--figure", default=None,
                    help=f"the power figure (default: figures/{FIGURE} beside the page)")
    ap.add_argument("--json", default=None,
                    help="write the run's audit records (and its command, machine, time) here")
    ap.add_argument("--from-json", default=None, metavar="FILE",
                    help="no audits: write the page from the records --json saved")
    ap.add_argument("--redo", default=None, choices=REDO,
                    help="with --from-json: run this tester's audits again (same seeds) "
                         "and write the page from the updated records")
    args = ap.parse_args(argv)
    s = quick_settings() if args.quick else Settings()
    if args.seeds is not None:
        s = replace(s, seeds=args.seeds)
    if args.seed is not None:
        s = replace(s, seed=args.seed)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        records, run_meta = saved["records"], saved["meta"]
        if args.redo:
            t0 = time.perf_counter()
            records = redo(records, s, args.redo, args.workers)
            minutes = (time.perf_counter() - t0) / 60
            run_meta = {**run_meta, "audit_minutes": sum(r["seconds"] for r in records) / 60,
                        "redone": f"The {args.redo} audits were run again on their own seeds "
                                  f"after a change to that tester alone ({minutes:.1f} min); "
                                  "the wall time is the full run's."}
    else:
        t0 = time.perf_counter()
        records = run(s, args.workers)
        run_meta = {"command": _command(args), "machine": _machine(), "workers": args.workers,
                    "minutes": (time.perf_counter() - t0) / 60,
                    "audit_minutes": sum(r["seconds"] for r in records) / 60}
    summary = summarize(records, s)
    page = Path(args.markdown) if args.markdown else None
    figure = Path(args.figure) if args.figure else (
        (page.parent if page else Path(".")) / "figures" / FIGURE)
    plotted = plot_power(summary, s, figure)
    rel = os.path.relpath(figure, page.parent) if page else str(figure)
    meta = {**run_meta, "figure": rel if plotted else "(matplotlib not installed)"}
    text = markdown(summary, s, meta)
    if page:
        page.write_text(text, encoding="utf-8")
        _log(f"wrote {page} and {figure}")
    else:
        print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": run_meta, "records": records},
                                              indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
