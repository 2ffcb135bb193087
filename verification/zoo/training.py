"""The DP-SGD zoo: a numpy reference trainer with per-example gradients, and the bugs of the
DP-SGD implementations people run, each reproduced in it — ground truth for the training
audit.

The trainer (DP-SGD, Abadi et al. 2016, Alg. 1): per-example gradients g_i of the loss,
each clipped to norm at most ``clip`` (g_i · min(1, C/‖g_i‖)), summed, Gaussian noise of
standard deviation ``noise_multiplier · clip`` added to the sum, the noisy sum divided by
the *expected* batch size (a constant: dividing by the realised size makes the divisor
depend on the data), then a gradient step. Models: logistic regression (a weight per
feature and a bias) and a one-hidden-layer MLP (tanh) with a logistic output; both read a
data row as its features followed by a label in {0, 1}.

Convention (the training audit's input contract): ``step(params, batch, rng) -> params``
with ``params`` a 1-D float64 array, ``batch`` the rows of the data in the batch (a 2-D
array, possibly with no rows) and ``rng`` a ``numpy.random.Generator``, the step's only
source of randomness; ``sampler(n_batches, rng)`` returns ``n_batches`` arrays of record
indices (as :func:`verification.audit.audit_sampling` takes).

Bugs (``BUGS``), each named after the report it reproduces:

=========================  ===================================================================
``realised_normaliser``    the noisy sum divided by the realised batch size (opacus#819;
                           Wang, Cui, Cui and Yuan 2026): one record moves every coordinate
``batch_clipping``         the batch's summed gradient clipped, not each example's
``clip_after_average``     the batch's mean gradient clipped, then scaled back by its size
``no_clipping``            no clipping at all: the sum's sensitivity is unbounded
``low_noise``              noise of σ·C/10: a tenth of the scale the accountant is told
``shared_noise``           one noise vector drawn once and added at every step
``noise_on_mean``          noise of σ·C added after dividing by the batch size
=========================  ===================================================================

Samplers (``SAMPLERS``): ``poisson`` (each record independently at rate q: the correct one),
``fixed_size`` (uniform without replacement), ``shuffle`` (a permutation per epoch cut into
batches), ``sequential`` (the same consecutive batches every epoch: jax_privacy#84),
``weighted`` (per-record rates proportional to given weights, reported as their mean: the
Opacus ``WeightedRandomSampler`` mismatch, opacus#813) and ``blocks`` (a "Poisson" sampler
drawing records in blocks of consecutive indices: right rate, no independence —
jax_privacy#121).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int

__all__ = ["BUGS", "SAMPLERS", "TrainerConfig", "make_data", "init_params", "make_step",
           "per_example_gradients", "make_sampler"]

BUGS = ("realised_normaliser", "batch_clipping", "clip_after_average", "no_clipping",
        "low_noise", "shared_noise", "noise_on_mean")
SAMPLERS = ("poisson", "fixed_size", "shuffle", "sequential", "weighted", "blocks")
MODELS = ("logistic", "mlp")


@dataclass(frozen=True)
class TrainerConfig:
    """One DP-SGD run's step: ``model`` (``"logistic"`` or ``"mlp"`` with ``hidden`` units),
    the clipping norm ``clip``, the ``noise_multiplier`` σ (noise σ·clip on the sum), the
    ``learning_rate``, the ``expected_batch`` size the noisy sum is divided by, and ``bug``
    (None, or one of :data:`BUGS`)."""

    model: str = "logistic"
    clip: float = 1.0
    noise_multiplier: float = 1.0
    learning_rate: float = 0.5
    expected_batch: float = 100.0
    hidden: int = 8
    bug: str | None = None

    def __post_init__(self):
        if self.model not in MODELS:
            raise ParameterError(f"model must be one of {MODELS}, got {self.model!r}")
        if self.bug is not None and self.bug not in BUGS:
            raise ParameterError(f"bug must be None or one of {BUGS}, got {self.bug!r}")
        for name in ("clip", "learning_rate", "expected_batch"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
                raise ParameterError(f"{name} must be a positive finite number, got {value!r}")
        nm = self.noise_multiplier
        if not (isinstance(nm, (int, float)) and np.isfinite(nm) and nm >= 0):
            raise ParameterError(f"noise_multiplier must be a finite number >= 0, got {nm!r}")
        check_int("hidden", self.hidden, minimum=1)

    def size(self, dim: int) -> int:
        """Number of parameters for ``dim`` features."""
        if self.model == "logistic":
            return dim + 1
        return dim * self.hidden + self.hidden + self.hidden + 1


def make_data(n: int, dim: int, rng) -> np.ndarray:
    """``n`` rows of ``dim`` standard normal features and a label drawn from a logistic
    model of a fixed random direction (last column, 0 or 1)."""
    n = check_int("n", n, minimum=1)
    dim = check_int("dim", dim, minimum=1)
    gen = np.random.default_rng(rng)
    x = gen.standard_normal((n, dim))
    w = gen.standard_normal(dim) / np.sqrt(dim)
    y = (gen.random(n) < 1 / (1 + np.exp(-2 * x @ w))).astype(float)
    return np.column_stack([x, y])


def init_params(config: TrainerConfig, dim: int, rng) -> np.ndarray:
    """Zero weights for logistic regression; small random weights for the MLP."""
    if config.model == "logistic":
        return np.zeros(config.size(dim))
    gen = np.random.default_rng(rng)
    return gen.standard_normal(config.size(dim)) * 0.1


def _unpack(config: TrainerConfig, params: np.ndarray, dim: int):
    h = config.hidden
    w1 = params[:dim * h].reshape(dim, h)
    b1 = params[dim * h:dim * h + h]
    w2 = params[dim * h + h:dim * h + 2 * h]
    b2 = params[-1]
    return w1, b1, w2, b2


def per_example_gradients(config: TrainerConfig, params: np.ndarray, batch: np.ndarray
                          ) -> np.ndarray:
    """The gradient of each row's logistic loss (one row per example), vectorised."""
    x, y = batch[:, :-1], batch[:, -1]
    if config.model == "logistic":
        r = 1 / (1 + np.exp(-(x @ params[:-1] + params[-1]))) - y
        return np.column_stack([r[:, None] * x, r])
    w1, b1, w2, b2 = _unpack(config, params, x.shape[1])
    a = np.tanh(x @ w1 + b1)                         # (n, h)
    r = 1 / (1 + np.exp(-(a @ w2 + b2))) - y          # dloss/dlogit, (n,)
    da = r[:, None] * w2[None, :] * (1 - a * a)       # (n, h)
    gw1 = x[:, :, None] * da[:, None, :]              # (n, dim, h)
    return np.column_stack([gw1.reshape(len(x), -1), da, r[:, None] * a, r])


