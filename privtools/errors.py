"""The errors privtools raises on purpose — one public home for all of them.

* :class:`ParameterError` — a bad argument: wrong type, out of range, contradictory. The
  message names the parameter. Raised before any long work starts.
* :class:`ProtocolError` — a protocol run cannot complete as specified (e.g. more users
  dropped out of masked secure aggregation than its Shamir threshold allows).
* :class:`CertificationError` — a certified computation could not decide or enclose a value
  within its precision and size limits. It never means "the claim is false": callers that
  judge claims turn it into an *inconclusive* verdict.
* :class:`UserCodeError` — the user's code that an audit runs (a mechanism, a sampler, a
  feature map, the top level of a file) exited, crashed, raised, hung or was killed. The
  message names the function and what happened. Never a verdict: the audit has none.
* :class:`UnsupportedEventError` — an accountant was asked to compose a privacy event it
  cannot interpret (a :class:`ParameterError`: raised by ``compose`` before any work).

    from privtools.errors import ParameterError, ProtocolError, CertificationError, UserCodeError
"""

from __future__ import annotations

import importlib.util

__all__ = ["PrivtoolsError", "ParameterError", "ProtocolError", "CertificationError",
           "UserCodeError", "UnsupportedEventError", "MissingExtraError", "require"]


class PrivtoolsError(Exception):
    """Base class of every error privtools raises on purpose."""


class ParameterError(PrivtoolsError, ValueError, TypeError):
    """A bad argument (wrong type, out of range or contradictory). Subclasses ValueError and
    TypeError so callers may catch either; the message names the parameter."""


class UnsupportedEventError(ParameterError):
    """An accountant cannot interpret a privacy event (e.g. ``RdpAccountant`` and a
    ``ModularEvent``, ``PldAccountant`` and a ``ZCDPEvent``). Raised by ``compose`` before
    any work; a :class:`ParameterError`, so ``except ParameterError`` still catches it.
    The message names the event type and the accountant and lists what it supports;
    ``event`` is the event type's name, ``accountant`` the accountant's class name and
    ``supported`` the names of the event types it interprets."""

    def __init__(self, message: str, event: str | None = None, accountant: str | None = None,
                 supported: tuple[str, ...] = ()):
        super().__init__(message)
        self.event = event
        self.accountant = accountant
        self.supported = tuple(supported)

    def __reduce__(self):
        return type(self), (str(self), self.event, self.accountant, self.supported)


class ProtocolError(PrivtoolsError, ValueError):
    """A run of a protocol cannot complete as specified: e.g. more users dropped out of
    masked secure aggregation than its Shamir threshold lets the server recover from, or a
    reconstructed key does not match the key the user advertised. The message says what
    happened and with which numbers. (Bad arguments raise :class:`ParameterError` instead,
    before any work is done.)"""


class CertificationError(PrivtoolsError, ArithmeticError):
    """A certified computation could not separate or enclose a value at the precision and
    size it may use (an interval straddles the threshold, a series needs too many terms, a
    table would be too large). Not a verdict on any claim: judges report *inconclusive*."""


class UserCodeError(PrivtoolsError, RuntimeError):
    """The user's code that an audit runs failed: it called ``sys.exit`` or ``os._exit``,
    raised, was killed by a signal, or did not return within its time limit. ``function``
    names it (e.g. ``"mechanism release (my_dp.py:12)"``), ``cause`` says what happened
    (``"called sys.exit(0)"``), and ``output`` holds what it printed before (truncated).
    An audit that raises it has no verdict; the command line exits with status 2."""

    def __init__(self, message: str, function: str | None = None, cause: str | None = None,
                 output: str = ""):
        super().__init__(message)
        self.function = function
        self.cause = cause
        self.output = output

    def __reduce__(self):
        return type(self), (str(self), self.function, self.cause, self.output)


class MissingExtraError(PrivtoolsError, ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra that brings it
    (``pip install 'privtools[testing]'``)."""


def require(package: str, extra: str, what: str) -> None:
    """Raise :class:`MissingExtraError` naming the package to install and the privtools
    extra that brings it, unless ``package`` can be imported (``what`` needs it); the
    caller then imports it as usual."""
    try:
        found = importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):   # a package blocked in sys.modules, or half installed
        found = False
    if not found:
        raise MissingExtraError(f"{what} needs {package}, which is not installed: pip install "
                                f"'privtools[{extra}]'", name=package)
