"""User code is untrusted input: a mechanism, sampler, feature map or file top level that
exits, crashes, raises, hangs, prints or mutates its input can never produce a verdict, an
exit status 0 or a corrupt ``--json`` (``privtools.usercode``, behind every audit entry point
and the command line).

Every fault below is decided by the process's fate, not by statistics: the assertions are
exact (an exception of one class naming the function; exit status 2; strict JSON)."""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from privtools.cli import app
from privtools.errors import ParameterError, UserCodeError
from privtools.testing import assert_follows, assert_private, find_counterexample
from privtools.usercode import UserCode, UserCodeReport, check_timeouts, guarded
from verification.audit import (
    audit_mechanism,
    audit_mechanism_sequential,
    audit_sampler,
    audit_sampler_sequential,
    search_counterexample,
)

runner = CliRunner()


# ------------------------------------------------------------------ faulty user code
def private(d, size, rng):
    return float(sum(d)) + rng.laplace(0.0, 1.0, size)


def exits_0(d, size, rng):
    sys.exit(0)


def exits_3(d, size, rng):
    sys.exit(3)


def os_exits(d, size, rng):
    os._exit(0)


def segfaults(d, size, rng):
    os.kill(os.getpid(), signal.SIGSEGV)


def raises(d, size, rng):
    raise ValueError("no bins")


def hangs(d, size, rng):
    time.sleep(600)


def prints(d, size, rng):
    print("chatter on stdout")
    os.write(2, b"chatter on fd 2\n")
    return private(d, size, rng)


def mutates(d, size, rng):
    out = float(d[1]) + rng.laplace(0.0, 1.0, size)
    d[0] = 99          # changes its input after reading it
    return out


FAULTS = {exits_0: "called sys.exit(0)", exits_3: "called sys.exit(3)",
          os_exits: "exit status 0", segfaults: "signal SIGSEGV",
          raises: "raised ValueError: no bins"}


@pytest.mark.parametrize("fault", list(FAULTS), ids=lambda f: f.__name__)
def test_every_audit_entry_point_turns_a_fault_into_user_code_error(fault):
    calls = [
        lambda: audit_mechanism(fault, [1], [2], 1.0, 1000, rng=1),
        lambda: audit_mechanism_sequential(fault, [1], [2], 1.0, 1000, rng=1),
        lambda: search_counterexample(fault, 1.0, [[1, 2]], budget=4000, rng=1),
        lambda: assert_private(fault, [1], [2], epsilon=1.0, max_samples=1000),
        lambda: find_counterexample(fault, 1.0, [[1, 2]], max_examples=2,
                                    screen_samples=512, max_samples=1000),
    ]
    for call in calls:
        with pytest.raises(UserCodeError) as err:
            call()
        assert FAULTS[fault] in str(err.value)
        assert fault.__name__ in str(err.value)       # the function is named


def _sampler_exits(size, rng):
    sys.exit(0)


def _sampler_os_exits(size, rng):
    os._exit(1)


def test_sampler_audits_are_guarded_too():
    from privtools.noise import DiscreteLaplace

    law = DiscreteLaplace(4)
    for fn, text in ((_sampler_exits, "sys.exit(0)"), (_sampler_os_exits, "exit status 1")):
        for audit in (lambda f: audit_sampler(f, law, 1000, rng=1),
                      lambda f: audit_sampler_sequential(f, law, 1000, rng=1),
                      lambda f: assert_follows(f, law)):
            with pytest.raises(UserCodeError) as err:
                audit(fn)
            assert text in str(err.value) and fn.__name__ in str(err.value)


def test_a_hung_call_is_stopped_at_its_time_limit():
    with pytest.raises(UserCodeError, match="did not return within 0.5 s") as err:
        audit_mechanism(hangs, [1], [2], 1.0, 1000, rng=1, timeout=0.5)
    assert "hangs" in str(err.value)
    with pytest.raises(UserCodeError, match="did not finish within 0.5 s"):
        audit_mechanism(hangs, [1], [2], 1.0, 1000, rng=1, timeout=None, total_timeout=0.5)


