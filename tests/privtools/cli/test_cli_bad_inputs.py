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
option). ``test_named_cases`` adds every case of the user trial that led to this file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from privtools.cli import app
from privtools.validation import show_number

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
ACCOUNT = ["account", "--sigma", "1", "--steps", "10", "--delta", "1e-5"]
TRAIN = ["audit-training", "--step", "no-such-file.py:step", "--sampler",
         "no-such-file.py:batches", "--data", "no-such-file.npy", "--steps", "10",
         "--epsilon", "1", "--delta", "1e-5"]
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
    # (rdp/cdp --delta calibrates the plan to (ε, δ): meaningful with --no-verify too)
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
    for option, value in [("--datasets", "[[1]]"), ("--budget", "5000")]:
        add(FILE + [option, value], option)  # a search's options with --d-prime
    # (--neighbours with --d-prime states the pair's relation: a pair that is not
    # neighbouring under it is refused, naming --d-prime and --d)
    add(FILE + ["--neighbours", "add-remove"], "--d-prime")
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
    # issue 43: privtools account ran without limits (memory without bound, MemoryError,
    # OverflowError: exit 3) — each is refused before any work, naming the option
    *[(["account", *a.split(), "--delta", "1e-5"], o) for a, o in [
        ("--sigma 1e-3 --q 0.01 --steps 100", "--sigma"), ("--sigma 1e-300 --steps 1", "--sigma"),
        ("--sigma 1e10 --q 1e-30 --steps 100", "--q"), ("--sigma 1 --q 1e-300 --steps 1", "--q"),
        ("--sigma 1 --sensitivity 1e300 --steps 1", "--sensitivity"),
        ("--sigma 1 --sensitivity 1e300 --q 0.01 --steps 1", "--sensitivity"),
        ("--sigma 1e-300 --q 0.01 --steps 1", "--sigma"),
        ("--sigma 1e300 --q 0.5 --steps 1", "--sigma"),
        ("--sigma 1e-3 --allocation 10 --steps 100", "--sigma"),
        ("--sigma 1e-3 --batch 10 --population 100 --steps 100", "--sigma"),
        ("--sigma 1 --batch 1 --population 10 --sensitivity 1e-300 --steps 1", "--sensitivity"),
        ("--steps 10 --epsilon 1e300", "--epsilon"), (f"--sigma 1 --steps {10**8}", "--steps")]],
    (["account", "--sigma", "1", "--steps", "10", "--delta", "1e-300"], "--delta"),
]


@contextmanager
def _deadline(seconds: int = 30):
    """Fail (rather than hang) a case that runs longer than ``seconds``: bad input is refused
    before any work."""
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - not POSIX
        yield
        return

    def hung(*_):
        raise AssertionError(f"no answer within {seconds} s: work started before the check")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _check(args: list[str], option: str) -> None:
    with _deadline():
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


