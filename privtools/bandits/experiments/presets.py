"""Named experiment presets — one registry, :data:`PRESETS`, built at import — for the
simulations of paper 000 (§7, Appendix J), the zCDP bandits of paper 001 (§VII) and a
real-data experiment in the spirit of paper 002's.

Paper 000 (batch successive elimination, :mod:`privtools.bandits.se`):

=============  ==========================================================================
``fig1-easy``  000 Fig. 1a/b and Fig. 2: easy instances (means ~ U[0.25, 0.75]),
               T = 10^6, ε ∈ {0.1, 0.5, 1}; Dist-DP-SE, Dist-RDP-SE (s = 10, 100), DP-SE
``fig1-hard``  000 Fig. 1c and Fig. 3: the same on hard instances (U[0.45, 0.55]), T = 10^7
``fig4``       000 Fig. 4: easy instances, T = 10^6; CDP-SE, LDP-SE, Dist-DP-SE,
               Dist-RDP-SE (s = 10), Dist-CDP-SE (s = 10)
``movielens``  real data: the 10 most-rated MovieLens-100K movies (rewards (rating − 1)/4
               from each movie's rating histogram; a random arm order per run),
               T = 10^6, ε ∈ {1, 5, 10} (the privacy levels of 002's real-data
               experiment, which used MSLR-WEB10K); Dist-DP-SE, Dist-RDP-SE (s = 10), CDP-SE,
               LDP-SE, DP-SE and non-private SE
``smoke``      tiny: easy instances, K = 10, T = 10^4, ε = 1, Dist-DP-SE and DP-SE, 2 runs
=============  ==========================================================================

All use K = 10 arms, p = 0.1 and 20 runs (run r on random instance r; Gaussian rewards with
σ = 0.1 clipped to [0, 1]) unless overridden.

Paper 001 (zCDP bandits, :mod:`privtools.bandits.zcdp`; the policies' ``epsilon`` field
holds ρ and these presets set ``privacy_symbol="ρ"``):

=====================  ===================================================================
``zcdp-finite``        K = 10 Bernoulli arms, means 0.1, 0.2, …, 0.9 and 0.95
                       (:func:`~privtools.bandits.envs.bernoulli_instance`),
                       ρ ∈ {0.01, 0.1, 1}, T = 10^6, 20 runs; AdaC-UCB, AdaC-UCB
                       (discrete), non-private UCB twin
``zcdp-finite-5arm``   the same on K = 5 Bernoulli arms with means 0.75, 0.625, 0.5,
                       0.375, 0.25 (:func:`~privtools.bandits.envs.five_arm_instance`)
``zcdp-linear``        actions and θ uniform on the unit sphere, d = 3, 100 actions,
                       T = 10^6, ρ ∈ {0.1, 1, 10}; AdaC-GOPE, AdaC-GOPE-sum and GOPE
``zcdp-contextual``    θ uniform on the unit sphere, d = 3, K = 20 fresh actions
                       ~ N(0, I/d) per round (scaled to norm <= 1), T = 10^5,
                       ρ ∈ {0.1, 1, 10}; AdaC-OFUL and RS-OFUL, 20 runs
=====================  ===================================================================

The finite instances are fixed (``random=False``: every run uses the same means, runs differ
only in their reward and noise streams). Linear and contextual rewards carry N(0, 1) noise
clipped to [−1, 1]; run r uses random instance r, and the EnvSpec's ``K`` is the number of
actions (linear) or of actions per round (contextual).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from privtools.errors import ParameterError

from ..envs import (
    bernoulli_instance,
    contextual_instance,
    easy_instance,
    five_arm_instance,
    hard_instance,
    movielens_instance,
    sphere_instance,
)
from ..se import policy
from ..zcdp import (
    gope_policy,
    oful_policy,
    simulate_gope,
    simulate_oful,
    simulate_ucb,
    zcdp_policy,
)
from .runner import SIMULATOR, EnvSpec, _check_callable, callable_name, make_tasks

EASY = EnvSpec("easy", easy_instance, K=10, random=True)
HARD = EnvSpec("hard", hard_instance, K=10, random=True)
MOVIELENS = EnvSpec("movielens", movielens_instance, K=10,
                    random=True)  # the same movies; each instance a random arm order

#: policies that take no ε (plotted in every ε panel)
NON_PRIVATE = frozenset({"se"})


@dataclass(frozen=True)
class Preset:
    """An experiment: ``env`` family, ``policies`` as ``(name, s)`` pairs (names of
    :func:`privtools.bandits.policy`), ``epsilons``, ``horizon`` T and ``runs``."""

    name: str
    description: str
    env: EnvSpec
    policies: tuple[tuple[str, int], ...]
    epsilons: tuple[float, ...]
    horizon: int
    runs: int = 20
    #: function building a spec as ``spec_factory(name, epsilon=..., s=...)``
    spec_factory: Callable = policy
    #: function simulating one run (see :class:`~.runner.Task`)
    simulator: Callable = SIMULATOR
    #: names of the policies that take no privacy parameter
    non_private: frozenset = NON_PRIVATE
    #: symbol of the privacy parameter in tables and plots ("ε", or "ρ" for zCDP)
    privacy_symbol: str = "ε"

    def __post_init__(self):
        _check_callable("Preset.spec_factory", self.spec_factory)
        _check_callable("Preset.simulator", self.simulator)

    @property
    def K(self) -> int:
        """The number of arms."""
        return self.env.K

    @property
    def spec_factory_name(self) -> str:
        """The policy-spec factory's importable name."""
        return callable_name(self.spec_factory)

    @property
    def simulator_name(self) -> str:
        """The simulator's importable name."""
        return callable_name(self.simulator)

    def with_overrides(self, runs: int | None = None, horizon: int | None = None) -> Preset:
        """A copy with ``runs`` / ``horizon`` replaced (validated)."""
        p = replace(self, runs=self.runs if runs is None else runs,
                    horizon=self.horizon if horizon is None else horizon)
        p.validate()
        return p

    def validate(self) -> None:
        """ParameterError naming the first setting out of range (runs, horizon, levels)."""
        if self.runs < 1:
            raise ParameterError(f"runs must be >= 1; got {self.runs}")
        if self.horizon < self.K:
            raise ParameterError(f"horizon must be >= K = {self.K}; got {self.horizon}")
        if not self.epsilons or min(self.epsilons) <= 0:
            raise ParameterError("epsilons must be positive")

    def specs(self) -> list:
        """Policy specs: each private policy at each ε (ε-major), non-private ones once."""
        make_spec = self.spec_factory
        out = []
        for eps in self.epsilons:
            for name, s in self.policies:
                if name not in self.non_private:
                    out.append(make_spec(name, epsilon=eps, s=s))
        out += [make_spec(name) for name, _ in self.policies if name in self.non_private]
        return out

    def tasks(self) -> list:
        """The (policy × run) tasks of this preset, for :func:`~.runner.run_tasks`."""
        return make_tasks(self.specs(), self.env, self.runs, self.horizon,
                          simulator=self.simulator)


