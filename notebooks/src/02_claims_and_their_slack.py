# %% [markdown]
# # 02 — Paper 000's claims and their slack
#
# `verification.claims` holds the paper's statements as data, each with a checker that
# evaluates it with certified arithmetic on a parameter grid: *holds* (the claimed bound
# contains the exact value's interval), *fails* (a certified counterexample) or
# *inconclusive*. Slack = claimed / exact (>= 1 means the claim holds with room to spare).

# %%
import matplotlib.pyplot as plt

from verification import claims

results = claims.check_all(grid="reduced")
for r in results:
    slack = "—" if r.worst_slack is None else f"{r.worst_slack:.4g}"
    print(f"{r.claim.name:18s} {r.status:13s} worst slack {slack:>8s}  ({r.claim.source})")

# %% [markdown]
# ## Where a claim fails: Theorem 2's printed ε̂_n
#
# The failing rows name their parameters; docs/claims.md explains the finding (the printed
# per-batch curve drops a 1/ε factor; the privacy of the algorithm still holds).

# %%
for r in results:
    for row in r.rows:
        if row.status == "fails":
            print(r.claim.name, row.params, "|", row.detail[:160])

# %%
names = [r.claim.name for r in results if r.worst_slack is not None]
slacks = [r.worst_slack for r in results if r.worst_slack is not None]
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.barh(names, slacks)
ax.axvline(1, c="k", lw=1)
ax.set_xscale("log")
ax.set_xlabel("worst slack on the reduced grid (claimed / exact)")
plt.tight_layout()
