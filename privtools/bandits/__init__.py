"""Private batch successive elimination (000 Alg. 1) on simulated bandit environments.

    environments   Environment, GaussianEnv, BernoulliEnv, BetaEnv, EmpiricalEnv, CustomEnv,
                   easy_instance, hard_instance (000 §7)
    policies       PolicySpec, policy, POLICIES — immutable descriptions of the algorithms
    widths         the confidence widths β(b) (Lemma 2 of 000; DP-SE of Sajed & Sheffet 2019)
    simulate       simulate(spec, env, horizon, rng) -> RunResult (vectorized per batch)
"""

from .environments import (
    BernoulliEnv,
    BetaEnv,
    CustomEnv,
    EmpiricalEnv,
    Environment,
    GaussianEnv,
    easy_instance,
    hard_instance,
)
from .policies import POLICIES, PolicySpec, policy
from .simulate import NoiseRecord, RunResult, batch_plan, default_checkpoints, simulate

__all__ = [
    "Environment", "GaussianEnv", "BernoulliEnv", "BetaEnv", "EmpiricalEnv", "CustomEnv",
    "easy_instance", "hard_instance",
    "PolicySpec", "policy", "POLICIES",
    "RunResult", "NoiseRecord", "simulate", "batch_plan", "default_checkpoints",
]