_EPS = (0.1, 0.5, 1.0)
_FIG1 = (("dist-dp-se", 1), ("dist-rdp-se", 10), ("dist-rdp-se", 100), ("dp-se", 1))

PAPER_000_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("fig1-easy", "000 Fig. 1a/b, Fig. 2: easy instances, T = 1e6", EASY, _FIG1,
               _EPS, 10**6),
        Preset("fig1-hard", "000 Fig. 1c, Fig. 3: hard instances, T = 1e7", HARD, _FIG1,
               _EPS, 10**7),
        Preset("fig4", "000 Fig. 4: trust models on easy instances, T = 1e6", EASY,
               (("central-dp-se", 1), ("ldp-se", 1), ("dist-dp-se", 1), ("dist-rdp-se", 10),
                ("dist-cdp-se", 10)), _EPS, 10**6),
        Preset("movielens", "MovieLens-100K top-10 movies, T = 1e6, ε ∈ {1, 5, 10}",
               MOVIELENS, (("dist-dp-se", 1), ("dist-rdp-se", 10), ("central-dp-se", 1),
                           ("ldp-se", 1), ("dp-se", 1), ("se", 1)), (1.0, 5.0, 10.0), 10**6),
        Preset("smoke", "tiny check: easy instances, T = 1e4, ε = 1", EASY,
               (("dist-dp-se", 1), ("dp-se", 1)), (1.0,), 10**4, runs=2),
    )
}


