"""Private bandits on simulated environments, one room per concern::

    envs          environments and the named instances of both papers: Environment,
                  GaussianEnv (clipped), BernoulliEnv, BetaEnv, EmpiricalEnv, CustomEnv,
                  easy_instance, hard_instance (000 §7), the 001 §VII instances, the linear
                  environments and the MovieLens instance
    runs          run helpers shared by every family: default_checkpoints, check_run,
                  check_checkpoints
    se            paper 000: batch successive elimination (000 Alg. 1) and DP-SE —
                  PolicySpec, policy, POLICIES, the widths β(b), simulate -> RunResult
    zcdp          paper 001: AdaC-UCB, AdaC-GOPE, AdaC-OFUL and their non-private twins
    experiments   the runner (serial / processes / Dask), the preset registry, the figures

Imports point downwards only: ``experiments`` imports ``se`` and ``zcdp``, which import
``runs`` and ``envs``; none of them imports ``experiments``.
"""

from .envs import (
    BernoulliEnv,
    BetaEnv,
    CustomEnv,
    EmpiricalEnv,
    Environment,
    GaussianEnv,
    easy_instance,
    hard_instance,
)
from .runs import default_checkpoints
from .se import POLICIES, NoiseRecord, PolicySpec, RunResult, batch_plan, policy, simulate

__all__ = [
    "Environment", "GaussianEnv", "BernoulliEnv", "BetaEnv", "EmpiricalEnv", "CustomEnv",
    "easy_instance", "hard_instance",
    "PolicySpec", "policy", "POLICIES",
    "RunResult", "NoiseRecord", "simulate", "batch_plan", "default_checkpoints",
]
