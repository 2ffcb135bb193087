# %% [markdown]
# # 09 — Testing DP code with hypothesis, down to a minimal counterexample
#
# Notebook 08 audited one mechanism by hand. This one is about the test suite: assertions
# that run on every commit, never flake, stop early on gross bugs, and, when a function is
# not private, report the *smallest* pair of neighbouring datasets that shows it.
#
# The plan: write a clipped mean with a classic calibration bug, assert its privacy on one
# pair, then let hypothesis search every neighbouring pair and shrink the failure, fix the
# bug, and finish with the exact mode, which computes instead of sampling. Everything is
# seeded, so the numbers are the same on every run.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from hypothesis import strategies as st

from privtools.noise import DiscreteLaplace
from privtools.testing import (
    NoisyQuery,
    PrivacyAssertionError,
    assert_private,
    find_counterexample,
)

started = time.perf_counter()

# %% [markdown]
# ## The function under test
#
# The mean of ratings clipped to [0, 10], made "ε-DP" with Laplace noise of scale
# 1/(n·ε). That scale is right only if one person can move the sum by 1. With ratings in
# [0, 10], replacing one person moves the sum by up to 10, so the mean moves by up to
# 10/n. The function is only 10ε-DP, and only between datasets whose ratings differ by 10.

# %%
EPSILON = 1.0


def noisy_mean(ratings, size, rng):
    """`size` independent releases of the clipped mean of `ratings`."""
    r = np.clip(np.asarray(ratings, dtype=float), 0, 10)
    n = max(len(r), 1)
    return r.sum() / n + rng.laplace(0.0, 1.0 / (n * EPSILON), size)   # bug: 10 / (n ε)


print(noisy_mean([3, 7, 9], 4, np.random.default_rng(0)).round(3))

# %% [markdown]
# ## One pair, sequentially
#
# `assert_private` draws in rounds (256 per dataset, then 256, 512, …) and bets against the
# claim on an event chosen from the earlier draws. The product of the bets is an e-value.
# Under the claim it exceeds 1/α with probability at most α, *whenever* the audit stops
# (Ville's inequality). So the audit stops at the first crossing, and a gross bug costs a
# few hundred draws.

# %%
try:
    assert_private(noisy_mean, d=[3, 7, 9], d_prime=[3, 7, 0], epsilon=EPSILON)
except PrivacyAssertionError as err:
    res = err.result
    print(res.summary())
    print("draws per dataset used:", res.draws)

# %% [markdown]
# The e-value climbs round by round until it crosses 1/α = 1000:

# %%
rounds = [r for r in res.rounds if r["round"] > 0]
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot([sum(x["draws"] for x in res.rounds[: i + 2]) for i in range(len(rounds))],
        [r["log_e_value"] / np.log(10) for r in rounds], "o-")
ax.axhline(np.log10(1 / res.alpha), color="k", ls="--", label="1/α")
ax.set_xlabel("draws per dataset")
ax.set_ylabel("log10 e-value")
ax.legend()
plt.tight_layout()

# %% [markdown]
# ## Every neighbouring pair, with shrinking
#
# A pair guessed by hand may miss the leak. Here the test gives a *strategy* of datasets:
# lists of up to 20 ratings. `find_counterexample` first races StatDP's input patterns on
# the strategy's own datasets, then lets hypothesis draw replace-one pairs
# (`strategies.replace_one`), scores each on held-out draws, steers towards large scores
# with `target()`, and *shrinks* the first flagged pair. At most two pairs are then
# audited again on fresh draws, each at α/2, so the search's false-alarm rate is α however
# many pairs it scored.

# %%
ratings = st.lists(st.integers(0, 10), max_size=20)
cx = find_counterexample(noisy_mean, EPSILON, ratings)
print("minimal pair:", cx.d, "vs", cx.d_prime)
print(f"ε ≥ {cx.epsilon_lower:.3f} with confidence {1 - cx.alpha_per_comparison:g}; "
      f"{cx.examples} pairs tried; {cx.draws} draws per dataset to confirm")
print("witness:", cx.event.describe())
print("reproduce:", cx.reproduce)

# %% [markdown]
# One rating, 0 against 2: the noise has scale 1, a shift of 2 is 2-DP, and 2 > ε = 1.
# A shift of 1 is exactly at the claim, so this is the smallest pair that breaks it.
# In a test suite the same search is one line, and the error carries the pair:

# %%
try:
    assert_private(noisy_mean, epsilon=EPSILON, datasets=ratings)
except PrivacyAssertionError as err:
    print(str(err).splitlines()[0][:160], "…")
    print("counterexample:", err.counterexample.d, err.counterexample.d_prime)

# %% [markdown]
# ## The fix
#
# Scale 10/(n·ε). The search now finds nothing. A pass says no screened pair showed a
# violation at these budgets; it is not a proof.

# %%
def fixed_mean(ratings, size, rng):
    r = np.clip(np.asarray(ratings, dtype=float), 0, 10)
    n = max(len(r), 1)
    return r.sum() / n + rng.laplace(0.0, 10.0 / (n * EPSILON), size)


print(find_counterexample(fixed_mean, EPSILON, ratings, max_examples=30,
                          screen_samples=5000))

# %% [markdown]
# ## Exact mode
#
# When the release is an integer query plus a privtools noise law, the assertion can
# compute instead of sample. Take a sum of 0/1 records with discrete Laplace noise, and a
# Theorem 1 (000) batch: 1024 users' Pólya shares add up to Lap_Z(1024), released mod m.
# The certified ε comes back as an interval.

# %%
res = assert_private(NoisyQuery(sum, DiscreteLaplace(4)), [0, 1], [0, 0], epsilon=0.25,
                     exact=True)
print(res.summary())
batch = NoisyQuery(sum, DiscreteLaplace(1024), m=2**20)
t0 = time.perf_counter()
res = assert_private(batch, [1] + [0] * 1023, [0] * 1024, epsilon=1 / 1024, exact=True)
print(res.summary(), f"({(time.perf_counter() - t0) * 1e3:.1f} ms)")

# %%
print(f"notebook ran in {time.perf_counter() - started:.1f} s")
