# %% [markdown]
# # 12 — Auditing a DP-SGD loop: the realised batch size found and fixed
#
# Most deployed differential privacy is DP-SGD, and its failures are mismatches between the
# code that runs and the analysis that is reported. This notebook writes a small training
# loop the way it is often written — the noisy sum divided by the number of examples in the
# batch — and audits it with `audit_training`: the step is traced on neighbouring batches,
# the batch sampler is identified and tested, the whole run is certified under the scheme the
# sampler runs, and canaries give a lower bound. The guide
# [auditing DP-SGD](../docs/guides/training.md) has the details.

# %%
import os

import numpy as np

from verification.audit import PoissonScheme
from verification.training import audit_training

FULL = os.environ.get("PRIVTOOLS_FULL") == "1"
N, STEPS = (10_000, 1000) if FULL else (2_000, 200)
Q, CLIP, SIGMA, LR = 0.01 if FULL else 0.05, 1.0, 1.0, 0.5

gen = np.random.default_rng(0)
x = gen.standard_normal((N, 4))
y = (gen.random(N) < 1 / (1 + np.exp(-x @ np.array([1.0, -1.0, 0.5, 0.0])))).astype(float)
data = np.column_stack([x, y])

# %% [markdown]
# ## The loop as written
#
# Per-example gradients of the logistic loss, each clipped to norm `CLIP`, summed, Gaussian
# noise of standard deviation `SIGMA·CLIP` added — and the noisy sum divided by
# `len(batch)`, the batch's realised size.

# %%
def grads(w, batch):
    xb, yb = batch[:, :-1], batch[:, -1]
    r = 1 / (1 + np.exp(-(xb @ w[:-1] + w[-1]))) - yb
    return np.column_stack([r[:, None] * xb, r])


def clip(g):
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    return g * np.minimum(1.0, CLIP / np.maximum(norms, 1e-12))


def step(w, batch, rng):
    noisy = clip(grads(w, batch)).sum(axis=0) + rng.normal(0, SIGMA * CLIP, w.size)
    return w - LR * noisy / max(len(batch), 1)


def poisson_batches(n_batches, rng):
    return [np.flatnonzero(rng.random(N) < Q) for _ in range(n_batches)]

# %% [markdown]
# The accountant was told Poisson sampling at rate `Q` and noise multiplier `SIGMA`; the claim
# below is what it reports for this run, with room to spare.

# %%
r = audit_training(step, poisson_batches, data, STEPS, epsilon=5.0, delta=1e-5, rng=0,
                   scheme=PoissonScheme(Q), canaries=200)
print(r.describe())

# %% [markdown]
# The finding names the normaliser and measures the factor: adding one record to a batch of
# b multiplies the step's noise by exactly b/(b + 1). The two neighbouring updates are then
# Gaussians of different scales, and the Gaussian analysis the accountant ran does not apply.
#
# ## The fix
#
# Divide by the *expected* batch size, a constant: `Q·N`.

# %%
def fixed_step(w, batch, rng):
    noisy = clip(grads(w, batch)).sum(axis=0) + rng.normal(0, SIGMA * CLIP, w.size)
    return w - LR * noisy / (Q * N)


r = audit_training(fixed_step, poisson_batches, data, STEPS, epsilon=5.0, delta=1e-5, rng=0,
                   scheme=PoissonScheme(Q), canaries=200)
print(r.describe())
assert r.verdict == "pass"

# %% [markdown]
# The step now moves by at most one clipped gradient per record, the noise is the same for
# every batch, and the run is certified under Poisson sampling at the told rate: the
# interval is the accountant's value for `PoissonSampledEvent(GaussianEvent(1), Q)` over the
# steps, because the noise multiplier the trace measured is 1 to the rounding of floats.
#
# ## A sampler that is not what the accountant was told
#
# The same correct step with batches cut from a fresh permutation each epoch — and the
# accountant still told Poisson.

# %%
def shuffled(n_batches, rng):
    b, out = int(Q * N), []
    while len(out) < n_batches:
        order = rng.permutation(N)
        out += [order[i:i + b] for i in range(0, N, b)]
    return out[:n_batches]


r = audit_training(fixed_step, shuffled, data, STEPS, epsilon=5.0, delta=1e-5, rng=0,
                   scheme=PoissonScheme(Q), canaries=0)
print(r.describe())
