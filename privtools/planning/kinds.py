"""The privacy kinds a plan is asked for ("pure-dp", "rdp", "cdp"), each declared once, as data.

Every fact that belongs to a kind — whether its ε is finite at δ = 0, whether it takes the
scale s, what its ε means without a δ, the Rényi orders and the name of the check that
verify it — is a field of its :class:`PrivacyKind`; the planner, the guarantee, the judge's
plan check and the command line read them here instead of comparing the kind's name. ::

    KINDS["rdp"]             the PrivacyKind called "rdp" (KINDS keeps the paper's order)
    privacy_kind(name)       the same, or ParameterError naming the kinds
    PRIVACY                  the kinds' names: ("pure-dp", "rdp", "cdp")
    APPROXIMATE_PLANS        "rdp and cdp plans": the kinds whose views have no finite pure ε
"""

from __future__ import annotations

from dataclasses import dataclass

from privtools.errors import ParameterError

__all__ = ["PrivacyKind", "KINDS", "PRIVACY", "APPROXIMATE_PLANS", "privacy_kind"]


@dataclass(frozen=True, kw_only=True)
class PrivacyKind:
    """One privacy kind of paper 000's plans.

    ``pure``: the claim is pure ε-DP — a finite ε at δ = 0 (basic composition over a user's
    participations); otherwise composition and every (ε, δ) statement need δ > 0, and the
    kind takes the scale ``s`` >= 1 of Theorems 2 and 4. ``parameter``: what ε is when the
    plan has no δ ("Theorem 2's RDP": ε is the theorem's parameter, not (ε, δ)-DP; None: ε
    itself). ``curve``: what the batch view meets, in words. ``check``: the judge's check
    that decides the kind's privacy finding ("pure DP", "RDP", "CDP": its name in
    ``privacy (…)``), ``orders``: the Rényi orders it tabulates by default. ``costly``: the
    exact tail and verification tabulate a Skellam law over the shift g, so the command line
    bounds their cost before any work."""

    name: str
    pure: bool
    parameter: str | None
    curve: str | None
    check: str
    orders: tuple[int, ...] = ()
    costly: bool = False

    @property
    def scaled(self) -> bool:
        """Whether the kind takes the scale s (Theorems 2 and 4); pure-dp plans have none."""
        return not self.pure

    @property
    def needs_delta(self) -> bool:
        """Whether composition and (ε, δ) statements need δ > 0 (no finite pure ε)."""
        return not self.pure

    @property
    def parameter_label(self) -> str:
        """How ε is shown beside a plan without a δ."""
        return "ε" if self.parameter is None else f"ε ({self.parameter} parameter)"


KINDS: dict[str, PrivacyKind] = {k.name: k for k in (
    PrivacyKind(name="pure-dp", pure=True, parameter=None, curve=None, check="pure DP"),
    PrivacyKind(name="rdp", pure=False, parameter="Theorem 2's RDP",
                curve="meets Theorem 2's RDP curve ε̂(α)", check="RDP",
                orders=(2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256), costly=True),
    PrivacyKind(name="cdp", pure=False, parameter="Theorem 4's CDP",
                curve="meets Theorem 4's ½ε̂²-CDP (ε̂ of Lemma 4 at the theorem's g)",
                check="CDP", orders=(2, 4, 8, 16, 32)),
)}

PRIVACY: tuple[str, ...] = tuple(KINDS)

#: The kinds whose views have no finite pure ε (they need δ > 0 and take s), in words.
APPROXIMATE_PLANS = " and ".join(k.name for k in KINDS.values() if k.needs_delta) + " plans"


def privacy_kind(name: str) -> PrivacyKind:
    """The :class:`PrivacyKind` called ``name``; ParameterError for another name."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ParameterError(f"privacy must be one of {', '.join(PRIVACY)}; got {name!r}")
    return kind
