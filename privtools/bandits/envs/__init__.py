"""Bandit environments and the named instances of both papers' experiments.

Modules::

    finite      Environment, GaussianEnv (clipped), BernoulliEnv, BetaEnv, EmpiricalEnv,
                CustomEnv; easy_instance, hard_instance (000 §7); bernoulli_instance,
                five_arm_instance (001 §VII)
    linear      LinearEnv, ContextualEnv; sphere_instance, contextual_instance (001 §VII)
    movielens   movielens_instance: the real-data instance (MovieLens-100K rating
                histograms, shipped in ``privtools/data/``)
"""

from .finite import (
    FIVE_ARM_MEANS,
    BernoulliEnv,
    BetaEnv,
    CustomEnv,
    EmpiricalEnv,
    Environment,
    GaussianEnv,
    bernoulli_instance,
    easy_instance,
    five_arm_instance,
    hard_instance,
)
from .linear import ContextualEnv, LinearEnv, contextual_instance, sphere_instance
from .movielens import movielens_instance

__all__ = [
    "Environment", "GaussianEnv", "BernoulliEnv", "BetaEnv", "EmpiricalEnv", "CustomEnv",
    "easy_instance", "hard_instance", "bernoulli_instance", "five_arm_instance",
    "FIVE_ARM_MEANS",
    "LinearEnv", "ContextualEnv", "sphere_instance", "contextual_instance",
    "movielens_instance",
]
