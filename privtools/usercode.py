"""User code is untrusted input: the guard every audit runs it behind.

An audit calls code it did not write — a mechanism, a sampler, a feature map, the top level
of a file. That code may exit (``sys.exit``, ``os._exit``), crash (a signal), raise, hang,
print, or mutate what it is given. None of these may turn into a verdict, an exit status 0
or a corrupt ``--json``:

* :func:`guarded` runs a whole audit in a child process (``os.fork``; the user's closures
  need no pickling) in its own process group, with stdin from ``/dev/null`` and its stdout
  and stderr — at the file-descriptor level, so C extensions are captured too — written to
  files that the parent reads back, clipped, into a :class:`UserCodeReport`. The parent
  watches the child: a call of user code running longer than ``timeout`` seconds, or the
  whole audit running longer than ``total_timeout``, kills the process group; a child that
  ends without sending its result (``os._exit``, a signal, a crash) is reported with the
  name of the user function that was running. Every such ending raises
  :class:`~privtools.errors.UserCodeError`; the parent never returns a result it did not
  receive whole.
* :class:`UserCode` wraps one user callable: every call gets a fresh copy of its data
  argument (so a mechanism that mutates its dataset cannot change what is audited; the
  mutation is noted in the report), runs inside :func:`user_call`, which turns
  ``SystemExit`` and any exception into ``UserCodeError`` naming the function, and marks a
  shared slot with the call's start time and name, which is how the parent's watchdog
  knows which function hung or died.

Where the audit cannot fork (no ``fork`` on the platform, or an executor object the caller
made, such as a ``distributed.Client``, whose threads would not survive it), :func:`guarded`
runs in this process: exits and exceptions are still caught, prints at the Python level
are still captured and inputs still copied, but a hang, ``os._exit`` or a crash cannot be
contained (``UserCodeReport.isolated`` is False).

The guard outlives its own process: while a child runs, SIGTERM, SIGHUP and SIGINT to this
process kill the child's process group, then take their previous course (by default this
process ends by the same signal: exit status 128 + signum in a shell; Ctrl-C raises
``KeyboardInterrupt``); an ``atexit`` hook kills any child left, and on Linux the child
dies with this process even by SIGKILL (``PR_SET_PDEATHSIG``).

The guard costs one fork per audit and a copy of the dataset per call of the mechanism
(``benchmarks/bench_guard.py`` measures it against the unguarded engine).
"""

from __future__ import annotations

import atexit
import copy
import faulthandler
import io
import multiprocessing as mp
import numbers
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager, redirect_stderr, redirect_stdout, suppress
from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError, UserCodeError

__all__ = ["DEFAULT_TIMEOUT", "DEFAULT_TOTAL_TIMEOUT", "UserCode", "UserCodeReport",
           "guarded", "user_call", "check_timeouts", "describe_function",
           "drain_mutations", "record_mutations"]

#: Seconds one call of the user's code may run (a chunk of up to 65 536 draws).
DEFAULT_TIMEOUT = 60.0
#: Seconds a whole guarded audit may run.
DEFAULT_TOTAL_TIMEOUT = 3600.0
#: Characters of captured output kept per stream (its head and its tail).
SHOWN_OUTPUT = 4000

_SLOTS = 64               # concurrent calls watched (one per process: pid mod _SLOTS)
_NAME_BYTES = 240
_POLL = 0.05              # seconds between the watchdog's looks

_MONITOR: _Monitor | None = None      # set in the guarded child (and its workers)
_INSIDE = False                       # True while a guarded audit runs in this process
_MUTATIONS: dict[str, None] = {}      # ordered set of mutation notes
_LIVE: set[int] = set()               # process groups of the guarded children now running
_STOPS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGINT")
               if hasattr(signal, n))


# ------------------------------------------------------------------ the watchdog's slots
class _Monitor:
    """Shared memory (inherited across fork) in which each process running user code marks
    the call's start time and the function's name; the parent reads it."""

    def __init__(self):
        ctx = mp.get_context("fork")
        self.start = ctx.RawArray("d", _SLOTS)
        self.names = ctx.RawArray("c", _SLOTS * _NAME_BYTES)

    def enter(self, name: str) -> int:
        slot = os.getpid() % _SLOTS
        data = name.encode("utf-8", "replace")[:_NAME_BYTES - 1] + b"\0"
        base = slot * _NAME_BYTES
        self.names[base:base + len(data)] = data
        self.start[slot] = time.monotonic()
        return slot

    def leave(self, slot: int) -> None:
        self.start[slot] = 0.0

    def running(self) -> list[tuple[str, float]]:
        """(name, seconds running) of every call in progress, longest first."""
        now = time.monotonic()
        out = []
        for slot in range(_SLOTS):
            t = self.start[slot]
            if t > 0:
                raw = bytes(self.names[slot * _NAME_BYTES:(slot + 1) * _NAME_BYTES])
                out.append((raw.split(b"\0", 1)[0].decode("utf-8", "replace"), now - t))
        return sorted(out, key=lambda x: -x[1])