# ---------------------------------------------------------------- paper 001, finite arms
FINITE_TEN = EnvSpec("bernoulli-10", bernoulli_instance, K=10, random=False)
FINITE_FIVE = EnvSpec("bernoulli-5", five_arm_instance, K=5, random=False)

_FINITE_POLICIES = (("adac-ucb", 1), ("adac-ucb-discrete", 1), ("ucb-twin", 1))
_FINITE_RHOS = (0.01, 0.1, 1.0)
_FINITE = dict(spec_factory=zcdp_policy, simulator=simulate_ucb,
               non_private=frozenset({"ucb-twin"}), privacy_symbol="ρ")

ZCDP_FINITE_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("zcdp-finite", "001 §VII: AdaC-UCB vs UCB twin, 10 Bernoulli arms, T = 1e6",
               FINITE_TEN, _FINITE_POLICIES, _FINITE_RHOS, 10**6, runs=20, **_FINITE),
        Preset("zcdp-finite-5arm", "001 §VII: AdaC-UCB vs UCB twin, 5 Bernoulli arms "
               "(0.75 … 0.25), T = 1e6", FINITE_FIVE, _FINITE_POLICIES, _FINITE_RHOS, 10**6,
               runs=20, **_FINITE),
    )
}


# ------------------------------------------------------- paper 001, linear and contextual
D = 3
RHOS = (0.1, 1.0, 10.0)


def sphere_env(K: int, rng):
    """EnvSpec factory: :func:`~privtools.bandits.envs.sphere_instance` with K actions in
    d = 3, noise sd 1."""
    return sphere_instance(K, rng, d=D)


def contextual_env(K: int, rng):
    """EnvSpec factory: :func:`~privtools.bandits.envs.contextual_instance` with K actions
    per round, d = 3."""
    return contextual_instance(K, rng, d=D)


SPHERE = EnvSpec("sphere-d3", sphere_env, K=100, random=True)
CONTEXTUAL = EnvSpec("gauss-context-d3", contextual_env, K=20, random=True)

ZCDP_LINEAR_PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("zcdp-linear", "001 §VII linear: unit sphere, d = 3, 100 actions, T = 1e6",
               SPHERE, (("adac-gope", 1), ("adac-gope-sum", 1), ("gope", 1)), RHOS, 10**6,
               runs=20, spec_factory=gope_policy, simulator=simulate_gope,
               non_private=frozenset({"gope"}), privacy_symbol="ρ"),
        Preset("zcdp-contextual", "001 §VII contextual: d = 3, K = 20 per round, T = 1e5",
               CONTEXTUAL, (("adac-oful", 1), ("rs-oful", 1)), RHOS, 10**5, runs=20,
               spec_factory=oful_policy, simulator=simulate_oful,
               non_private=frozenset({"rs-oful"}), privacy_symbol="ρ"),
    )
}


#: every preset, by name: paper 000's, then paper 001's finite, linear and contextual ones
PRESETS: dict[str, Preset] = {**PAPER_000_PRESETS, **ZCDP_FINITE_PRESETS, **ZCDP_LINEAR_PRESETS}


def get_preset(name: str) -> Preset:
    """The preset called ``name``; ``ValueError`` listing the presets otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset {name!r}; choose one of: "
                             f"{', '.join(PRESETS)}") from None


__all__ = ["EASY", "HARD", "MOVIELENS", "NON_PRIVATE", "PRESETS", "Preset", "get_preset",
           "PAPER_000_PRESETS", "ZCDP_FINITE_PRESETS", "ZCDP_LINEAR_PRESETS", "FINITE_TEN",
           "FINITE_FIVE", "SPHERE", "CONTEXTUAL", "sphere_env", "contextual_env"]
