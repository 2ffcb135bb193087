"""The adapters under a trace: a library's noise as one recorded call of its law.

When the generator an :class:`~privtools.testing.adapters.AdaptedMechanism` receives is a
tracing generator (it has ``trace_noise``: ``verification.audit.trace``), an additive
mechanism of a known law releases ``value + noise`` with the noise drawn through that hook:
recorded with its law when the trace records, served again when it replays. The trace then
sees the library's primitive — its law and scale — and checks the glue around it: the value
handed in, how far it moves between two datasets. Laws read from the library object:

* diffprivlib: ``Laplace`` (scale Δ/(ε − log(1 − δ)), as its ``randomise`` computes it),
  ``Gaussian`` and ``GaussianAnalytic`` (σ = ``_scale``), ``Geometric`` (the discrete Laplace
  of scale Δ/ε), ``GaussianDiscrete`` (the discrete Gaussian of σ = ``_scale``); subclasses
  (truncated, bounded domains) are not additive and are drawn as usual;
* OpenDP: ``make_laplace`` and ``make_gaussian`` on an atom or vector domain (continuous on
  floats; on integers the discrete Laplace and Gaussian of that scale), ``make_geometric``;
  read from the measurement's serialized constructor, so chains and callbacks are drawn as
  usual.

A mechanism of any other kind runs as it does untraced: its randomness then does not come
through the trace and the trace says so.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np

from privtools.noise import DiscreteGaussian, DiscreteLaplace

__all__ = ["dpl_noise", "opendp_noise", "traced_release", "dpl_draw", "opendp_draw"]


def dpl_noise(mechanism):
    """``(method, scale, law)`` of an additive diffprivlib mechanism, or None."""
    name = type(mechanism).__name__
    try:
        eps, delta = float(mechanism.epsilon), float(mechanism.delta)
        sens = float(mechanism.sensitivity)
    except (AttributeError, TypeError, ValueError):
        return None
    if name == "Laplace":
        return "laplace", sens / (eps - math.log(1 - delta)), None
    if name in ("Gaussian", "GaussianAnalytic"):
        return "normal", float(mechanism._scale), None
    if name == "Geometric" and eps > 0:

        return "discrete-laplace", None, DiscreteLaplace(scale=Fraction(sens) / Fraction(eps))
    if name == "GaussianDiscrete":

        return "discrete-gaussian", None, DiscreteGaussian(sigma=float(mechanism._scale))
    return None


def opendp_noise(measurement, integer: bool):
    """``(method, scale, law)`` of an additive OpenDP measurement, or None."""
    try:
        import opendp.prelude as dp

        node = json.loads(dp.serialize(measurement))
    except Exception:
        return None
    func = node.get("__function__")
    kw = node.get("__kwargs__") or {}
    scale = kw.get("scale")
    if func not in ("make_laplace", "make_gaussian", "make_geometric") or \
            not isinstance(scale, (int, float)) or kw.get("k") not in (None,):
        return None
    if func == "make_gaussian":
        if integer:

            return "discrete-gaussian", None, DiscreteGaussian(sigma=float(scale))
        return "normal", float(scale), None
    if integer or func == "make_geometric":

        return "discrete-laplace", None, DiscreteLaplace(scale=float(scale))
    return "laplace", float(scale), None


def traced_release(rng, noise, source: str, values: np.ndarray, draw_one):
    """``values + noise`` through the tracing generator's hook, or None when it has none.
    ``values``: the query answers, one row per release; ``draw_one(i)`` the library's
    output for release i (recording only)."""
    hook = getattr(rng, "trace_noise", None)
    if hook is None or noise is None:
        return None
    method, scale, law = noise
    values = np.asarray(values)

    def draw():
        outs = np.asarray([draw_one(i) for i in range(values.shape[0])])
        return outs.reshape(values.shape) - values
    eta = hook("laplace" if method == "laplace" else "normal" if method == "normal"
               else method, values.shape, draw, scale=scale, law=law, source=source)
    if law is not None:
        return np.asarray(values, dtype=np.int64) + eta     # eta: int64 (tracked, maybe)
    return np.asarray(values, dtype=float) + eta


def dpl_draw(backend, value, size: int, rng):
    """A diffprivlib backend's ``size`` releases on ``value`` under a trace (or None)."""
    made = []                           # the seeded copy, made while recording only

    def one(i):
        if not made:
            made.append(backend._instance(rng))
        return made[0].randomise(value)
    values = np.full(size, value, dtype=np.int64 if backend.integer else float)
    return traced_release(rng, dpl_noise(backend.target), "diffprivlib", values, one)


def opendp_draw(measurement, value, size: int, rng, integer: bool, numeric: bool):
    """An OpenDP measurement's ``size`` releases on ``value`` under a trace (or None)."""
    if not numeric:
        return None
    values = np.broadcast_to(np.asarray(value, dtype=np.int64 if integer else float),
                             (size,) + np.shape(value))
    return traced_release(rng, opendp_noise(measurement, integer), "opendp", values,
                          lambda i: measurement(value))
