"""What a trace returns: its findings and its result, as small immutable values."""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath

from privtools.certified import Interval, interval

__all__ = ["Finding", "FindingKind", "TraceResult", "KINDS", "FINDING_KINDS", "PathReport",
           "round_down", "round_up"]


@dataclass(frozen=True)
class FindingKind:
    """One kind of finding, declared once with what it does to the verdict.

    Every finding rules out ``holds``; an exact finding of infinite loss makes the verdict
    ``fail``. Beyond that, ``stops_interval``: while a finding of this kind stands, the pair's
    certified interval is not computed from the releases (a data-dependent parameter: the
    releases on d and d' are not one law shifted — unless the two Gaussians' ε(δ) certifies
    it, :mod:`.certify.gaussians`); ``exact``: whether a finding of this kind is decided
    without statistics by default (``False``: it hands the pair to a sampled audit)."""

    name: str
    meaning: str
    stops_interval: bool = False
    exact: bool = True


#: Every kind of finding the trace reports, in one table (read by the trace and the zoo).
FINDING_KINDS: dict[str, FindingKind] = {k.name: k for k in (
    FindingKind("data-dependent-parameter",
                "a noise call's parameters or the sequence of calls differ between d and d'",
                stops_interval=True),
    FindingKind("unnoised-output",
                "an output moves between d and d' with no noise to cover the move"),
    FindingKind("sensitivity",
                "a release moves by more than its noise is calibrated (or declared) for"),
    FindingKind("untraceable",
                "the mechanism does something the trace cannot follow (it escapes the "
                "recorder)"),
    FindingKind("noise-dependent-control-flow",
                "the noise steers the program (a branch on a noisy value, or outputs that "
                "are non-additive functions of it)", exact=False),
    FindingKind("path-loss",
                "the noise steers the program, and an output's certified probabilities on "
                "d and d' (summed over the paths that produce it) are further apart than "
                "the claim allows"),
)}
KINDS = tuple(FINDING_KINDS)
DATA_DEPENDENT, UNNOISED, SENSITIVITY, UNTRACEABLE, STEERED, PATH_LOSS = KINDS


def kind(name: str) -> FindingKind:
    """The declared kind called ``name`` (ValueError on a kind the table does not declare)."""
    try:
        return FINDING_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown finding kind {name!r}; the kinds are {KINDS}") from None


@dataclass(frozen=True)
class Finding:
    """One thing the trace found: ``kind`` (one of :data:`KINDS`), ``where`` (a call or an
    output path), ``detail`` (what differs, with the values), ``loss`` (``math.inf`` for
    an infinite privacy loss, a float for a certified lower end, None when not a loss) and
    whether it is ``exact`` (decided without statistics: the same for every seed)."""

    kind: str
    where: str
    detail: str
    loss: float | None = None
    exact: bool = True

    def __post_init__(self):
        kind(self.kind)

    def describe(self) -> str:
        """The finding in one line: kind, where, what differs, the loss."""
        loss = "" if self.loss is None else (
            "; privacy loss infinite" if self.loss == math.inf else
            f"; privacy loss at least {self.loss:.6g}")
        return f"{self.kind} at {self.where}: {self.detail}{loss}"

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"kind": self.kind, "where": self.where, "detail": self.detail,
                "loss": None if self.loss is None else (
                    "inf" if self.loss == math.inf else self.loss),
                "exact": self.exact, "description": self.describe()}


@dataclass(frozen=True, kw_only=True)
class PathReport:
    """What the paths decided (:mod:`.paths`): the certified ε(δ) ends ``lo``/``hi`` of
    the pair from every path on d and d', the ``worst`` output with its certified
    probabilities ``p_d``/``p_dp`` (ends) and the ``condition`` of a path producing it, the
    number of paths (merged) and of runs, whether a continuous law was integrated — or
    ``refused``: why the paths decide nothing."""

    lo: object = None
    hi: object = None
    worst: str = ""
    p_d: tuple = ()
    p_dp: tuple = ()
    condition: str = ""
    paths_d: int = 0
    paths_dp: int = 0
    runs: int = 0
    continuous: bool = False
    refused: str | None = None
    density: bool = False          # p_d, p_dp: densities of the released values there

    @property
    def measure(self) -> str:
        """What ``p_d``/``p_dp`` are: "probability", or "density" of released values."""
        return "density" if self.density else "probability"

    def describe(self) -> str:
        if self.refused is not None:
            return f"the paths decide nothing: {self.refused}"
        head = (f"{self.paths_d} path(s) on d and {self.paths_dp} on d' ({self.runs} "
                f"steered runs): certified ε in [{round_down(self.lo):.6g}, "
                f"{round_up(self.hi):.6g}]")
        if self.worst:
            head += (f"; the worst output {self.worst} has {self.measure} "
                     f"{_ends_text(self.p_d)} on d and {_ends_text(self.p_dp)} on d'"
                     + (f", on the path {self.condition}" if self.condition else ""))
        return head

    def to_dict(self) -> dict:
        if self.refused is not None:
            return {"refused": self.refused}
        return {"epsilon": [round_down(self.lo), _json_up(self.hi)], "worst": self.worst,
                "p_d": [float(x) for x in self.p_d], "p_d_prime": [float(x) for x in self.p_dp],
                "measure": self.measure, "condition": self.condition,
                "paths_d": self.paths_d,
                "paths_d_prime": self.paths_dp, "runs": self.runs}


