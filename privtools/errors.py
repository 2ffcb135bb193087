"""The errors privtools raises on purpose — one public home for all of them.

* :class:`ParameterError` — a bad argument: wrong type, out of range, contradictory. The
  message names the parameter. Raised before any long work starts.
* :class:`ProtocolError` — a protocol run cannot complete as specified (e.g. more users
  dropped out of masked secure aggregation than its Shamir threshold allows).
* :class:`CertificationError` — a certified computation could not decide or enclose a value
  within its precision and size limits. It never means "the claim is false": callers that
  judge claims turn it into an *inconclusive* verdict.

    from privtools.errors import ParameterError, ProtocolError, CertificationError
"""

from __future__ import annotations

__all__ = ["PrivtoolsError", "ParameterError", "ProtocolError", "CertificationError"]


class PrivtoolsError(Exception):
    """Base class of every error privtools raises on purpose."""


class ParameterError(PrivtoolsError, ValueError, TypeError):
    """A bad argument (wrong type, out of range or contradictory). Subclasses ValueError and
    TypeError so callers may catch either; the message names the parameter."""


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
