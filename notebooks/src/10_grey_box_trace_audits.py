# %% [markdown]
# # 10 — Grey-box trace audits: a glue-code bug found and fixed in one run
#
# Notebooks 08 and 09 audited mechanisms from the outside, by sampling. This one looks
# inside. `trace_mechanism` hands the mechanism a recording generator, logs every noise
# call it makes through `rng`, replays the same draws on the neighbouring dataset and
# probes the draws one at a time to see which outputs they move. A bug in the code around
# the noise is then found exactly, with no sampling, and where the output is a query plus
# traced noise, the pair's ε is certified by the PLD accountant. The record-and-replay idea
# comes from Re:cord-play (Cebere et al., PETS 2026). The guide
# [grey-box audits](../docs/guides/grey-box.md) has the details.
#
# The plan: trace a histogram whose glue code has a bug, read the finding, fix it, trace
# again until it holds, and search the neighbouring pairs. Then trace a threshold whose
# noise steers the output, hand one the trace cannot follow to `confirm`, and trace the
# protocol's own deployment path against its plan. All of it takes a few seconds.

# %%
import time

import numpy as np
from hypothesis import strategies as st

from privtools.noise import DiscreteLaplace
from privtools.planning import plan
from privtools.testing import strategies
from verification.audit import confirm, search_traced, trace_mechanism
from verification.audit.trace import trace_plan
from verification.zoo.deployments import inverted_gamma_view

started = time.perf_counter()

# %% [markdown]
# ## The mechanism, as it was written
#
# Each record is a value in 0…4. The release is a histogram, one count per value, with
# discrete Laplace noise of scale 1/ε on each count. Under add/remove neighbours one record
# moves one count by 1, so this calibration gives ε-DP. The noise is integer-valued (a
# privtools law), so the trace can certify it without assuming real arithmetic.
#
# The glue code has a bug: it draws one noise value per possible value, but it releases
# only the values that occur in the data (`np.unique`).

# %%
EPSILON = 0.5
VALUES = np.arange(5)
lap = DiscreteLaplace(1 / EPSILON)


def histogram(data, size, rng):
    """`size` releases of {value: noisy count}, 'made ε-DP' with Lap_Z(1/ε) per count."""
    noise = lap.sample((size, VALUES.size), rng)        # one draw per possible value
    keys, counts = np.unique(data, return_counts=True)  # the bug: the keys of the data
    return [{int(k): int(c + row[k]) for k, c in zip(keys, counts)} for row in noise]


print(histogram([1, 2, 2, 3], 2, np.random.default_rng(0)))

# %% [markdown]
# ## Trace one pair
#
# `d'` is `d` without the record 3. The trace runs the mechanism on `d` with recorded
# draws, replays it on `d` (does it reproduce its output?) and on `d'` (what differs?),
# and compares the two runs.

# %%
d, d_prime = [1, 2, 2, 3], [1, 2, 2]
t0 = time.perf_counter()
r = trace_mechanism(histogram, d, d_prime, EPSILON, rng=1)
print(r.describe())
print(f"({r.runs} runs of the mechanism, {time.perf_counter() - t0:.2f} s)")

# %% [markdown]
# The key 3 is in the output on `d` and absent on `d'`, whatever the noise: the key set
# is released without noise, and a single output tells the two datasets apart. The
# privacy loss is infinite, and that is exact: it is the same for every seed.

# %%
print(r.verdict, [f.kind for f in r.findings], r.epsilon_bounds)
print({trace_mechanism(histogram, d, d_prime, EPSILON, rng=s).verdict for s in range(5)})

# %% [markdown]
# ## The fix
#
# Release every possible value, seen in the data or not. The noisy counts are returned as
# they are: `int(c + row[k])` would hand the trace's tracked value to Python as a plain
# number (an *escape*), past which its dependence on the noise is no longer known, and the
# trace would certify nothing.

# %%
def histogram_fixed(data, size, rng):
    noise = lap.sample((size, VALUES.size), rng)
    counts = np.array([np.count_nonzero(np.asarray(data) == k) for k in VALUES])
    return [{int(k): c + row[k] for k, c in zip(VALUES, counts)} for row in noise]