# ------------------------------------------------------------------ nonsense numbers and paths
# Each of these once ended in "internal error" (exit 3), ran for minutes, silently wrote into
# the current directory, or passed with nonsense (a pure-dp plan of 1 030 bits per user):
FORMERLY_INTERNAL = [
    (["noise", "laplace", "--scale", "1e-400"], "--scale"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--p", "1e-400"], "--p"),
    (["plan", "--privacy", "rdp", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--s",
      "1e308"], "--s"),
    (["simulate", "--preset", "smoke", "--out", "x" * 300], "--out"),
    (["demo", "--quick", "--out", ""], "--out"),
    (["simulate", "--preset", "smoke", "--out", ""], "--out"),
    (["plan", "--epsilon", "1e308", "--n", "16", "--horizon", "1000"], "--epsilon"),
    (["noise", "polya", "--r", "1", "--beta", "1e-400"], "--beta"),
    (["noise", "polya", "--r", "1e-5000", "--scale", "8"], "--r"),
    (["plan", "--privacy", "rdp", "--epsilon", "1e-400", "--n", "16", "--horizon", "1000"],
     "--epsilon"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", str(10**400)], "--horizon"),
    (["plan", "--privacy", "rdp", "--epsilon", "1", "--n", "16", "--horizon", "1000",
      "--participations", "2", "--delta", "1e-400"], "--delta"),
    (["audit", "--mechanism", "dist-dp", "--epsilon", "1e308"], "--epsilon"),
    (["audit", "--sampler", "laplace", "--scale", "1e-400"], "--scale"),
    (["plan", "--trust", "local", "--tail", "bound", "--c", "1e-400", "--epsilon", "1", "--n",
      "16", "--horizon", "1000"], "--c"),
    (["plan", "--epsilon", "1", "--n", "16", "--horizon", "1000", "--m", str(2**70)], "--m"),
    (["noise", "skellam", "--var", "1e-400"], "--var"),
    (["plan", "--epsilon", "1e999999999", "--n", "16", "--horizon", "1000"], "--epsilon"),
    (["audit", "--mechanism", "dist-dp", "--n", str(10**400)], "--n"),
    (["audit", "--mechanism-file", "x" * 300 + ".py:release", "--epsilon", "1", "--d", "[1]",
      "--d-prime", "[2]"], "--mechanism-file"),
]
ON_PROC = [(["demo", "--quick", "--out", "/proc/nope"], "--out"),
           (["simulate", "--preset", "smoke", "--out", "/proc/nope/deeper"], "--out"),
           (["demo", "--quick", "--out", "/proc"], "--out")]
HAS_PROC = os.path.isdir("/proc/self")

PLAN_CDP = ["plan", "--privacy", "cdp", "--epsilon", "1", "--n", "16", "--horizon", "1000"]
PLAN_LOCAL = ["plan", "--trust", "local", "--tail", "bound", "--c", "1", "--epsilon", "1",
              "--n", "16", "--horizon", "1000"]
PLAN_RETURNING = PLAN_RDP + ["--participations", "2", "--delta", "1e-6"]
ACCOUNT_Q = ACCOUNT + ["--q", "0.01"]
ACCOUNT_CALIBRATE = ["account", "--steps", "10", "--delta", "1e-5", "--epsilon", "1"]
#: every option that takes an exact number, in each place it is read
EXACT_OPTIONS = [
    (NOISE["laplace"], "--scale"), (NOISE["polya"], "--r"), (NOISE["polya"], "--scale"),
    (["noise", "polya", "--r", "1", "--beta", "0.5"], "--beta"),
    (NOISE["polya-difference"], "--r"), (NOISE["polya-difference"], "--beta"),
    (["noise", "polya-difference", "--r", "1", "--scale", "3"], "--scale"),
    (NOISE["skellam"], "--var"), (NOISE["gaussian"], "--sigma2"),
    (PLAN, "--epsilon"), (PLAN_RDP, "--epsilon"), (PLAN_CDP, "--epsilon"), (PLAN_RDP, "--s"),
    (PLAN_CDP, "--s"), (PLAN, "--p"), (PLAN_RDP, "--p"), (PLAN_LOCAL, "--c"),
    (PLAN_RDP, "--delta"), (PLAN_RETURNING, "--delta"),
    (MECH, "--epsilon"), (MECH_RDP, "--epsilon"), (MECH_RDP, "--s"),
    (SAMPLER, "--scale"), (_sampler("polya"), "--r"), (_sampler("polya"), "--scale"),
    (ACCOUNT, "--sigma"), (ACCOUNT_Q, "--sigma"), (ACCOUNT_Q, "--q"),
    (ACCOUNT, "--sensitivity"), (ACCOUNT_Q, "--sensitivity"), (ACCOUNT, "--delta"),
    (ACCOUNT_CALIBRATE, "--epsilon"),
    (_sampler("polya-difference"), "--beta"), (_sampler("skellam"), "--var"),
    (_sampler("gaussian"), "--sigma2"), (FILE, "--epsilon"),
]
#: underflow to 0, overflow to inf, beyond every limit, beyond Python's digits, not numbers
NONSENSE_NUMBERS = ["1e-400", "1e400", "1e308", "-0", " ", "1e-5000", "0x10", "1e999999999",
                    "5e-324", "-1e400"]
#: integers beyond the plan limits of privtools.limits (or of the command)
BEYOND_LIMITS = [
    (PLAN, "--n", [str(2**80), str(10**12 + 1)]),
    (PLAN, "--horizon", [str(10**18 + 1), str(10**400)]),
    (PLAN_RDP, "--horizon", [str(10**400)]),
    (PLAN, "--m", [str(2**64 + 1), str(10**400)]),
    (PLAN, "--tau", [str(2**62 + 1), str(10**400)]),
    (PLAN, "--g", [str(2**70), str(10**400)]),
    (PLAN, "--epsilon", ["1001", "1000.000001"]),
    (PLAN_CDP, "--epsilon", ["1001"]),
    (MECH, "--horizon", [str(10**19), str(10**400)]),
    (MECH, "--epsilon", ["1001"]),
]
#: output directories that cannot be made; {file} is an existing file
BAD_OUT = ["", " ", "  \t", "a" * 300, "a" * 300 + "/b", "ok/" + "a" * 256, "{file}",
           "{file}/sub", "{file}/sub/deeper", "/dev/null/x", "x/" * 2100, "n\x00ul"]
OUT_COMMANDS = [["demo", "--quick"], ["simulate", "--preset", "smoke"]]


def _every_option() -> list[tuple[list[str], str]]:
    """(a valid command line, an option it may take) for every option of every command that
    takes a value (audit's options in each of its three modes)."""
    from typer.main import get_command

    bases = {"noise": [NOISE["laplace"]], "plan": [PLAN], "simulate": [SIM],
             "demo": [["demo", "--quick"]], "verify-claims": [["verify-claims"]],
             "audit": [MECH, SAMPLER, FILE], "account": [ACCOUNT], "audit-training": [TRAIN]}
    out = []
    for name, command in get_command(app).commands.items():
        for param in command.params:
            if getattr(param, "param_type_name", "") != "option" or param.is_flag:
                continue
            out += [(base, max(param.opts, key=len)) for base in bases[name]]
    return out


def _ident(args: list[str]) -> str:
    """A short test id: blank values quoted, long ones cut."""
    return " ".join(repr(a) if not a.strip() else a if len(a) <= 24 else a[:10] + "…" + a[-6:]
                    for a in args)


def _nonsense() -> list[tuple[str, list[str], str]]:
    cases = []
    for base, option in EXACT_OPTIONS:
        for value in NONSENSE_NUMBERS:
            if (base, option, value) == (FILE, "--epsilon", "-0"):  # a claimed ε may be 0
                continue
            cases.append(_set(base, option, value) + [option])
    for base, option, values in BEYOND_LIMITS:
        cases += [_set(base, option, value) + [option] for value in values]
    for base, option in _every_option():
        cases += [_set(base, option, value) + [option] for value in ("", " ")]
    unique = list({tuple(c): c for c in cases}.values())  # (" " is in two families)
    return [(_ident(c[:-1]), c[:-1], c[-1]) for c in unique]


NONSENSE = _nonsense()


def test_the_nonsense_table_is_large():
    ids = [i for i, _, _ in NONSENSE]
    assert len(NONSENSE) + len(BAD_OUT) * len(OUT_COMMANDS) + len(API_NONSENSE) >= 300
    assert len(set(ids)) == len(ids)
    assert len(_every_option()) >= 60


@pytest.mark.parametrize(("args", "option"), [(a, o) for _, a, o in NONSENSE],
                         ids=[i for i, _, _ in NONSENSE])
def test_nonsense_exits_2_naming_the_option(args, option):
    _check(args, option)


@pytest.mark.parametrize(("args", "option"), FORMERLY_INTERNAL,
                         ids=[" ".join(a)[:80] for a, _ in FORMERLY_INTERNAL])
def test_formerly_internal_errors_exit_2_naming_the_option(args, option):
    _check(args, option)


@pytest.mark.skipif(not HAS_PROC, reason="no /proc on this system")
@pytest.mark.parametrize(("args", "option"), ON_PROC, ids=[" ".join(a) for a, _ in ON_PROC])
def test_directories_in_proc_are_refused(args, option):
    _check(args, option)
    assert not os.path.exists("/proc/nope")


@pytest.mark.parametrize("command", OUT_COMMANDS, ids=[c[0] for c in OUT_COMMANDS])
@pytest.mark.parametrize("out", BAD_OUT, ids=[repr(v)[:30] for v in BAD_OUT])
def test_output_directories_that_cannot_be_made_are_refused(command, out, tmp_path,
                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("x")
    _check(command + ["--out", out.replace("{file}", str(tmp_path / "a-file"))], "--out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing was made


def test_out_dot_is_the_current_directory(tmp_path, monkeypatch):
    from privtools.cli import checks

    monkeypatch.chdir(tmp_path)
    assert str(checks.out_dir("out", ".")) == "."
    assert str(checks.out_dir("out", "new/deeper")) == "new/deeper"
    assert list(tmp_path.iterdir()) == []  # checked by making and removing, nothing left


@pytest.mark.parametrize("privacy", ["pure-dp", "rdp", "cdp"])
@pytest.mark.parametrize("epsilon", ["1001", "1e308", "1e400", str(10**400)])
def test_every_privacy_kind_refuses_the_same_epsilon_identically(privacy, epsilon):
    from privtools import limits
    from privtools.errors import ParameterError
    from privtools.planning import plan

    lines = {}
    for kind in ("pure-dp", "rdp", "cdp"):
        res = runner.invoke(app, ["plan", "--privacy", kind, "--epsilon", epsilon, "--n", "16",
                                  "--horizon", "1000"])
        assert res.exit_code == 2 and "Traceback" not in res.output
        lines[kind] = res.stderr.strip()
    assert lines[privacy] == lines["pure-dp"]
    assert lines[privacy].startswith("error: --epsilon ")
    if epsilon in ("1001", "1e308"):  # (beyond float64's range: refused as such first)
        assert f"above the limit {limits.EPSILON.high}" in lines[privacy]
        with pytest.raises(ParameterError) as info:
            plan(privacy=privacy, epsilon=epsilon, n=16, horizon=1000)
        with pytest.raises(ParameterError) as same:
            plan(privacy="pure-dp", epsilon=epsilon, n=16, horizon=1000)
        assert str(info.value) == str(same.value)
        assert str(info.value).startswith("epsilon = ")
        assert lines[privacy] == "error: --epsilon " + str(info.value)[len("epsilon = "):]


def test_the_api_refuses_n_2_to_the_80():
    from privtools.errors import ParameterError
    from privtools.planning import plan

    with pytest.raises(ParameterError, match=r"^n = 1\.21e\+24 is above the limit 10\*\*12: "):
        plan(privacy="pure-dp", epsilon=1, n=2**80, horizon=10**6)


#: the API's plan with each limit's nonsense: (privacy kinds, keyword arguments, the name the
#: message starts with)
API_NONSENSE = [
    (kinds, kwargs, name)
    for kinds in ("pure-dp", "rdp", "cdp")
    for kwargs, name in [
        ({"epsilon": "1e308"}, "epsilon"), ({"epsilon": 1001}, "epsilon"),
        ({"epsilon": Fraction(10**400)}, "epsilon"), ({"epsilon": 1e300}, "epsilon"),
        ({"epsilon": Fraction(1, 10**400)}, "epsilon"),
        ({"n": 2**80}, "n"), ({"n": 10**12 + 1}, "n"),
        ({"horizon": 10**18 + 1}, "horizon"), ({"horizon": 10**400}, "horizon"),
        ({"p": "1e-400"}, "p"), ({"p": Fraction(1, 2**129)}, "p"), ({"p": 5e-324}, "p"),
        ({"delta": "1e-300", "participations": 2}, "delta"),
        ({"delta": Fraction(1, 10**5000), "participations": 2}, "delta"),
        ({"epsilon": 1000, "n": 10**12}, "the plan's modulus m"),
    ]
] + [("rdp", {"s": 10**6, "n": 10**12}, "the plan's modulus m"),
     ("cdp", {"s": "1e300"}, "the precision g")]


@pytest.mark.parametrize(("privacy", "kwargs", "name"), API_NONSENSE,
                         ids=[f"{k} {' '.join(f'{a}={show_number(v)}' for a, v in kw.items())}"
                              for k, kw, _ in API_NONSENSE])
def test_the_api_refuses_each_limits_nonsense_naming_the_parameter(privacy, kwargs, name):
    from privtools.errors import ParameterError
    from privtools.planning import plan

    args = {"privacy": privacy, "epsilon": 1, "n": 16, "horizon": 1000} | kwargs
    with _deadline(), pytest.raises(ParameterError) as info:
        plan(**args)
    assert str(info.value).startswith(name + " "), str(info.value)
    assert "Traceback" not in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"m": 2**64 + 1}, "m"), ({"m": 10**400}, "m"), ({"tau": 2**62 + 1}, "tau"),
    ({"g": 2**70}, "g"),
])
def test_your_own_parameters_are_within_the_limits(kwargs, name):
    from privtools.errors import ParameterError
    from privtools.planning import plan, with_parameters

    with pytest.raises(ParameterError) as info:
        with_parameters(plan(epsilon=1, n=16, horizon=1000), **kwargs)
    assert str(info.value).startswith(name + " = "), str(info.value)