# ------------------------------------------------------------------ one call of user code
@contextmanager
def user_call(name: str):
    """Run the body as a call of the user's code named ``name``: ``SystemExit`` and every
    exception (but ``KeyboardInterrupt``) become :class:`UserCodeError` naming it, and the
    watchdog sees the call while it runs."""
    mon = _MONITOR
    slot = mon.enter(name) if mon is not None else None
    try:
        yield
    except UserCodeError:
        raise
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:
        cause = f"called sys.exit({exc.code!r})"
        raise UserCodeError(f"{name} {cause}", name, cause) from None
    except BaseException as exc:  # noqa: B036 - anything user code raises is its failure
        cause = f"raised {type(exc).__name__}: {exc}"
        raise UserCodeError(f"{name} {cause}", name, cause) from exc
    finally:
        if slot is not None:
            mon.leave(slot)


def describe_function(fn) -> str:
    """``release (my_dp.py:12)`` — a user callable's name and where it is defined."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or \
        getattr(fn, "name", None) or type(fn).__name__
    call = vars(type(fn)).get("__call__")       # a callable object: its class's method
    code = getattr(fn, "__code__", None) or getattr(call, "__code__", None)
    if code is not None:
        return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
    return str(name)


def _fresh(x):
    """A copy of ``x`` the user's code may change at will."""
    if isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, (numbers.Number, str, bytes, type(None))):
        return x
    try:
        return copy.deepcopy(x)
    except Exception:  # an object that cannot be copied is passed as it is
        return x


def _same(a, b) -> bool:
    """Exact equality of a dataset and the copy the user's code was given (equal pickles
    first: one C pass over a large dataset; then the structure, where the copy may differ
    in layout only)."""
    try:
        if pickle.dumps(a) == pickle.dumps(b):
            return True
    except Exception:
        pass
    return _same_structure(a, b)


