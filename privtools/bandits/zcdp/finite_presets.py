"""Experiment presets for AdaC-UCB (001 §VII, finite arms), run by
:mod:`privtools.bandits.runner`.

=====================  ===================================================================
``zcdp-finite``        K = 10 Bernoulli arms, means 0.1, 0.2, …, 0.9 and 0.95
                       (:func:`bernoulli_instance`), ρ ∈ {0.01, 0.1, 1}, T = 10^6, 20 runs;
                       AdaC-UCB, AdaC-UCB (discrete), non-private UCB twin
``zcdp-finite-5arm``   the same on K = 5 Bernoulli arms with means 0.75, 0.625, 0.5,
                       0.375, 0.25 (:func:`five_arm_instance`)
=====================  ===================================================================

Paper 001 takes its Bernoulli means from Sajed & Sheffet 2019, but the numbers did not
survive the extraction of 001 and that paper is not in this project, so neither instance is
claimed to be theirs: the 10-arm instance is an evenly spaced choice of ours, the 5-arm
one an evenly spaced instance on [0.25, 0.75].

Both instances are fixed (``random=False``): every run uses the same means, runs differ
only in their reward and noise streams. The policies' ``epsilon`` field holds ρ and the
presets set ``privacy_symbol="ρ"``.
"""

from __future__ import annotations

import numpy as np

from privtools.validation import ParameterError, check_int

from ..environments import BernoulliEnv
from ..presets import Preset
from ..runner import EnvSpec

__all__ = ["ZCDP_FINITE_PRESETS", "FINITE_TEN", "FINITE_FIVE", "bernoulli_instance",
           "five_arm_instance", "FIVE_ARM_MEANS"]

FIVE_ARM_MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)


def bernoulli_instance(K: int, rng=None) -> BernoulliEnv:
    """Fixed Bernoulli instance: K − 1 means evenly spaced on [0.1, 0.9] and one best arm
    at 0.95 (K = 10: 0.1, 0.2, …, 0.9, 0.95). ``rng`` is ignored."""
    K = check_int("K", K, minimum=2)
    means = np.append(np.linspace(0.1, 0.9, K - 1), 0.95)
    return BernoulliEnv(means, name=f"bernoulli-{K}")


def five_arm_instance(K: int = 5, rng=None) -> BernoulliEnv:
    """Fixed 5-arm Bernoulli instance with means :data:`FIVE_ARM_MEANS`; ``K`` must be 5.
    ``rng`` is ignored."""
    if check_int("K", K, minimum=2) != 5:
        raise ParameterError(f"five_arm_instance has K = 5 arms, got K = {K}")
    return BernoulliEnv(FIVE_ARM_MEANS, name="bernoulli-5")


FINITE_TEN = EnvSpec("bernoulli-10", "privtools.bandits.zcdp.finite_presets:bernoulli_instance",
                     K=10, random=False)
FINITE_FIVE = EnvSpec("bernoulli-5", "privtools.bandits.zcdp.finite_presets:five_arm_instance",
                      K=5, random=False)

_POLICIES = (("adac-ucb", 1), ("adac-ucb-discrete", 1), ("ucb-twin", 1))
_RHOS = (0.01, 0.1, 1.0)
_COMMON = dict(spec_factory="privtools.bandits.zcdp.ucb:zcdp_policy",
               simulator="privtools.bandits.zcdp.ucb:simulate_ucb",
               non_private=frozenset({"ucb-twin"}), privacy_symbol="ρ")

ZCDP_FINITE_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("zcdp-finite", "001 §VII: AdaC-UCB vs UCB twin, 10 Bernoulli arms, T = 1e6",
               FINITE_TEN, _POLICIES, _RHOS, 10**6, runs=20, **_COMMON),
        Preset("zcdp-finite-5arm", "001 §VII: AdaC-UCB vs UCB twin, 5 Bernoulli arms "
               "(0.75 … 0.25), T = 1e6", FINITE_FIVE, _POLICIES, _RHOS, 10**6, runs=20,
               **_COMMON),
    )
}
