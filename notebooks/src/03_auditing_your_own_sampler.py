# %% [markdown]
# # 03 — Auditing your own sampler
#
# You wrote a noise sampler for the Theorem 1 protocol of paper 000 — each of n users adds
# Pólya(1/n, e^{-ε/g}) − Pólya(1/n, e^{-ε/g}) so that the n shares sum to Lap_Z(g/ε) (Fact 1).
# Before it goes anywhere near users, ask `verification.audit` whether it does what it
# claims. This notebook walks through catching a real bug, sizing an audit, and auditing a
# whole mechanism (the server's view) for its ε.
#
# Sizes are reduced for CI; set `PRIVTOOLS_FULL=1` for the full study
# (`python studies/audit_power.py` writes `docs/tables/audit_calibration.md`).

# %%
import math
import os

import matplotlib.pyplot as plt
import numpy as np

from privtools.noise import DiscreteLaplace
from verification.audit import audit_mechanism, audit_sampler

FULL = os.environ.get("PRIVTOOLS_FULL") == "1"
n_users, epsilon = 16, 1
g = math.ceil(epsilon * math.sqrt(n_users))      # Theorem 1: g = ⌈ε√n⌉ = 4
total = DiscreteLaplace(g)                       # Lap_Z(g/ε)
share = total.shares(n_users)                    # the law one user's share must follow
print(total, "|", share)

# %% [markdown]
# ## A hand-written sampler with a classic bug
#
# numpy's `negative_binomial(n, p)` counts failures before `n` successes with *success*
# probability `p`. The Pólya(r, β) of the paper has mean rβ/(1−β), so the correct call is
# `negative_binomial(r, 1 - β)`. Passing β is an easy slip:

# %%
beta = math.exp(-epsilon / g)
r = 1 / n_users


def my_share_sampler(size, rng):
    return rng.negative_binomial(r, beta, size) - rng.negative_binomial(r, beta, size)


res = audit_sampler(my_share_sampler, share, 20_000, rng=0)
print(res.summary())

# %% [markdown]
# The audit combines three general tests (a G-test over the bulk, exact binomial tests at a
# ladder of far-tail thresholds, and mean/variance z-tests) with a Bonferroni bound, so a
# correct sampler fails with probability at most `alpha` (default 0.01). The details say
# *where* the sample disagrees:

# %%
print("worst bins:", res.tests["g_test"]["worst_bins"][:3])
print("variance:", res.tests["moments"]["variance"])
print("most significant tail:", res.tests["tails"]["thresholds"][0])

# %% [markdown]
# The variance is far too small: each user adds much less noise than the theorem needs. The
# fix passes:

# %%
def fixed_share_sampler(size, rng):
    return rng.negative_binomial(r, 1 - beta, size) - rng.negative_binomial(r, 1 - beta, size)


print(audit_sampler(fixed_share_sampler, share, 20_000, rng=0).summary())

# %% [markdown]
# ## Sizing an audit: subtle bugs need more draws
#
# Rounding a *continuous* Laplace(4) gives nearly the discrete Laplace: for every k ≠ 0 the
# probabilities are proportional to e^{-|k|/4} with the same ratio, and only P(0) differs
# (0.1175 against 0.1244). An audit of 10^4 draws usually misses it; a few hundred thousand
# catch it. Below: the detection rate over seeds as the sample grows.

# %%
def rounded_laplace(size, rng):
    return np.rint(rng.laplace(0.0, g, size)).astype(np.int64)


def missing_user(size, rng):          # one of the 16 shares forgotten
    return share.sample((size, n_users - 1), rng).sum(axis=1)


grid = [2_000, 10_000, 50_000, 200_000] + ([500_000] if FULL else [])
runs = 100 if FULL else 12
rates = {}
for name, sampler in [("rounded continuous Laplace", rounded_laplace),
                      ("15 of 16 shares", missing_user)]:
    rates[name] = [float(np.mean([not audit_sampler(sampler, total, n, rng=1000 * n + s).passed
                                  for s in range(runs)])) for n in grid]
    print(name, dict(zip(grid, rates[name])))

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, rs in rates.items():
    ax.plot(grid, rs, marker="o", label=name)
ax.axhline(0.99, ls=":", c="grey")
ax.set_xscale("log")
ax.set_xlabel("draws in the audit")
ax.set_ylabel(f"detection rate ({runs} seeds)")
ax.set_title("Power of audit_sampler against two subtle bugs")
ax.legend()
plt.tight_layout()

# %% [markdown]
# ## False alarms on correct code
#
# Over many seeds a correct sampler fails in about `alpha` of the runs — no more. (The full
# study, 100 seeds per sampler, is in `docs/tables/audit_calibration.md`.)

# %%
seeds = range(100 if FULL else 40)
fails = sum(not audit_sampler(fixed_share_sampler, share, 20_000, rng=s, alpha=0.05).passed
            for s in seeds)
print(f"{fails} false alarms in {len(seeds)} runs at alpha = 0.05")

# %% [markdown]
# ## Auditing a mechanism for its ε
#
# `audit_mechanism` draws the mechanism's output on two neighbouring datasets, picks an
# event on half of the draws and tests it on the other half with Clopper–Pearson bounds:
# `epsilon_lower` is a lower confidence bound on the true ε. Here the mechanism is the
# server's view of one Theorem-1 batch (the SecAgg output mod m), built from the protocol
# code, and the same view with every share drawn at half the scale.

# %%
import dataclasses  # noqa: E402
from fractions import Fraction  # noqa: E402

from privtools.protocol import view_mechanism  # noqa: E402
from verification.mechanisms import protocol_mechanism  # noqa: E402

pm = protocol_mechanism("dist-dp", epsilon, n_users)
weak_plan = dataclasses.replace(pm.plan, share=DiscreteLaplace(Fraction(g, 2)).shares(n_users))
sizes = [2_000, 10_000, 50_000, 200_000] + ([1_000_000] if FULL else [])
curves = {"correct noise (ε = 1)": pm.mechanism,
          "half the noise (ε = 2)": view_mechanism(weak_plan)}
lows = {name: [audit_mechanism(mech, pm.d, pm.d_prime, 1, k, rng=k).epsilon_lower
               for k in sizes] for name, mech in curves.items()}
for name, ls in lows.items():
    print(name, [round(v, 3) for v in ls])

fig, ax = plt.subplots(figsize=(6, 3.5))
for name, ls in lows.items():
    ax.plot(sizes, ls, marker="o", label=name)
ax.axhline(1, c="k", lw=1, label="claimed ε")
ax.set_xscale("log")
ax.set_xlabel("draws per dataset")
ax.set_ylabel("ε lower bound (99% confidence)")
ax.legend()
plt.tight_layout()

# %% [markdown]
# With correct noise the bound climbs towards ε = 1 and stays below it; with half the noise
# it crosses the claim once there are enough draws — the audit then reports a witness event
# and the probabilities that prove the violation:

# %%
print(audit_mechanism(curves["half the noise (ε = 2)"], pm.d, pm.d_prime, 1, 200_000,
                      rng=0).summary())
