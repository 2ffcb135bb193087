"""Paper 000: private batch successive elimination (000 Alg. 1) and its baselines.

Modules::

    policies     PolicySpec, policy, POLICIES — immutable descriptions of the algorithms
    widths       the confidence widths β(b) (Lemma 2 of 000; DP-SE of Sajed & Sheffet 2019)
    simulation   simulate(spec, env, horizon, rng) -> RunResult (faithful, vectorized per
                 batch through :mod:`privtools.protocol`), batch_plan, NoiseRecord
    returning    returning users from a pool (000 App. H): draw_users, UserLedger,
                 ParticipationRecord
"""

from .policies import POLICIES, PolicySpec, policy
from .returning import ParticipationRecord, draw_users
from .simulation import NoiseRecord, RunResult, batch_plan, simulate

__all__ = ["PolicySpec", "policy", "POLICIES", "RunResult", "NoiseRecord", "simulate",
           "batch_plan", "ParticipationRecord", "draw_users"]
