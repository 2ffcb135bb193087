"""studies/mutation_recheck.py: it reads every survivor that matters from the published
mutation report, finds each one's line at the current sources, and its page agrees with the
report it was made from."""

from __future__ import annotations

import re
from pathlib import Path

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "docs" / "tables" / "mutation.md"
PAGE = ROOT / "docs" / "tables" / "mutation_recheck.md"


recheck = load_script("studies/mutation_recheck.py", "mutation_recheck")


def test_the_survivors_that_matter_are_every_survivor_but_equivalent_and_performance():
    mutants, summary = recheck.survivors(REPORT)
    kinds = summary["kinds"]
    assert sum(kinds.values()) == summary["survived"]
    assert len(mutants) == summary["survived"] - kinds.get("equivalent", 0) \
        - kinds.get("performance", 0)
    assert {m["kind"] for m in mutants} <= set(recheck.MATTER)
    for m in mutants:
        assert m["original"] != m["mutated"] and m["module"].startswith("privtools/")


def test_every_survivor_is_found_at_the_current_sources():
    mutants, _ = recheck.survivors(REPORT)
    shifts = recheck._shifts(ROOT, mutants)
    for m in mutants:
        lines = (ROOT / m["module"]).read_text(encoding="utf-8").splitlines()
        hits = [i for i, ln in enumerate(lines) if ln.strip() == m["original"]]
        assert hits, f"{m['module']}: {m['original']!r} is gone; re-run the recheck"
        i = recheck._nearest(hits, m, shifts)
        assert lines[i].strip() == m["original"]


def test_a_repeated_line_is_taken_nearest_the_shifted_report_line():
    m = {"module": "x.py", "line": 100}
    assert recheck._nearest([10, 105, 300], m, {"x.py": 3}) == 105
    assert recheck._nearest([10, 105, 300], m, {"x.py": 195}) == 300


def test_the_published_page_counts_agree_with_its_rows_and_the_report():
    text = PAGE.read_text(encoding="utf-8")
    rows = [ln for ln in text.splitlines() if ln.startswith("| `privtools")]
    killed = sum(ln.rstrip().endswith("| killed |") for ln in rows)
    survived = sum(ln.rstrip().endswith("| survived |") for ln in rows)
    now = re.search(r"Killed now: (\d+) of (\d+); still surviving: (\d+)", text)
    assert (int(now.group(1)), int(now.group(2)), int(now.group(3))) == \
        (killed, len(rows), survived)
    _, summary = recheck.survivors(REPORT)
    k, n = map(int, re.search(r"these kills: (\d+)/(\d+)", text).groups())
    kinds = summary["kinds"]
    assert k == summary["killed"] + killed
    assert n == summary["killed"] + summary["survived"] - kinds.get("equivalent", 0) \
        - kinds.get("performance", 0)
