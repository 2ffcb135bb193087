"""Deployment bugs of the distributed protocol, and their controls, for the plan trace.

Each builder takes a plan of paper 000 (:func:`privtools.planning.plan`) and returns a view
``mechanism(rewards, size, rng)`` — the server's view of one batch, as
:func:`privtools.protocol.view_mechanism` gives for the shipped protocol — drawn with numpy's
own samplers instead of the privtools laws, the way the protocol was first written:

* :func:`gamma_poisson_view` — each user's Pólya share as Poisson(Gamma(r, θ)) with
  θ = β/(1 − β), the mixture that *is* Pólya(r, β) (a control: the right law, by another
  route);
* :func:`inverted_gamma_view` — the same with the Gamma scale inverted, θ = (1 − β)/β: the
  bug of the seed implementation. Each share is still a Pólya difference, of the wrong β, so
  the sum is a discrete Laplace of the wrong scale;
* :func:`shared_noise_batch` — a batch of several arms' sums where one total-noise draw is
  added to every arm ("one noise draw shared by every arm"): the differences between arms
  carry no noise at all; :func:`per_arm_batch` is its control.

Rewards are in {0, 1} here (as in the worst-case pairs of
:func:`privtools.protocol.neighbours`), so the encoding x̂ = x·g is exact.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from privtools.errors import ParameterError

__all__ = ["gamma_poisson_view", "inverted_gamma_view", "shared_noise_batch",
           "per_arm_batch"]


def _encoded(rewards, g: int) -> np.ndarray:
    x = np.asarray(rewards, dtype=float)
    if not np.all((x == 0) | (x == 1)):
        raise ParameterError("rewards must be 0 or 1 in these views (exact encoding x·g)")
    return (x * g).astype(np.int64)


def _polya(rng, r: float, theta: float, shape) -> np.ndarray:
    lam = rng.gamma(r, theta, shape)
    return rng.poisson(lam)


def _view(rewards, size, rng, *, g, m, r, theta):
    xhat = _encoded(rewards, g)
    n = xhat.size
    shares = _polya(rng, r, theta, (size, n)) - _polya(rng, r, theta, (size, n))
    return (xhat.sum() + shares.sum(axis=1)) % m


def _share_parameters(plan) -> tuple[float, float]:
    share = getattr(plan, "share", None)
    if type(share).__name__ != "PolyaDifference":
        raise ParameterError("plan must be a pure-dp distributed plan (Pólya-difference "
                             f"shares), got share {share!r}")
    return float(share.r), float(share.beta)


def gamma_poisson_view(plan):
    """The server's view with Pólya shares drawn as Poisson(Gamma(r, β/(1 − β))) — the
    right law (a control)."""
    r, beta = _share_parameters(plan)
    return partial(_view, g=plan.g, m=plan.m, r=r, theta=beta / (1 - beta))


def inverted_gamma_view(plan):
    """The seed bug: Poisson(Gamma(r, (1 − β)/β)), the Gamma scale inverted."""
    r, beta = _share_parameters(plan)
    return partial(_view, g=plan.g, m=plan.m, r=r, theta=(1 - beta) / beta)


def _batch(rewards, size, rng, *, law, g, shared):
    x = np.asarray(rewards, dtype=float)
    if x.ndim != 2:
        raise ParameterError("rewards must be an (arms, users) matrix")
    sums = (x * g).astype(np.int64).sum(axis=1)
    arms = sums.size
    noise = law.sample((size, 1) if shared else (size, arms), rng)
    return sums + noise


def shared_noise_batch(plan):
    """A batch release of every arm's noisy sum with ONE draw of the total noise added to all
    arms (the bug); ``rewards`` an (arms, users) matrix of 0/1."""
    return partial(_batch, law=plan.total_noise, g=plan.g, shared=True)


def per_arm_batch(plan):
    """The control: one total-noise draw per arm."""
    return partial(_batch, law=plan.total_noise, g=plan.g, shared=False)
