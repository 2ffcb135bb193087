"""A sampler ``sampler(n_batches, rng)`` from what training loops hold.

:func:`batches_of` takes a callable (returned as it is), an iterable of index batches
(a list of arrays: the same batches every epoch), or a PyTorch-style ``BatchSampler`` — any
object whose ``iter()`` yields batches of indices, one epoch per ``iter()`` — read by duck
typing, so no torch import is needed. A sampler that draws from its own generator (torch's)
does not use the ``rng`` it is given: its batches are still read, but not reproducible from
the audit's seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from privtools.errors import ParameterError

__all__ = ["batches_of"]


def batches_of(source) -> Callable:
    """``sampler(n_batches, rng)`` reading ``source`` (module doc)."""
    if callable(source) and not hasattr(source, "__iter__"):
        return source
    if not hasattr(source, "__iter__"):
        raise ParameterError(f"source must be a callable sampler(n_batches, rng), an iterable "
                             f"of index batches or a BatchSampler, got {type(source).__name__}")
    if isinstance(source, Iterator):
        raise ParameterError("source is a one-shot iterator (a generator): pass the object "
                             "that makes a fresh epoch on each iter(), e.g. the BatchSampler "
                             "or a list of batches")

    def sampler(n_batches, rng=None):
        out: list = []
        while len(out) < n_batches:
            before = len(out)
            for batch in iter(source):
                out.append(np.asarray(list(batch) if not hasattr(batch, "__array__")
                                      else batch, dtype=np.int64).ravel())
                if len(out) == n_batches:
                    break
            if len(out) == before:
                raise ParameterError("source gave no batch in an epoch")
        return out
    sampler.__name__ = f"batches_of_{type(source).__name__}"
    return sampler