def test_output_is_captured_and_mutation_cannot_change_the_audit():
    res = audit_mechanism(prints, [1], [2], 1.0, 2000, rng=1)
    assert res.user_code.isolated
    assert "chatter on stdout" in res.user_code.stdout
    assert "chatter on fd 2" in res.user_code.stderr
    # a mechanism that mutates its dataset sees a fresh copy on every call: its audit is the
    # audit of the same mechanism without the mutation, draw for draw
    clean = audit_mechanism(lambda d, size, rng: float(d[1]) + rng.laplace(0.0, 1.0, size),
                            [1, 1], [1, 2], 1.0, 2000, rng=5)
    dirty = audit_mechanism(mutates, [1, 1], [1, 2], 1.0, 2000, rng=5)
    assert dirty.counts == clean.counts and dirty.epsilon_lower == clean.epsilon_lower
    assert any("changed its input" in m for m in dirty.user_code.mutations)
    assert not clean.user_code.mutations


def test_identical_and_non_neighbouring_pairs_are_refused_before_any_draw(tmp_path):
    marker = tmp_path / "called"      # the audit runs in a child process: mark a file

    def counted(d, size, rng):
        marker.touch()
        return private(d, size, rng)

    with pytest.raises(ParameterError, match="identical"):
        audit_mechanism(counted, [1, 2], [1, 2], 1.0, 1000)
    with pytest.raises(ParameterError, match="identical"):
        assert_private(counted, [1], [1], epsilon=1.0)
    with pytest.raises(ParameterError, match="2 records differ"):
        audit_mechanism(counted, [1, 2], [2, 3], 1.0, 1000, relation="replace-one")
    with pytest.raises(ParameterError, match="3 records added or removed"):
        audit_mechanism_sequential(counted, [1], [2, 3], 1.0, 1000, relation="add-remove")
    with pytest.raises(ParameterError, match="not a replace-one neighbour"):
        assert_private(counted, [1, 2], [1], epsilon=1.0, neighbours="replace-one")
    with pytest.raises(ParameterError, match=r"‖d − d'‖∞ = 2"):
        audit_mechanism(counted, [1, 2], [1, 4], 1.0, 1000, relation="query")
    with pytest.raises(ParameterError, match="relation"):
        audit_mechanism(counted, [1], [2], 1.0, 1000, relation=lambda d: [[5]])
    assert not marker.exists()
    # neighbouring pairs pass the check
    assert audit_mechanism(counted, [1, 2], [1, 3], 1.0, 1000, relation="replace-one").passed
    assert marker.exists()


@pytest.mark.parametrize("value", [0, -1, float("nan"), "10", True])
def test_timeouts_are_checked(value):
    with pytest.raises(ParameterError, match="timeout"):
        check_timeouts(value, None)
    with pytest.raises(ParameterError, match="total_timeout"):
        check_timeouts(None, value)
    with pytest.raises(ParameterError, match="timeout"):
        audit_mechanism(private, [1], [2], 1.0, 1000, timeout=value)


def test_the_guard_returns_results_that_hold_the_users_callables():
    feats = lambda outputs: np.asarray(outputs, dtype=float)[:, None]  # noqa: E731
    res = audit_mechanism(private, [1], [2], 1.0, 2000, rng=2, features=feats,
                          learners=("logistic",))
    assert res.verdict in ("pass", "fail", "inconclusive")


def test_guarded_itself():
    assert guarded(lambda tick: 7)[0] == 7
    out, report = guarded(lambda tick: (print("x"), 3)[1], isolate=False)
    assert out == 3 and report.stdout == "x\n" and not report.isolated
    ticks = []
    out, report = guarded(lambda tick: [tick(k) for k in (1, 2, 3)] and 5,
                          progress=ticks.append)
    assert out == 5 and ticks == [1, 2, 3] and isinstance(report, UserCodeReport)
    with pytest.raises(KeyError):                   # the work's own errors come back as such
        guarded(lambda tick: {}["missing"])
    wrapped = UserCode.wrap(private, "mechanism")
    assert UserCode.wrap(wrapped, "mechanism") is wrapped and "private" in wrapped.name


# ------------------------------------------------------------------ the command line
def hanging_features(outputs):
    time.sleep(600)


# the same functions as a user's file, for the command line
FILE = "import os, signal, sys, time\nimport numpy as np\n\n" + "\n".join(
    inspect.getsource(f) for f in (private, exits_0, exits_3, os_exits, raises, hangs, prints,
                                   mutates, hanging_features))


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user")
    (folder / "faults.py").write_text(FILE)
    (folder / "top_exit.py").write_text("import sys\nsys.exit(0)\n"
                                         "def release(d, size, rng):\n    pass\n")
    (folder / "top_hang.py").write_text("import time\ntime.sleep(600)\n"
                                         "def release(d, size, rng):\n    pass\n")
    return folder