fixed = trace_mechanism(histogram_fixed, d, d_prime, EPSILON, rng=1)
print(fixed.describe())

# %% [markdown]
# It holds: the five counts are five releases of Lap_Z(2). Four are equal on `d` and `d'`,
# one is shifted by 1, and the certified ε of this pair is exactly 0.5. The certificate is
# for this pair. A traced search draws many add/remove pairs, traces each one and shrinks
# the first that fails. Every trace is exact or certified, so the search needs no
# multiple-testing correction. Under replace-one neighbours one record leaves one value and
# joins another, so two counts move and the same mechanism is 1-DP, not 0.5-DP. The search
# finds the smallest such pair.

# %%
records = st.lists(st.integers(0, 4), max_size=8)
add_remove = search_traced(histogram_fixed, EPSILON, strategies.add_remove(records), rng=1,
                           max_examples=40)
print("add/remove: ", add_remove.summary())
replace_one = search_traced(histogram_fixed, EPSILON,
                            strategies.replace_one(st.lists(st.integers(0, 4), min_size=1,
                                                            max_size=8)),
                            rng=1, max_examples=40)
print("replace-one:", replace_one.summary())
print(replace_one.trace.findings[0].describe())

# %% [markdown]
# The same search on the buggy histogram shrinks its failure to one record against none:

# %%
print(search_traced(histogram, EPSILON, strategies.add_remove(records), rng=1,
                    max_examples=40).summary())

# %% [markdown]
# ## When the noise steers the control flow
#
# A threshold test on a noisy count does not release the noise additively: its output
# moves with the noise only when the noise crosses the threshold. The trace follows the
# branch instead: each outcome is a *path*, a condition on the draws, and its probability
# on `d` and on `d'` is computed exactly (notebook 11 has more of this). This mechanism
# claims ε = 0.5 but its noise has scale 0.5: on this pair its privacy loss is exactly 2.

# %%
narrow = DiscreteLaplace(0.5)


def over_threshold(data, size, rng):
    return ((sum(data) + narrow.sample(size, rng)) >= 2).astype(int)


steered = trace_mechanism(over_threshold, [0, 1, 1], [0, 1, 0], EPSILON, rng=1)
print(steered.describe())

# %% [markdown]
# Where the paths cannot follow the program, the trace says so. Here the branch is on a
# non-linear function of the noise, `y·|y|`. The trace then proposes *candidate events*,
# output values that differ between `d` and `d'` under identical draws. `confirm` tests
# them on fresh draws, each at α/K for K candidates (Bonferroni).

# %%
def signed_square_over(data, size, rng):
    noisy = sum(data) + narrow.sample(size, rng)
    return (noisy * np.abs(noisy) >= 2).astype(int)


handed_on = trace_mechanism(signed_square_over, [0, 1, 1], [0, 1, 0], EPSILON, rng=1)
print(handed_on.describe())
check = confirm(signed_square_over, [0, 1, 1], [0, 1, 0], EPSILON, handed_on.candidates,
                n_samples=10_000, rng=1)
print(check.summary())

# %% [markdown]
# ## The project's own deployment path
#
# `trace_plan` traces the server's view of one batch of paper 000's protocol against its
# plan. It checks that every share is the plan's law (one per user), that the view is one
# release of their sum mod m, and that the view's certified ε is at most the plan's claim.
# First the shipped protocol under a Theorem 1 plan:

# %%
theorem1 = plan("pure-dp", epsilon=1.0, n=8, horizon=10_000)
print(trace_plan(theorem1, rng=1).describe())

# %% [markdown]
# Then the seeded bug of `verification.zoo.deployments`, the protocol's first
# implementation. It draws each Pólya share as Poisson(Gamma(r, θ)) with the Gamma scale
# inverted. The trace reads numpy's Gamma–Poisson draws as the Pólya law they sample and
# compares its β with the plan's:

# %%
print(trace_plan(theorem1, view=inverted_gamma_view(theorem1), rng=1).describe())

# %% [markdown]
# The shares check fails and names the Gamma scale the plan needs. The view and its loss
# stay undecided, because the Poisson's rate is an earlier draw, which the trace does not
# certify.

# %%
print(f"notebook ran in {time.perf_counter() - started:.1f} s")
