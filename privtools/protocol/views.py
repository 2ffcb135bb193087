"""What an adversarial server sees of one batch, for black-box privacy audits.

:func:`server_view` draws ``size`` independent realisations of the view of one batch on a
fixed dataset, each reduced to one integer that loses nothing an adversary could use
(except for the shuffle protocol's residual distance, noted below):

* **distributed, SecAgg** (Theorems 1, 2, 4 of 000) — the modular sum y = (S + N) mod m,
  S = Σ x̂_i, N = Σ η_i: exactly the SecAgg output, all the server receives.
* **distributed, shuffle** (Theorem 3) — the modular sum of the shuffled multiset. This is
  the view of the ideal functionality the shuffle protocol simulates: if the multiset's law
  given its sum did not depend on the inputs, the sum would be a sufficient statistic (the
  likelihood ratio of the multiset between two datasets equals that of the sum). For the
  split-and-mix protocol (``ShuffleSecAgg``) that holds only up to the protocol's
  statistical distance between inputs with equal sums (<= 2**-σ for k shares per user as
  in ``ShuffleSecAgg.required_k``); an audit of this view therefore covers the mechanism
  on the sum and not that additional distance.
* **central** (Theorem 5) — the released noisy integer S + η before the reduction mod m and
  the division by g (000 Alg. 5). The released y = (S + η) mod m and z are functions of it,
  so its privacy bounds theirs (post-processing); the privacy proof of Theorem 5 is stated
  for this integer.
* **local** (Theorem 6) — the server receives every message y_i = (x̂_i + η_i) mod m. The
  view returned is the message of one user, index ``user``: messages of different users
  are independent, so for neighbouring datasets x, x' that differ only in that user the
  likelihood ratio of the full view factorises as Π_i P_i(y_i | x_i)/P_i(y_i | x'_i), where
  every factor but the user's is 1; the log-likelihood ratio of the full view therefore
  equals that of the user's message, and no information relevant to the audit is lost.

:func:`neighbours` gives the worst-case neighbour of a dataset (one reward moved to the
farther end of [0, 1]), so that audits run at the full sensitivity Δ = g of Σ x̂.
"""

from __future__ import annotations

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int

from ._zm import add_noise
from .batch import _int_sum
from .randomizer import _encode, _messages, _noise, check_rewards, protocol_params

__all__ = ["server_view", "view_mechanism", "neighbours"]

# Users × draws generated at once (larger requests are processed in chunks).
_CHUNK_ENTRIES = 1 << 23
# |S + η| stays below 2**63 when S < 2**62 and |η| <= 2**62.
_UNWRAPPED_LIMIT = 2**62


def _check_user(user, n: int) -> int:
    return check_int("user", user, minimum=0, maximum=n - 1)


