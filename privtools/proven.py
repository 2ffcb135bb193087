"""Links from code to the symbolic proofs it relies on ("proof beside code, checked").

OpenDP ties each constructor to its proof with ``#[proven(proof_path=…)]``, checked at build
time. Here a function whose correctness rests on a closed form proved by sympy in
``verification.proofs`` says so with :func:`proven`::

    @proven("fact1_infinite_divisibility")
    def shares(self, n): ...

The decorator only sets ``__proofs__`` (the proof names, in the order given) on the function
and records it in a registry (:func:`links`); it returns the same function object, so
behaviour and signature are untouched. Deployment code never imports the judge, so the names
are plain strings: ``tests/verification/test_proof_links.py`` resolves each one to a proof of
``verification.proofs``, runs it, and checks that no proof is left without a link.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["links", "proofs_of", "proven"]

F = TypeVar("F", bound=Callable)

_LINKS: dict[str, tuple[str, ...]] = {}


def proven(*proofs: str) -> Callable[[F], F]:
    """Mark a function or method as relying on the named proofs of ``verification.proofs``.

    Sets ``fn.__proofs__ = proofs`` and records ``module.qualname`` in the registry read by
    :func:`links`; the function itself is returned unchanged. A name must be a Python
    identifier (the name of a proof function); at least one is needed.
    """
    if not proofs or not all(isinstance(p, str) and p.isidentifier() for p in proofs):
        raise TypeError(f"proven() needs one or more proof names (identifiers), got {proofs!r}")
    names = tuple(proofs)

    def attach(fn: F) -> F:
        fn.__proofs__ = names
        _LINKS[f"{fn.__module__}.{fn.__qualname__}"] = names
        return fn

    return attach


def proofs_of(fn: Callable) -> tuple[str, ...]:
    """The proof names linked to *fn* by :func:`proven` (empty when it has none)."""
    return tuple(getattr(fn, "__proofs__", ()))


def links() -> dict[str, tuple[str, ...]]:
    """Every link made so far: ``"module.qualname"`` of the function to its proof names.

    Only modules already imported have registered their links."""
    return dict(_LINKS)
