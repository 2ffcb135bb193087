"""Mutation study of the test suite over ``privtools.noise`` and ``privtools.protocol``.

    python studies/mutation_study.py [--modules PATH ...] [--tests PATH ...]
        [--sample N --seed S] [--workers W] [--markdown docs/tables/mutation.md] [--json FILE]

Built on cosmic-ray (``pip install -e ".[mutation]"``). The live tree is never mutated: the
repository (without ``.venv``/``.git``/caches) is copied to a temporary directory and every
test run imports the copy (``PYTHONPATH`` first). Steps:

1. *Trace.* The test pool runs once on the unmutated copy (the baseline: every test must
   pass) with a call tracer that records, per test, the code objects of the mutated modules
   it executes (function granularity) and its duration; code run while a test file is
   collected is charged to every test of that file.
2. *Session.* ``cosmic-ray init`` over the modules, then ``cr-filter-operators`` keeps the
   privacy-relevant operators (:data:`OPERATORS`); mutants inside f-strings, ``raise``
   arguments and message/representation functions (:data:`MESSAGE_FUNCTIONS`) are skipped as
   message-only; ``--sample N`` keeps a uniform random sample of the rest (``--seed``).
   Sampled mutants whose AST equals the original's are equivalent by construction and
   those that do not compile are incompetent; neither is run.
3. *Pass 1.* ``cosmic-ray exec`` with a test command that identifies the applied mutant
   (hash of the mutated file) and runs ``pytest -x`` on the tests that executed the
   enclosing function, fastest first, under a per-mutant timeout (``--timeout-factor`` times
   their traced duration plus ``--timeout-grace``). A mutant in module-level code gets every
   test that executes code of its module or of a pool module importing it.
4. *Pass 2* (``--confirm users``, the default). Survivors of pass 1 run again, in a second
   cosmic-ray session, against every pool test that executes any code of their module.
5. *Report.* Killed / survived / timeout (a timeout counts as killed) / incompetent, per
   module and per operator, with the Clopper–Pearson 95 % interval of the kill fraction for
   a sample; survivors with the explanations of ``studies/mutation_explanations.py``.

The sources of the live tree are hashed before and after; the copy is checked to be
restored after every ``cosmic-ray exec``; any difference aborts loudly.
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import json
import random
import shlex
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

# sibling modules (this script's directory is on sys.path when it runs)
from _mutation_catalog import FAMILIES, OPERATORS, Selector, _message_only
from _mutation_report import _fraction_line, annotate, write_markdown
from _mutation_runner import (
    _ACTIVE,
    _STOP,
    MARK,
    REPO,
    StudyError,
    _allow_regex,
    _checksums,
    _clock,
    _copy_repo,
    _items,
    _progress,
    _resolve_modules,
    _resolve_tests,
    _results,
    _say,
    _sha,
    _skip,
    _stop_children,
    _write_config,
    init_session,
    run_pass,
    run_selected,
    trace_pool,
)

DEFAULT_MODULES = ("privtools/noise", "privtools/protocol")
DEFAULT_TESTS = (
    "tests/privtools/noise/test_noise_exact.py",
    "tests/privtools/noise/test_noise_float.py",
    "tests/privtools/noise/test_noise_sampling.py",
    "tests/privtools/noise/test_exact_sampling.py",
    "tests/privtools/noise/samplers/test_fixed_sampling.py",
    "tests/privtools/noise/test_law_contract.py",
    "tests/verification/test_tails.py",
    "tests/privtools/exact/test_exact_sum.py",
    "tests/privtools/exact/test_divergence.py",
    "tests/privtools/exact/test_gaussian_sum_divergence.py",
    "tests/privtools/planning/test_plan.py",
    "tests/privtools/test_validation.py",
    "tests/privtools/protocol/test_protocol.py",
    "tests/privtools/protocol/test_secure.py",
    "tests/privtools/noise/test_mutation_kills.py",
    "tests/privtools/noise/test_certified_searches.py",
    "tests/privtools/noise/test_certified_tightness.py",
)

# ------------------------------------------------------------------------------- main
def _diff_lines(original: str, mutated: str) -> tuple[int, str, str]:
    a, b = original.splitlines(), mutated.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i + 1, x, y
    return 0, "", ""


def study(args: argparse.Namespace) -> dict:
    import cosmic_ray
    import parso
    from _machine import describe  # sibling module
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    started = time.monotonic()
    phase = {}
    modules = _resolve_modules(args.modules)
    tests = _resolve_tests(args.tests)
    live_before = _checksums(REPO, modules)
    base = Path(tempfile.mkdtemp(prefix="mutation-study-", dir=args.workdir))
    _say(f"work directory: {base}")
    try:
        root = base / "repo0"
        _say(f"[1/5] copying {REPO} and tracing the test pool ({len(tests)} files)")
        t0 = time.monotonic()
        _copy_repo(root)
        pristine = _checksums(root, modules)
        if pristine != live_before:
            raise StudyError("the working tree changed while it was being copied; rerun")
        trace = trace_pool(root, modules, tests, base)
        order = sorted(trace["durations"])
        pool_seconds = sum(trace["durations"].values())
        phase["trace"] = time.monotonic() - t0
        _say(f"  {len(order)} tests pass unmutated in {pool_seconds:.1f} s (traced)")

        _say("[2/5] cosmic-ray session")
        t0 = time.monotonic()
        selector = Selector(trace, order, modules, root)
        map_path = base / "map0.json"
        command = shlex.join([sys.executable, str(base / "mutation_study.py"), "--_run",
                              str(map_path), "--_mode", "select"])
        for script in (Path(__file__), *Path(__file__).parent.glob("_mutation_*.py")):
            shutil.copy2(script, base / script.name)  # the test command and its modules
        config, session = init_session(root, base, "pass1", modules, command,
                                       args.session_timeout)
        items = _items(session)
        trees = {m: parso.parse((root / m).read_text(encoding="utf-8")) for m in modules}
        population, skip = [], {}
        message_only = 0
        for item, done in items:
            mut = item.mutations[0]
            if done:
                continue
            rel = Path(mut.module_path).as_posix()
            if _message_only(trees[rel], mut.start_pos):
                skip[item.job_id] = "message-only position"
                message_only += 1
                continue
            population.append(item)
        population.sort(key=lambda it: (str(it.mutations[0].module_path),
                                        it.mutations[0].start_pos,
                                        it.mutations[0].operator_name,
                                        it.mutations[0].occurrence))
        if args.sample and args.sample < len(population):
            chosen = random.Random(args.seed).sample(population, args.sample)
        else:
            chosen = list(population)
        chosen_ids = {it.job_id for it in chosen}
        for it in population:
            if it.job_id not in chosen_ids:
                skip[it.job_id] = "not in the sample"
        sources = {m: (root / m).read_text(encoding="utf-8") for m in modules}
        asts = {m: ast.dump(ast.parse(src)) for m, src in sources.items()}
        mutants, entries = [], {}
        for it in sorted(chosen, key=lambda it: (str(it.mutations[0].module_path),
                                                 it.mutations[0].start_pos)):
            mut = it.mutations[0]
            rel = Path(mut.module_path).as_posix()
            op = get_operator(mut.operator_name)(**(mut.operator_args or {}))
            code = mutate_code(sources[rel], op, mut.occurrence)
            line, orig_line, new_line = _diff_lines(sources[rel], code or "")
            rec = {"job": it.job_id, "module": rel, "line": mut.start_pos[0],
                   "col": mut.start_pos[1], "operator": mut.operator_name,
                   "family": OPERATORS[mut.operator_name], "occurrence": mut.occurrence,
                   "original": orig_line, "mutated": new_line, "status": None,
                   "first_failure": "", "seconds": None, "tests": None, "scope": None}
            if code is None:
                rec["status"] = "incompetent"
                skip[it.job_id] = "no mutation applied"
            else:
                try:
                    same = ast.dump(ast.parse(code)) == asts[rel]
                    compile(code, rel, "exec")
                except (SyntaxError, ValueError):
                    rec["status"] = "incompetent"
                    skip[it.job_id] = "mutant does not compile"
                else:
                    if same:
                        rec["status"] = "same-ast"
                        skip[it.job_id] = "same AST as the original"
                    else:
                        sel, users, scope = selector.select(rel, mut.start_pos)
                        rec["scope"] = scope
                        rec["hash"] = _sha(code.encode("utf-8"))
                        entry = entries.setdefault(rec["hash"], {"select": set(),
                                                                 "users": set()})
                        entry["select"].update(sel)
                        entry["users"].update(users)
            mutants.append(rec)
        _skip(session, skip)
        progress = base / "progress.jsonl"
        mapping = {
            "tests": order,
            "durations": [trace["durations"][t] for t in order],
            "timeout_factor": args.timeout_factor,
            "timeout_grace": args.timeout_grace,
            "progress": str(progress),
            "pristine": pristine,
            "mutants": {h: {k: selector._ordered({order[i] for i in v})
                            for k, v in e.items()} for h, e in entries.items()},
        }
        runnable = [m for m in mutants if m["status"] is None]
        _say(f"  population {len(population)} (+{message_only} message-only); "
             f"running {len(runnable)} of {len(chosen)} chosen "
             f"({sum(m['status'] == 'same-ast' for m in mutants)} same-AST, "
             f"{sum(m['status'] == 'incompetent' for m in mutants)} incompetent)")

        n_workers = max(1, min(args.workers, len(runnable) or 1))
        workers = []
        for w in range(n_workers):
            wroot = base / f"repo{w}"
            if w:
                _copy_repo(wroot)
            wmap = base / f"map{w}.json"
            active = base / f"active{w}"
            _ACTIVE.append(active)
            wmap.write_text(json.dumps(dict(mapping, repo=str(wroot), active=str(active))))
            workers.append({"root": wroot, "map": wmap, "modules": modules,
                            "pristine": pristine, "log": base / f"exec{w}.log", "jobs": []})
        for i, m in enumerate(sorted(runnable, key=lambda m: m["job"])):
            workers[i % n_workers]["jobs"].append(m["job"])

        def prepare(name: str, mode: str, jobs_of: list[list[str]]) -> None:
            for w, jobs in zip(workers, jobs_of):
                w["jobs"] = jobs
                cmd = shlex.join([sys.executable, str(base / "mutation_study.py"), "--_run",
                                  str(w["map"]), "--_mode", mode])
                if name == "pass1" and w is workers[0]:
                    cfg, ses = config, session
                    _write_config(cfg, modules, cmd, args.session_timeout, _allow_regex())
                else:
                    cfg = base / f"{name}-{w['root'].name}.toml"
                    ses = base / f"{name}-{w['root'].name}.sqlite"
                    _write_config(cfg, modules, cmd, args.session_timeout, _allow_regex())
                    shutil.copy2(session, ses)
                keep = set(jobs)
                others = {m["job"]: "run in another pass or worker" for m in runnable
                          if m["job"] not in keep}
                if name != "pass1" or w is not workers[0]:
                    _reset(ses, keep)
                _skip(ses, others)
                w["config"], w["session"] = cfg, ses

        prepare("pass1", "select", [w["jobs"] for w in workers])
        phase["session"] = time.monotonic() - t0

        _say(f"[3/5] pass 1: {len(runnable)} mutants, {n_workers} worker(s)")
        t0 = time.monotonic()
        run_pass("pass 1", "select", workers, [m["job"] for m in runnable], progress, started,
                 sources)
        phase["pass1"] = time.monotonic() - t0
        results = {}
        for w in workers:
            results.update(_results(w["session"]))
        rows = {r["hash"]: r for r in _progress(progress, "select") if r["hash"]}
        survivors = []
        for m in runnable:
            _apply_result(m, results.get(m["job"]), rows.get(m.get("hash")))
            if m["status"] == "survived":
                m["pass2_candidate"] = args.confirm == "users"
                survivors.append(m)

        t0 = time.monotonic()
        if args.confirm == "users" and survivors:
            limit = args.confirm_minutes
            _say(f"[4/5] pass 2: {len(survivors)} survivors against every test that executes "
                 "their module" + (f" (at most {limit:g} min)" if limit else ""))
            split = [[] for _ in workers]
            for i, m in enumerate(survivors):
                split[i % n_workers].append(m["job"])
            prepare("pass2", "users", split)
            run_pass("pass 2", "users", workers, [m["job"] for m in survivors], progress,
                     started, sources, limit or None)
            results = {}
            for w in workers:
                results.update(_results(w["session"]))
            rows = {r["hash"]: r for r in _progress(progress, "users") if r["hash"]}
            for m in survivors:
                _apply_result(m, results.get(m["job"]), rows.get(m.get("hash")), confirm=True)
        else:
            _say("[4/5] pass 2: nothing to confirm" if args.confirm == "users"
                 else "[4/5] pass 2: skipped")
        phase["pass2"] = time.monotonic() - t0
    finally:
        _stop_children()
        if args.keep_workdir:
            _say(f"work directory kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    live_after = _checksums(REPO, modules)
    if live_after != live_before:
        bad = [m for m in modules if live_after[m] != live_before[m]]
        raise StudyError(f"sources of the working tree changed during the study: {bad} "
                         "(not by this study, which mutates only its copy; results may be "
                         "stale)")

    _say("[5/5] report")
    summary = collections.Counter()
    per_module = {mod: collections.Counter() for mod in modules}
    for it in population:
        per_module[Path(it.mutations[0].module_path).as_posix()]["population"] += 1
    per_family = {fam: collections.Counter() for fam in FAMILIES}
    per_operator = collections.defaultdict(collections.Counter)
    for m in mutants:
        st = m["status"]
        summary["sampled"] += 1
        for table in (per_module[m["module"]], per_family[m["family"]],
                      per_operator[m["operator"].removeprefix("core/")], summary):
            if st in ("killed", "survived"):
                table["run"] += 1
                table[st] += 1
                table["timeout"] += m["timeout"]
                table["collection"] += m["collection"]
            elif st == "incompetent":
                table["incompetent"] += 1
            elif st == "same-ast":
                table["same_ast"] += 1
    summary["population"] = len(population)
    summary["message_only"] = message_only
    ran = [m for m in mutants if m["status"] in ("killed", "survived") and m["seconds"]]
    seconds = sorted(m["seconds"] for m in ran)
    ntests = sorted(m["tests"] for m in ran)
    argv = [a for a in sys.argv[1:]]
    rep = {
        "command": "python studies/mutation_study.py" + (" " + shlex.join(argv) if argv
                                                         else ""),
        "cosmic_ray": getattr(cosmic_ray, "__version__", _dist_version("cosmic-ray")),
        "machine": describe(),
        "date": datetime.date.today().isoformat(),
        "workers": n_workers,
        "wall_seconds": time.monotonic() - started,
        "phase_seconds": {k: phase.get(k, 0.0) for k in ("trace", "session", "pass1",
                                                         "pass2")},
        "modules": modules,
        "tests": tests,
        "pool_tests": len(order),
        "pool_seconds": pool_seconds,
        "sampled": bool(args.sample and args.sample < len(population)),
        "seed": args.seed,
        "confirm": args.confirm,
        "timeout_factor": args.timeout_factor,
        "timeout_grace": args.timeout_grace,
        "median_seconds": seconds[len(seconds) // 2] if seconds else 0.0,
        "median_tests": ntests[len(ntests) // 2] if ntests else 0,
        "summary": {k: summary[k] for k in ("population", "message_only", "sampled",
                                            "same_ast", "incompetent", "killed", "survived",
                                            "timeout", "collection")},
        "per_module": {k: {f: v[f] for f in ("population", "run", "killed", "survived",
                                             "timeout", "incompetent")}
                       for k, v in per_module.items()},
        "per_family": {k: {f: v[f] for f in ("run", "killed", "survived", "timeout")}
                       for k, v in per_family.items()},
        "per_operator": {k: {f: v[f] for f in ("run", "killed", "survived")}
                         for k, v in sorted(per_operator.items())},
        "pass2": {"candidates": sum(1 for m in mutants if m.get("pass2_candidate")),
                  "rerun": sum(1 for m in mutants if m.get("confirmed")),
                  "killed": sum(1 for m in mutants if m.get("pass") == 2
                                and m["status"] == "killed"),
                  "minutes": args.confirm_minutes},
        "mutants": mutants,
    }
    return rep


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def _reset(session: Path, jobs: set[str]) -> None:
    """Drop the results of ``jobs`` so that ``cosmic-ray exec`` runs them again."""
    import sqlite3

    con = sqlite3.connect(session)
    try:
        con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in jobs])
        con.commit()
    finally:
        con.close()


def _apply_result(m: dict, result, row: dict | None, confirm: bool = False) -> None:
    """Set a mutant's status from its cosmic-ray result and the test command's record."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    if confirm and (result is None or result.worker_outcome == WorkerOutcome.SKIPPED):
        m["confirmed"] = False  # pass 2 stopped before this mutant
        return
    m["confirmed"] = confirm
    if result is None or result.worker_outcome in (WorkerOutcome.EXCEPTION,
                                                   WorkerOutcome.ABNORMAL,
                                                   WorkerOutcome.NO_TEST) \
            or result.test_outcome == TestOutcome.INCOMPETENT:
        m["status"] = "incompetent"
        m["timeout"] = m["collection"] = 0
        return
    output = result.output or ""
    m["status"] = "killed" if result.test_outcome == TestOutcome.KILLED else "survived"
    m["timeout"] = int(output == "timeout" or f"{MARK} outcome=timeout" in output)
    m["collection"] = int(f"{MARK} outcome=killed-collection" in output)
    if row:
        m["first_failure"] = row["first_failure"]
        m["seconds"] = row["seconds"] if not confirm else m["seconds"]
        m["tests"] = row["tests"] if not confirm else m["tests"]
        if row["outcome"] == "not-executed":
            m["scope"] = f"{m['scope']} (not executed)"
    m["pass"] = 2 if confirm else 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Mutation study (cosmic-ray) of the test suite over privtools.noise and "
                    "privtools.protocol.")
    p.add_argument("--modules", nargs="+", default=list(DEFAULT_MODULES), metavar="PATH",
                   help="files or packages to mutate, relative to the repository "
                        "(default: %(default)s)")
    p.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS), metavar="PATH",
                   help="the test pool (files or node ids)")
    p.add_argument("--sample", type=int, default=0, metavar="N",
                   help="run a uniform random sample of N mutants (0: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help="parallel cosmic-ray sessions, each on its own copy (default 1)")
    p.add_argument("--timeout-factor", type=float, default=3.0,
                   help="per-mutant timeout: this times the traced time of its tests ...")
    p.add_argument("--timeout-grace", type=float, default=30.0,
                   help="... plus this many seconds (default 30)")
    p.add_argument("--session-timeout", type=float, default=3600.0,
                   help="cosmic-ray's own timeout per mutant, a safety net (default 3600 s)")
    p.add_argument("--confirm", choices=("users", "none"), default="users",
                   help="pass 2 for survivors: every pool test that executes their module")
    p.add_argument("--confirm-minutes", type=float, default=0.0, metavar="M",
                   help="stop pass 2 after M minutes (0: no limit); survivors it did not "
                        "reach are reported as pass-1 survivors")
    p.add_argument("--markdown", type=Path, metavar="FILE", help="write the report here")
    p.add_argument("--json", type=Path, metavar="FILE", help="write every result here")
    p.add_argument("--workdir", type=Path, default=None,
                   help="parent of the temporary work directory (default: system temp)")
    p.add_argument("--keep-workdir", action="store_true",
                   help="keep the copies and cosmic-ray sessions")
    p.add_argument("--from-json", type=Path, metavar="FILE",
                   help="do not run: re-render the report of a previous --json with the "
                        "current explanations (with --markdown)")
    p.add_argument("--_run", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--_mode", default="select", help=argparse.SUPPRESS)
    return p


def _on_term(signum, frame):
    _STOP.append(signum)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args._run:
        return run_selected(args._run, args._mode)
    if args.from_json:
        if not args.from_json.exists():
            raise SystemExit(f"--from-json: {args.from_json} does not exist")
        rep = annotate(json.loads(args.from_json.read_text()))
        return _finish(rep, args)
    if args.sample < 0:
        raise SystemExit("--sample must be >= 0")
    if args.workers < 1:
        raise SystemExit("--workers must be >= 1")
    if args.timeout_factor <= 0 or args.timeout_grace < 0:
        raise SystemExit("--timeout-factor must be > 0 and --timeout-grace >= 0")
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        raise SystemExit("cosmic-ray is not installed: pip install -e \".[mutation]\"") from None
    signal.signal(signal.SIGTERM, _on_term)
    try:
        rep = study(args)
    except KeyboardInterrupt:
        _stop_children()
        print("interrupted; the working tree was never mutated (only a temporary copy)",
              file=sys.stderr)
        return 130
    except StudyError as exc:
        _stop_children()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return _finish(annotate(rep), args)


def _finish(rep: dict, args: argparse.Namespace) -> int:
    """Print the totals and survivors; write the JSON and Markdown reports."""
    s = rep["summary"]
    n = s["killed"] + s["survived"]
    _say(f"killed {s['killed']} (timeouts {s['timeout']}), survived {s['survived']}, "
         f"incompetent {s['incompetent']}, same-AST {s['same_ast']}: "
         f"{_fraction_line(s['killed'], n, rep['sampled'])}")
    for sv in rep["survivors"]:
        _say(f"  survivor {sv['module']}:{sv['line']} {sv['operator']}: "
             f"{sv['original'].strip()}  ->  {sv['mutated'].strip()}"
             f"{'  [' + sv['category'] + '] ' + sv['explanation'] if sv['category'] else ''}")
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1, default=str))
        _say(f"wrote {args.json}")
    if args.markdown:
        write_markdown(args.markdown, rep)
        _say(f"wrote {args.markdown}")
    _say(f"wall time {_clock(rep['wall_seconds'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
