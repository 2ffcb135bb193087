"""Default samplers shared by laws of equal type and exact parameters.

A least-recently-used cache bounded in entries (:data:`SAMPLER_CACHE_ENTRIES`) and in table
points (:data:`SAMPLER_CACHE_POINTS`, about 80 bytes a point), so a second instance of a law
pays nothing for its table. Samplers are never mutated after they are built, so sharing one
is safe; laws are frozen dataclasses of exact parameters and compare by value.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

SAMPLER_CACHE_ENTRIES = 64
SAMPLER_CACHE_POINTS = 1 << 21
_SAMPLER_CACHE: OrderedDict = OrderedDict()
_SAMPLER_LOCK = threading.Lock()


def key(law):
    """``(type, law)`` when the law is hashable, else None (not cached)."""
    try:
        hash(law)
    except TypeError:
        return None
    return (type(law), law)


def _points(sampler) -> int:
    return max(1, int(getattr(sampler, "points", 1)))


def lookup(k):
    """The cached sampler under key ``k`` (marked most recently used), or None."""
    if k is None:
        return None
    with _SAMPLER_LOCK:
        hit = _SAMPLER_CACHE.get(k)
        if hit is not None:
            _SAMPLER_CACHE.move_to_end(k)
        return hit


def remember(k, sampler) -> None:
    """Insert under key ``k``, evicting the least recently used entries until both bounds
    hold (a sampler larger than the whole point budget is not kept; ``k`` None: nothing)."""
    if k is None or _points(sampler) > SAMPLER_CACHE_POINTS:
        return
    with _SAMPLER_LOCK:
        _SAMPLER_CACHE[k] = sampler
        _SAMPLER_CACHE.move_to_end(k)
        while (len(_SAMPLER_CACHE) > SAMPLER_CACHE_ENTRIES
               or sum(_points(v) for v in _SAMPLER_CACHE.values()) > SAMPLER_CACHE_POINTS):
            _SAMPLER_CACHE.popitem(last=False)


def clear_sampler_cache() -> None:
    """Forget every cached default sampler (the next ``law.sampler`` builds afresh)."""
    with _SAMPLER_LOCK:
        _SAMPLER_CACHE.clear()
