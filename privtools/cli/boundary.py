"""The command line's one error boundary: every way a command can fail becomes one line on
stderr and an exit code — never a traceback (unless ``--debug``).

==========  ==================================================================================
exit code   meaning
==========  ==================================================================================
0           done
1           a check failed: a plan misses its target, an audit fails or is inconclusive, a
            claim fails under ``--strict``, the demo finds a failure
2           bad input: ``error: <message naming the option>`` — a usage error, a bad or
            contradictory option, work beyond the size limits, or a value the certified
            engines cannot certify (:class:`~privtools.errors.CertificationError`: in the
            command line every certified computation is a function of the options given, so
            failing to certify one is reported as an input the tool cannot handle); and
            the user's code failing (:class:`~privtools.errors.UserCodeError`: it exited,
            crashed, raised or hung — the audit has no verdict)
3           internal error: ``internal error: <type>: <message>`` — a bug; ``--debug`` shows
            the traceback
130         interrupted (Ctrl-C): no verdict
==========  ==================================================================================

A reader that goes away is not an error: when stdout or stderr is a pipe whose reader has
closed it (``privtools audit … | head -n 3``), what is left to write goes to ``/dev/null``
(at the file-descriptor level, so the interpreter's last flush has nothing to report) and
the command runs to its own exit status — 0 for a passing audit, 1 for a failed one, never
a traceback, never 1 or 141 for a pass. Under ``set -o pipefail`` such a pipeline then
succeeds exactly when the command did. (SIGTERM, SIGHUP and SIGINT while the user's code
runs end its process group first: :mod:`privtools.usercode`.)

The boundary is the ``main`` of the app's click group (:class:`BoundaryGroup`), so
``privtools.cli.main``, ``python -m privtools.cli`` and ``typer.testing.CliRunner().invoke(app,
...)`` all run through it.
"""

from __future__ import annotations

import io
import os
import sys
import traceback
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape
from typer.core import TyperCommand, TyperGroup

from privtools.errors import (
    CertificationError,
    MissingExtraError,
    ParameterError,
    ProtocolError,
    UserCodeError,
)

try:  # typer >= 0.2x runs on its own copy of click
    from typer._click import exceptions as click_exceptions
    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover - older typer runs on click itself
    from click import exceptions as click_exceptions
    from click import get_current_context
    from click.core import ParameterSource

__all__ = ["BoundaryGroup", "BoundaryCommand", "EPILOG", "EXIT_BAD_INPUT", "EXIT_CHECK_FAILED",
           "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "ParameterSource", "get_current_context"]

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130        # Ctrl-C (128 + SIGINT): no verdict

EPILOG = ("Errors and exit codes: 0 ok; 1 a check failed (a plan misses its target, an audit "
          "fails, a claim fails under --strict); 2 bad input, reported as one line "
          "'error: ...' naming the option (also for work beyond the size limits and for "
          "values that cannot be certified); 3 internal error, one line 'internal error: ...' "
          "(run with --debug, anywhere on the line, for the full traceback).")

DEBUG_FLAG = "--debug"


def _one_line(text) -> str:
    return " ".join(str(text).split())


class _Boundary:
    """``main`` as the error boundary (see the module doc), for a click group or command."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        args = list(sys.argv[1:] if args is None else args)
        # --debug is global and may appear anywhere before a "--" separator
        cut = args.index("--") if "--" in args else len(args)
        debug = DEBUG_FLAG in args[:cut]
        args = [a for a in args[:cut] if a != DEBUG_FLAG] + args[cut:]
        with _readers_may_leave():
            code = _guarded(lambda: super(_Boundary, self).main(
                args=args, prog_name=prog_name, complete_var=complete_var,
                standalone_mode=False, **extra), debug)
        if standalone_mode:
            sys.exit(code)
        return code


class _ClosedOk:
    """A text stream whose reader may close it: a write or flush that finds the pipe
    closed (``BrokenPipeError``) points the stream's file descriptor at ``/dev/null`` and
    carries on, so the command reaches its own exit status (see the module doc)."""

    def __init__(self, stream):
        self._stream = stream
        self.cut = False

    def _cut(self) -> None:
        self.cut = True
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass

    def write(self, text):
        if not self.cut:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._cut()
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self.cut:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._cut()
                try:
                    self._stream.flush()    # what was held goes to /dev/null
                except OSError:
                    pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextmanager
def _readers_may_leave():
    """stdout and stderr as :class:`_ClosedOk` streams for the command's run."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if s is None or isinstance(s, _ClosedOk) else _ClosedOk(s)
                              for s in saved)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()        # a reader gone before the last flush: quietly too
        sys.stdout, sys.stderr = saved


