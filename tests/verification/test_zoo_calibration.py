"""studies/audit_zoo_calibration.py in its quick mode, and the curator mechanisms of
:mod:`verification.zoo.curator`.

The quick run is one fixed-seed run of the script's command line (a handful of mechanisms,
seeds and draws); the checks are properties of any such run — every row present, counts
whole and within [0, N], each Clopper–Pearson interval holding its own k/N, the no-signal
control never failed — not its figures. The curator checks use fixed seeds: the leak
coin's count is tested against an exact binomial interval at confidence 1 − 10⁻⁶, so a
correct coin fails it with probability at most 10⁻⁶."""

from __future__ import annotations

import json
import math
import pickle
import sys

import numpy as np
import pytest
import scipy.stats as st
from scipy.integrate import quad

from privtools.errors import ParameterError
from tests.scripts import load_script
from verification import zoo
from verification.zoo.curator import (
    CURATOR_LEAKS,
    curator_answer,
    curator_delta,
    curator_record,
    curator_suite,
    curator_tail,
    detection_limit,
    no_signal,
)

calibration = load_script("studies/audit_zoo_calibration.py", "audit_zoo_calibration_script")
report = sys.modules["_zoo_calibration_report"]     # the script's sibling: the page


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """One run of ``--quick`` through the command line: (module, settings, records,
    summary, page text, output folder)."""
    mod = calibration
    out = tmp_path_factory.mktemp("zoo_calibration")
    page = out / "page.md"
    assert mod.main(["--quick", "--workers", "1", "--markdown", str(page),
                     "--json", str(out / "records.json")]) == 0
    s = mod.quick_settings()
    records = json.loads((out / "records.json").read_text(encoding="utf-8"))["records"]
    return mod, s, records, mod.summarize(records, s), page.read_text(encoding="utf-8"), out


# ------------------------------------------------------------------ the quick run
def test_every_false_alarm_row_is_present_with_whole_counts_in_range(quick):
    _, s, _, summary, page, _ = quick
    names = list(s.private)
    assert "NoSignal" in names
    for tester, rows in summary["false_alarms"].items():
        assert [r["name"] for r in rows] == names, tester
        for r in rows:
            if r["status"] is not None:
                assert r["status"] in report.NOTES, (tester, r)
                continue
            assert isinstance(r["k"], int) and isinstance(r["n"], int)
            assert r["n"] == s.seeds and 0 <= r["k"] <= r["n"]
            assert r["lo"] <= r["k"] / r["n"] <= r["hi"]
            assert 0 <= r["p"] <= 1 and r["consistent"] == (r["p"] >= 0.01)
        total = summary["totals"][tester]
        assert total["n"] == sum(r.get("n", 0) for r in rows if r["status"] is None)
        assert total["lo"] <= total["k"] / max(total["n"], 1) <= total["hi"] or total["n"] == 0
    for name in names:      # the overview row and one row in each applicable tester's table
        assert sum(line.startswith(f"| {name} |") for line in page.splitlines()) >= 2


def test_not_applicable_cells_name_a_footnote_that_the_page_defines(quick):
    *_, page, _ = quick
    used = {line.split("[^")[1].split("]")[0] for line in page.splitlines()
            if line.startswith("| ") and "[^" in line}
    assert used, "the quick run has testers that do not apply (integer outputs, traces)"
    for label in used:
        assert f"[^{label}]: " in page


def test_the_no_signal_control_is_never_failed(quick):
    _, _, records, summary, _, _ = quick
    mine = [r for r in records if r["name"] == "NoSignal"]
    assert mine and all(r["verdict"] != "fail" for r in mine)
    assert {t: d["fails"] for t, d in summary["no_signal"].items()} == {
        "fixed": 0, "sequential": 0}


def test_power_and_curator_rows_cover_every_mechanism_and_budget(quick):
    _, s, _, summary, page, out = quick
    assert [r["name"] for r in summary["power"]] == list(s.nonprivate)
    for r in summary["power"]:
        assert r["pair"] is not None and len(r["pair"]) == 2
        for (tester, n), (k, m) in r["rates"].items():
            assert tester in ("fixed", "sequential") and n in s.power_draws
            assert m == s.power_seeds and 0 <= k <= m
    got = [(r["name"], r["draws"]) for r in summary["curator"]]
    assert got == [(name, n) for name in s.curator for n in s.curator_draws]
    for r in summary["curator"]:
        for tester in ("fixed", "sequential"):
            assert sum(r[tester].values()) == r[tester + "_n"] == s.curator_seeds
        assert 0 <= r["limit"] <= 1
    png = out / "figures" / "audit_zoo_calibration.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "](figures/audit_zoo_calibration.png)" in page


def test_the_page_states_its_command_settings_and_machine(quick):
    *_, page, out = quick
    assert f"`python studies/audit_zoo_calibration.py --quick --markdown {out / 'page.md'}`" \
        in page
    assert "Machine: " in page and "wall time" in page and "| root seed | 2411 |" in page


def test_the_page_is_rewritten_from_the_saved_records(quick, tmp_path):
    mod, *_, page, out = quick
    again = tmp_path / "again.md"
    assert mod.main(["--quick", "--from-json", str(out / "records.json"),
                     "--markdown", str(again)]) == 0
    assert again.read_text(encoding="utf-8") == page
    assert (tmp_path / "figures" / "audit_zoo_calibration.png").is_file()