def _cli(*args):
    return runner.invoke(app, ["audit", *args])


def _pair(spec, *more):
    return _cli("--mechanism-file", spec, "--epsilon", "1", "--d", "[1, 1]", "--d-prime",
                "[1, 2]", "--samples", "2000", "--learners", "none", *more)


@pytest.mark.parametrize("name,text", [
    ("exits_0", "called sys.exit(0)"), ("exits_3", "called sys.exit(3)"),
    ("os_exits", "exit status 0"), ("raises", "raised ValueError: no bins")])
def test_cli_user_code_faults_exit_2_with_no_verdict(user_file, name, text):
    for extra in ((), ("--json",)):
        res = _pair(f"{user_file}/faults.py:{name}", *extra)
        assert res.exit_code == 2, res.output
        assert f"faults.py:{name}" in res.stderr and text in res.stderr
        assert "Traceback" not in res.output and res.stdout == ""
        assert "PASS" not in res.output and "FAIL" not in res.output


def test_cli_hangs_end_at_the_timeout(user_file):
    for args in ((f"{user_file}/faults.py:hangs", "--timeout", "1"),
                 (f"{user_file}/top_hang.py:release", "--timeout", "1"),
                 (f"{user_file}/faults.py:hangs", "--total-timeout", "1")):
        res = _pair(*args)
        assert res.exit_code == 2, res.output
        assert "within 1 s" in res.stderr and "Traceback" not in res.output
    res = _cli("--mechanism-file", f"{user_file}/faults.py:prints", "--epsilon", "1", "--d",
               "[1, 1]", "--d-prime", "[1, 2]", "--samples", "2000",
               "--features", f"{user_file}/faults.py:hanging_features", "--learners",
               "logistic", "--timeout", "1")
    assert res.exit_code == 2 and "hanging_features" in res.stderr, res.output


def test_cli_file_top_level_exit(user_file):
    res = _pair(f"{user_file}/top_exit.py:release")
    assert res.exit_code == 2 and "top level" in res.stderr and "sys.exit(0)" in res.stderr


def test_cli_prints_stay_out_of_json_and_mutation_is_reported(user_file):
    res = _pair(f"{user_file}/faults.py:prints", "--json")
    assert res.exit_code in (0, 1), res.output
    out = json.loads(res.stdout)                    # strict: nothing else on stdout
    assert out["user_code"]["stdout"].startswith("chatter")
    res = _pair(f"{user_file}/faults.py:prints")
    assert "chatter" in res.stdout and "captured" in res.stdout
    res = _pair(f"{user_file}/faults.py:mutates")
    assert res.exit_code in (0, 1) and "changed its input" in res.stdout, res.output


def test_cli_refuses_identical_and_non_neighbouring_pairs(user_file):
    spec = f"{user_file}/faults.py:prints"
    res = _cli("--mechanism-file", spec, "--epsilon", "1", "--d", "[1]", "--d-prime", "[1]")
    assert res.exit_code == 2 and "--d-prime is identical to --d" in res.stderr
    res = _cli("--mechanism-file", spec, "--epsilon", "1", "--d", "[1, 2]", "--d-prime",
               "[2, 3]", "--neighbours", "replace-one")
    assert res.exit_code == 2 and "2 records differ" in res.stderr
    res = _cli("--mechanism-file", spec, "--epsilon", "1", "--d", "[1, 2]", "--d-prime",
               "[1, 2, 3, 4]", "--neighbours", "add-remove")
    assert res.exit_code == 2 and "2 records added or removed" in res.stderr
    for bad in ("0", "-1", "nan", "inf", "abc"):
        res = _cli("--mechanism-file", spec, "--epsilon", "1", "--d", "[1]", "--d-prime",
                   "[2]", "--timeout", bad)
        assert res.exit_code == 2 and "--timeout" in res.stderr, (bad, res.output)


def test_the_console_script_survives_os_exit_in_a_subprocess(user_file):
    """The real entry point, not CliRunner: exit status 2, one error line, empty stdout."""
    proc = subprocess.run([sys.executable, "-m", "privtools.cli", "audit", "--mechanism-file",
                           f"{user_file}/faults.py:os_exits", "--epsilon", "1", "--d", "[1]",
                           "--d-prime", "[2]", "--json"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "error: --mechanism-file" in proc.stderr and "Traceback" not in proc.stderr