def server_view(plan, x, size: int, rng=None, *, user: int = 0) -> np.ndarray:
    """``size`` independent draws of the adversarial server's view of one batch on rewards
    ``x`` (shape (n,)), as a 1-D integer array (see the module docstring for each trust
    model): the modular sum (distributed, SecAgg or shuffle), the unwrapped noisy integer
    S + η (central) or the message of user ``user`` (local).

    The draws use the randomizer's encoding (000 Alg. 2, line 3) and the plan's noise
    samplers, vectorized over draws and users in chunks of at most 2**23 entries. Users
    with x_i ∈ {0, 1} are encoded as x_i·g without drawing (randomized rounding is then
    deterministic); the others go through the randomizer's encoder. The modular sum is
    formed as (S + Σ η_i) mod m with the exact integer Σ η_i, which equals the SecAgg
    output Σ ((x̂_i + η_i) mod m) mod m. int64 when m < 2**62, Python ints (object array)
    otherwise.
    """
    P = protocol_params(plan)
    xs = check_rewards(x, P.n, ndim=1)
    size = check_int("size", size, minimum=0)
    user = _check_user(user, P.n)
    gen = as_rng(rng)
    # a tracing generator (verification.audit.trace) hands out tracked values: keep them
    traced = getattr(gen, "trace_law", None) is not None
    out = np.empty(size, dtype=object if P.big or traced else np.int64)
    if P.trust == "local":
        xu = xs[user:user + 1]
        for s, c in _chunks(size, 1):
            xhat = _encode(np.broadcast_to(xu, (c, 1)), P.g, gen)
            out[s:s + c] = _messages(xhat, P, gen)[1][:, 0]
        return out
    random_users = xs[(xs != 0) & (xs != 1)]
    base = P.g * int(np.count_nonzero(xs == 1))  # Σ x̂ over users with x_i ∈ {0, 1}
    width = P.n if P.trust == "distributed" else max(1, random_users.size)
    for s, c in _chunks(size, width):
        S = _encoded_sums(random_users, base, c, P, gen)
        if P.trust == "central":
            out[s:s + c] = _central_release(S, P, gen)
        else:
            N = _int_sum(_noise(P.share, (c, P.n), gen), axis=1)
            out[s:s + c] = add_noise(S, N, P.m)  # S in Z_m, N any integers
    return out


def _chunks(size: int, width: int):
    """(start, count) pairs covering ``size`` draws, at most 2**23 entries each."""
    rows = max(1, _CHUNK_ENTRIES // width)
    for s in range(0, size, rows):
        yield s, min(rows, size - s)


def _encoded_sums(random_users: np.ndarray, base: int, c: int, P, gen) -> np.ndarray:
    """``c`` draws of S = Σ x̂_i: ``base`` plus the encodings of ``random_users``."""
    dtype = object if P.big else np.int64
    if random_users.size == 0:
        return np.full(c, base, dtype=dtype)
    xhat = _encode(np.broadcast_to(random_users, (c, random_users.size)), P.g, gen)
    return np.asarray(_int_sum(xhat, axis=1) + base, dtype=dtype)


def _central_release(S: np.ndarray, P, gen) -> np.ndarray:
    """S + η for encoded sums S (0 <= S <= n·g < m), η from ``central_noise``: int64 when
    m < 2**62 and |η| <= 2**62 (then |S + η| < 2**63); a larger |η| raises OverflowError
    instead of wrapping; Python ints when m >= 2**62."""
    eta = _noise(P.central_noise, S.shape, gen)
    if P.big or eta.dtype == object:
        return S.astype(object) + eta.astype(object)
    if eta.size and (int(eta.max()) > _UNWRAPPED_LIMIT or int(eta.min()) < -_UNWRAPPED_LIMIT):
        raise OverflowError("central noise beyond ±2**62: S + η could leave int64")
    return S + eta


def view_mechanism(plan, *, user: int = 0):
    """``mechanism(dataset, size, rng) -> ints`` for ``verification.audit``: the server's
    view of :func:`server_view` under ``plan`` (checked now)."""
    P = protocol_params(plan)
    user = _check_user(user, P.n)

    def mechanism(dataset, size, rng=None):
        return server_view(P, dataset, size, rng, user=user)

    return mechanism


def neighbours(x, user: int = 0) -> np.ndarray:
    """The worst-case neighbour x' of rewards ``x``: a copy with ``x[user]`` moved to the
    farther end of [0, 1] (to 1 if x[user] < 1/2, else to 0).

    For x[user] ∈ {0, 1} this is the swap 0 ↔ 1, which moves Σ x̂ by exactly g — the
    sensitivity the privacy theorems of 000 are stated for; for other values the shift of
    E[Σ x̂] is max(x[user], 1 − x[user])·g.
    """
    xs = check_rewards(x, ndim=1)
    if xs.size == 0:
        raise ParameterError("rewards must contain at least one user")
    user = _check_user(user, xs.size)
    out = xs.copy()
    out[user] = 1.0 if xs[user] < 0.5 else 0.0
    return out
