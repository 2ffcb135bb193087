"""The command line: `privtools noise` (text, --json, errors) and `privtools demo`."""

import json

from typer.testing import CliRunner

from privtools.cli import app

runner = CliRunner()


def test_noise_json_reports_certified_ranges_and_shares():
    res = runner.invoke(app, ["noise", "laplace", "--scale", "8", "--shares", "16", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["distribution"].startswith("DiscreteLaplace")
    for row in info["tails"]:
        assert row["certified_outside"] <= row["p"]
        assert row["lo"] == -row["hi"]
    lo, hi = info["shares"]["tv_sum_vs_law"]
    assert lo == 0.0 and hi < 1e-25  # Fact 1: the 16 shares sum exactly to Lap_Z(8)


def test_noise_text_output():
    res = runner.invoke(app, ["noise", "skellam", "--var", "100"])
    assert res.exit_code == 0, res.output
    assert "certified ranges" in res.stdout


def test_noise_bad_input_names_the_parameter():
    res = runner.invoke(app, ["noise", "laplace", "--scale", "-2"])
    assert res.exit_code == 2
    assert "scale" in res.output
    res = runner.invoke(app, ["noise", "skellam"])
    assert res.exit_code == 2 and "--var" in res.output
    res = runner.invoke(app, ["noise", "cauchy", "--scale", "1"])
    assert res.exit_code == 2 and "kind" in res.output


def test_demo_quick_writes_report(tmp_path):
    res = runner.invoke(app, ["demo", "--quick", "--out", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["all_passed"]
    assert (tmp_path / "report.md").read_text().startswith("# privtools demo report")
    assert (tmp_path / "noise.png").stat().st_size > 10_000
    assert len(summary["mechanisms"]) == 3 and len(summary["symbolic"]) >= 6
    status = {c["name"]: c["status"] for c in summary["claims"]}
    assert status["theorem1"] == status["theorem2"] == "holds"
    assert status["theorem2-algebra"] == "fails"  # reported, without failing the demo
    assert "Paper 000's claims" in (tmp_path / "report.md").read_text()


def test_verify_claims_json():
    res = runner.invoke(app, ["verify-claims", "--json", "--only", "theorem1",
                              "--only", "theorem2-algebra"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    status = {c["name"]: c["status"] for c in out["claims"]}
    assert status == {"theorem1": "holds", "theorem2-algebra": "fails"}
    strict = runner.invoke(app, ["verify-claims", "--only", "theorem2-algebra", "--strict"])
    assert strict.exit_code == 1
    bad = runner.invoke(app, ["verify-claims", "--only", "lemma99"])
    assert bad.exit_code == 2 and "unknown claim" in bad.output
