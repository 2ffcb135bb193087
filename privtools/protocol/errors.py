"""Errors raised by the protocol layer (the secure computations S of paper 000)."""

from __future__ import annotations

__all__ = ["ProtocolError"]


class ProtocolError(ValueError):
    """A run of a protocol cannot complete as specified: e.g. more users dropped out of
    masked secure aggregation than its Shamir threshold lets the server recover from, or
    a reconstructed key does not match the key the user advertised. The message says what
    happened and with which numbers. (Bad arguments raise
    :class:`privtools._validation.ParameterError` instead, before any work is done.)"""
