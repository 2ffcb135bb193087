"""Steps and samplers built from the DP-SGD frameworks people run, for :func:`audit_training`.

Each adapter puts a framework's own parts behind the audit's contract, ``step(params,
batch, rng) -> params`` with ``params`` a flat float array:

* :func:`jax_privacy_step` — jax_privacy's per-example clipping (``jax_privacy.clipped_grad``)
  and its Gaussian privatizer (``noise_addition.gaussian_privatizer``, keyed from ``rng``);
  ``normalize_by="batch"`` divides by the realised batch size, the bug of opacus#819
  reproduced with jax_privacy's parts;
* :func:`jax_privacy_sampler` — a ``jax_privacy.batch_selection`` strategy as a sampler;
* :func:`opacus_step` — a torch model made private by Opacus (``PrivacyEngine``): its
  per-sample gradients, clipping and noise, the generator keyed from ``rng``.

Both frameworks draw their noise from a generator of their own, so the trace cannot follow
it: :func:`audit_training` then samples the noise from pairs of seeds
(:func:`~verification.training.step.sample_noise`) and says so. The frameworks are optional
extras (``pip install "privtools[frameworks]"`` for jax_privacy; Opacus needs torch, installed
by the user); an adapter whose framework is missing raises ``ImportError`` naming it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privtools.errors import ParameterError

__all__ = ["jax_privacy_step", "jax_privacy_sampler", "opacus_step"]


def _missing(module: str, extra: str, exc: ImportError) -> ImportError:
    return ImportError(f"{module} is not installed ({extra}): {exc}")


def jax_privacy_step(loss: Callable, *, l2_clip_norm: float, noise_multiplier: float,
                     learning_rate: float, normalize_by="expected",
                     expected_batch: float | None = None) -> Callable:
    """``step(params, batch, rng)`` of DP-SGD from jax_privacy's parts: ``loss(params,
    examples)`` (a mean or sum over a batch of examples, jax-traceable), each example's
    gradient clipped to ``l2_clip_norm`` and summed by ``jax_privacy.clipped_grad``, Gaussian
    noise of standard deviation ``noise_multiplier · l2_clip_norm`` added by
    ``gaussian_privatizer`` keyed from ``rng``, the noisy sum divided by ``expected_batch``
    (``normalize_by="expected"``) or by the batch's realised size (``"batch"``), then a step
    of ``learning_rate``."""
    try:
        import jax.numpy as jnp
        import jax_privacy as jp
        from jax_privacy import noise_addition
    except ImportError as exc:
        raise _missing("jax_privacy", 'pip install "privtools[frameworks]"', exc) from None

    if normalize_by not in ("expected", "batch"):
        raise ParameterError(f"normalize_by must be 'expected' or 'batch', got {normalize_by!r}")
    if normalize_by == "expected" and not (expected_batch and expected_batch > 0):
        raise ParameterError("expected_batch must be a positive number with "
                             "normalize_by='expected'")
    grad = jp.clipped_grad(loss, l2_clip_norm=l2_clip_norm, batch_argnums=1)
    std = noise_multiplier * l2_clip_norm

    def step(params, batch, rng):
        w = jnp.asarray(params, dtype=jnp.float32)
        rows = jnp.asarray(batch, dtype=jnp.float32)
        total = grad(w, rows) if rows.shape[0] else jnp.zeros_like(w)
        privatizer = noise_addition.gaussian_privatizer(
            stddev=std, prng_key=int(rng.integers(0, 2**31 - 1)))
        noisy, _ = privatizer.update(total, privatizer.init(w))
        divisor = expected_batch if normalize_by == "expected" else max(rows.shape[0], 1)
        return np.asarray(w - learning_rate * noisy / divisor)
    step.__name__ = f"jax_privacy_step_{normalize_by}"
    return step


def jax_privacy_sampler(strategy: Callable, population: int) -> Callable:
    """``sampler(n_batches, rng)`` from a jax_privacy batch-selection strategy:
    ``strategy(iterations)`` makes it (e.g. ``lambda it: CyclicPoissonSampling(
    sampling_prob=0.01, iterations=it)``), and its ``batch_iterator(population, rng)`` gives
    the batches."""
    def sampler(n_batches, rng):
        return [np.asarray(b).ravel() for b in
                strategy(n_batches).batch_iterator(population, rng=rng)]
    sampler.__name__ = "jax_privacy_sampler"
    return sampler


def opacus_step(make_model: Callable, loss, *, max_grad_norm: float, noise_multiplier: float,
                learning_rate: float, expected_batch: int,
                loss_reduction: str = "sum") -> Callable:
    """``step(params, batch, rng)`` of Opacus: ``make_model()`` a fresh ``torch.nn.Module``
    whose parameters, flattened in ``parameters()`` order, are ``params``; ``loss(output,
    target)`` a torch loss with ``reduction="sum"``; a batch's rows are the features
    followed by the target. Each call loads ``params`` into a model made private by
    ``opacus.PrivacyEngine`` (Poisson sampling off: the audit brings the batches; the loss
    reduction told as ``loss_reduction``, ``"sum"`` as the loss is) with an SGD optimizer,
    its noise generator seeded from ``rng``, runs one step and returns the new parameters.
    Opacus divides the noisy sum by ``expected_batch``. (Told ``"mean"`` for a summed loss,
    Opacus scales each per-sample gradient by the batch size before clipping: the audit
    names the clipping.)"""
    try:
        import opacus
        import torch
    except ImportError as exc:
        raise _missing("torch or opacus", "install torch and opacus", exc) from None
    if loss_reduction not in ("sum", "mean"):
        raise ParameterError(f"loss_reduction must be 'sum' or 'mean', got {loss_reduction!r}")

    def step(params, batch, rng):
        model = make_model().double()
        flat = torch.as_tensor(np.asarray(params, dtype=float))
        i = 0
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(flat[i:i + p.numel()].view_as(p))
                i += p.numel()
        if i != flat.numel():
            raise ParameterError(f"params has {flat.numel()} numbers; the model has {i}")
        rows = torch.as_tensor(np.asarray(batch, dtype=float)).reshape(-1, batch.shape[-1])
        data = torch.utils.data.TensorDataset(rows[:, :-1], rows[:, -1:])
        loader = torch.utils.data.DataLoader(data, batch_size=max(len(rows), 1))
        gen = torch.Generator().manual_seed(int(rng.integers(0, 2**62)))
        engine = opacus.PrivacyEngine()
        optim = torch.optim.SGD(model.parameters(), lr=learning_rate)
        model, optim, loader = engine.make_private(
            module=model, optimizer=optim, data_loader=loader,
            noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
            poisson_sampling=False, noise_generator=gen, loss_reduction=loss_reduction)
        optim.expected_batch_size = expected_batch
        optim.zero_grad()
        if len(rows):
            x, y = next(iter(loader))
            loss(model(x), y).backward()
        else:                                   # no record: the step is the noise alone
            for p in model.parameters():
                p.grad_sample = torch.zeros((0, *p.shape), dtype=p.dtype)
        optim.step()
        return np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])
    step.__name__ = "opacus_step"
    return step
