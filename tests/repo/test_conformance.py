"""studies/conformance.py: the wrappers around third-party DP libraries, the numpy share
samplers audited against privtools' exact laws, the reference transforms, and the script's
quick mode. Fixed seeds throughout; each audit below fails a correct sampler with
probability at most its alpha, and with these seeds the outcomes are fixed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from privtools.errors import ParameterError
from privtools.noise import DiscreteLaplace, Polya, PolyaDifference, Skellam
from tests.optional import OPTIONAL, REQUIRED
from tests.optional import need as _need
from tests.scripts import load_script
from verification.audit import audit_sampler

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "studies" / "conformance.py"

conf = load_script("studies/conformance.py", "conformance_script")


# ---------------------------------------------------------------- numpy share samplers
SAMPLERS = [
    lambda: conf.polya_share(16, 4),
    lambda: conf.polya_difference_share(16, 4),
    lambda: conf.share_sum(conf.polya_difference_share(16, 4), 16),
    lambda: conf.skellam_share(50 / 16),
    lambda: conf.share_sum(conf.skellam_share(50 / 16), 16),
]


@pytest.mark.parametrize("make", SAMPLERS)
def test_share_samplers_return_size_integers_and_repeat_from_a_seed(make):
    sampler = make()
    a = sampler(1000, np.random.default_rng(3))
    b = sampler(1000, np.random.default_rng(3))
    assert a.shape == (1000,) and a.dtype.kind == "i"
    assert np.array_equal(a, b)


CORRECT = [
    ("Pólya share, n = 16", lambda: conf.polya_share(16, 4), Polya(Fraction(1, 16), scale=4)),
    ("Pólya-difference share, n = 16", lambda: conf.polya_difference_share(16, 4),
     PolyaDifference(Fraction(1, 16), scale=4)),
    ("sum of 16 Pólya-difference shares", lambda: conf.share_sum(
        conf.polya_difference_share(16, 4), 16), DiscreteLaplace(4)),
    ("sum of 16 Pólya shares", lambda: conf.share_sum(conf.polya_share(16, 4), 16),
     Polya(1, scale=4)),
    ("Skellam share", lambda: conf.skellam_share(50 / 16), Skellam(Fraction(100, 16))),
    ("sum of 16 Skellam shares", lambda: conf.share_sum(conf.skellam_share(50 / 16), 16),
     Skellam(100)),
]


@pytest.mark.parametrize("name,make,law", CORRECT, ids=[c[0] for c in CORRECT])
def test_correct_share_samplers_pass_against_the_exact_laws(name, make, law):
    res = audit_sampler(make(), law, 20_000, rng=11, alpha=0.01)
    assert res.verdict == "pass", res.summary()


WRONG = [
    # one user's share for n = 8 users, claimed as the share of n = 16
    ("share of the wrong n", lambda: conf.polya_share(8, 4), Polya(Fraction(1, 16), scale=4)),
    # 16 shares of the 8-user split sum to PolyaDifference(2, ·), not Lap_Z(4)
    ("sum of 16 shares of the wrong n", lambda: conf.share_sum(
        conf.polya_difference_share(8, 4), 16), DiscreteLaplace(4)),
    # numpy's p is the success probability: passing β instead of 1 − β
    ("β and 1 − β swapped", lambda: (lambda size, rng: rng.negative_binomial(
        1 / 16, np.exp(-1 / 4), size)), Polya(Fraction(1, 16), scale=4)),
    # poisson(mu) − poisson(mu) has variance 2 mu, not mu
    ("Skellam variance halved", lambda: conf.skellam_share(25 / 16), Skellam(Fraction(100, 16))),
]


@pytest.mark.parametrize("name,make,law", WRONG, ids=[w[0] for w in WRONG])
def test_wrongly_parameterised_share_samplers_fail(name, make, law):
    res = audit_sampler(make(), law, 20_000, rng=11, alpha=0.01)
    assert res.verdict == "fail", res.summary()


def test_share_samplers_reject_bad_parameters():
    with pytest.raises(ParameterError, match="n"):
        conf.polya_share(0, 4)
    with pytest.raises(ParameterError, match="mu"):
        conf.skellam_share(0)


# ---------------------------------------------------------------- reference transforms
def test_rounded_laplace_table_is_a_law():
    table = conf.rounded_laplace_table(2.5)
    assert abs(sum(table.values()) - 1) < 1e-12
    assert table[3] == pytest.approx(table[-3]) and table[0] > table[1] > table[2]


def test_truncation_transform_is_uniform_under_the_claim():
    def clipped(size, rng):
        x = np.clip(rng.laplace(0.0, 4.0, size), -10.0, 10.0)
        return conf.truncated_pit(x, 4.0, -10.0, 10.0, rng)

    import scipy.stats as st

    assert audit_sampler(clipped, st.uniform(), 20_000, rng=5).verdict == "pass"

    def wrong_scale(size, rng):
        x = np.clip(rng.laplace(0.0, 3.0, size), -10.0, 10.0)
        return conf.truncated_pit(x, 4.0, -10.0, 10.0, rng)

    assert audit_sampler(wrong_scale, st.uniform(), 20_000, rng=5).verdict == "fail"


def test_conditioning_transform_is_uniform_under_the_claim():
    import scipy.stats as st

    def conditioned(size, rng):
        x = rng.laplace(0.0, 4.0, 4 * size)
        x = x[(x >= -10) & (x <= 10)][:size]
        return conf.bounded_pit(x, 4.0, -10.0, 10.0)

    assert audit_sampler(conditioned, st.uniform(), 20_000, rng=5).verdict == "pass"


# ---------------------------------------------------------------- library wrappers
def _built(key, eps=1.0, delta=0.0, x0=0):
    e = conf.ENTRY[key]
    return e.build(conf._library(e.library), eps, delta, x0)


@pytest.mark.parametrize("key,integer,delta", [
    ("opendp.laplace_float", False, 0.0), ("opendp.laplace_int", True, 0.0),
    ("opendp.geometric", True, 0.0), ("opendp.gaussian_float", False, 1e-3),
    ("opendp.gaussian_int", True, 1e-3)])
def test_opendp_wrappers_return_size_outputs(key, integer, delta):
    _need("opendp", "opendp")
    b = _built(key, delta=delta)
    out = b.mechanism(2**20, 300, np.random.default_rng(0))
    assert out.shape == (300,) and out.dtype == (np.int64 if integer else np.float64)
    assert abs(float(np.median(out)) - 2**20) < 50


def _diffprivlib():
    mod, _ = conf.load_diffprivlib()
    if mod is None:
        assert not REQUIRED, "diffprivlib is required (PRIVTOOLS_REQUIRE_CONFORMANCE=1)"
        pytest.skip(f"{OPTIONAL}: diffprivlib is not installed")
    return mod


@pytest.mark.parametrize("key,integer,delta", [
    ("diffprivlib.Laplace", False, 0.0), ("diffprivlib.LaplaceTruncated", False, 0.0),
    ("diffprivlib.LaplaceBoundedDomain", False, 0.0), ("diffprivlib.Geometric", True, 0.0),
    ("diffprivlib.Gaussian", False, 1e-3), ("diffprivlib.GaussianAnalytic", False, 1e-3),
    ("diffprivlib.GaussianDiscrete", True, 1e-3)])
def test_diffprivlib_wrappers_are_seeded_by_the_generator(key, integer, delta):
    _diffprivlib()
    b = _built(key, delta=delta, x0=2**20)
    a1 = b.mechanism(2**20, 200, np.random.default_rng(7))
    a2 = b.mechanism(2**20, 200, np.random.default_rng(7))
    a3 = b.mechanism(2**20, 200, np.random.default_rng(8))
    assert a1.shape == (200,) and a1.dtype == (np.int64 if integer else np.float64)
    assert np.array_equal(a1, a2) and not np.array_equal(a1, a3)
    law = b.sampler(200, np.random.default_rng(7))
    assert law.shape == (200,)


@pytest.mark.parametrize("key,integer,delta", [
    ("python-dp.LaplaceMechanism_float", False, 0.0),
    ("python-dp.LaplaceMechanism_int", True, 0.0),
    ("python-dp.GaussianMechanism", False, 1e-3)])
def test_pydp_wrappers_return_size_outputs(key, integer, delta):
    _need("pydp", "python-dp")
    out = _built(key, delta=delta).mechanism(5, 300, np.random.default_rng(0))
    assert out.shape == (300,) and out.dtype == (np.int64 if integer else np.float64)


# ---------------------------------------------------------------- the grid and the script
def test_grid_ids_are_unique_and_seeds_depend_on_the_id_only():
    grid = conf.build_grid(quick=False)
    ids = [r.id for r in grid]
    assert len(ids) == len(set(ids))
    assert conf.row_seed(0, ids[0]) == conf.row_seed(0, ids[0]) != conf.row_seed(1, ids[0])
    assert {r.key for r in conf.select(grid, "numpy")} <= {
        e.key for e in conf.ENTRIES if e.library == "numpy"}
    one = conf.select(grid, ids[3])
    assert [r.id for r in one] == [ids[3]]


def test_bad_arguments_name_the_parameter():
    with pytest.raises(ParameterError, match="only"):
        conf.main(["--quick", "--only", "no-such-library"])
    with pytest.raises(ParameterError, match="seed"):
        conf.main(["--quick", "--seed", "-1"])
    with pytest.raises(ParameterError, match="workers"):
        conf.main(["--quick", "--workers", "0"])


def _tables(text: str) -> list[list[str]]:
    blocks, cur = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            cur.append(line)
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    return blocks


def test_quick_run_of_a_selection_writes_valid_markdown(tmp_path):
    md, js = tmp_path / "c.md", tmp_path / "c.json"
    res = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--only", "numpy",
                          "--workers", "1", "--markdown", str(md), "--json", str(js)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# Conformance of third-party differential-privacy libraries")
    for heading in ("## Libraries", "## Summary", "## Findings", "## numpy", "## Notes"):
        assert heading in text
    tables = _tables(text)
    assert len(tables) >= 4
    for t in tables:
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in t}
        assert len(widths) == 1, t
        assert re.fullmatch(r"\|(---\|)+", t[1])
    data = json.loads(js.read_text(encoding="utf-8"))
    rows = data["rows"]
    assert rows and all(r["library"] == "numpy" for r in rows)
    assert {r["verdict"] for r in rows} == {"pass"}
    assert data["meta"]["alpha"] == pytest.approx(0.01 / len(conf.build_grid(quick=True)))
    assert "[1/" in res.stderr          # progress goes to stderr


# ---------------------------------------------------------------- the findings, repeated
def _row(row_id: str, n: int):
    import dataclasses

    (row,) = [r for r in conf.build_grid(quick=False) if r.id == row_id]
    return dataclasses.replace(row, n_samples=n)


def test_diffprivlib_float_laplace_leaks_through_its_bits_and_not_in_real_arithmetic():
    _diffprivlib()
    row = _row("diffprivlib.Laplace/privacy/eps=1/x=0", 100_000)
    leak = conf.run_row(row, seed=0, alpha=0.01)
    assert leak["verdict"] == "fail" and leak["bit_event"], leak
    assert leak["epsilon_lower"] > 5
    reals = conf.run_row(row, seed=0, alpha=0.01, bits=False)
    assert reals["verdict"] == "pass" and not reals["bit_event"], reals


def test_integer_mechanisms_get_no_bit_events_and_opendp_geometric_passes():
    _need("opendp", "opendp")
    # OpenDP draws from its own unseeded randomness and the mechanism sits exactly at its
    # claim, so a pass is only promised with probability 1 − alpha: alpha = 1e-4 keeps this
    # test's false failure rate at most 1e-4 per run (at 0.01 it failed about 1 run in 100)
    rec = conf.run_row(_row("opendp.geometric/privacy/eps=1/x=0", 100_000), seed=0,
                       alpha=1e-4)
    assert rec["bits"] is False and rec["verdict"] == "pass", rec
