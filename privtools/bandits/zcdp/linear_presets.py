"""Experiment presets for the linear zCDP bandits of 001 §VII (registered by the lead in
:mod:`privtools.bandits.presets`; run with :func:`privtools.bandits.runner.run_tasks`).

==================  ===================================================================
``zcdp-linear``     actions and θ uniform on the unit sphere, d = 3, 100 actions,
                    T = 10^6, ρ ∈ {0.1, 1, 10}; AdaC-GOPE and GOPE, 20 runs
``zcdp-contextual`` θ uniform on the unit sphere, d = 3, K = 20 fresh actions
                    ~ N(0, I/d) per round (scaled to norm <= 1), T = 10^5,
                    ρ ∈ {0.1, 1, 10}; AdaC-OFUL and RS-OFUL, 20 runs
==================  ===================================================================

Noise: N(0, 1) on every reward, clipped to [−1, 1]. Run r uses random instance r. The
EnvSpec's ``K`` is the number of actions (linear) or of actions per round (contextual).
"""

from __future__ import annotations

from ..presets import Preset
from ..runner import EnvSpec
from .linear_envs import contextual_instance, sphere_instance

D = 3
RHOS = (0.1, 1.0, 10.0)


def sphere_env(K: int, rng):
    """EnvSpec factory: :func:`sphere_instance` with K actions in d = 3, noise sd 1."""
    return sphere_instance(K, rng, d=D)


def contextual_env(K: int, rng):
    """EnvSpec factory: :func:`contextual_instance` with K actions per round, d = 3."""
    return contextual_instance(K, rng, d=D)


SPHERE = EnvSpec("sphere-d3", "privtools.bandits.zcdp.linear_presets:sphere_env", K=100,
                 random=True)
CONTEXTUAL = EnvSpec("gauss-context-d3", "privtools.bandits.zcdp.linear_presets:contextual_env",
                     K=20, random=True)

ZCDP_LINEAR_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("zcdp-linear", "001 §VII linear: unit sphere, d = 3, 100 actions, T = 1e6",
               SPHERE, (("adac-gope", 1), ("adac-gope-sum", 1), ("gope", 1)), RHOS, 10**6,
               runs=20,
               spec_factory="privtools.bandits.zcdp.gope:gope_policy",
               simulator="privtools.bandits.zcdp.gope:simulate_gope",
               non_private=frozenset({"gope"}), privacy_symbol="ρ"),
        Preset("zcdp-contextual", "001 §VII contextual: d = 3, K = 20 per round, T = 1e5",
               CONTEXTUAL, (("adac-oful", 1), ("rs-oful", 1)), RHOS, 10**5, runs=20,
               spec_factory="privtools.bandits.zcdp.oful:oful_policy",
               simulator="privtools.bandits.zcdp.oful:simulate_oful",
               non_private=frozenset({"rs-oful"}), privacy_symbol="ρ"),
    )
}

__all__ = ["CONTEXTUAL", "SPHERE", "ZCDP_LINEAR_PRESETS", "contextual_env", "sphere_env"]
