"""The one verdict vocabulary of the judge.

Certified judgements (claims, tail bounds, plan checks) say:

* ``holds`` — the exact value is provably on the claimed side (its certified interval lies
  there);
* ``fails`` — provably on the wrong side (a certified counterexample);
* ``inconclusive`` — the interval straddles the bound at the precision used; never a pass;
* ``info`` — reported, not judged.

Statistical judgements (black-box audits) say ``pass`` (no violation seen at the stated
false-alarm rate — evidence, not proof), ``fail`` (a violation, with its false-alarm rate)
or ``inconclusive`` (too few draws to decide; never a pass).
"""

from __future__ import annotations

from collections.abc import Iterable

from privtools.certified import Interval, decide_le, ends

__all__ = ["HOLDS", "FAILS", "INCONCLUSIVE", "INFO", "PASS", "FAIL", "CERTIFIED",
           "STATISTICAL", "status_le", "combine"]

HOLDS, FAILS, INCONCLUSIVE, INFO = "holds", "fails", "inconclusive", "info"
PASS, FAIL = "pass", "fail"
CERTIFIED = (HOLDS, FAILS, INCONCLUSIVE)
STATISTICAL = (PASS, FAIL, INCONCLUSIVE)


def status_le(value, bound) -> str:
    """Certified ``value <= bound``: ``value`` an Interval, an Arb ball or a pair ``(lo, hi)``
    (``lo`` None when only an upper end is known); ``bound`` a number, compared as an exact
    rational, or an Interval, taken at its lower end (a claim holds only if it holds for
    every value the bound's interval allows)."""
    if isinstance(bound, Interval):
        bound = ends(bound)[0]
    verdict = decide_le(value, bound)
    return INCONCLUSIVE if verdict is None else (HOLDS if verdict else FAILS)


def combine(states: Iterable[str]) -> str:
    """The verdict of several: fails if any fails, else inconclusive if any is, else holds."""
    states = list(states)
    return FAILS if FAILS in states else (INCONCLUSIVE if INCONCLUSIVE in states else HOLDS)