class BoundaryGroup(_Boundary, TyperGroup):
    """The app's click group: ``privtools`` runs every command through its boundary."""


class BoundaryCommand(_Boundary, TyperCommand):
    """One command function run on its own through the same boundary (for single-command
    apps, e.g. ``typer.Typer().command(cls=BoundaryCommand)(simulate)`` in tests)."""


def _guarded(call, debug: bool) -> int:
    err = Console(stderr=True, soft_wrap=True, highlight=False)
    try:
        rv = call()
    except (Exception, KeyboardInterrupt) as exc:
        return _failed(exc, err, debug)
    if isinstance(rv, int) and not isinstance(rv, bool):
        return rv
    return EXIT_OK


def _usage_text(exc) -> str:
    """A usage error's message, pointing to the command's ``--help``."""
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return exc.format_message() + hint


def _user_code_text(exc: UserCodeError) -> str:
    """A failure of the user's code, with the head of what it printed."""
    said = _one_line(exc.output)
    if said:
        said = f" (it printed: {said[:200]}{'…' if len(said) > 200 else ''})"
    return f"{exc}{said}"


#: The failures that are not bugs, the first that matches: (exceptions, what to say, exit
#: status — None for the exception's own).
_FAILURES = (
    (typer.Abort, lambda exc: "aborted", EXIT_CHECK_FAILED),
    (click_exceptions.ClickException, lambda exc: exc.format_message(), None),
    ((ParameterError, MissingExtraError), str, EXIT_BAD_INPUT),
    (UserCodeError, _user_code_text, EXIT_BAD_INPUT),
    (KeyboardInterrupt, lambda exc: "interrupted", EXIT_INTERRUPTED),
    (CertificationError, lambda exc: f"cannot certify with these inputs: {exc}",
     EXIT_BAD_INPUT),
    (ProtocolError, lambda exc: f"protocol run failed: {exc}", EXIT_BAD_INPUT),
)


def _failed(exc: BaseException, err: Console, debug: bool) -> int:
    """Say on stderr why the command failed; its exit status."""
    if isinstance(exc, click_exceptions.NoArgsIsHelpError):  # bare `privtools`: the help
        text = exc.format_message()
        if text.strip():
            print(text, file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(exc, click_exceptions.UsageError):  # BadParameter, MissingParameter, ...
        return _fail(err, debug, _usage_text(exc), EXIT_BAD_INPUT)
    for kinds, text, code in _FAILURES:
        if isinstance(exc, kinds):
            return _fail(err, debug, text(exc), exc.exit_code if code is None else code, exc)
    # a bug: one line, the traceback with --debug
    more = "" if debug else " (run with --debug for the traceback)"
    return _fail(err, debug, f"{type(exc).__name__}: {exc}{more}", EXIT_INTERNAL, exc,
                 label="internal error")


def _fail(err: Console, debug: bool, text: str, code: int, exc: BaseException | None = None,
          label: str = "error") -> int:
    """Say ``text`` on stderr (and, with ``--debug``, the traceback of ``exc``); ``code``."""
    if debug and exc is not None:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        link, child = exc, None
        while link is not None and child is None:   # raised in the guarded child?
            child = getattr(link, "child_traceback", None)
            link = link.__cause__ or link.__context__
        if child:
            print("in the audit's process:\n" + child, file=sys.stderr)
    colour = "red" if code == EXIT_BAD_INPUT else "bold red"
    err.print(f"[{colour}]{label}:[/{colour}] {escape(_one_line(text))}")
    return code
