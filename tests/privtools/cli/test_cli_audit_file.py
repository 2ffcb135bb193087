"""``privtools audit --mechanism-file PATH:FUNCTION``: the user's own mechanism, audited on
one pair (--d, --d-prime) or searched over neighbours (--d, --datasets), with the exit-code
convention of every audit (0 pass; 1 fail or inconclusive; 2 bad input naming the option,
no traceback; --json parses as strict JSON)."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from privtools.cli import app

runner = CliRunner()

MECHANISMS = textwrap.dedent('''
    """A data scientist's noisy histograms of records in {0, 1, 2}."""
    import numpy as np

    BINS = 3


    def _counts(dataset):
        return np.bincount(np.asarray(dataset, dtype=int), minlength=BINS)[:BINS]


    def leaky_histogram(dataset, size, rng):
        # bug: Laplace scale ε instead of 2/ε (one record moves two bins), ε = 1
        return _counts(dataset) + rng.laplace(0.0, 0.1, (size, BINS))


    def private_histogram(dataset, size, rng):
        return _counts(dataset) + rng.laplace(0.0, 2.0, (size, BINS))


    def randomised_response(dataset, size, rng):
        # strings as outputs: is the first record 1? truthful with probability 3/4 (ε = log 3)
        truth = bool(dataset[0] == 1)
        keep = rng.random(size) < 0.75
        return ["yes" if t else "no" for t in np.where(keep, truth, not truth)]


    def textbook_laplace(dataset, size, rng):
        # the sum plus float Laplace noise of scale 1/ε: private in real arithmetic only
        return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, size)


    def total(outputs):
        return np.asarray(outputs).sum(axis=1)


    def broken(dataset, size, rng):
        raise ValueError("the histogram has no bins")


    def two_arguments(dataset, size):
        return np.zeros(size)


    NOT_A_FUNCTION = 3

    if __name__ == "__main__":
        raise SystemExit("the audit must not run the file as __main__")
