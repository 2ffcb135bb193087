# %% [markdown]
# # 01 — Discrete noise and exact PMFs
#
# The noise laws of paper 000 — discrete Laplace Lap_Z(b), Pólya shares, Skellam Sk(0, σ²),
# discrete Gaussian N_Z(0, σ²) — as immutable values with fast float methods, fast samplers
# and *certified* exact values (Arb balls via python-flint, returned as mpmath numbers).

# %%
import matplotlib.pyplot as plt
import numpy as np
import scipy.stats as st

from privtools.exact import ExactPMF, sum_pmf, total_variation
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam

lap, sk, dg = DiscreteLaplace(32), Skellam(1024), DiscreteGaussian(sigma2=1024)
k = np.arange(-200, 201)
fig, ax = plt.subplots(figsize=(6, 3.5))
for d in (lap, sk, dg):
    ax.semilogy(k, d.pmf(k), label=str(d))
ax.set_xlabel("k")
ax.set_ylabel("P(X = k)")
ax.legend()
plt.tight_layout()

# %% [markdown]
# ## Fact 1: n Pólya-difference shares sum to Lap_Z(b), exactly
#
# The certified convolution of 64 shares against the closed form: the total-variation
# distance is an interval that provably contains the true value.

# %%
share = lap.shares(64)
P = sum_pmf(share, 64, dps=40, method="convolve")
Q = ExactPMF.from_distribution(lap, dps=40)
print(share, "| TV(sum of 64 shares, Lap_Z(32)) ∈", total_variation(P, Q))

# %% [markdown]
# ## Far tails: where float libraries give up
#
# Privacy lives in the tails. scipy's `skellam.sf` is 1 − cdf and returns 0 long before
# the true tail does; privtools sums the tail in log space and certifies it.

# %%
big = Skellam(10**6)
for t in (5_000, 10_000, 20_000):
    print(f"t = {t}: scipy sf {st.skellam.sf(t, 5e5, 5e5):.3e}, privtools sf "
          f"{big.sf(t):.3e}, certified bound on P(|X| > t) {float(big.tail_bound(-t, t)):.3e}")

# %% [markdown]
# ## Exact samplers
#
# `exact=True` selects the integer-only samplers of Canonne, Kamath & Steinke (2020): no
# floating point anywhere on the sampling path.

# %%
x = dg.sample(100_000, rng=1, exact=True)
print("sample mean", x.mean(), "variance", x.var(), "(law variance", dg.var(), ")")
