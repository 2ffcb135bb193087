# %% [markdown]
# # 04 — Planning a deployment
#
# Before users send a single message you must fix the fixed-point precision g, the
# underflow threshold τ and the modulus m of the distributed protocol of paper 000, and know
# what privacy and what failure probability they give. `privtools.planning.plan` computes
# them exactly per theorem; `verification.plan_check.verify_plan` checks the result with
# certified arithmetic. This notebook plans a realistic deployment (ε = 1, n = 2^16 users
# per batch, T = 10^7), compares the paper's τ with the certified exact τ, and shows how a
# plan with a wrong parameter is caught.

# %%
import time

import matplotlib.pyplot as plt

from privtools.planning import plan, with_parameters
from verification.plan_check import verify_plan

kinds = [("pure-dp", 1), ("rdp", 10), ("cdp", 10)]
for privacy, s in kinds:
    t0 = time.perf_counter()
    p = plan(privacy=privacy, epsilon=1, n=2**16, horizon=10**7, s=s, tail="exact")
    check = verify_plan(p)
    print(f"{privacy:8s} Theorem {p.theorem}: g = {p.g}, τ = {p.tau} (paper: {p.tau_bound}), "
          f"m = {p.m}, {p.bits} bits/user (paper: {p.bits_bound}); "
          f"{'PASS' if check.passed else 'FAIL'} in {time.perf_counter() - t0:.2f} s")
    for f in check.findings:
        print(f"    {f.name}: {f.status} — {f.value} (target {f.target})")

# %% [markdown]
# ## The paper's τ against the exact τ, across batch sizes
#
# The exact τ keeps g and the noise — hence privacy — unchanged and only tightens the
# failure bound: P(|total noise| > τ) <= p is certified and τ − 1 certifiably fails it.

# %%
ns = [2**k for k in range(2, 21, 2)]
fig, ax = plt.subplots(figsize=(6, 3.5))
for privacy, s in kinds:
    ratio = []
    for n in ns:
        p = plan(privacy=privacy, epsilon=1, n=n, horizon=10**7, s=s, tail="exact")
        ratio.append(p.tau_bound / p.tau)
    ax.plot(ns, ratio, marker="o", label=f"{privacy} (s = {s})")
ax.set_xscale("log", base=2)
ax.set_xlabel("users per batch n")
ax.set_ylabel("paper τ / exact τ")
ax.set_title("How loose the theorems' τ is (ε = 1, T = 10^7)")
ax.legend()
plt.tight_layout()

# %% [markdown]
# ## Checking your own parameters
#
# A deployment often fixes g, τ or m for engineering reasons. `with_parameters` keeps the
# plan's noise and swaps in yours; the verification then says what breaks. Here g is
# doubled (the noise no longer matches the sensitivity) and τ is cut to a third:

# %%
base = plan(privacy="pure-dp", epsilon=1, n=2**10, horizon=10**6)
for kw in ({"g": 2 * base.g}, {"tau": base.tau // 3}):
    mine = with_parameters(base, **kw)
    check = verify_plan(mine)
    print(kw, "->", "PASS" if check.passed else "FAIL")
    for r in check.reasons:
        print("    ", r)