def _ends_text(e) -> str:
    if not e:
        return "?"
    lo, hi = e
    if hi - lo <= abs(hi) * mpmath.mpf(10) ** -9:
        return f"{float(lo):.6g}"
    return f"[{float(lo):.6g}, {float(hi):.6g}]"


def _json_up(x):
    v = round_up(x)
    return v if math.isfinite(v) else "inf"


@dataclass(frozen=True, kw_only=True)
class TraceResult:
    """Outcome of :func:`trace_mechanism` (see the module doc).

    ``epsilon_interval``: the certified ε(δ) interval of the pair's view (the pure ε when
    δ = 0), or None where it is not decidable. ``releases``: the certified releases
    composed into it. ``calls``: the recorded calls on ``d`` in words. ``decided`` and
    ``undecided``: what the trace settled and what it left, in words. ``candidates``:
    output events for a black-box confirmation (:func:`confirm`) when the noise steers the
    control flow. ``primitives``: the calls on ``d`` as ``(method, family, shape, params)``
    (params hold the law object of a law call). ``runs``: how many times the mechanism
    ran."""

    verdict: str
    findings: tuple
    interval_ends: tuple | None          # exact ends (mpf) of the certified interval
    epsilon: float
    delta: float
    releases: tuple = ()
    calls: tuple = ()
    decided: tuple = ()
    undecided: tuple = ()
    candidates: tuple = ()
    arithmetic: str = "exact"
    primitives: tuple = ()             # (method, family, shape, params) of each call on d
    runs: int = 0
    seed: int | None = None
    user_code: object = None
    paths: PathReport | None = None    # what the paths decided, where they were explored
    proof: object = None               # an alignment proving the claim for every pair

    @property
    def epsilon_interval(self) -> Interval | None:
        """The certified ε(δ) interval of the pair's view (None where not decidable)."""
        if self.interval_ends is None:
            return None
        return interval(*self.interval_ends)

    @property
    def epsilon_bounds(self) -> tuple[float, float] | None:
        """The interval's ends as floats rounded outward (None without an interval)."""
        if self.interval_ends is None:
            return None
        lo, hi = self.interval_ends
        return round_down(lo), round_up(hi)

    def kinds(self) -> tuple:
        """The finding kinds, sorted, each once."""
        return tuple(sorted({f.kind for f in self.findings}))

    def summary(self) -> str:
        """One line: verdict, claim, certified interval, finding kinds."""
        claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
        b = self.epsilon_bounds
        eps = "" if b is None else (f"; certified ε{'(δ)' if self.delta else ''} of the pair "
                                    f"in [{b[0]:.6g}, {b[1]:.6g}]")
        head = f"{self.verdict.upper()} (trace): claim {claim}{eps}"
        if self.findings:
            head += f"; {len(self.findings)} finding(s): " + ", ".join(self.kinds())
        return head

    def describe(self) -> str:
        """A readable report: verdict, findings, releases, what was and was not decided."""
        lines = [self.summary()]
        lines += [f"  finding: {f.describe()}" for f in self.findings]
        lines += [f"  release: {r.describe()}" for r in self.releases[:20]]
        if len(self.releases) > 20:
            lines.append(f"  … {len(self.releases) - 20} more releases")
        if self.paths is not None:
            lines.append(f"  paths: {self.paths.describe()}")
        lines += [f"  decided: {x}" for x in self.decided]
        lines += [f"  undecided: {x}" for x in self.undecided]
        if self.candidates:
            lines.append("  candidate events for a sampled confirmation: " +
                         "; ".join(e.describe() for e in self.candidates[:6]))
        if self.user_code is not None:
            lines += ["  " + x for x in self.user_code.lines()]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready values (the interval's ends rounded outward, ∞ as "inf")."""
        b = self.epsilon_bounds
        return {"verdict": self.verdict, "mode": "trace", "epsilon": self.epsilon,
                "delta": self.delta, "arithmetic": self.arithmetic,
                "epsilon_interval": None if b is None else [
                    b[0], b[1] if math.isfinite(b[1]) else "inf"],
                "findings": [f.to_dict() for f in self.findings],
                "releases": [{"where": r.where, "law": r.law, "shift": str(r.shift),
                              "exact": r.exact} for r in self.releases],
                "calls": list(self.calls), "decided": list(self.decided),
                "undecided": list(self.undecided),
                "candidates": [e.to_dict() for e in self.candidates],
                "paths": None if self.paths is None else self.paths.to_dict(),
                "proof": None if self.proof is None else self.proof.to_dict(),
                "runs": self.runs, "seed": self.seed,
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


def round_up(x) -> float:
    """An mpf as a float rounded up (+inf stays)."""
    if not mpmath.isfinite(x):
        return math.inf
    f = float(x)
    return f if mpmath.mpf(f) >= x else math.nextafter(f, math.inf)


def round_down(x) -> float:
    """An mpf as a float rounded down."""
    if not mpmath.isfinite(x):
        return math.inf
    f = float(x)
    return f if mpmath.mpf(f) <= x else math.nextafter(f, -math.inf)
