"""Where randomness comes from: a cryptographically secure generator for deployment, seeded
PCG64 for simulations, and a generator that counts the random words it hands out.

* :func:`secure_rng` — a ``numpy.random.Generator`` over randomgen's ``ChaCha`` bit
  generator with 20 rounds (the ChaCha20 stream cipher of Bernstein 2008 run in counter
  mode), keyed with 256 bits from the operating system (``secrets.token_bytes``). Every
  deployment path of privtools — the randomizer, the secure aggregators, the shuffle, the
  analyzer's central noise and every ``sample()`` of a noise law — draws from it when it is
  given ``rng=None``. A seed or a Generator passed as ``rng`` is used as given, so
  simulations, tests and audits stay reproducible (seeded PCG64).
* :func:`counting_rng` / :func:`words_used` — a ChaCha20 generator whose counter tells
  exactly how many 32-bit words have been drawn from it. The number of random words a
  sampler consumes is a machine-independent proxy for its running time; a sampler whose
  word count depends on the value it returns leaks that value to anyone who can time it
  (``verification.timing`` audits the joint view).
* :func:`compiled_draws` — whether the compiled loops of the extra ``fast`` (numba) may draw:
  the alias tables' bulk path and the bandit simulation's users. ``PRIVTOOLS_KERNEL=numpy``
  in the environment turns them off; both give the same values either way.
"""

from __future__ import annotations

import os
import secrets

import numpy as np

from privtools.errors import ParameterError

__all__ = ["secure_rng", "counting_rng", "words_used", "is_secure", "compiled_draws"]

_ROUNDS = 20


def _chacha(key: int):
    from randomgen import ChaCha

    return ChaCha(key=key, rounds=_ROUNDS)


def secure_rng() -> np.random.Generator:
    """A new ``numpy.random.Generator`` over ChaCha20, keyed from the OS entropy pool.

    Not reproducible by design: pass a seed to any ``rng=`` argument for a reproducible
    (non-cryptographic) stream instead."""
    return np.random.Generator(_chacha(int.from_bytes(secrets.token_bytes(32), "little")))


def is_secure(rng: np.random.Generator) -> bool:
    """Whether ``rng`` runs on a ChaCha bit generator with 20 rounds (as from
    :func:`secure_rng`)."""
    bg = getattr(rng, "bit_generator", None)
    if type(bg).__name__ != "ChaCha":
        return False
    return int(bg.state["state"]["rounds"]) == _ROUNDS


def counting_rng(seed: int = 0) -> np.random.Generator:
    """A reproducible ChaCha20 Generator (key ``seed``) whose consumption
    :func:`words_used` reads exactly."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be an int >= 0, got {seed!r}")
    return np.random.Generator(_chacha(int(seed) % 2**256))


def words_used(rng: np.random.Generator) -> int:
    """The number of 32-bit words drawn so far from a :func:`counting_rng` generator (a 64-bit
    draw counts 2, a double 2, a 32-bit bounded integer 1)."""
    bg = getattr(rng, "bit_generator", None)
    if type(bg).__name__ != "ChaCha":
        raise ParameterError("rng must come from counting_rng() (a ChaCha bit generator)")
    lo, hi = (int(v) for v in bg.state["state"]["ctr"])
    return lo + (hi << 64)


def compiled_draws() -> bool:
    """Whether the compiled loops (numba, the extra ``fast``) may be used: numba imports and
    ``PRIVTOOLS_KERNEL`` is not ``numpy`` (module doc)."""
    if os.environ.get("PRIVTOOLS_KERNEL", "").lower() == "numpy":
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True