def _clip_rows(g: np.ndarray, c: float) -> np.ndarray:
    norms = np.linalg.norm(g, axis=1)
    return g * np.minimum(1.0, c / np.maximum(norms, 1e-300))[:, None]


def make_step(config: TrainerConfig) -> Callable:
    """``step(params, batch, rng) -> params``: one DP-SGD step of ``config`` (with its bug)."""
    shared: dict = {}

    def step(params, batch, rng):
        params = np.asarray(params, dtype=float)
        batch = np.asarray(batch, dtype=float).reshape(-1, _dim(config, params) + 1)
        c, sigma = config.clip, config.noise_multiplier
        g = per_example_gradients(config, params, batch)
        bug = config.bug
        if bug == "batch_clipping":
            total = _clip_rows(g.sum(axis=0, keepdims=True), c)[0]
        elif bug == "clip_after_average":
            n = max(len(batch), 1)
            total = _clip_rows(g.mean(axis=0, keepdims=True), c)[0] * n
        elif bug == "no_clipping":
            total = g.sum(axis=0)
        else:
            total = _clip_rows(g, c).sum(axis=0)
        scale = sigma * c / (10 if bug == "low_noise" else 1)
        if bug == "shared_noise":
            if "noise" not in shared:
                shared["noise"] = rng.standard_normal(params.size) * scale
            noise = shared["noise"]
        else:
            noise = rng.standard_normal(params.size) * scale
        if bug == "realised_normaliser":
            update = (total + noise) / max(len(batch), 1)
        elif bug == "noise_on_mean":
            update = total / config.expected_batch + noise
        else:
            update = (total + noise) / config.expected_batch
        return params - config.learning_rate * update
    step.__name__ = f"dp_sgd_step_{config.model}" + (f"_{config.bug}" if config.bug else "")
    return step