def test_a_tester_redone_gives_the_records_of_a_full_run(quick, tmp_path):
    """``--redo`` runs one tester's audits again on the seeds a full run gives them: with
    the code unchanged the records are the full run's (timings aside), and the page says
    what was redone."""
    mod, *_, out = quick
    again = tmp_path / "again.md"
    assert mod.main(["--quick", "--from-json", str(out / "records.json"), "--redo",
                     "sequential", "--workers", "1", "--markdown", str(again),
                     "--json", str(tmp_path / "again.json")]) == 0

    def strip(path):
        recs = json.loads(path.read_text(encoding="utf-8"))["records"]
        return [{k: v for k, v in r.items() if k != "seconds"} for r in recs]

    assert strip(tmp_path / "again.json") == strip(out / "records.json")
    assert "The sequential audits were run again on their own seeds" in again.read_text(
        encoding="utf-8")
    with pytest.raises(ValueError, match="--redo takes one of"):
        mod.redo([], mod.quick_settings(), "search")


def test_every_audit_has_its_own_seed(quick):
    _, _, records, *_ = quick
    seeds = [r["seed"] for r in records]
    assert len(set(seeds)) == len(seeds)


def test_binomial_statistics():
    rep = report
    r = rep.binomial_row(0, 100, 0.01)
    assert r["p"] == 1 and r["lo"] == 0 and r["hi"] == pytest.approx(0.0362, abs=1e-4)
    r = rep.binomial_row(5, 100, 0.01)
    assert r["p"] == pytest.approx(st.binom.sf(4, 100, 0.01)) and not r["consistent"]
    assert rep.binomial_row(2, 100, 0.01)["consistent"]
    assert rep.leaks_needed(0.5, 0.01) == 10
    assert rep.draws_needed(10, 1e-3) >= 10_000


# ------------------------------------------------------------------ the curator mechanisms
def _within(k: int, n: int, p: float, level: float = 1e-6) -> bool:
    ci = st.binomtest(k, n).proportion_ci(confidence_level=1 - level, method="exact")
    return ci.low <= p <= ci.high


@pytest.mark.parametrize("one_in", CURATOR_LEAKS[:2])
def test_the_leak_probability_is_exactly_one_in_m(one_in):
    n = 2_000_000
    out = curator_answer([3.0], n, np.random.default_rng(11), one_in=one_in)
    k = int(np.count_nonzero(out == 3.0))
    assert _within(k, n, 1 / one_in)
    tail = curator_tail([3.0], n, np.random.default_rng(12), one_in=one_in)
    assert _within(int(np.count_nonzero(tail == 103.0)), n, 1 / one_in)
    rec = curator_record([1, 2, 3], n // 10, np.random.default_rng(13), one_in=one_in // 10)
    hits = int(np.count_nonzero(np.all(rec == [1.0, 2.0, 3.0], axis=1)))
    assert _within(hits, n // 10, 10 / one_in)


def test_the_control_does_not_depend_on_the_data():
    a = no_signal([0.0], 10_000, np.random.default_rng(5))
    b = no_signal([1.0], 10_000, np.random.default_rng(5))
    assert np.array_equal(a, b)
    assert _within(int(np.count_nonzero(a == 0.0)), a.size, 1e-3)


@pytest.mark.parametrize("e", curator_suite(), ids=lambda e: e.name)
def test_entries_pickle_and_release_the_right_shape(e):
    d, dp = e.witness
    twin = pickle.loads(pickle.dumps(e))
    x = e.mechanism(list(d), 500, np.random.default_rng(1))
    y = twin.mechanism(list(d), 500, np.random.default_rng(1))
    assert np.array_equal(x, y) and x.dtype == np.float64
    assert x.shape == ((500,) if e.relation == "query" else (500, len(d)))
    assert e.mechanism(list(d), 0, np.random.default_rng(1)).shape[0] == 0
    assert (d, dp) in e.pairs and (dp, d) in e.pairs
    if not e.private:
        assert e.leak == 1 / e.one_in and e.true_delta == e.leak
        assert math.isinf(e.true_epsilon)
        assert not np.array_equal(e.revealing(d), e.revealing(dp))
    else:
        assert e.true_epsilon == 0 and e.true_delta == 0


def test_the_suite_is_not_registered_in_the_zoo():
    names = [e.name for e in curator_suite()]
    assert len(names) == len(set(names)) == 3 * len(CURATOR_LEAKS) + 1
    assert not set(names) & set(zoo.ZOO)
    assert zoo.curator_suite is curator_suite


@pytest.mark.parametrize("eps_prime", [0.0, 0.1, 0.25, 0.5, 0.8])
def test_the_privacy_profile_is_the_laplace_hockey_stick_plus_the_leak(eps_prime):
    eps, p = 0.5, 1e-3
    b = 1 / eps

    def gap(y):
        f0 = math.exp(-abs(y) / b) / (2 * b)
        f1 = math.exp(-abs(y - 1) / b) / (2 * b)
        return max(0.0, f0 - math.exp(eps_prime) * f1)

    lap = sum(quad(gap, lo, hi, limit=200)[0] for lo, hi in [(-60, 0), (0, 1), (1, 60)])
    assert curator_delta(eps_prime, epsilon=eps, leak=p) == pytest.approx(
        p + (1 - p) * lap, abs=1e-9)
    assert curator_delta(eps, epsilon=eps, leak=p) == pytest.approx(p)


def test_the_detection_limit():
    assert detection_limit(0, 1e-3, 0.01) == pytest.approx(0.01)
    assert detection_limit(1000, 1e-3, 0.01) == pytest.approx(0.01 + 1 - (1 - 1e-3) ** 2000)
    assert detection_limit(10**7, 1e-3, 0.01) == 1.0


def test_bad_parameters_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError):
        curator_answer([1.0], 10, rng, one_in=0)
    with pytest.raises(ParameterError):
        curator_record([1.0], 10, rng, epsilon=-1)
    with pytest.raises(ParameterError):
        curator_delta(0.1, epsilon=0.5, leak=2.0)
    with pytest.raises(ParameterError):
        curator_answer([1.0, 2.0], 10, rng)