def _same_structure(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        except TypeError:
            return bool(np.array_equal(a, b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same_structure, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_structure(a[k], b[k]) for k in a)
    try:
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:
        try:
            return bool(a == b)
        except Exception:
            return True


def _note_mutation(text: str) -> None:
    _MUTATIONS[text] = None


def drain_mutations() -> tuple[str, ...]:
    """The mutation notes recorded in this process since the last drain (and forget them):
    how an executor's worker hands its notes back with its results."""
    out = tuple(_MUTATIONS)
    _MUTATIONS.clear()
    return out


def record_mutations(notes) -> None:
    """Record notes drained in another process (see :func:`drain_mutations`)."""
    for n in notes:
        _note_mutation(n)


class UserCode:
    """A user's callable behind the guard (see the module doc).

    ``name`` is what errors and reports call it (``"mechanism release (my_dp.py:12)"``);
    ``copy_arg`` is the position of the argument that gets a fresh copy per call (0 for a
    mechanism's dataset and a feature map's outputs; None for a sampler). Attributes the
    wrapped object carries (an adapter's ``epsilon``) read through. Pickles as its parts,
    so it travels to executor workers when the function itself does."""

    def __init__(self, fn: Callable, name: str, copy_arg: int | None = None):
        self.fn, self.name, self.copy_arg = fn, name, copy_arg

    @classmethod
    def wrap(cls, fn, role: str, copy_arg: int | None = None):
        """``fn`` behind the guard (None and already-wrapped callables as they are)."""
        if fn is None or isinstance(fn, UserCode):
            return fn
        return cls(fn, f"{role} {describe_function(fn)}", copy_arg)

    def __call__(self, *args):
        i = self.copy_arg
        given = fresh = None
        if i is not None and len(args) > i:
            given = args[i]
            fresh = _fresh(given)
            args = args[:i] + (fresh,) + args[i + 1:]
        with user_call(self.name):
            out = self.fn(*args)
        if fresh is not None and fresh is not given and not _same(fresh, given):
            _note_mutation(f"{self.name} changed its input (argument {i + 1}) in place; "
                           "every call was given a fresh copy, so the audit is unaffected")
        return out

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("fn", "name", "copy_arg"):
            raise AttributeError(attr)
        return getattr(self.fn, attr)

    def __reduce__(self):
        return UserCode, (self.fn, self.name, self.copy_arg)

    def __repr__(self) -> str:
        return f"UserCode({self.name})"


# ------------------------------------------------------------------ the report
@dataclass(frozen=True)
class UserCodeReport:
    """What the user's code did besides returning outputs: ``stdout`` and ``stderr`` as it
    printed them (clipped to their head and tail; ``printed`` counts every character),
    ``mutations`` (notes of inputs changed in place) and whether the audit ran ``isolated``
    in its own process (exits, crashes and hangs contained)."""

    stdout: str = ""
    stderr: str = ""
    printed: int = 0
    mutations: tuple[str, ...] = ()
    isolated: bool = False

    def lines(self, width: int = 600) -> list[str]:
        """Readable lines for a human report (empty when there is nothing to say)."""
        out = []
        for label, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if text.strip():
                shown = _clip(text, width)
                out.append(f"your code printed on {label} (captured, not mixed into the "
                           f"output): {shown!r}")
        out += [f"note: {m}" for m in self.mutations]
        return out

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"stdout": self.stdout, "stderr": self.stderr, "printed": self.printed,
                "mutations": list(self.mutations), "isolated": self.isolated}


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    h = limit // 2
    return f"{text[:h]}\n… [{len(text) - 2 * h:,} characters omitted] …\n{text[-h:]}"


def _read_clipped(f, limit: int = SHOWN_OUTPUT) -> tuple[str, int]:
    """(text clipped to its head and tail, bytes written) of a capture file."""
    try:
        f.flush()
        size = os.fstat(f.fileno()).st_size
        if size <= limit:
            f.seek(0)
            return f.read().decode("utf-8", "replace"), size
        h = limit // 2
        f.seek(0)
        head = f.read(h)
        f.seek(size - h)
        tail = f.read(h)
    except (OSError, ValueError):
        return "", 0
    return (head.decode("utf-8", "replace") + f"\n… [{size - 2 * h:,} bytes omitted] …\n"
            + tail.decode("utf-8", "replace")), size


# ------------------------------------------------------------------ the guarded run
def _limit(name: str, value) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a number of seconds or None, got {value!r}")
    v = float(value)
    if not v > 0 or v != v:
        raise ParameterError(f"{name} must be > 0 seconds (or None for no limit), got "
                             f"{value!r}")
    return None if v == float("inf") else v


def check_timeouts(timeout, total_timeout) -> tuple[float | None, float | None]:
    """``timeout`` (one call) and ``total_timeout`` (the whole audit): positive seconds, or
    None for no limit."""
    return _limit("timeout", timeout), _limit("total_timeout", total_timeout)


def guarded(work: Callable[[Callable[[int], None] | None], object], *,
            timeout=DEFAULT_TIMEOUT, total_timeout=DEFAULT_TOTAL_TIMEOUT,
            progress: Callable[[int], None] | None = None, isolate: bool = True,
            on_start: Callable[[], None] | None = None, what: str = "the audit",
            shared=()) -> tuple[object, UserCodeReport | None]:
    """Run ``work(progress)`` behind the guard; return ``(result, report)``.

    ``work`` receives a progress callable (or None) that forwards to ``progress``. Inside an
    audit that is already guarded it runs as it is and the report is None (the outer guard
    reports). ``isolate=False`` (or no ``fork``) runs it in this process (see the module
    doc). ``on_start`` is called once the child runs (start a progress bar there, not
    before the fork). ``shared``: objects of this process (the user's callables) that the
    result may hold; they come back by reference, so they need not pickle. Raises
    :class:`UserCodeError` when the user's code exits, crashes, hangs or runs out of time,
    and re-raises any other error of ``work``."""
    timeout, total_timeout = check_timeouts(timeout, total_timeout)
    if _INSIDE:
        return work(progress), None
    if not isolate or not hasattr(os, "fork"):
        return _in_process(work, progress, on_start)
    return _isolated(work, timeout, total_timeout, progress, on_start, what,
                     tuple(shared))


def _in_process(work, progress, on_start):
    global _INSIDE
    out, err = io.StringIO(), io.StringIO()
    _INSIDE = True
    drain_mutations()
    try:
        if on_start is not None:
            on_start()
        with redirect_stdout(out), redirect_stderr(err):
            result = work(progress)
    finally:
        _INSIDE = False
        notes = drain_mutations()
    o, e = out.getvalue(), err.getvalue()
    return result, UserCodeReport(_clip(o, SHOWN_OUTPUT), _clip(e, SHOWN_OUTPUT),
                                  len(o) + len(e), notes, False)


class _Pickler(pickle.Pickler):
    """Pickles the objects both processes hold since the fork (``shared``) by reference."""

    def __init__(self, file, shared):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = {id(x): i for i, x in enumerate(shared)}

    def persistent_id(self, obj):
        return self.shared.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, shared):
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid):
        return self.shared[pid]


