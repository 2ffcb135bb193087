"""``privtools account``: certified (ε, δ) of sampled Gaussian runs from the shell, and the
calibrated σ; bad options get one line naming them (exit 2), never a traceback."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from privtools.accounting import GaussianEvent, PldAccountant, SampledWithoutReplacementEvent
from privtools.cli import app

runner = CliRunner()


def _json(args):
    res = runner.invoke(app, ["account", *args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_an_unsampled_run_is_the_gaussian_closed_form():
    out = _json(["--sigma", "2", "--steps", "400", "--delta", "1e-6"])
    acc = PldAccountant().compose(GaussianEvent(sigma=2), 400).epsilon(Fraction(1, 10**6))
    assert out["epsilon"] == acc.epsilon
    assert out["sampling"] == "none"


@pytest.mark.slow
def test_fixed_size_batches_and_delta_at_epsilon():
    out = _json(["--sigma", "1", "--batch", "10", "--population", "100", "--steps", "5",
                 "--delta", "1e-5", "--epsilon", "1"])
    acc = PldAccountant().compose(
        SampledWithoutReplacementEvent(GaussianEvent(sigma=1), 10, 100), 5)
    assert out["epsilon"] == acc.epsilon(Fraction(1, 10**5)).epsilon
    assert out["delta_at_epsilon"] == acc.delta(1).delta


@pytest.mark.slow
def test_random_allocation_composes_whole_epochs():
    from privtools.accounting import RandomAllocationEvent

    out = _json(["--sigma", "2", "--allocation", "5", "--steps", "10", "--delta", "1e-5"])
    acc = PldAccountant(neighbouring="add-remove").compose(
        RandomAllocationEvent(GaussianEvent(sigma=2), 5), 2)
    assert out["epsilon"] == acc.epsilon(Fraction(1, 10**5)).epsilon
    assert out["sampling"] == "random allocation"


def test_calibration_returns_a_sigma_that_meets_the_target():
    out = _json(["--steps", "100", "--delta", "1e-5", "--epsilon", "10"])
    assert out["epsilon"] <= 10
    below = float(out["calibrated_sigma"]) * (1 - 2e-3)
    assert PldAccountant().compose(GaussianEvent(sigma=below), 100).epsilon(
        Fraction(1, 10**5)).epsilon > 10


@pytest.mark.parametrize("args,words", [
    (["--steps", "10", "--delta", "1e-5"], "give --sigma"),
    (["--sigma", "1", "--q", "2", "--steps", "10", "--delta", "1e-5"], "--q must be in"),
    (["--sigma", "1", "--q", "0.1", "--batch", "5", "--population", "50", "--steps", "10",
      "--delta", "1e-5"], "exclude each other"),
    (["--sigma", "1", "--q", "0.1", "--allocation", "5", "--steps", "10", "--delta", "1e-5"],
     "exclude each other"),
    (["--sigma", "1", "--allocation", "3", "--steps", "10", "--delta", "1e-5"],
     "must be a multiple of --allocation"),
    (["--sigma", "1", "--batch", "5", "--steps", "10", "--delta", "1e-5"], "go together"),
    (["--sigma", "1", "--q", "0.1", "--max-batch", "5", "--steps", "10", "--delta", "1e-5"],
     "--max-batch caps Poisson batches"),
    (["--sigma", "1", "--max-batch", "5", "--population", "50", "--steps", "10",
      "--delta", "1e-5"], "--max-batch caps Poisson batches"),
    (["--sigma", "1", "--q", "0.1", "--max-batch", "0", "--population", "50", "--steps",
      "10", "--delta", "1e-5"], "--max-batch must be >= 1"),
    (["--sigma", "1", "--steps", "10", "--delta", "1"], "--delta must be in"),
    (["--sigma", "1", "--steps", "0", "--delta", "1e-5"], "steps"),
    (["--sigma", "1", "--allocations", "2", "--steps", "10", "--delta", "1e-5"],
     "--allocations needs --allocation"),
    (["--sigma", "1", "--allocation", "5", "--allocations", "6", "--steps", "10",
      "--delta", "1e-5"], "allocations"),
    (["--sigma", "1", "--replacement", "--steps", "10", "--delta", "1e-5"],
     "--replacement needs --batch"),
    (["--sigma", "1", "--shuffle", "--batch", "10", "--population", "100", "--replacement",
      "--steps", "10", "--delta", "1e-5"], "exclude each other"),
    (["--sigma", "1", "--shuffle", "--batch", "10", "--population", "100", "--steps", "15",
      "--delta", "1e-5"], "multiple of the epoch"),
])
def test_bad_options_are_named_without_a_traceback(args, words):
    res = runner.invoke(app, ["account", *args])
    assert res.exit_code == 2
    assert words in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("args,relation", [
    (["--sigma", "2", "--q", "0.1", "--steps", "5"], "add-remove"),
    (["--sigma", "2", "--allocation", "5", "--steps", "10"], "add-remove"),
    (["--sigma", "2", "--batch", "10", "--population", "100", "--steps", "5"], "replace-one"),
    (["--sigma", "2", "--steps", "5"], "replace-one"),
    (["--sigma", "2", "--batch", "10", "--population", "100", "--steps", "5",
      "--replacement"], "replace-one"),
    (["--sigma", "2", "--batch", "10", "--population", "100", "--steps", "20",
      "--shuffle"], "replace-one"),
])
def test_each_sampling_scheme_states_its_relation(args, relation):
    out = _json([*args, "--delta", "1e-5"])
    assert out["neighbouring"] == relation


def test_a_huge_sigma_under_poisson_sampling_is_answered_not_a_memory_error():
    """Issue 43: σ = 1e10 with --q 0.01 ended in MemoryError (exit 3); the grid now reaches
    down to the sampled loss's floor log(1 − q), and ε(1e-5) is certified 0."""
    out = _json(["--sigma", "1e10", "--q", "0.01", "--steps", "100", "--delta", "1e-5"])
    assert out["epsilon"] == 0.0 and out["neighbouring"] == "add-remove"


