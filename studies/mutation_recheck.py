"""Re-check the survivors of a mutation study at the current sources.

    python studies/mutation_recheck.py [--report docs/tables/mutation.md]
        [--tests PATH ...] [--markdown docs/tables/mutation_recheck.md] [--json FILE]

``studies/mutation_study.py`` samples mutants and reports the ones its test pool left alive,
each with a category (``studies/mutation_explanations.py``). This script takes the
survivors of a published report whose category is neither *equivalent* nor *performance*
(the ones that matter: *conservative*, *tolerance*, *guess*, *message*, *gap*), applies each
one again to a temporary copy of the current tree — found by its source line, since line
numbers drift — and runs the given tests (default: the pool's exact-oracle kill tests) on
it. A mutant is *killed* when the tests fail on it, *survived* when they pass; a mutant
whose original line no longer occurs in its module is *not found* and counted as neither;
a line that occurs several times is taken nearest to the report's line number shifted by
the module's median drift. The unmutated copy must pass first.

The live tree is never touched. The kill fraction of the report's sample is then
(killed by the study + killed here) / (run − equivalent − performance).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _mutation_report import clopper_pearson  # noqa: E402

MATTER = ("conservative", "tolerance", "guess", "message", "gap")
DEFAULT_TESTS = (
    "tests/privtools/noise/test_mutation_kills.py",
    "tests/privtools/noise/test_certified_searches.py",
    "tests/privtools/noise/test_certified_tightness.py",
)
_SKIP = (".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "_build", "node_modules",
         ".ruff_cache", "dist", "build")


def _cell(text: str) -> str:
    text = text.strip()
    if text.startswith("`") and text.endswith("`"):
        text = text[1:-1]
    return text.replace("\\|", "|")


def _split_row(line: str) -> list[str]:
    cells, cur, i = [], "", 1
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cur += "\\|"
            i += 2
            continue
        if line[i] == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += line[i]
        i += 1
    return cells


def survivors(report: Path) -> tuple[list[dict], dict]:
    """The survivors that matter in a mutation report, and its summary counts."""
    text = report.read_text(encoding="utf-8")
    if "## Survivors" not in text:
        raise SystemExit(f"--report: {report} has no survivors table")
    table = text.split("## Survivors", 1)[1].split("\n## ", 1)[0]
    out, counts = [], {}
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        c = _split_row(line)
        where, op, change, _, why = (x.strip() for x in c[:5])
        kind = why.split(":", 1)[0].strip()
        counts[kind] = counts.get(kind, 0) + 1
        if kind not in MATTER:
            continue
        original, mutated = change.split(" → ", 1)
        module = _cell(where).rsplit(":", 1)[0]
        out.append({"module": module, "line": int(_cell(where).rsplit(":", 1)[1]),
                    "operator": op, "original": _cell(original), "mutated": _cell(mutated),
                    "kind": kind})
    m = re.search(r"Killed: (\d+) .*?survived: (\d+)", text)
    summary = {"killed": int(m.group(1)), "survived": int(m.group(2)),
               "kinds": counts}
    return out, summary


def _copy_tree(dst: Path) -> Path:
    def ignore(_, names):
        return [n for n in names if n in _SKIP]
    shutil.copytree(ROOT, dst, ignore=ignore)
    return dst


def _run_tests(tree: Path, tests, timeout: float) -> tuple[bool, str]:
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": str(tree),
           "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    tail = (r.stdout.strip().splitlines() or [""])[-1]
    return r.returncode == 0, tail


def _shifts(tree: Path, mutants) -> dict:
    """Per module, the median drift of line numbers, read off the mutants whose source line
    occurs exactly once (so that a line that occurs several times is taken nearest to where
    the report saw it)."""
    out = {}
    for module in {mu["module"] for mu in mutants}:
        lines = (tree / module).read_text(encoding="utf-8").splitlines()
        drift = []
        for mu in mutants:
            hits = [i for i, ln in enumerate(lines) if ln.strip() == mu["original"]]
            if mu["module"] == module and len(hits) == 1:
                drift.append(hits[0] + 1 - mu["line"])
        out[module] = sorted(drift)[len(drift) // 2] if drift else 0
    return out


def _nearest(hits, mu, shifts) -> int:
    want = mu["line"] + shifts.get(mu["module"], 0) - 1
    return min(hits, key=lambda i: abs(i - want))


def recheck(mutants, tests, timeout: float) -> list[dict]:
    """Apply each mutant to a fresh copy of the tree and run ``tests`` on it."""
    with tempfile.TemporaryDirectory(prefix="mutation_recheck_") as tmp:
        tree = _copy_tree(Path(tmp) / "tree")
        ok, tail = _run_tests(tree, tests, timeout)
        if not ok:
            raise SystemExit(f"the tests fail on the unmutated tree: {tail}")
        results, shifts = [], _shifts(tree, mutants)
        for mu in mutants:
            path = tree / mu["module"]
            src = path.read_text(encoding="utf-8")
            lines = src.splitlines(keepends=True)
            hits = [i for i, ln in enumerate(lines) if ln.strip() == mu["original"]]
            row = dict(mu)
            if not hits:
                row.update(status="not found", detail="no matching line")
                results.append(row)
                continue
            i = _nearest(hits, mu, shifts)
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = indent + mu["mutated"] + "\n"
            path.write_text("".join(lines), encoding="utf-8")
            try:
                passed, tail = _run_tests(tree, tests, timeout)
            finally:
                path.write_text(src, encoding="utf-8")
            row.update(status="survived" if passed else "killed", detail=tail,
                       now_line=i + 1)
            results.append(row)
            print(f"{row['status']:>9}  {mu['module']}:{i + 1}  {mu['kind']}", flush=True)
    return results


def markdown(results, summary, report: Path, tests, seconds: float) -> str:
    kinds = summary["kinds"]
    n = summary["killed"] + summary["survived"]
    matter = n - kinds.get("equivalent", 0) - kinds.get("performance", 0)
    killed_now = sum(r["status"] == "killed" for r in results)
    k = summary["killed"] + killed_now
    lo, hi = clopper_pearson(k, matter)
    lines = [
        "# Mutation survivors re-checked at the current sources", "",
        f"Generated by `python studies/mutation_recheck.py --report {report.relative_to(ROOT)} "
        "--markdown docs/tables/mutation_recheck.md`. Do not edit by hand.", "",
        f"The survivors of [the mutation study](mutation.md) that matter (neither equivalent "
        f"nor performance-only: {len(results)}) applied again, one at a time, to a copy of "
        f"the current tree, against {', '.join(f'`{t}`' for t in tests)}; {seconds:.0f} s.",
        "",
        f"* Killed now: {killed_now} of {len(results)}; still surviving: "
        f"{sum(r['status'] == 'survived' for r in results)}; not found at the current "
        f"sources: {sum(r['status'] == 'not found' for r in results)}.",
        f"* **The study's sample with these kills: {k}/{matter} of the mutants that are "
        f"neither equivalent nor performance-only = {100 * k / matter:.1f} % "
        f"(Clopper–Pearson 95 %: {100 * lo:.1f} % – {100 * hi:.1f} %).**", "",
        "| where now | kind | original → mutated | status |", "|---|---|---|---|"]
    for r in results:
        where = f"{r['module']}:{r.get('now_line', r['line'])}"
        orig, mut = (r[k].replace("|", "\\|") for k in ("original", "mutated"))
        lines.append(f"| `{where}` | {r['kind']} | `{orig}` → `{mut}` | {r['status']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--report", type=Path, default=ROOT / "docs/tables/mutation.md",
                    help="the mutation study's Markdown report (default: %(default)s)")
    ap.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS), metavar="PATH")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per test run")
    ap.add_argument("--markdown", type=Path, default=None, help="write the table here")
    ap.add_argument("--json", type=Path, default=None, help="write every result here")
    args = ap.parse_args(argv)
    if not args.report.exists():
        raise SystemExit(f"--report: {args.report} does not exist")
    if args.timeout <= 0:
        raise SystemExit("--timeout must be > 0")
    report = args.report.resolve()
    mutants, summary = survivors(report)
    t0 = time.perf_counter()
    results = recheck(mutants, args.tests, args.timeout)
    took = time.perf_counter() - t0
    page = markdown(results, summary, report, args.tests, took)
    print(page.split("| where now")[0])
    if args.markdown:
        args.markdown.write_text(page, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