def _dumps(payload, shared) -> bytes:
    buf = io.BytesIO()
    _Pickler(buf, shared).dump(payload)
    return buf.getvalue()


def _loads(data: bytes, shared):
    return _Unpickler(io.BytesIO(data), shared).load()


def _send(conn, payload, shared=()) -> None:
    try:
        data = _dumps(payload, shared)
    except Exception as exc:
        if payload[0] == "result":
            problem = RuntimeError(f"the audit's result cannot be returned from its process "
                                   f"({type(exc).__name__}: {exc})")
            data = pickle.dumps(("error", problem, traceback.format_exc(), payload[-1]))
        else:
            err = payload[1]
            data = pickle.dumps(("error", RuntimeError(f"{type(err).__name__}: {err}"),
                                 payload[2], payload[-1]))
    conn.send_bytes(data)


def _die_with(parent: int) -> None:
    """On Linux, have the kernel kill this process when the thread that forked it dies —
    even by SIGKILL, which no handler sees (``PR_SET_PDEATHSIG``)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:      # it died before the request was made
        os._exit(1)


def _child(work, writer, reader, mon, out_fd: int, err_fd: int, shared, blocked,
           parent) -> None:
    """The forked child: never returns (``os._exit``), whatever ``work`` does."""
    global _MONITOR, _INSIDE
    try:
        reader.close()
        os.setpgid(0, 0)
        _die_with(parent)
        for sig in _STOPS:
            signal.signal(sig, signal.SIG_DFL)
        if blocked is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process ends with os._exit
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace",  # noqa: SIM115
                          closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace",  # noqa: SIM115
                          closefd=False)
        if faulthandler.is_enabled():   # a crash's dump goes to the captured stderr
            faulthandler.enable(file=sys.stderr)
        _MONITOR, _INSIDE = mon, True
        drain_mutations()

        def forward(k: int) -> None:
            writer.send_bytes(pickle.dumps(("progress", int(k))))

        payload = ("result", work(forward), drain_mutations())
    except BaseException as exc:  # noqa: B036 - everything goes back to the parent
        payload = ("error", exc, traceback.format_exc(), drain_mutations())
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        _send(writer, payload, shared)
    finally:
        os._exit(0)


def _exit_text(status: int | None) -> str:
    if status is None:
        return "ended its process"
    if os.WIFSIGNALED(status):
        n = os.WTERMSIG(status)
        try:
            sig = signal.Signals(n).name
        except ValueError:
            sig = str(n)
        return f"was killed by signal {sig}"
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return f"ended its process with exit status {code} (os._exit, or a crash of the " \
           "interpreter)"


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass


def _end_children() -> None:
    """Kill the process group of every guarded child still running (the handlers' and the
    ``atexit`` hook's work)."""
    for pgid in tuple(_LIVE):
        _kill_group(pgid)
        _LIVE.discard(pgid)


atexit.register(_end_children)


class _StopHandlers:
    """While a guarded child runs: SIGTERM, SIGHUP and SIGINT kill the children's groups,
    then go on to the handler they had (see the module doc). Installed from the main thread
    only (the only one Python lets set handlers); an ignored signal stays ignored."""

    def __enter__(self):
        self.saved = {}
        if threading.current_thread() is not threading.main_thread():
            return self
        for sig in _STOPS:
            old = signal.getsignal(sig)
            if old is None or old == signal.SIG_IGN:
                continue
            self.saved[sig] = old
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame):
        _end_children()
        old = self.saved.get(signum, signal.SIG_DFL)
        if callable(old):
            return old(signum, frame)
        signal.signal(signum, signal.SIG_DFL)       # the default action: end by the signal
        os.kill(os.getpid(), signum)
        return None

    def __exit__(self, *exc):
        for sig, old in self.saved.items():
            signal.signal(sig, old)
        return False


def _isolated(work, timeout, total_timeout, progress, on_start, what, shared):
    with _StopHandlers():
        return _isolated_run(work, timeout, total_timeout, progress, on_start, what, shared)