def test_fdp_of_an_unsampled_run_is_the_gaussian_tradeoff(tmp_path):
    import mpmath

    png = tmp_path / "band.png"
    out = _json(["--sigma", "2", "--steps", "16", "--delta", "1e-6", "--fdp",
                 "--plot", str(png)])
    f = out["fdp"]
    lo, hi = f["gdp_mu"]
    assert lo <= 2.0 <= hi and hi - lo <= 1e-12          # μ = √16 / 2 exactly
    for a, (b0, b1) in zip(f["alpha"], f["beta"]):
        exact = float(mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(a)) - 2))
        assert b0 <= exact * (1 + 1e-12) and exact <= b1 * (1 + 1e-12) + 1e-300
    assert png.stat().st_size > 0 and f["plot"] == str(png)


def test_fdp_table_names_the_gdp_interval():
    res = runner.invoke(app, ["account", "--sigma", "2", "--steps", "16", "--delta", "1e-6",
                              "--fdp"])
    assert res.exit_code == 0, res.output
    assert "μ-GDP" in res.output and "β(α = 0.1)" in res.output


def test_capped_poisson_batches_add_the_coupling_term():
    from privtools.accounting import PoissonSampledEvent, TruncatedPoissonSampledEvent

    args = ["--sigma", "2", "--q", "0.1", "--population", "40", "--steps", "5",
            "--delta", "1e-5"]
    capped = _json([*args, "--max-batch", "12"])
    acc = PldAccountant(neighbouring="add-remove").compose(
        TruncatedPoissonSampledEvent(GaussianEvent(sigma=2), Fraction(1, 10), 12, 40), 5)
    assert capped["epsilon"] == acc.epsilon(Fraction(1, 10**5)).epsilon
    assert capped["sampling"] == "capped poisson" and capped["neighbouring"] == "add-remove"
    plain = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=2), Fraction(1, 10)), 5)
    assert capped["epsilon"] > plain.epsilon(Fraction(1, 10**5)).epsilon


@pytest.mark.slow
def test_fdp_of_a_capped_run_reads_no_gdp():
    res = runner.invoke(app, ["account", "--sigma", "2", "--q", "0.1", "--population", "40",
                              "--max-batch", "30", "--steps", "3", "--delta", "1e-5",
                              "--fdp", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["fdp"]["gdp_mu"] is None and len(out["fdp"]["beta"]) == len(out["fdp"]["alpha"])


def test_k_of_t_with_replacement_and_shuffled_epochs_are_the_library_events():
    """--allocations, --replacement and --shuffle answer what the library's events do."""
    from privtools.accounting import (
        RandomAllocationEvent,
        SampledWithReplacementEvent,
        ShuffledBatchesEvent,
    )

    g = GaussianEvent(sigma=4)
    cases = [
        (["--allocation", "4", "--allocations", "2", "--steps", "8"],
         PldAccountant(neighbouring="add-remove").compose(RandomAllocationEvent(g, 4, 2), 2)),
        (["--batch", "2", "--population", "20", "--replacement", "--steps", "3"],
         PldAccountant().compose(SampledWithReplacementEvent(g, 2, 20), 3)),
        (["--batch", "5", "--population", "20", "--shuffle", "--steps", "8"],
         PldAccountant().compose(ShuffledBatchesEvent(g, 4), 2)),
    ]
    for args, acc in cases:
        out = _json(["--sigma", "4", *args, "--delta", "1e-5"])
        assert out["epsilon"] == acc.epsilon(Fraction(1, 10**5)).epsilon
