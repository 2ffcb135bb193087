"""The guard survives its own death (``privtools.usercode``, ``privtools.cli.boundary``):
SIGTERM, SIGHUP or SIGINT delivered to privtools while the user's code runs end the user's
process as well, and a reader that closes privtools's stdout (``| head``) costs neither a
traceback nor the verdict's exit status.

The command line runs as a real subprocess. Nothing here is timed: waits are polls whose
bound (``_WAIT`` polls of ``_STEP`` s) only keeps a broken build from hanging the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from privtools.usercode import _LIVE, guarded

_STEP = 0.1
_WAIT = 600                   # polls: a 60 s bound on each wait, never reached when it works

LOOP = """import os

def release(d, size, rng):
    with open(os.environ["PRIVTOOLS_TEST_PIDFILE"] + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(os.environ["PRIVTOOLS_TEST_PIDFILE"] + ".tmp",
               os.environ["PRIVTOOLS_TEST_PIDFILE"])
    while True:
        pass
"""

PRIVATE = """def release(d, size, rng):
    return float(sum(d)) + rng.laplace(0.0, 1.0, size)
"""


def _gone(pid: int) -> bool:
    """The process has ended: no such process, or a zombie no one has reaped yet."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def _poll(condition) -> bool:
    for _ in range(_WAIT):
        if condition():
            return True
        time.sleep(_STEP)
    return condition()


def _default_signals():
    """In the child, before privtools starts: the default dispositions a shell gives a
    command. An ignored signal is inherited across exec and privtools keeps it ignored (as
    under ``nohup``), so a test process whose runner left SIGHUP or SIGINT ignored must not
    pass that on."""
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)


def _cli(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "privtools.cli", "audit", *args],
                            stdin=subprocess.DEVNULL, preexec_fn=_default_signals, **kwargs)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "loop.py").write_text(LOOP)
    (tmp_path / "private.py").write_text(PRIVATE)
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.isdir("/proc"),
                    reason="the guard's child process needs fork")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=lambda s: signal.Signals(s).name)
def test_a_signal_to_privtools_ends_the_users_looping_process(files, sig):
    pidfile = files / "user.pid"
    env = {**os.environ, "PRIVTOOLS_TEST_PIDFILE": str(pidfile)}
    proc = _cli("--mechanism-file", f"{files}/loop.py:release", "--epsilon", "1", "--d",
                "[1]", "--d-prime", "[2]", "--samples", "2000", "--no-trace", "--seed", "7",
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    user = None
    try:
        assert _poll(lambda: pidfile.exists() or proc.poll() is not None)
        assert proc.poll() is None, proc.stderr.read()   # the user's code is running
        user = int(pidfile.read_text())
        assert user != proc.pid and not _gone(user)
        proc.send_signal(sig)
        code = proc.wait(timeout=_WAIT * _STEP)
        # SIGTERM and SIGHUP take their default course (the same signal: 128 + signum in a
        # shell); Ctrl-C is the command line's "interrupted", exit status 130
        assert code == (130 if sig == signal.SIGINT else -sig), proc.stderr.read()
        assert _poll(lambda: _gone(user)), f"the user's process {user} outlived privtools"
        if sig == signal.SIGINT:
            assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if user is not None and not _gone(user):
            os.kill(user, signal.SIGKILL)
        proc.stderr.close()


def _closed_pipe():
    """A pipe whose reader is already gone: every write to it fails (EPIPE)."""
    r, w = os.pipe()
    os.close(r)
    return w


@pytest.mark.parametrize("epsilon,verdict,code", [("1", "pass", 0), ("0.05", "fail", 1)])
@pytest.mark.parametrize("json", [False, True], ids=["human", "json"])
def test_a_closed_stdout_keeps_the_verdicts_exit_status_without_a_traceback(
        files, epsilon, verdict, code, json):
    """``privtools audit … | head``: the reader is gone before the verdict is written."""
    w = _closed_pipe()
    try:
        proc = _cli("--mechanism-file", f"{files}/private.py:release", "--epsilon", epsilon,
                    "--d", "[1]", "--d-prime", "[2]", "--samples", "4000", "--seed", "3",
                    "--no-trace",
                    *(["--json"] if json else []), stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    _, err = proc.communicate(timeout=_WAIT * _STEP)
    err = err.decode()
    assert proc.returncode == code, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "error" not in err


def test_the_guard_registers_its_child_only_while_it_runs():
    seen = []
    out, _ = guarded(lambda tick: os.getpid())
    assert out != os.getpid() and not _LIVE
    guarded(lambda tick: 0, progress=seen.append, on_start=lambda: seen.append(set(_LIVE)))
    assert len(seen[0]) == 1 and not _LIVE       # the child's group, then forgotten
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP,
                                                 signal.SIGINT)}
    guarded(lambda tick: 0)
    assert handlers == {s: signal.getsignal(s) for s in handlers}   # restored