def _isolated_run(work, timeout, total_timeout, progress, on_start, what, shared):
    ctx = mp.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    mon = _Monitor()
    out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    # the stop signals are blocked across the fork: none comes before the child is known
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS) \
        if hasattr(signal, "pthread_sigmask") else None
    parent = os.getpid()
    try:
        pid = os.fork()
        if pid:
            with suppress(OSError):
                os.setpgid(pid, pid)
            _LIVE.add(pid)
    finally:
        if blocked is not None and os.getpid() == parent:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    if pid == 0:  # pragma: no cover - the child (covered through its effects)
        _child(work, writer, reader, mon, out_f.fileno(), err_f.fileno(), shared, blocked,
               parent)
    try:
        return _watch(pid=pid, reader=reader, writer=writer, mon=mon, out_f=out_f, err_f=err_f,
                      timeout=timeout, total_timeout=total_timeout, progress=progress,
                      on_start=on_start, what=what, shared=shared)
    finally:
        _LIVE.discard(pid)


def _watch(pid, reader, writer, mon, out_f, err_f, timeout, total_timeout, progress,
           on_start, what, shared):
    """The parent's side of :func:`_isolated`: read the child's messages, enforce the time
    limits, collect the result (or the reason there is none)."""
    writer.close()
    t0 = time.monotonic()
    try:
        if on_start is not None:
            on_start()
        message, status, problem = _await(pid, reader, progress, shared, lambda: _late(
            mon.running(), timeout, total_timeout, time.monotonic() - t0, what))
    except BaseException:
        _kill_group(pid)
        _reap(pid)
        raise
    finally:
        reader.close()
    died = _stop_child(pid, message, status, mon, what)
    problem = died if problem is None else problem
    (out, n_out), (err, n_err) = _read_clipped(out_f), _read_clipped(err_f)
    out_f.close()
    err_f.close()
    printed = (out + err).strip()
    if problem is not None:
        if printed:
            problem.output = _clip(printed, SHOWN_OUTPUT)
        raise problem
    if message[0] == "error":
        exc, tb = message[1], message[2]
        if isinstance(exc, UserCodeError) and printed:
            exc.output = _clip(printed, SHOWN_OUTPUT)
        try:
            exc.child_traceback = tb
        except Exception:
            pass
        raise exc
    return message[1], UserCodeReport(out, err, n_out + n_err, tuple(message[-1]), True)


def _await(pid, reader, progress, shared, late):
    """Wait for the child's result, its exit or a time limit: ``(message, status, problem)``
    (``late()`` is the error of an exceeded limit, or None); once the child has exited, only
    what is left in the pipe is read."""
    status = None
    while True:
        if reader.poll(_POLL if status is None else 0):
            try:
                msg = _loads(reader.recv_bytes(), shared)
            except EOFError:
                return None, status, None
            if msg[0] != "progress":
                return msg, status, None
            if progress is not None:
                progress(msg[1])
        elif status is not None:
            return None, status, None
        else:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif (problem := late()) is not None:
                return None, None, problem


def _late(running, timeout, total_timeout, elapsed, what):
    """The error of an exceeded time limit (one call's, then the whole run's), or None."""
    if timeout is not None and running and running[0][1] > timeout:
        name = running[0][0]
        return UserCodeError(f"{name} did not return within {timeout:g} s (the time limit "
                             "of one call: timeout= in the API, --timeout on the command "
                             "line); it was stopped, and the audit has no verdict", name,
                             f"timed out after {timeout:g} s")
    if total_timeout is not None and elapsed > total_timeout:
        busy = f"; {running[0][0]} was running" if running else ""
        return UserCodeError(f"{what} did not finish within {total_timeout:g} s (the "
                             "overall time limit: total_timeout= in the API, --total-timeout"
                             f" on the command line){busy}; it was stopped, and has no "
                             "verdict", running[0][0] if running else None,
                             "overall time limit")
    return None


def _stop_child(pid, message, status, mon, what):
    """Stop the child's process group; the error of a child that ended without sending its
    result (None when it sent one)."""
    if message is not None:
        # the result is in: stop the group now and let a thread collect the exit status (the
        # exit of a process that touched a lot of memory takes a while, unmapping it)
        _kill_group(pid)
        if status is None:
            threading.Thread(target=_reap, args=(pid,), daemon=True).start()
        return None
    running = mon.running()
    _kill_group(pid)
    status = _reap(pid) if status is None else status
    _kill_group(pid)  # anything the user's code left behind in the group
    who = running[0][0] if running else "the audited code"
    cause = _exit_text(status)
    return UserCodeError(f"{who} {cause} before {what} finished; the audit has no verdict",
                         running[0][0] if running else None, cause)


def _reap(pid: int) -> int | None:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None