''')


@pytest.fixture(scope="module")
def mech(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "my_mechanisms.py"
    path.write_text(MECHANISMS)
    return lambda name: f"{path}:{name}"


def _audit(spec, *more):
    return runner.invoke(app, ["audit", "--mechanism-file", spec, "--epsilon", "1", *more])


PAIR = ["--d", "[0, 0, 1]", "--d-prime", "[0, 1, 1]"]
SMALL = ["--samples", "20000", "--seed", "3"]
FAST = ["--learners", "logistic"]  # boosting is slow on a loaded machine (OpenMP threads)


def _strict_json(text: str) -> dict:
    def refuse(token):
        raise AssertionError(f"not strict JSON: {token}")

    return json.loads(text, parse_constant=refuse)


# ------------------------------------------------------------------ one pair
def test_leaky_histogram_fails_with_exit_1_and_shows_the_witness(mech):
    res = _audit(mech("leaky_histogram"), *PAIR, *SMALL, "--learners", "logistic",
                 "--no-trace")
    assert res.exit_code == 1, res.output
    out = " ".join(res.stdout.split())
    assert "FAIL" in out and "claim ε = 1" in out
    assert "witness: " in out and "test draws on" in out
    assert "--seed 3" in out and "vectors of 3 floats" in out
    assert "Traceback" not in res.output


def test_json_parses_and_holds_the_verdict_bound_and_event(mech):
    res = _audit(mech("leaky_histogram"), *PAIR, *SMALL, *FAST, "--json", "--no-trace")
    assert res.exit_code == 1, res.output
    out = _strict_json(res.stdout)
    assert out["mode"] == "mechanism-file" and out["kind"] == "audit"
    assert out["verdict"] == "fail" and out["epsilon_lower"] > 1
    assert out["event"]["description"] and out["seed"] == 3
    assert out["delta"] == 0.0  # the claim's δ defaults to 0 in this mode

    res = _audit(mech("private_histogram"), *PAIR, *SMALL, *FAST, "--json")
    assert res.exit_code == 0, res.output
    out = _strict_json(res.stdout)
    assert out["verdict"] == "pass" and out["epsilon_lower"] <= 1 and out["event"]


def test_the_trace_runs_first_and_decides_a_calibration_bug_without_sampling(mech):
    # the scale 0.1 of a histogram whose one record moves two bins: the trace certifies
    # ε = 2/0.1 ≈ 20 for the pair, no draw sampled
    res = _audit(mech("leaky_histogram"), *PAIR, *SMALL, *FAST, "--json")
    assert res.exit_code == 1, res.output
    out = _strict_json(res.stdout)
    assert out["kind"] == "trace" and out["verdict"] == "fail" and not out["passed"]
    lo, hi = out["epsilon_interval"]           # 2/b exactly, b the double nearest 0.1
    assert Fraction(lo) <= 2 / Fraction(0.1) <= Fraction(hi) and hi - lo < 1e-14
    assert {f["kind"] for f in out["trace"]["findings"]} == {"sensitivity"}
    text = _audit(mech("leaky_histogram"), *PAIR, "--trace")
    assert text.exit_code == 1 and "FAIL" in text.stdout and "sensitivity" in text.stdout
    # continuous noise is not certified with the default arithmetic: the trace leaves the
    # private histogram to the sampled audit, which passes; with --arithmetic real it holds
    res = _audit(mech("private_histogram"), *PAIR, *SMALL, *FAST, "--json")
    out = _strict_json(res.stdout)
    assert res.exit_code == 0 and out["kind"] == "audit" and out["verdict"] == "pass"
    assert out["trace"]["verdict"] == "inconclusive"
    res = _audit(mech("private_histogram"), *PAIR, "--trace", "--arithmetic", "real")
    assert res.exit_code == 0 and "HOLDS" in res.stdout, res.output
    res = _audit(mech("private_histogram"), *PAIR, "--trace")
    assert res.exit_code == 1 and "INCONCLUSIVE" in res.stdout, res.output


def test_the_same_seed_repeats_the_audit_and_workers_do_not_change_it(mech):
    args = [*PAIR, *SMALL, "--learners", "logistic", "--json"]
    one = _strict_json(_audit(mech("leaky_histogram"), *args).stdout)
    again = _strict_json(_audit(mech("leaky_histogram"), *args).stdout)
    two = _audit(mech("leaky_histogram"), *args, "--workers", "2")
    assert two.exit_code == 1, two.output
    assert one == again == _strict_json(two.stdout)


def test_features_file_hashable_outputs_and_stop_early(mech):
    res = _audit(mech("private_histogram"), *PAIR, *SMALL, "--features", mech("total"),
                 "--learners", "logistic", "--json")
    assert res.exit_code == 0, res.output
    assert _strict_json(res.stdout)["verdict"] == "pass"
    # strings as outputs; log 3 ≈ 1.1 > 1 is a true violation, found by counting outcomes
    res = _audit(mech("randomised_response"), "--d", "[1]", "--d-prime", "[0]", *SMALL,
                 "--learners", "none", "--stop-early")
    assert res.exit_code == 1 and "FAIL" in res.stdout, res.output
    res = _audit(mech("randomised_response"), "--d", "[1]", "--d-prime", "[0]", *SMALL,
                 "--epsilon", "1.2", "--learners", "none")
    assert res.exit_code == 0 and "PASS" in res.stdout, res.output


def test_bits_audits_the_doubles_returned_and_finds_the_textbook_float_leak(mech):
    # Mironov 2012: x + Laplace noise in doubles reveals x through the low mantissa bits
    args = ["--d", "[0]", "--d-prime", "[1]", "--samples", "50000", "--seed", "1",
            "--learners", "none"]
    reals = _audit(mech("textbook_laplace"), *args, "--json")
    assert reals.exit_code == 0, reals.output
    assert _strict_json(reals.stdout)["verdict"] == "pass"
    bits = _audit(mech("textbook_laplace"), *args, "--bits")
    assert bits.exit_code == 1, bits.output
    out = " ".join(bits.stdout.split())
    assert "FAIL" in out and "with events on their float bits" in out
    # --bits reads the outputs of a --mechanism-file only
    res = runner.invoke(app, ["audit", "--sampler", "laplace", "--scale", "2", "--bits"])
    assert res.exit_code == 2 and "--bits" in res.output and "Traceback" not in res.output


def test_inconclusive_exits_1(mech):
    # 100 test draws per dataset cannot certify anything above ε = 20: never a pass
    res = runner.invoke(app, ["audit", "--mechanism-file", mech("private_histogram"),
                              "--epsilon", "20", *PAIR, "--samples", "200", "--learners",
                              "none"])
    assert res.exit_code == 1 and "INCONCLUSIVE" in res.stdout, res.output


# ------------------------------------------------------------------ search
def test_search_over_datasets_finds_the_leaky_pair(mech):
    args = ["--d", "[0, 1]", "--datasets", "[[2, 2]]", "--budget", "20000",
            "--samples", "10000", "--learners", "logistic"]
    res = _audit(mech("leaky_histogram"), *args)
    assert res.exit_code == 1, res.output
    out = " ".join(res.stdout.split())
    assert "search over" in out and "replace-one pairs of 2 dataset(s)" in out
    assert "pair: d = [" in out and "witness: " in out and "FAIL" in out
    res = _audit(mech("leaky_histogram"), *args, "--neighbours", "add-remove", "--json")
    assert res.exit_code == 1, res.output
    out = _strict_json(res.stdout)
    assert out["kind"] == "search" and out["verdict"] == "fail"
    assert isinstance(out["d"], list) and isinstance(out["d_prime"], list)
    assert abs(len(out["d"]) - len(out["d_prime"])) == 1
    assert out["audit"]["event"] and out["epsilon_lower"] > 1


def test_search_of_a_private_mechanism_passes(mech):
    res = _audit(mech("private_histogram"), "--d", "[0, 1, 2]", "--budget", "8000",
                 "--samples", "10000", "--learners", "logistic", "--json")
    assert res.exit_code == 0, res.output
    assert _strict_json(res.stdout)["verdict"] == "pass"


def test_json_output_is_plain_json():
    import numpy as np

    from privtools.cli.audit import plain

    out = plain({"e": float("inf"), "n": -np.inf, "x": np.float64(1.5), (1, 2): np.arange(2),
                 "t": (np.int64(3), float("nan"))})
    assert json.loads(json.dumps(out, allow_nan=False)) == {
        "e": "inf", "n": "-inf", "x": 1.5, "(1, 2)": [0, 1], "t": [3, "nan"]}


def test_help_documents_the_mode_dependent_delta_and_exit_codes():
    res = runner.invoke(app, ["audit", "--help"])
    text = " ".join(res.stdout.replace("│", " ").split())
    for words in ("--mechanism-file", "default 1e-6", "default 0", "1 on fail or "
                  "inconclusive", "--d-prime", "--neighbours", "--learners"):
        assert words in text, words


# ------------------------------------------------------------------ bad input
def _bad_cases(mech, tmp):
    syntax = tmp / "syntax_error.py"
    syntax.write_text("def release(dataset, size, rng:\n    return size\n")
    raising = tmp / "raises_on_load.py"
    raising.write_text("import numpy as np\nraise RuntimeError('no database connection')\n")
    return [
        ("missing file", _args(f"{tmp}/nope.py:release"), "--mechanism-file", "no such file"),
        ("no function", _args(mech("nope")), "--mechanism-file", "defines no 'nope'"),
        ("not callable", _args(mech("NOT_A_FUNCTION")), "--mechanism-file", "not callable"),
        ("two arguments", _args(mech("two_arguments")), "--mechanism-file",
         "cannot be called"),
        ("no colon", _args(str(syntax)), "--mechanism-file", "PATH:FUNCTION"),
        ("syntax error", _args(f"{syntax}:release"), "--mechanism-file", "never closed"),
        ("raises on load", _args(f"{raising}:release"), "--mechanism-file",
         "no database connection"),
        ("raises when drawing", _args(mech("broken"), "--samples", "1000"), "--mechanism-file",
         "the histogram has no bins"),
        ("bad features", _args(mech("leaky_histogram"), "--features", mech("nope")),
         "--features", "defines no"),
        ("bad JSON in --d", _args(mech("leaky_histogram"), d="[1, 2"), "--d", "not valid JSON"),
        ("bad JSON in --d-prime", _args(mech("leaky_histogram"), dp="[1,]"), "--d-prime",
         "not valid JSON"),
        ("bad JSON in --datasets", _search(mech, "--datasets", "[[1], [2]"), "--datasets",
         "not valid JSON"),
        ("--datasets not a list", _search(mech, "--datasets", "{}"), "--datasets", "list"),
        ("unknown --neighbours", _search(mech, "--neighbours", "swap-two"), "--neighbours",
         "replace-one"),
        ("--learners svm", _args(mech("leaky_histogram"), "--learners", "svm"), "--learners",
         "svm"),
        ("--learners empty", _args(mech("leaky_histogram"), "--learners", ","), "--learners",
         "logistic"),
        ("no claim", ["audit", "--mechanism-file", mech("leaky_histogram"), *PAIR],
         "--epsilon", "claims"),
        ("no dataset", ["audit", "--mechanism-file", mech("leaky_histogram"), "--epsilon",
                        "1"], "--mechanism-file", "--d"),
        ("--d-prime alone", ["audit", "--mechanism-file", mech("leaky_histogram"), "--epsilon",
                             "1", "--d-prime", "[1]"], "--d-prime", "--d"),
        ("--budget with a pair", _args(mech("leaky_histogram"), "--budget", "5000"),
         "--budget", "search"),
        ("--stop-early in a search", _search(mech, "--stop-early"), "--stop-early", "pair"),
        ("--samples below 200", _args(mech("leaky_histogram"), "--samples", "100"),
         "--samples", "200"),
        ("--budget too small", _search(mech, "--budget", "10"), "--budget", "4000"),
        ("--delta 1", _args(mech("leaky_histogram"), "--delta", "1"), "--delta", "[0, 1)"),
        ("--epsilon nan", _args(mech("leaky_histogram"), "--epsilon", "nan"), "--epsilon",
         "number"),
        ("--workers 0", _args(mech("leaky_histogram"), "--workers", "0"), "--workers", ">= 1"),
        ("--n of another mode", _args(mech("leaky_histogram"), "--n", "4"), "--n",
         "--mechanism audits only"),
        ("query needs numbers", _search(mech, "--neighbours", "query", "--datasets",
                                        '[["a", "b"]]'), "--datasets", "numbers"),
        ("no neighbour", ["audit", "--mechanism-file", mech("leaky_histogram"), "--epsilon",
                          "1", "--d", "[1, 1]", "--budget", "5000"], "--d", "no pair"),
    ]


def _args(spec, *more, d="[0, 0, 1]", dp="[0, 1, 1]"):
    return ["audit", "--mechanism-file", spec, "--epsilon", "1", "--d", d, "--d-prime", dp,
            "--seed", "0", *more]


def _search(mech, *more):
    return ["audit", "--mechanism-file", mech("leaky_histogram"), "--epsilon", "1", "--d",
            "[0, 1]", *more]


def test_bad_inputs_exit_2_naming_the_option_without_a_traceback(mech, tmp_path):
    for name, args, option, words in _bad_cases(mech, tmp_path):
        res = runner.invoke(app, args)
        shown = f"{name}: args={args!r}\n--- output:\n{res.output}"
        assert res.exit_code == 2, shown
        assert "Traceback" not in res.output, shown
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), shown
        assert option in lines[0] and words in lines[0], shown


def test_debug_shows_the_users_traceback(mech, tmp_path):
    syntax = tmp_path / "syntax_error.py"
    syntax.write_text("def release(dataset, size, rng:\n    return size\n")
    res = runner.invoke(app, ["--debug", *_args(f"{syntax}:release")])
    assert res.exit_code == 2 and "Traceback" in res.stderr
    assert "SyntaxError" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("error: --mechanism-file")
    res = runner.invoke(app, ["--debug", *_args(mech("broken"), "--samples", "1000")])
    assert res.exit_code == 2 and "the histogram has no bins" in res.stderr
    assert "Traceback" in res.stderr
