"""Bad inputs at the command line: every one exits with code 2 and one line on stderr,
``error: ...``, that names the offending option — never a traceback, and never after long
work (the size limits are checked before any work starts, so this file runs in seconds).

The cases run through ``CliRunner().invoke(app, ...)``, which calls the app's click group
``main`` — the error boundary itself (``privtools.cli.boundary.BoundaryGroup``), exactly what
the ``privtools`` console script and ``python -m privtools.cli`` run; a few also run as
subprocesses.

Families of generated cases (see ``_generated``): exact numbers (NaN, ±inf, -1, 0, "abc",
empty, 1/0) for every exact-number option of noise, plan and audit; integers (not a number,
a fraction, empty, out of range below and above) for every integer option; floats (NaN, inf,
0, 1, negative) for audit's --alpha and --delta; unknown choices for every choice option; an
option the chosen mode or law ignores, and contradictory pairs; output paths that are files;
work beyond the size limits; usage errors (unknown option, unknown command, missing
option). ``test_named_cases`` adds every case named in the task that led to this file.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

import privtools
from privtools.cli import app

runner = CliRunner()

NOISE = {  # a valid command line for each kind
    "laplace": ["noise", "laplace", "--scale", "8"],
    "polya": ["noise", "polya", "--r", "1", "--scale", "8"],
    "polya-difference": ["noise", "polya-difference", "--r", "1", "--beta", "0.5"],
    "skellam": ["noise", "skellam", "--var", "100"],
    "gaussian": ["noise", "gaussian", "--sigma2", "100"],
}
PLAN = ["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000"]
PLAN_RDP = ["plan", "--privacy", "rdp", "--epsilon", "1", "--n", "16", "--horizon", "1000"]
MECH = ["audit", "--mechanism", "dist-dp", "--samples", "1000"]
MECH_RDP = ["audit", "--mechanism", "dist-rdp", "--samples", "1000"]
SAMPLER = ["audit", "--sampler", "laplace", "--scale", "8", "--samples", "1000"]
SIM = ["simulate", "--preset", "smoke"]
# --mechanism-file: every option is checked before the user's file is run, so a file that
# does not exist shows that each bad value is refused first
FILE = ["audit", "--mechanism-file", "no-such-file.py:release", "--epsilon", "1", "--d", "[1]",
        "--d-prime", "[2]"]
FILE_SEARCH = ["audit", "--mechanism-file", "no-such-file.py:release", "--epsilon", "1",
               "--d", "[1, 2]"]
FILE_OPTIONS = [("--d", "[1]"), ("--d-prime", "[1]"), ("--datasets", "[[1]]"),
                ("--neighbours", "add-remove"), ("--budget", "5000"),
                ("--features", "f.py:features"), ("--learners", "logistic"), ("--workers", "2")]

BAD_NUMBERS = ["nan", "inf", "-inf", "-1", "0", "abc", "", "1/0"]
BAD_INTEGERS = ["abc", "1.5", ""]


def _set(base: list[str], option: str, value: str) -> list[str]:
    """``base`` with ``option`` set to ``value`` (replaced if present)."""
    args = list(base)
    if option in args:
        args[args.index(option) + 1] = value
        return args
    return args + [option, value]


def _generated() -> list[tuple[str, list[str], str]]:
    cases = []

    def add(args, option, ident=None):
        cases.append((ident or " ".join(args), args, option))

    # exact numbers (str options parsed exactly): every bad value for every option
    exact = [(NOISE["laplace"], "--scale"), (NOISE["polya"], "--r"), (NOISE["polya"], "--scale"),
             (NOISE["polya-difference"], "--beta"), (NOISE["skellam"], "--var"),
             (NOISE["gaussian"], "--sigma2"), (PLAN, "--epsilon"), (PLAN_RDP, "--s"),
             (PLAN, "--p"), (MECH, "--epsilon"), (SAMPLER, "--scale")]
    for base, option in exact:
        for value in BAD_NUMBERS:
            add(_set(base, option, value), option)
    for value in BAD_NUMBERS + ["1e400"]:  # a claimed ε may be 0
        if value != "0":
            add(_set(FILE, "--epsilon", value), "--epsilon")
    # ... and values beyond what the option accepts
    for base, option, value in [(NOISE["polya-difference"], "--beta", "1"),
                                (NOISE["polya-difference"], "--beta", "2"),
                                (PLAN_RDP, "--s", "0.5"), (PLAN_RDP, "--delta", "1"),
                                (PLAN_RDP, "--delta", "0"), (PLAN_RDP, "--delta", "nan"),
                                (PLAN, "--p", "1"), (PLAN, "--p", "2")]:
        add(_set(base, option, value), option)

    # integers: not an integer, and out of range on either side
    integers = [
        (NOISE["laplace"], "--shares", ["0", "-1", "100000000"]),
        (NOISE["laplace"], "--dps", ["0", "-1", "101"]),
        (NOISE["skellam"], "--mu", ["4611686018427387905", "-4611686018427387905"]),
        (PLAN, "--n", ["0", "-5", str(10**13)]),
        (PLAN, "--horizon", ["0", "1", "-3"]),
        (PLAN, "--dps", ["4", "0", "1000"]),
        (PLAN, "--g", ["0", "-1"]),
        (PLAN, "--tau", ["-1"]),
        (PLAN, "--m", ["1", "0"]),
        (MECH, "--samples", ["0", "-1", str(10**9)]),
        (MECH, "--n", ["0", "-1"]),
        (MECH, "--horizon", ["1", "0"]),
        (MECH, "--seed", ["-1", str(2**63)]),
        (SAMPLER, "--seed", ["-1"]),
        (SAMPLER, "--samples", ["0", str(10**9)]),
        (FILE, "--samples", ["0", "199", str(10**9)]),
        (FILE, "--workers", ["0", "-1", "100000"]),
        (FILE, "--seed", ["-1", str(2**63)]),
        (FILE_SEARCH, "--budget", ["0", "3999", str(10**9)]),
        (FILE_SEARCH, "--samples", ["0", "99", str(10**9)]),
        (SIM, "--runs", ["0", "-1", "100000"]),
        (SIM, "--horizon", ["0", "5", str(10**10)]),
        (SIM, "--workers", ["0", "-2", "100000"]),
        (SIM, "--seed", ["-1", str(2**64)]),
        (["demo", "--quick"], "--seed", ["-1", str(2**64)]),
    ]
    for base, option, values in integers:
        for value in values + BAD_INTEGERS:
            add(_set(base, option, value), option)

    # floats
    for base, option in [(MECH, "--alpha"), (MECH_RDP, "--delta"), (FILE, "--alpha"),
                         (FILE, "--delta")]:
        for value in ["nan", "inf", "-inf", "0", "1", "-0.5", "2", "abc"]:
            if (option, value) != ("--delta", "0") or base is not FILE:  # δ = 0: pure DP
                add(_set(base, option, value), option)

    # JSON datasets of --mechanism-file
    for base, option, values in [(FILE, "--d", ["[1,", "", "{", "nan?"]),
                                 (FILE, "--d-prime", ["[1,", "", "]"]),
                                 (FILE_SEARCH, "--d", ["[1,", "{}", "3"]),
                                 (FILE_SEARCH, "--datasets", ["[[1]", "{}", "[]", "[1]",
                                                              "[[1], 2]"])]:
        for value in values:
            add(_set(base, option, value), option)

    # unknown choices
    for base, option in [(PLAN, "--privacy"), (PLAN, "--trust"), (PLAN, "--secure"),
                         (PLAN, "--tail"), (MECH, "--mechanism"), (SAMPLER, "--sampler"),
                         (SIM, "--preset"), (["verify-claims"], "--only"),
                         (FILE_SEARCH, "--neighbours"), (FILE, "--learners")]:
        for value in ["garbage", ""]:
            add(_set(base, option, value), option)
    add(_set(FILE, "--learners", "logistic,svm"), "--learners")
    add(_set(FILE, "--mechanism-file", "release.py"), "--mechanism-file")  # no :FUNCTION
    add(_set(FILE, "--mechanism-file", "release.py:"), "--mechanism-file")
    add(_set(FILE, "--mechanism-file", "no-such-file.py:1x"), "--mechanism-file")
    add(FILE, "--mechanism-file")  # the file does not exist
    add(FILE + ["--features", "no-such-file.py"], "--features")
    add(["noise", "cauchy", "--scale", "1"], "kind")
    add(["noise", "", "--scale", "1"], "kind")

    # options the chosen law or mode would ignore, and contradictory pairs
    for kind, base in NOISE.items():
        takes = {"laplace": {"--scale"}, "skellam": {"--var", "--mu"},
                 "gaussian": {"--sigma2", "--mu"}}.get(kind, {"--r", "--scale", "--beta"})
        for option, value in [("--scale", "2"), ("--var", "2"), ("--sigma2", "2"),
                              ("--r", "2"), ("--mu", "1")]:
            if option not in takes:
                add(base + [option, value], option)
    add(NOISE["polya"] + ["--beta", "0.5"], "--beta")  # both --scale and --beta
    for option, value in [("--scale", "2"), ("--var", "2"), ("--sigma2", "2"), ("--r", "1"),
                          ("--beta", "0.5"), ("--mu", "1")]:
        add(MECH + [option, value], option)
    add(MECH + ["--exact"], "--exact")
    for option, value in [("--epsilon", "2"), ("--n", "8"), ("--horizon", "100"),
                          ("--s", "2"), ("--delta", "0.1")]:
        add(SAMPLER + [option, value], option)
    for mech in ("dist-dp", "dist-shuffle", "central", "local"):
        add(_set(MECH, "--mechanism", mech) + ["--s", "2"], "--s")
        add(_set(MECH, "--mechanism", mech) + ["--delta", "0.001"], "--delta")
    for kind in ("polya", "polya-difference", "skellam"):  # no integer-only sampler
        add(_sampler(kind) + ["--exact"], "--exact")
    add(PLAN + ["--delta", "0.01"], "--delta")  # pure-dp has δ = 0
    add(PLAN_RDP + ["--no-verify", "--delta", "0.01"], "--delta")
    add(PLAN + ["--tail", "bound", "--no-compare", "--no-verify", "--dps", "30"], "--dps")
    add(PLAN + ["--s", "2"], "--s")  # s applies to rdp/cdp
    add(PLAN + ["--c", "2"], "--c")  # c applies to local trust
    add(SIM + ["--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "--workers")
    add(["audit", "--mechanism", "dist-dp", "--sampler", "laplace"], "--mechanism")
    # --mechanism-file: the options of the other modes, of the other kind of run, conflicts
    for option, value in FILE_OPTIONS:
        add(MECH + [option, value], option)
        add(SAMPLER + [option, value], option)
    add(MECH + ["--stop-early"], "--stop-early")
    for option, value in [("--n", "8"), ("--horizon", "100"), ("--s", "2"), ("--scale", "2"),
                          ("--mu", "1")]:
        add(FILE + [option, value], option)
    add(FILE + ["--exact"], "--exact")
    for option, value in [("--datasets", "[[1]]"), ("--neighbours", "add-remove"),
                          ("--budget", "5000")]:
        add(FILE + [option, value], option)  # a search's options with --d-prime
    add(FILE_SEARCH + ["--stop-early"], "--stop-early")
    add(["audit", "--mechanism-file", "no-such-file.py:release", "--d", "[1]"], "--epsilon")
    add(["audit", "--mechanism-file", "no-such-file.py:release", "--epsilon", "1"],
        "--mechanism-file")  # no dataset
    add(["audit", "--mechanism-file", "no-such-file.py:release", "--epsilon", "1",
         "--d-prime", "[1]"], "--d-prime")
    add(["audit", "--mechanism", "dist-dp", "--mechanism-file", "x.py:f"], "--mechanism")
    add(["audit", "--sampler", "laplace", "--mechanism-file", "x.py:f"], "--mechanism-file")
    add(["audit"], "--mechanism")
    return cases


def _sampler(kind: str) -> list[str]:
    law = NOISE[kind][2:]
    return ["audit", "--sampler", kind, *law, "--samples", "1000"]


def _file_cases(tmp) -> list[tuple[str, list[str], str]]:
    """Bad user files: each one exits 2 naming --mechanism-file (or --features)."""
    good = tmp / "good.py"
    good.write_text("import numpy as np\n\n\ndef release(dataset, size, rng):\n"
                    "    return rng.laplace(sum(dataset), 1.0, size)\n\n\nSCALE = 1\n")
    (tmp / "syntax.py").write_text("def release(dataset, size, rng:\n    return size\n")
    (tmp / "raises.py").write_text("raise ImportError('no module named secret_sauce')\n")
    (tmp / "draw_fails.py").write_text("def release(dataset, size, rng):\n"
                                       "    return [1, 2]\n")
    pair = ["--epsilon", "1", "--d", "[1]", "--d-prime", "[2]", "--samples", "1000"]
    cases = [("missing function", f"{good}:releas"), ("not callable", f"{good}:SCALE"),
             ("a directory", f"{tmp}:release"), ("syntax error", f"{tmp}/syntax.py:release"),
             ("raises on load", f"{tmp}/raises.py:release"),
             ("wrong number of outputs", f"{tmp}/draw_fails.py:release")]
    out = [(name, ["audit", "--mechanism-file", spec, *pair], "--mechanism-file")
           for name, spec in cases]
    out.append(("features missing", ["audit", "--mechanism-file", f"{good}:release", *pair,
                                     "--features", f"{good}:features"], "--features"))
    return out


def _out_cases(tmp) -> list[tuple[str, list[str], str]]:
    afile = tmp / "a-file"
    afile.write_text("x")
    return [("demo --out file", ["demo", "--quick", "--out", str(afile)], "--out"),
            ("demo --out file/sub", ["demo", "--quick", "--out", str(afile / "sub")], "--out"),
            ("simulate --out file", SIM + ["--out", str(afile)], "--out"),
            ("simulate --out file/sub", SIM + ["--out", str(afile / "sub")], "--out")]


NAMED = [  # the cases that led to this file
    (["noise", "laplace", "--scale", "32", "--shares", "100000000"], "--shares"),
    (["noise", "laplace", "--scale", "1e300"], "--scale"),
    (["noise", "skellam", "--var", "1e300"], "--var"),
    (["noise", "gaussian", "--sigma2", "1e300"], "--sigma2"),
    (["noise", "polya", "--r", "1", "--scale", "1e300"], "--scale"),
    (["noise", "polya-difference", "--r", "1", "--scale", "1e9"], "--scale"),
    (["noise", "polya", "--r", "1e300", "--scale", "1"], "--r"),
    (["noise", "laplace", "--scale", "10000", "--shares", "16"], "--scale"),
    (["noise", "laplace", "--scale", "1000", "--shares", "10000000"], "--shares"),
    (["noise", "laplace", "--scale", "8", "--beta", "0.5"], "--beta"),
    (["plan", "--epsilon", "1e-300", "--n", "16", "--horizon", "100"], "--epsilon"),
    (["plan", "--privacy", "cdp", "--epsilon", "1e-300", "--n", "16", "--horizon", "100"],
     "--epsilon"),
    (["plan", "--privacy", "rdp", "--epsilon", "1e-6", "--n", "16", "--horizon", "1000"],
     "--epsilon"),
    (["plan", "--privacy", "rdp", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--g",
      "1000000"], "--g"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--tau", str(10**30)],
     "--tau"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--tau", str(10**11)],
     "--tau"),
    (["plan", "--privacy", "rdp", "--epsilon", "1e300", "--n", "16", "--horizon", "1000"],
     "--epsilon"),
    (["plan", "--privacy", "cdp", "--epsilon", "1e100", "--n", "16", "--horizon", "1000"],
     "--epsilon"),
    (["plan", "--privacy", "cdp", "--epsilon", "1", "--s", "1e300", "--n", "16", "--horizon",
      "1000"], "--s"),
    (["plan", "--trust", "local", "--tail", "bound", "--c", "1e300", "--epsilon", "1", "--n",
      "16", "--horizon", "1000"], "--c"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", "100", "--trust", "local",
      "--tail", "bound"], "--c"),
    (["plan", "--privacy", "rdp", "--trust", "local", "--epsilon", "1", "--n", "16",
      "--horizon", "100"], "--trust"),
    (["audit", "--mechanism", "dist-dp", "--epsilon", "1e300"], "--epsilon"),
    (["audit", "--mechanism", "dist-dp", "--epsilon", "1e-300"], "--epsilon"),
    (["audit", "--mechanism", "dist-dp", "--scale", "3"], "--scale"),
    (["audit", "--mechanism", "dist-dp", "--n", "1000000", "--samples", "1000000"],
     "--samples"),
    (["audit", "--sampler", "skellam", "--var", "1e300"], "--var"),
    (["audit", "--sampler", "laplace", "--scale", "1e15"], "--scale"),
    (["audit", "--sampler", "gaussian", "--sigma2", "100", "--exact", "--samples",
      "100000000"], "--samples"),
    (["audit", "--mechanism", "dist-cdp", "--n", "1000000"], "--n"),
    (["noise", "skellam", "--var", "1", "--mu", str(2**61)], "--mu"),
    (["simulate", "--preset", "smoke", "--scheduler", "garbage"], "--scheduler"),
    (["simulate", "--preset", "fig1-hard", "--runs", "2000"], "--runs"),
    (["simulate", "--preset", "garbage"], "--preset"),
    (["demo", "--seed", "-1"], "--seed"),
    (["verify-claims", "--only", "lemma99"], "--only"),
    (["noise", "laplace", "--scale", "8", "--frobnicate"], "--frobnicate"),
    (["plan", "--n", "16", "--horizon", "100"], "--epsilon"),
    (["frobnicate"], "frobnicate"),
]


def _check(args: list[str], option: str) -> None:
    res = runner.invoke(app, args)
    shown = f"args={args!r}\n--- output:\n{res.output}"
    assert res.exit_code == 2, shown
    assert "Traceback" not in res.output, shown
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), shown
    assert option in lines[0], shown


GENERATED = _generated()


def test_the_table_is_large():
    assert len(GENERATED) >= 100
    assert len({tuple(args) for _, args, _ in GENERATED}) == len(GENERATED)


@pytest.mark.parametrize(("args", "option"), [(a, o) for _, a, o in GENERATED],
                         ids=[i for i, _, _ in GENERATED])
def test_generated_bad_input_exits_2_naming_the_option(args, option):
    _check(args, option)


@pytest.mark.parametrize(("args", "option"), NAMED, ids=[" ".join(a) for a, _ in NAMED])
def test_named_cases(args, option):
    _check(args, option)


def test_output_directories_are_checked_before_any_work(tmp_path):
    for _, args, option in _out_cases(tmp_path):
        _check(args, option)
    assert not (tmp_path / "a-file" / "sub").exists()


def test_mechanism_files_are_checked_before_any_work(tmp_path):
    for _, args, option in _file_cases(tmp_path):
        _check(args, option)


def test_unreachable_scheduler_fails_fast(monkeypatch):
    from privtools.cli import experiments

    monkeypatch.setattr(experiments, "SCHEDULER_TIMEOUT", 0.5)
    res = runner.invoke(app, SIM + ["--scheduler", "tcp://127.0.0.1:9"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.startswith("error: --scheduler: cannot connect to tcp://127.0.0.1:9")


# ------------------------------------------------------------------ the boundary itself
def test_internal_errors_are_one_line_with_exit_3_and_debug_shows_the_traceback(monkeypatch):
    import privtools.cli as cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(cli, "build_law", broken)
    res = runner.invoke(app, NOISE["laplace"])
    assert res.exit_code == 3 and "Traceback" not in res.output
    assert res.stderr.strip() == ("internal error: ZeroDivisionError: float division by zero "
                                  "(run with --debug for the traceback)")
    for args in (["--debug", *NOISE["laplace"]], [*NOISE["laplace"], "--debug"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 3 and "Traceback" in res.stderr
        assert res.stderr.strip().splitlines()[-1].startswith("internal error: ZeroDivision")


def test_debug_shows_the_traceback_of_a_bad_input_too():
    res = runner.invoke(app, ["--debug", "noise", "laplace", "--scale", "-1"])
    assert res.exit_code == 2 and "Traceback" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("error: --scale")


def test_version_and_help_epilogue():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"privtools {privtools.__version__}"
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    text = " ".join(res.stdout.replace("│", " ").split())
    for words in ("0 ok", "1 a check failed", "2 bad input", "3 internal error", "--debug"):
        assert words in text


def test_simulate_help_lists_every_preset_from_the_registry():
    from privtools.bandits.experiments import PRESETS

    res = runner.invoke(app, ["simulate", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.stdout.replace("│", " ").split())
    for name, preset in PRESETS.items():
        assert f"{name}: {' '.join(preset.description.split())}" in text


def test_square_brackets_survive_rich_markup():
    res = runner.invoke(app, NOISE["laplace"])
    assert res.exit_code == 0 and "P(X outside [lo, hi]) <= p" in res.stdout


def test_plan_default_tail_is_the_api_default():
    import inspect

    from privtools.planning import plan

    default = inspect.signature(plan).parameters["tail"].default
    res = runner.invoke(app, [*PLAN, "--no-verify", "--no-compare", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    api = plan(epsilon=1, n=16, horizon=1000)
    assert out["plan"]["tail"] == default and out["plan"]["tau"] == api.tau
    res = runner.invoke(app, ["plan", "--help"])
    assert f"(default: {default})" in " ".join(res.stdout.replace("│", " ").split())


@pytest.mark.parametrize(("args", "option"), [
    (["noise", "laplace", "--scale", "-1"], "--scale"),
    (["plan", "--epsilon", "1e-300", "--n", "16", "--horizon", "100"], "--epsilon"),
    (["demo", "--seed", "-1"], "--seed"),
])
def test_python_m_privtools_cli(args, option):
    res = subprocess.run([sys.executable, "-m", "privtools.cli", *args], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0]
