"""The alias table's bulk path: one compiled loop that draws each word and maps it.

A draw of :class:`~privtools.noise._samplers.fixed.AliasTable` reads one 64-bit word ``u``: column
``j = u >> (64 − m)``, then the column's own point when ``u < T_j`` (``T_j = j·C +``
threshold, an absolute bound) and its alias ``A_j`` otherwise. numpy spends about eight
passes over memory on that, after the generator has written every word to memory; the
compiled loop (numba, the optional extra ``fast``) calls the bit generator's own
``next_uint64`` through its ``ctypes`` interface, holding the generator's lock as
``random_raw`` does, and maps each word while it is in a register. It reads the same words
in the same order as ``random_raw`` and returns the same values (tested), so it changes
speed only; ``benchmarks/bench_noise_sampling.py`` measures it against the raw word rate.

It is first used for a batch of at least :data:`BULK` draws, so that a single draw or a
small batch never waits for numba's import (~0.3 s) or its first compilation (~0.3 s, once
per machine: the compiled loop is cached on disk); once loaded it serves every batch of at
least :data:`SMALL` draws. ``PRIVTOOLS_KERNEL=numpy`` in the environment turns it off.
"""

from __future__ import annotations

import numpy as np

from privtools.randomness import compiled_draws

__all__ = ["BULK", "SMALL", "kernel_name", "fill", "wanted"]

#: Smallest batch that loads the compiled path.
BULK = 1 << 18
#: Smallest batch that takes it once it is loaded.
SMALL = 1 << 10

_KERNEL = None          # None: not tried yet; False: unavailable; else the compiled loop


def _compiled():
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = False
        if compiled_draws():
            import numba

            @numba.njit(cache=True, nogil=True)
            def _loop(next_u64, state, n, shift, T, A, lo, out):  # pragma: no cover
                for i in range(n):        # branch-free: own and alias are near 50/50
                    x = next_u64(state)
                    j = np.int64(x >> shift)
                    a = np.int64(A[j])
                    out[i] = a + np.int64(x < T[j]) * (j - a) + lo

            _KERNEL = _loop
    return _KERNEL


def wanted(n: int) -> bool:
    """Whether a batch of ``n`` draws should try the compiled path."""
    return n >= BULK or (n >= SMALL and bool(_KERNEL))


def kernel_name() -> str:
    """``"numba"`` when the compiled loop is available, else ``"numpy"``."""
    return "numba" if _compiled() else "numpy"


def fill(bit_generator, shift: np.uint64, T: np.ndarray, A: np.ndarray, lo: int,
         out: np.ndarray) -> bool:
    """``out[i] = (j if u_i < T[j] else A[j]) + lo``, ``j = u_i >> shift``, for the next
    ``out.size`` words ``u_i`` of ``bit_generator``; False (nothing drawn) when the compiled
    loop or the generator's ``ctypes`` interface is unavailable."""
    loop = _compiled()
    if not loop:
        return False
    try:
        ct = bit_generator.ctypes
        next_u64, state = ct.next_uint64, ct.state_address
    except AttributeError:
        return False
    with bit_generator.lock:
        loop(next_u64, state, out.size, shift, T, A, np.int64(lo), out)
    return True
