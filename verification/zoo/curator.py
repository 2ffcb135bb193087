"""Curator mechanisms: private-looking releases that hide a data leak at a small probability.

Wang, Xiang, Cheng, Ji, Sun and Wang ("Curator attack: when blackbox differential privacy
auditing loses its power", CCS 2024, arXiv:2411.16516) observe that a black-box auditor
only sees what its draws show: a curator who puts the violating mass on outputs of small
probability passes any audit whose draws are too few to see them. These mechanisms are
that idea at its simplest — a correct Laplace release except that, with probability
``p = 1/one_in`` (the leak coin, ``rng.integers(0, one_in) == 0``, exactly ``1/one_in``),
the release *is* the data:

* :func:`curator_answer` — one query answer ``x + Lap(1/ε)``; on a leak, ``x`` itself;
* :func:`curator_tail` — the same release; on a leak, ``x + T`` with ``T`` far beyond the
  noise (the revealing mass sits where the correct law has almost none);
* :func:`curator_record` — a histogram, every count plus Lap(1/ε); on a leak, the counts;
* :func:`no_signal` — the control: ``Lap(1/ε)`` or, on the coin, the constant ``0.0``,
  whatever the dataset — no output depends on the data, so an audit must never fail it.

Their privacy, exactly (real arithmetic, as the zoo's Laplace entries; neighbours move one
answer or one count by at most 1). The leak is an atom (at ``f(d)``, or ``f(d) + T``) of
mass ``p`` that no neighbour's law charges, so no finite ε holds at δ = 0
(``true_epsilon = inf``), and the privacy profile is that of the Laplace part plus ``p``:

    δ(ε') = p + (1 − p)·max(0, 1 − e^((ε' − ε)/2))      (:func:`curator_delta`),

so at the claimed ε the mechanism is exactly (ε, p)-DP — the whole violation is the
hidden mass. ``no_signal`` is (0, 0)-DP. In floats a noisy release equals ``x`` only when
``|Y|`` is below half an ulp of ``x`` (probability below 1e-15 here), which moves the atom's
mass by that much.

What an auditor can do: with no leak among its draws the data are those of the correct
Laplace mechanism, so a test at level α fails with probability at most
α + 1 − (1 − p)^(2n) after n draws per dataset (:func:`detection_limit`) — below about
1/p draws a black-box audit *cannot* see the leak, whatever its method.

:func:`curator_suite` gives the entries (not registered in :data:`verification.zoo.ZOO`:
the benchmarks iterate the literature's suites). Parameters are keyword-only and bound
with :func:`functools.partial`, so the mechanisms pickle.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int

from .simple import as_queries, check_size, laplace_noise

__all__ = ["CuratorMechanism", "curator_answer", "curator_tail", "curator_record", "no_signal",
           "curator_delta", "detection_limit", "curator_suite", "CURATOR_LEAKS"]

#: The leak coins of :func:`curator_suite`: one in 10³, 10⁴ and 10⁵ releases.
CURATOR_LEAKS = (1_000, 10_000, 100_000)
_SOURCE = ("Wang, Xiang, Cheng, Ji, Sun, Wang, \"Curator attack: when blackbox differential "
           "privacy auditing loses its power\", CCS 2024 (arXiv:2411.16516)")


@dataclass(frozen=True, kw_only=True)
class CuratorMechanism:
    """One curator mechanism with its claim and exact privacy (see the module doc).

    ``leak`` is the probability p of the revealing release (exactly ``1/one_in``);
    ``true_epsilon`` the supremum loss at δ = 0 (``inf`` for the leaking ones, 0 for the
    control) and ``true_delta`` the exact δ at the claimed ε (p, or 0)."""

    name: str
    mechanism: Callable        # mechanism(dataset, size, rng)
    epsilon: float             # the claimed ε (δ = 0 claimed)
    leak: float                # p, the probability of the revealing release
    one_in: int                # p = 1/one_in exactly
    private: bool              # does the ε-DP claim hold
    true_epsilon: float        # sup loss at δ = 0
    true_delta: float          # exact δ at the claimed ε
    relation: str              # "query" or "histogram"
    datasets: tuple
    pairs: tuple               # (d, d_prime) pairs, both orders
    witness: tuple             # the pair the tables audit
    source: str = _SOURCE
    note: str = ""
    delta: float = 0.0         # the claimed δ
    offset: float = 0.0        # how far from the data the revealing release lies

    def revealing(self, dataset) -> np.ndarray:
        """The release a leak gives on ``dataset`` (the constant 0.0 for the control)."""
        if self.true_epsilon == 0:
            return np.zeros(1)
        return as_queries(dataset) + self.offset


def _epsilon(value) -> float:
    x = float(value)
    if not (math.isfinite(x) and x > 0):
        raise ParameterError(f"epsilon must be a finite number > 0, got {value!r}")
    return x


def _coin(rng: np.random.Generator, n: int, one_in: int) -> np.ndarray:
    """``n`` leak coins, each True with probability exactly ``1/one_in``."""
    m = check_int("one_in", one_in, minimum=1)
    return rng.integers(0, m, n) == 0


def curator_answer(dataset, size, rng, *, epsilon: float = 0.5,
                   one_in: int = 1000) -> np.ndarray:
    """One query answer ``x + Lap(1/ε)``, except with probability exactly ``1/one_in``
    the answer ``x`` itself; shape ``(size,)`` float64.

    True privacy (answers moving by at most 1): no finite ε at δ = 0 (an atom at ``x`` of
    mass p = 1/one_in that no neighbour charges); exactly (ε, p)-DP at the claimed ε, and
    δ(ε') = p + (1 − p)·max(0, 1 − e^((ε' − ε)/2)) (:func:`curator_delta`)."""
    n = check_size(size, rng)
    x = as_queries(dataset, length=1)[0]
    out = laplace_noise(rng, 1.0 / _epsilon(epsilon), n)
    out += x
    out[_coin(rng, n, one_in)] = x
    return out


def curator_tail(dataset, size, rng, *, epsilon: float = 0.5, one_in: int = 1000,
                 offset: float = 100.0) -> np.ndarray:
    """One query answer ``x + Lap(1/ε)``, except with probability exactly ``1/one_in``
    the value ``x + offset``, far in the noise's tail (P(Lap(1/ε) > offset) = e^(−ε·offset)/2,
    e^-50/2 at the defaults); shape ``(size,)`` float64.

    True privacy (answers moving by at most 1): no finite ε at δ = 0 (an atom at
    ``x + offset`` of mass p = 1/one_in that no neighbour charges); exactly (ε, p)-DP at the
    claimed ε, with the profile of :func:`curator_answer` (:func:`curator_delta`)."""
    n = check_size(size, rng)
    x = as_queries(dataset, length=1)[0]
    out = laplace_noise(rng, 1.0 / _epsilon(epsilon), n)
    out += x
    out[_coin(rng, n, one_in)] = x + float(offset)
    return out


def curator_record(dataset, size, rng, *, epsilon: float = 0.5,
                   one_in: int = 1000) -> np.ndarray:
    """A histogram, every count plus Lap(1/ε) (Ding et al. 2018, Algorithm 9), except with
    probability exactly ``1/one_in`` the counts themselves; shape ``(size, k)`` float64.

    True privacy (one count moving by at most 1): no finite ε at δ = 0 (the raw counts,
    an atom of mass p = 1/one_in that no neighbour charges); exactly (ε, p)-DP at the
    claimed ε, with the same profile as :func:`curator_answer`."""
    n = check_size(size, rng)
    q = as_queries(dataset)
    out = laplace_noise(rng, 1.0 / _epsilon(epsilon), (n, q.size))
    out += q
    out[_coin(rng, n, one_in)] = q
    return out


def no_signal(dataset, size, rng, *, epsilon: float = 0.5, one_in: int = 1000) -> np.ndarray:
    """The control: ``Lap(1/ε)``, or with probability exactly ``1/one_in`` the constant
    0.0, whatever ``dataset`` holds (it is only checked); shape ``(size,)`` float64.

    True privacy: (0, 0)-DP — the law is the same on every dataset, so every audit of any
    claim must pass (or be inconclusive), and ε_lower exceeds 0 only by chance."""
    n = check_size(size, rng)
    as_queries(dataset)
    out = laplace_noise(rng, 1.0 / _epsilon(epsilon), n)
    out[_coin(rng, n, one_in)] = 0.0
    return out


def curator_delta(epsilon_prime: float, *, epsilon: float, leak: float) -> float:
    """The exact privacy profile δ(ε') of :func:`curator_answer` and
    :func:`curator_record` with Laplace part at ``epsilon`` and leak probability ``leak``:
    p + (1 − p)·max(0, 1 − e^((ε' − ε)/2)) (the Laplace mechanism's hockey-stick
    divergence at sensitivity 1, plus the atom)."""
    p = float(leak)
    if not 0 <= p <= 1:
        raise ParameterError(f"leak must be a probability, got {leak!r}")
    lap = max(0.0, -math.expm1((float(epsilon_prime) - _epsilon(epsilon)) / 2))
    return p + (1 - p) * lap


def detection_limit(n: int, leak: float, alpha: float) -> float:
    """The largest probability with which any level-``alpha`` black-box test of the claim
    can fail a curator mechanism after ``n`` draws per dataset: α + 1 − (1 − p)^(2n)
    (without a leak among the 2n draws they are draws of the correct Laplace mechanism)."""
    n = check_int("n", n, minimum=0)
    p = float(leak)
    return min(1.0, float(alpha) - math.expm1(2 * n * math.log1p(-p)))


def _pairs(d, dp) -> tuple:
    return ((d, dp), (dp, d))


def curator_suite(epsilon: float = 0.5, leaks=CURATOR_LEAKS) -> list[CuratorMechanism]:
    """The curator entries at claimed ``epsilon`` (δ = 0): :func:`curator_answer`,
    :func:`curator_tail` and :func:`curator_record` for each leak coin ``m`` of ``leaks``
    (a leak in one of ``m`` releases), then the :func:`no_signal` control (its constant
    released one in 10³ times)."""
    eps = _epsilon(epsilon)
    out = []
    a, a2 = (1.0,), (0.0,)
    h, h2 = (1.0,) * 5, (2.0,) + (1.0,) * 4
    for m in leaks:
        m = check_int("one_in", m, minimum=1)
        p = float(Fraction(1, m))
        tag = f"1e-{round(math.log10(m))}" if 10 ** round(math.log10(m)) == m else f"1/{m}"
        out.append(
            CuratorMechanism(
                name=f"CuratorAnswer@{tag}",
                mechanism=partial(curator_answer, epsilon=eps, one_in=m),
                epsilon=eps,
                leak=p,
                one_in=m,
                private=False,
                true_epsilon=math.inf,
                true_delta=p,
                relation="query",
                datasets=(a, a2),
                pairs=_pairs(a, a2),
                witness=(a, a2),
                note=f"Laplace on one answer; the answer itself with probability {tag}",
            )
        )
        out.append(
            CuratorMechanism(name=f"CuratorTail@{tag}",
                             mechanism=partial(curator_tail, epsilon=eps, one_in=m, offset=100.0),
                             epsilon=eps, leak=p, one_in=m, private=False, true_epsilon=math.inf,
                             true_delta=p, relation="query", datasets=(a, a2), pairs=_pairs(a, a2),
                             witness=(a, a2),
                             note=f"Laplace on one answer; the answer + 100 with probability {tag}",
                             offset=100.0)
        )
        out.append(
            CuratorMechanism(name=f"CuratorRecord@{tag}",
                             mechanism=partial(curator_record, epsilon=eps, one_in=m), epsilon=eps,
                             leak=p, one_in=m, private=False, true_epsilon=math.inf, true_delta=p,
                             relation="histogram", datasets=(h, h2), pairs=_pairs(h, h2),
                             witness=(h, h2),
                             note=f"noisy 5-bin histogram; the raw counts with probability {tag}")
        )
    out.append(
        CuratorMechanism(
            name="NoSignal",
            mechanism=partial(no_signal, epsilon=eps, one_in=1000),
            epsilon=eps,
            leak=1e-3,
            one_in=1000,
            private=True,
            true_epsilon=0.0,
            true_delta=0.0,
            relation="query",
            datasets=(a, a2),
            pairs=_pairs(a, a2),
            witness=(a, a2),
            note="Lap(1/ε) or the constant 0.0 (one in 10³), whatever the dataset: the control",
        )
    )
    return out
