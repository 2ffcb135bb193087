"""The generated tables and summaries the pages quote: where they are, the command that
regenerates each, and reading their cells."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from figures.formats import FigureError, _dec

ROOT = Path(__file__).resolve().parents[2]
HORIZON = 10**6

# the command that regenerates each generated table the pages quote
COMMANDS = {
    "docs/tables/plans.md": "python studies/make_plans_table.py --out docs/tables/plans.md",
    "docs/tables/pld_benchmark.md":
        "python benchmarks/bench_pld.py --markdown docs/tables/pld_benchmark.md",
    "docs/tables/bits.md": "python studies/fewest_bits.py --out docs/tables/bits.md",
    "docs/tables/figures/returning-users/table.md":
        "python studies/regret_vs_participations.py --out docs/tables/figures/returning-users",
    "docs/returning_users.md":
        "python studies/regret_vs_participations.py --out docs/tables/figures/returning-users "
        "(the caveats' spot checks are copied from its output)",
    "docs/tables/audit_benchmark.md":
        "python benchmarks/bench_audit_suite.py --markdown docs/tables/audit_benchmark.md",
    "docs/tables/audit_benchmark_svt_2e8.md":
        "python benchmarks/bench_audit_suite.py --only SVT1 SVT2 --test 2e8 --markdown "
        "docs/tables/audit_benchmark_svt_2e8.md",
    "docs/tables/audit_calibration.md": "python studies/audit_power.py --runs 100 "
                                 "--out docs/tables/audit_calibration.md",
    "docs/tables/audit_zoo_calibration.md":
        "python studies/audit_zoo_calibration.py --markdown docs/tables/audit_zoo_calibration.md"
        " (--workers 2; also writes docs/tables/figures/audit_zoo_calibration.png)",
    "docs/tables/float_attacks.md":
        "python benchmarks/bench_float_zoo.py --seeds 300 --draws 1000000 --control-draws "
        "500000 --seed 2012 --markdown docs/tables/float_attacks.md",
    "docs/tables/conformance.md": "python studies/conformance.py --seed 0",
    "docs/tables/sampling.md":
        "python benchmarks/bench_sampling.py --markdown docs/tables/sampling.md",
    "docs/tables/find_counterexample.md":
        "python benchmarks/bench_find_counterexample.py "
        "--markdown docs/tables/find_counterexample.md",
    "docs/tables/sequential.md":
        "python benchmarks/bench_sequential.py --seeds 100 --fixed-seeds 5 --fa-seeds 1000 "
        "--seed 0 --markdown docs/tables/sequential.md",
    "docs/tables/mutation.md": "python studies/mutation_study.py --sample 300 --seed 1 "
                        "--confirm-minutes 8 --markdown docs/tables/mutation.md",
    "docs/tables/mutation_recheck.md": "python studies/mutation_recheck.py --report "
                                       "docs/tables/mutation.md --markdown "
                                       "docs/tables/mutation_recheck.md",
    "docs/tables/figures/trust-models/summary.json":
        "python studies/compare_trust_models.py --out docs/tables/figures/trust-models",
    "docs/tables/performance.json": "python benchmarks/measure_performance.py",
    "docs/tables/performance.md": "python benchmarks/measure_performance.py",
}
for _preset in ("fig1-easy", "fig1-hard", "fig4", "movielens", "zcdp-finite", "zcdp-linear",
                "zcdp-contextual"):
    COMMANDS[f"docs/tables/figures/{_preset}.json"] = (
        f"privtools simulate --preset {_preset} --out DIR (DIR/summary.json is this file)")



@dataclass(frozen=True)
class Table:
    path: str
    section: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def col(self, name: str, nth: int = 0) -> int:
        idx = [i for i, h in enumerate(self.header) if h == name]
        if len(idx) <= nth:
            raise FigureError(f"{self.path}: table under {self.section!r} has no column {name!r}")
        return idx[nth]

    def get(self, row: tuple[str, ...], name: str, nth: int = 0) -> str:
        return row[self.col(name, nth)]

    def find(self, key: dict[str, str]) -> tuple[str, ...]:
        """The one row whose cells equal ``key`` (column name -> cell)."""
        cols = {self.col(k): v for k, v in key.items()}
        hits = [r for r in self.rows if all(i < len(r) and r[i] == v for i, v in cols.items())]
        if len(hits) != 1:
            raise FigureError(f"{self.path}: {len(hits)} rows with {key} under {self.section!r}")
        return hits[0]


def _doc_path(path: str) -> Path:
    p = ROOT / path
    if not p.is_file():
        raise FigureError(f"{path} is missing (regenerate it: {COMMANDS.get(path, '?')})")
    return p


@functools.cache
def doc_text(path: str) -> str:
    return _doc_path(path).read_text(encoding="utf-8")


@functools.cache
def doc_json(path: str):
    return json.loads(_doc_path(path).read_text(encoding="utf-8"))


def _cells(line: str) -> tuple[str, ...]:
    return tuple(c.strip() for c in line.strip().strip("|").split("|"))


@functools.cache
def tables(path: str) -> tuple[Table, ...]:
    """Every Markdown table of a generated document, with the heading it sits under."""
    lines = doc_text(path).splitlines()
    out, section, i = [], "", 0
    rule = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if line.startswith("|") and i + 1 < len(lines) and rule.match(lines[i + 1]):
            j, rows = i + 2, []
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(_cells(lines[j]))
                j += 1
            out.append(Table(path, section, _cells(line), tuple(rows)))
            i = j
            continue
        i += 1
    return tuple(out)


def table(path: str, has: str, section: str | None = None, nth: int | None = None) -> Table:
    """The one table of ``path`` with a column ``has`` (under a heading starting with
    ``section``; the ``nth`` such table when several are)."""
    found = [t for t in tables(path) if has in t.header
             and (section is None or t.section.startswith(section))]
    if nth is not None and len(found) > nth:
        return found[nth]
    if len(found) != 1:
        raise FigureError(f"{path}: {len(found)} tables with a column {has!r}"
                          + (f" under {section!r}" if section else ""))
    return found[0]


def doc_find(path: str, pattern: str, group: int | str = 1) -> str:
    m = re.search(pattern, doc_text(path), flags=re.S)
    if m is None:
        raise FigureError(f"{path}: no text matching {pattern!r}")
    return m.group(group)


def number(cell: str) -> Decimal:
    """The first number in a table cell (``"1,295 ± 65"`` -> 1295, ``"**15**"`` -> 15)."""
    m = re.search(r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", cell.replace("−", "-"))
    if m is None:
        raise FigureError(f"no number in the cell {cell!r}")
    return _dec(m.group(0))


def interval(cell: str) -> tuple[Decimal, Decimal]:
    m = re.fullmatch(r"\[\s*([^,\]]+),\s*([^\]]+)\]", cell.strip())
    if m is None:
        raise FigureError(f"not an interval: {cell!r}")
    return _dec(m.group(1)), _dec(m.group(2))