def test_the_limits_table_declares_each_limit_once_with_its_reason():
    from privtools import limits

    names = [lim.name for lim in limits.LIMITS]
    assert names == ["epsilon", "delta", "p", "n", "horizon", "tau", "bits", "m"]
    assert all(lim.reason and lim.describe() for lim in limits.LIMITS)
    assert limits.M.high == 2**limits.BITS.high
    for lim in limits.LIMITS:  # the table in the module's docstring lists each of them
        assert f":data:`{lim.name.upper()}`" in limits.__doc__


@pytest.mark.parametrize(("args", "option"), FORMERLY_INTERNAL[:7],
                         ids=[" ".join(a)[:60] for a, _ in FORMERLY_INTERNAL[:7]])
def test_formerly_internal_errors_as_a_process(args, option, tmp_path):
    res = subprocess.run([sys.executable, "-m", "privtools.cli", *args], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0]
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ the user's code misbehaves
# A mechanism file that exits, crashes, raises or hangs: exit 2 naming the file and function,
# never 0, never a verdict, nothing on stdout (tests/privtools/test_usercode_guard.py has the rest).
USER_FAULTS = {
    "exits_0": "import sys\ndef release(d, size, rng):\n    sys.exit(0)\n",
    "exits_3": "import sys\ndef release(d, size, rng):\n    sys.exit(3)\n",
    "os_exit": "import os\ndef release(d, size, rng):\n    os._exit(0)\n",
    "kill": "import os, signal\ndef release(d, size, rng):\n    os.kill(os.getpid(), "
            "signal.SIGKILL)\n",
    "raises": "def release(d, size, rng):\n    raise RuntimeError('boom')\n",
    "hangs": "import time\ndef release(d, size, rng):\n    time.sleep(600)\n",
    "top_exit": "import sys\nsys.exit(0)\ndef release(d, size, rng):\n    pass\n",
    "top_hang": "while True:\n    pass\ndef release(d, size, rng):\n    pass\n",
    "bad_output": "def release(d, size, rng):\n    return object()\n",
}


@pytest.mark.parametrize("fault", sorted(USER_FAULTS))
@pytest.mark.parametrize("mode", ["pair", "search"])
def test_user_code_faults_exit_2_with_no_verdict(fault, mode, tmp_path):
    path = tmp_path / f"{fault}.py"
    path.write_text(USER_FAULTS[fault])
    where = ["--d", "[1, 2]", "--d-prime", "[1, 3]"] if mode == "pair" else \
        ["--d", "[1, 2]", "--budget", "4000"]
    args = ["audit", "--mechanism-file", f"{path}:release", "--epsilon", "1", *where,
            "--timeout", "1", "--json"]
    with _deadline(60):
        res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert f"{fault}.py" in lines[0], lines[0]