def _dim(config: TrainerConfig, params: np.ndarray) -> int:
    if config.model == "logistic":
        return params.size - 1
    h = config.hidden
    dim, rest = divmod(params.size - 2 * h - 1, h)
    if rest or dim < 1:
        raise ParameterError(f"params of size {params.size} fit no MLP of {h} hidden units")
    return dim


def make_sampler(kind: str, population: int, *, q: float | None = None,
                 batch: int | None = None, weights=None, block: int = 10) -> Callable:
    """``sampler(n_batches, rng)`` of :data:`SAMPLERS` over ``population`` records: ``q`` for
    ``poisson``, ``blocks`` (blocks of ``block`` consecutive records, each block at rate q)
    and ``weighted`` (record i at rate q·w_i/mean(w), ``weights`` given); ``batch`` for
    ``fixed_size``, ``shuffle`` and ``sequential``."""
    if kind not in SAMPLERS:
        raise ParameterError(f"kind must be one of {SAMPLERS}, got {kind!r}")
    n = check_int("population", population, minimum=2)
    if kind in ("poisson", "blocks", "weighted"):
        if q is None or not (0 < q <= 1):
            raise ParameterError(f"q must be in (0, 1] for a {kind} sampler, got {q!r}")
        rates = _rates(n, q, weights) if kind == "weighted" else np.full(n, float(q))
        draw = _blocks(n, q, check_int("block", block, minimum=1)) if kind == "blocks" \
            else _independent(rates)
    else:
        draw = _cut(n, check_int("batch", batch, minimum=1, maximum=n), kind)

    def sampler(n_batches, rng):
        return draw(n_batches, rng)
    sampler.__name__ = f"{kind}_sampler"
    return sampler


def _rates(n: int, q: float, weights) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ParameterError(f"weights must be {n} finite non-negative numbers, not all 0")
    return np.minimum(q * w / w.mean(), 1.0)


def _independent(rates: np.ndarray) -> Callable:
    """Each record independently at its own rate."""
    return lambda n_batches, rng: [np.flatnonzero(rng.random(rates.size) < rates)
                                   for _ in range(n_batches)]


def _blocks(n: int, q: float, block: int) -> Callable:
    """Blocks of consecutive records, each block independently at rate q."""
    starts = np.arange(0, n, block)

    def draw(n_batches, rng):
        out = []
        for _ in range(n_batches):
            chosen = starts[rng.random(starts.size) < q]
            idx = (chosen[:, None] + np.arange(block)[None, :]).ravel()
            out.append(idx[idx < n])
        return out
    return draw


def _cut(n: int, batch: int, kind: str) -> Callable:
    """Fixed-size batches: uniform without replacement, or an order per epoch cut into
    consecutive batches (a fresh permutation for ``shuffle``, the identity for
    ``sequential``)."""
    def draw(n_batches, rng):
        if kind == "fixed_size":
            return [rng.choice(n, batch, replace=False) for _ in range(n_batches)]
        out: list = []
        while len(out) < n_batches:
            order = rng.permutation(n) if kind == "shuffle" else np.arange(n)
            out += [order[i:i + batch] for i in range(0, n, batch)]
        return out[:n_batches]
    return draw
