"""Named experiment presets reproducing the simulations of paper 000 (§7, Appendix J) and a
real-data experiment in the spirit of paper 002's.

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
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .runner import SIMULATOR, EnvSpec

EASY = EnvSpec("easy", "privtools.bandits:easy_instance", K=10, random=True)
HARD = EnvSpec("hard", "privtools.bandits:hard_instance", K=10, random=True)
MOVIELENS = EnvSpec("movielens", "privtools.bandits.movielens:movielens_instance", K=10,
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
    #: ``"module:function"`` building a spec as ``factory(name, epsilon=..., s=...)``
    spec_factory: str = "privtools.bandits:policy"
    #: ``"module:function"`` simulating one run (see :class:`~.runner.Task`)
    simulator: str = SIMULATOR
    #: names of the policies that take no privacy parameter
    non_private: frozenset = NON_PRIVATE
    #: symbol of the privacy parameter in tables and plots ("ε", or "ρ" for zCDP)
    privacy_symbol: str = "ε"

    @property
    def K(self) -> int:
        return self.env.K

    def with_overrides(self, runs: int | None = None, horizon: int | None = None) -> Preset:
        """A copy with ``runs`` / ``horizon`` replaced (validated)."""
        p = replace(self, runs=self.runs if runs is None else runs,
                    horizon=self.horizon if horizon is None else horizon)
        p.validate()
        return p

    def validate(self) -> None:
        if self.runs < 1:
            raise ValueError(f"runs must be >= 1; got {self.runs}")
        if self.horizon < self.K:
            raise ValueError(f"horizon must be >= K = {self.K}; got {self.horizon}")
        if not self.epsilons or min(self.epsilons) <= 0:
            raise ValueError("epsilons must be positive")

    def specs(self) -> list:
        """Policy specs: each private policy at each ε (ε-major), non-private ones once."""
        from .runner import _resolve

        policy = _resolve(self.spec_factory)
        out = []
        for eps in self.epsilons:
            for name, s in self.policies:
                if name not in self.non_private:
                    out.append(policy(name, epsilon=eps, s=s))
        out += [policy(name) for name, _ in self.policies if name in self.non_private]
        return out

    def tasks(self) -> list:
        """The (policy × run) tasks of this preset, for :func:`~.runner.run_tasks`."""
        from .runner import make_tasks

        return make_tasks(self.specs(), self.env, self.runs, self.horizon,
                          simulator=self.simulator)


_EPS = (0.1, 0.5, 1.0)
_FIG1 = (("dist-dp-se", 1), ("dist-rdp-se", 10), ("dist-rdp-se", 100), ("dp-se", 1))

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("fig1-easy", "000 Fig. 1a/b, Fig. 2: easy instances, T = 1e6", EASY, _FIG1,
               _EPS, 10**6),
        Preset("fig1-hard", "000 Fig. 1c, Fig. 3: hard instances, T = 1e7", HARD, _FIG1,
               _EPS, 10**7),
        Preset("fig4", "000 Fig. 4: trust models on easy instances, T = 1e6", EASY,
               (("cdp-se", 1), ("ldp-se", 1), ("dist-dp-se", 1), ("dist-rdp-se", 10),
                ("dist-cdp-se", 10)), _EPS, 10**6),
        Preset("movielens", "MovieLens-100K top-10 movies, T = 1e6, ε ∈ {1, 5, 10}",
               MOVIELENS, (("dist-dp-se", 1), ("dist-rdp-se", 10), ("cdp-se", 1),
                           ("ldp-se", 1), ("dp-se", 1), ("se", 1)), (1.0, 5.0, 10.0), 10**6),
        Preset("smoke", "tiny check: easy instances, T = 1e4, ε = 1", EASY,
               (("dist-dp-se", 1), ("dp-se", 1)), (1.0,), 10**4, runs=2),
    )
}


def get_preset(name: str) -> Preset:
    """The preset called ``name``; ``ValueError`` listing the presets otherwise."""
    if "zcdp-finite" not in PRESETS:
        _register_zcdp_presets()
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; choose one of: "
                         f"{', '.join(PRESETS)}") from None


__all__ = ["EASY", "HARD", "MOVIELENS", "NON_PRIVATE", "PRESETS", "Preset", "get_preset"]


def _register_zcdp_presets() -> None:
    """Add the zCDP presets of paper 001 (defined beside their algorithms, which import
    this module — hence registered on first lookup, not at import)."""
    from .zcdp.finite_presets import ZCDP_FINITE_PRESETS
    from .zcdp.linear_presets import ZCDP_LINEAR_PRESETS

    PRESETS.update(ZCDP_FINITE_PRESETS)
    PRESETS.update(ZCDP_LINEAR_PRESETS)
