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
    # audits, the deployment plan and the regret comparison, and the HTML page
    assert len(summary["audits"]) == 7 and all(a["passed"] for a in summary["audits"])
    assert [p["theorem"] for p in summary["plans"]] == [1, 2, 4]
    assert all(p["passed"] and p["tau"] <= p["tau_bound"] for p in summary["plans"])
    assert {r["policy"].split(" (")[0] for r in summary["regret"]} >= {
        "Dist-DP-SE", "CDP-SE", "LDP-SE", "AdaC-UCB"}
    page = (tmp_path / "report.html").read_text()
    assert 'src="data:image/png;base64,' in page and 'src="regret.png"' not in page
    assert page.count("<table") >= 6


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


# ------------------------------------------------------------------ privtools plan
def test_plan_text_shows_plan_comparison_and_verification():
    res = runner.invoke(app, ["plan", "--privacy", "rdp", "--epsilon", "1", "--n", "1024",
                              "--horizon", "1000000", "--s", "10"])
    assert res.exit_code == 0, res.output
    for text in ("Theorem 2", "bound vs exact", "exact verification", "PLAN PASSES",
                 "failure probability"):
        assert text in res.stdout


def test_plan_json_has_plan_comparison_and_check():
    res = runner.invoke(app, ["plan", "--epsilon", "0.5", "--n", "16", "--horizon", "10000",
                              "--tail", "bound", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["plan"]["theorem"] == 1 and out["plan"]["tail"] == "bound"
    assert out["plan"]["m"] == 16 * out["plan"]["g"] + 2 * out["plan"]["tau"] + 1
    cmp = out["compare"]
    assert cmp["tau_bound"] == out["plan"]["tau"] and cmp["tau_exact"] < cmp["tau_bound"]
    assert out["check"]["passed"] and out["check"]["reasons"] == []
    res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "16", "--horizon", "100",
                              "--no-verify", "--no-compare", "--json"])
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["check"] is None and out["compare"] is None


def test_plan_checks_your_own_parameters_and_fails_in_red():
    # τ far too small for the noise: the exact failure probability is above p
    res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "1024", "--horizon", "1000000",
                              "--tau", "100"])
    assert res.exit_code == 1
    assert "PLAN FAILS" in res.stdout and "failure probability" in res.stdout
    # g above the planned one, with the plan's noise: privacy is lost
    res = runner.invoke(app, ["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000",
                              "--g", "8", "--json"])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert not out["check"]["passed"] and out["plan"]["user_parameters"] == ["g"]
    assert any(r.startswith("privacy") for r in out["check"]["reasons"])


def test_plan_bad_input_exits_2_naming_the_parameter():
    res = runner.invoke(app, ["plan", "--epsilon", "0", "--n", "16", "--horizon", "100"])
    assert res.exit_code == 2 and "epsilon" in res.output
    res = runner.invoke(app, ["plan", "--privacy", "rdp", "--trust", "local", "--epsilon", "1",
                              "--n", "16", "--horizon", "100"])
    assert res.exit_code == 2 and "supported" in res.output


# ----------------------------------------------------------------- audit
def test_audit_mechanism_json_verdict():
    res = runner.invoke(app, ["audit", "--mechanism", "dist-dp", "--epsilon", "0.5", "--n", "16",
                              "--samples", "50000", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["plan"]["theorem"] == 1 and out["plan"]["g"] == 2
    assert out["audit"]["verdict"] == "pass" and out["audit"]["epsilon_lower"] <= 0.5


def test_audit_sampler_text_and_exit_codes():
    res = runner.invoke(app, ["audit", "--sampler", "skellam", "--var", "100", "--samples",
                              "50000", "--seed", "2"])
    assert res.exit_code == 0 and "PASS" in res.stdout
    # too few draws to certify anything above ε = 20: inconclusive, never a pass
    res = runner.invoke(app, ["audit", "--mechanism", "central", "--epsilon", "20", "--n", "4",
                              "--samples", "200"])
    assert res.exit_code == 1 and "INCONCLUSIVE" in res.stdout
    res = runner.invoke(app, ["audit", "--mechanism", "nope"])
    assert res.exit_code == 2 and "mechanism must be one of" in res.output
    res = runner.invoke(app, ["audit"])
    assert res.exit_code == 2 and "exactly one of" in res.output
