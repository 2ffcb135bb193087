"""The audits' side of the user-code guard (:mod:`privtools.usercode`).

Every public entry point that calls user code — :func:`~verification.audit.audit_mechanism`,
:func:`~verification.audit.audit_mechanism_sequential`,
:func:`~verification.audit.search_counterexample`, :func:`~verification.audit.audit_sampler`,
:func:`~verification.audit.audit_sampler_sequential` — wraps the user's callables in
:class:`~privtools.usercode.UserCode` and runs its work through :func:`run`: in a child
process when the draws run here or on local processes the audit makes, in this process when
the caller hands in an executor object of their own (a ``distributed.Client`` or a pool,
whose threads do not survive a fork). The report of what the user's code printed and mutated
is attached to the result as ``user_code``.
"""

from __future__ import annotations

import dataclasses

from privtools.usercode import (
    DEFAULT_TIMEOUT,
    DEFAULT_TOTAL_TIMEOUT,
    UserCode,
    check_timeouts,
    guarded,
)

__all__ = ["DEFAULT_TIMEOUT", "DEFAULT_TOTAL_TIMEOUT", "wrap", "run", "check_timeouts"]


def wrap(fn, role: str, copy_arg: int | None = 0):
    """``fn`` behind the guard (see :class:`privtools.usercode.UserCode`)."""
    return UserCode.wrap(fn, role, copy_arg)


def run(work, *, executor=None, timeout=DEFAULT_TIMEOUT, total_timeout=DEFAULT_TOTAL_TIMEOUT,
        progress=None, what: str = "the audit", shared=()):
    """``work(progress)`` behind the guard; the result with its ``user_code`` report.
    ``shared``: the user's callables the result may hold (returned by reference)."""
    isolate = executor is None or isinstance(executor, str)
    held = []
    for x in shared:
        if x is not None:
            held += [x, getattr(x, "fn", x)]
    result, report = guarded(work, timeout=timeout, total_timeout=total_timeout,
                             progress=progress, isolate=isolate, what=what, shared=held)
    if isinstance(result, tuple):   # (result, more): the report goes on the first
        return (_attach(result[0], report),) + result[1:]
    return _attach(result, report)


def _attach(result, report):
    if report is not None and dataclasses.is_dataclass(result) and any(
            f.name == "user_code" for f in dataclasses.fields(result)):
        return dataclasses.replace(result, user_code=report)
    return result
