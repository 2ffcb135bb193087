"""``audit_training``: the DP-SGD run as it is coded — its step, its sampler, its canaries.

Four questions, each answered by its own part, then one verdict:

1. **The step** (:mod:`.step`): the user's ``step(params, batch, rng)`` called on a batch
   of the run and its neighbours with common random numbers, at the first parameters and
   again after a few steps of the run — the clipping (per example, bounded), the normaliser
   (a fixed divisor, or a data-dependent count), fresh noise per step; then the trace
   (:func:`verification.audit.trace_mechanism`) of the pair of the largest move reads the
   noise's law and the move in units of its scale, μ.
2. **The sampler**: which scheme it runs (:func:`verification.audit.identify_scheme`), then
   tested on fresh batches (:func:`verification.audit.audit_sampling`) against the scheme the
   accountant was told (``scheme=``) or, for independent inclusions, against Poisson
   sampling at the estimated rate — weighted rates and dependent "Poisson" samplers fail
   here.
3. **The run certified** (:mod:`.certify`): the certified ε(δ) of the whole run under the
   scheme identified, beside the claim; where they differ, the reasons are listed.
4. **Canaries** (:mod:`.canaries`): a one-run canary audit (Steinke, Nasr and Jagielski
   2023) — and, with ``canary_runs``, the classic audit over repeated runs — giving
   ``epsilon_lower`` at ``confidence``.

Verdict: ``"fail"`` when a finding breaks the analysis the claim rests on (no or non-per-
example clipping, a data-dependent normaliser, noise not drawn afresh, a sampler that is
not the scheme told), when the certified lower end is above the claim, or when the canary
bound is; ``"pass"`` when none of this is found and the certified upper end is at or below
the claim; ``"inconclusive"`` otherwise (the noise not Gaussian, the randomness untraceable,
the interval straddling the claim). A pass is an audit's pass: what the probes and the
sampler's tests did not show is not shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privtools.accounting import DpEvent
from privtools.certified import decide_le, ends, interval
from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from ..audit import audit_sampling, guard, identify_scheme, trace_mechanism
from ..audit.draws import root_seed
from ..audit.fixed.sampling import PoissonScheme, scheme_of
from ..audit.values import check_claim
from . import canaries as _can
from .certify import certify_run, run_events, without_amplification
from .step import StepProbe, TrainingFinding, probe_step, sample_noise

__all__ = ["TrainingAudit", "audit_training", "VERDICTS"]

VERDICTS = ("fail", "pass", "inconclusive")
_WARM = 10                 # steps of the run before the second probe
_SIMULATED = 10**9         # index draws of a simulated sampler test (its null batch sets)


@dataclass(frozen=True)
class TrainingAudit:
    """Outcome of :func:`audit_training` (module doc).

    ``verdict`` (one of :data:`VERDICTS`); ``findings`` (:class:`TrainingFinding`, each
    naming its call); ``scheme`` (the :class:`~verification.audit.IdentifiedScheme`: the
    family, its rate or size); ``sampling`` (the :class:`~verification.audit.SamplingAudit`
    of the sampler against the scheme tested, or None); ``certified_epsilon`` (the certified
    interval of the run's ε(δ), or None); ``accounted`` (the events, in words) and
    ``relation``; ``noise_multiplier`` (1/μ: the noise's standard deviation over one
    record's largest move, or None); ``epsilon_lower`` (the larger canary bound, 0 without
    canaries) with ``confidence``; ``canary`` (the one-run
    :class:`~verification.training.canaries.CanaryBound`, or None) and ``runs`` (the
    repeated-runs bound, or None); ``reasons`` (why the certified ε differs from the claim);
    ``epsilon``/``delta`` (the claim), ``steps``, ``population``, ``calls`` (step calls),
    ``seed``."""

    verdict: str
    findings: tuple
    scheme: object
    sampling: object
    certified_epsilon: object
    accounted: str
    relation: str | None
    noise_multiplier: float | None
    epsilon_lower: float
    confidence: float
    canary: object
    runs: object
    reasons: tuple
    epsilon: float
    delta: float
    steps: int
    population: int
    calls: int
    seed: int
    user_code: object = None
    notes: tuple = field(default_factory=tuple)

    @property
    def certified_ends(self) -> tuple[float, float] | None:
        """(lower, upper) of the certified interval as floats, or None."""
        if self.certified_epsilon is None:
            return None
        lo, hi = ends(self.certified_epsilon)
        return float(lo), float(hi)

    def describe(self) -> str:
        """The audit in a few lines."""
        lines = [f"{self.verdict.upper()}: DP-SGD run of {self.steps} steps over "
                 f"{self.population} records, claim ε = {self.epsilon:g} at δ = "
                 f"{self.delta:g}", f"sampler: {self.scheme.describe()}"]
        lines += [f"finding — {f.describe()}" for f in self.findings]
        if self.certified_ends is not None:
            lo, hi = self.certified_ends
            lines.append(f"certified ε(δ) of the run: [{lo:.6g}, {hi:.6g}] ({self.accounted}; "
                         f"noise multiplier {self.noise_multiplier:.6g}, {self.relation})")
        lines += [f"why: {r}" for r in self.reasons]
        for b in (self.canary, self.runs):
            if b is not None:
                what = (f"one run, {b.canaries} canaries" if b.method == "one run" else
                        f"{b.runs} runs of one canary")
                lines.append(f"canary lower bound: ε ≥ {b.epsilon_lower:.4g} at "
                             f"{b.confidence:.0%} confidence ({what})")
        lines += [f"note: {n}" for n in dict.fromkeys(self.notes)]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready values."""
        ce = self.certified_ends
        return {"verdict": self.verdict, "findings": [f.to_dict() for f in self.findings],
                "scheme": {"kind": self.scheme.kind, "rate": self.scheme.rate,
                           "rate_interval": list(self.scheme.rate_interval),
                           "description": self.scheme.describe()},
                "sampling": None if self.sampling is None else {
                    "verdict": self.sampling.verdict, "summary": self.sampling.summary()},
                "certified_epsilon": None if ce is None else list(ce),
                "accounted": self.accounted, "relation": self.relation,
                "noise_multiplier": self.noise_multiplier,
                "epsilon_lower": self.epsilon_lower, "confidence": self.confidence,
                "canary": None if self.canary is None else self.canary.to_dict(),
                "runs": None if self.runs is None else self.runs.to_dict(),
                "reasons": list(self.reasons), "epsilon": self.epsilon, "delta": self.delta,
                "steps": self.steps, "population": self.population, "calls": self.calls,
                "seed": self.seed, "notes": list(self.notes)}


# ====================================================================== checks
def _check_data(data) -> np.ndarray:
    try:
        arr = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError("data must be a 2-D array of numbers (a row per record)") \
            from None
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ParameterError(f"data must be a 2-D array with at least 2 rows, got shape "
                             f"{arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("data must be finite (no nan or inf)")
    return arr


def _check_params(params, data: np.ndarray) -> np.ndarray:
    if params is None:
        return np.zeros(data.shape[1])
    try:
        arr = np.array(params, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ParameterError("params must be a 1-D array of numbers") from None
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ParameterError("params must be a non-empty array of finite numbers")
    return arr


def _check_rows(rows, data: np.ndarray, need: int):
    if rows is None:
        return None
    try:
        arr = np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError("canary_rows must be a 2-D array of numbers") from None
    if arr.ndim != 2 or arr.shape[1] != data.shape[1] or len(arr) < need:
        raise ParameterError(f"canary_rows must hold at least {need} rows of {data.shape[1]} "
                             f"columns (as data), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("canary_rows must be finite")
    return arr


def _check_canaries(canaries, canary_runs, canary_rows, data) -> tuple:
    canaries = check_int("canaries", canaries, minimum=0, maximum=10**6)
    if 0 < canaries < 20:
        raise ParameterError(f"canaries must be 0 or at least 20, got {canaries}")
    canary_runs = check_int("canary_runs", canary_runs, minimum=0, maximum=10**5)
    if 0 < canary_runs < 16:
        raise ParameterError(f"canary_runs must be 0 or at least 16, got {canary_runs}")
    return canaries, canary_runs, _check_rows(canary_rows, data,
                                              max(canaries, 1 if canary_runs else 0))


def _check_told(scheme, population: int):
    if scheme is None:
        return None
    if isinstance(scheme, DpEvent):
        return scheme_of(scheme, population)
    if not hasattr(scheme, "describe"):
        raise ParameterError("scheme must be a sampling scheme (PoissonScheme, "
                             "FixedSizeScheme, ShuffleScheme, AllocationScheme) or the "
                             "accountant's sampled event")
    return scheme


# ====================================================================== the parts
def _sampler_part(sampler, n, n_batches, told, seeds, alpha, confidence):
    """(identified, sampling audit or None, findings, scheme to certify, rate)."""
    ident = identify_scheme(sampler, n, n_batches=n_batches, rng=seeds[0],
                            confidence=confidence)
    findings = []
    test = told if told is not None else (None if ident.kind == "allocation, kept" else
                                          ident.scheme)
    if told is not None and not _same_family(told, ident):
        findings.append(TrainingFinding(
            "the sampler", f"the accountant was told {told.describe()}, but the sampler runs "
            f"{ident.describe()}"))
    sampling = None
    if test is not None and not findings:
        tested = _tested(test, n, n_batches)
        sampling = audit_sampling(sampler, test, n, n_batches=tested, rng=seeds[1],
                                  alpha=alpha)
        if not sampling.passed:
            findings.append(TrainingFinding("the sampler", f"not {test.describe()}: "
                                            f"{sampling.summary()}"))
    rate = told.q if isinstance(told, PoissonScheme) else ident.rate_interval[1]
    return ident, sampling, findings, rate


def _tested(test, n: int, n_batches: int) -> int:
    """Batches for the sampler's test: all of them for Poisson (its null is simulated from
    sufficient statistics), within the simulated work's budget for the others, whole
    epochs or rounds where the scheme has them."""
    if isinstance(test, PoissonScheme):
        return n_batches
    size = max(10, min(n_batches, _SIMULATED // (n * 399)))
    per = getattr(test, "steps", None) or (-(-n // test.batch) if hasattr(test, "batch") and
                                           type(test).__name__ == "ShuffleScheme" else 1)
    return max(per, size // per * per)


def _same_family(told, ident) -> bool:
    want = {"PoissonScheme": "independent inclusions", "FixedSizeScheme": "fixed size",
            "ShuffleScheme": "shuffle", "AllocationScheme": "allocation"}
    return want.get(type(told).__name__) == ident.kind


def _step_part(step, sampler, data, params, n_probes, seed, warm):
    """The probes at the first parameters and after ``warm`` steps of the run."""
    gen = np.random.default_rng(seed)
    base = _base_batch(sampler, len(data), gen)
    rest = np.setdiff1d(np.arange(len(data)), base)
    probes = data[gen.choice(rest, size=min(n_probes, len(rest)), replace=False)]
    seeds = tuple(int(s) for s in gen.integers(0, 2**62, size=3))
    first = probe_step(step, data, params, base, probes, seeds[:2])
    out = [(params, first)]
    if not first.blocked and not first.findings and warm:
        ups = _can.train(step, sampler, data, warm, params, seeds[2])
        later = params + ups.sum(axis=0)
        out.append((later, probe_step(step, data, later, base, probes, seeds[:2])))
    return base, out


def _base_batch(sampler, n: int, gen) -> np.ndarray:
    idx = np.unique(np.asarray(sampler(1, gen)[0], dtype=np.int64).ravel())
    if len(idx) < 2:
        idx = np.union1d(idx, gen.choice(n, size=2, replace=False))
    return idx


def _mu(step, data, params, base, worst, epsilon, delta, seed, notes):
    """μ of the pair (base, base + worst) from the trace, or None (with a finding)."""
    d = data[base]
    dp = np.vstack([d, worst])

    def mechanism(rows, size, rng):
        return [step(params.copy(), rows, rng)]      # as returned: the trace tracks it
    mechanism.__name__ = getattr(step, "__name__", "step")
    tr = trace_mechanism(mechanism, d, dp, epsilon, delta, rng=seed, arithmetic="real")
    bad = [f for f in tr.findings if f.kind in ("unnoised-output", "data-dependent-parameter")]
    if bad:
        return None, TrainingFinding("the noise", f"the trace of one step: {bad[0].describe()}")
    if any(f.kind == "untraceable" for f in tr.findings) or not tr.releases:
        return _SAMPLE, None              # noise the trace cannot follow: sample it
    total = 0.0
    for rel in tr.releases:
        for ev in rel.events:
            if type(ev).__name__ != "GaussianEvent":
                notes.append(f"the step's noise is {rel.law}, not Gaussian: the run is not "
                             "certified here")
                return None, None
            total += float(ev.sensitivity / ev.sigma) ** 2
    return math.sqrt(total), None


_SAMPLE = "sample"          # _mu's answer when the noise is to be sampled
_PAIRS = 200                # pairs of seeds of the sampled noise


@dataclass(frozen=True)
class _Run:
    """What the canary audits train: the step and sampler (guarded), the data, the steps,
    the first parameters, the base batch, δ, the confidence, the crafted canaries (or None)
    and the score's model (τ, q)."""

    step: object
    sampler: object
    data: np.ndarray
    steps: int
    params: np.ndarray
    base: np.ndarray
    delta: float
    confidence: float
    crafted: np.ndarray | None
    model: tuple


def _canary_part(run: _Run, m: int, seed: int):
    gen = np.random.default_rng(seed)
    n = len(run.data)
    m = min(m, n // 2)
    slots = gen.choice(np.setdiff1d(np.arange(n), run.base), size=m, replace=False)
    rows = run.data[gen.choice(n, size=m)] * 1e3 if run.crafted is None else run.crafted[:m]
    included = gen.random(m) < 0.5
    moves, norms = _can.canary_moves(run.step, run.data, run.params, run.base, rows,
                                     int(gen.integers(2**62)))
    ups = _can.train(run.step, run.sampler, run.data, run.steps, run.params,
                     int(gen.integers(2**62)), slots=slots, canaries=rows, included=included)
    return _can.guess_bound(_can.scores(ups, moves, norms, *run.model), included, run.delta,
                            run.confidence)


def _runs_part(run: _Run, runs: int, seed: int):
    gen = np.random.default_rng(seed)
    n = len(run.data)
    slot = gen.choice(np.setdiff1d(np.arange(n), run.base), size=1)
    row = run.data[gen.choice(n, size=1)] * 1e3 if run.crafted is None else run.crafted[:1]
    move, norm = _can.canary_moves(run.step, run.data, run.params, run.base, row,
                                   int(gen.integers(2**62)))
    s_in, s_out = [], []
    for _ in range(runs):
        inc = np.array([gen.random() < 0.5])
        ups = _can.train(run.step, run.sampler, run.data, run.steps, run.params,
                         int(gen.integers(2**62)), slots=slot, canaries=row, included=inc)
        (s_in if inc[0] else s_out).append(float(_can.scores(ups, move, norm, *run.model)[0]))
    eps, counts = _can.runs_epsilon(s_in, s_out, run.delta, run.confidence)
    return _can.CanaryBound(eps, run.confidence, "runs", runs=runs, counts=counts)


# ====================================================================== the audit
def audit_training(step, sampler, data, steps, epsilon, delta, params=None, rng=None, *,
                   scheme=None, canaries: int = 1000, canary_runs: int = 0,
                   canary_rows=None,
                   confidence: float = 0.95, alpha: float = 0.01, n_batches: int = 1000,
                   probes: int = 3, timeout=guard.DEFAULT_TIMEOUT,
                   total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> TrainingAudit:
    """Audit a DP-SGD run as it is coded against its claim (``epsilon``, ``delta``) for
    ``steps`` steps (module doc).

    Parameters
    ----------
    step : callable
        ``step(params, batch, rng) -> params``: one training step; ``batch`` the rows of
        ``data`` in the batch (a 2-D array), ``rng`` a numpy ``Generator``, the step's only
        source of randomness.
    sampler : callable
        ``sampler(n_batches, rng)`` → ``n_batches`` arrays of record indices (as
        :func:`verification.audit.audit_sampling` takes; :func:`batches_of` adapts an
        iterable of batches or a PyTorch-style ``BatchSampler``).
    data : 2-D array
        The records, a row each.
    params : 1-D array, optional
        The first parameters (default: zeros, one per column of ``data``).
    rng : seed
        The audit's seed: every part draws from its own child of it.
    scheme : optional
        The scheme the accountant was told (a :class:`~verification.audit.PoissonScheme`
        etc., or the accountant's sampled event): the sampler is tested against it and a
        Poisson rate told is the one certified.
    canaries : int
        Canaries of the one-run audit (0: none).
    canary_runs : int
        Runs of the repeated-runs canary audit (0: none; each run trains ``steps`` steps).
    canary_rows : 2-D array, optional
        The canaries (a row each, at least ``canaries`` of them; the first is the runs
        audit's): records crafted so that their clipped gradient points where the data's
        does not (white-box "gradient canaries"). Default: rows of the data scaled by 10³.
    confidence : float
        Of the canary bounds and of the sampler's rate interval.
    alpha : float
        False-alarm rate of the sampler's tests.
    n_batches, probes : int
        Batches drawn to identify and to test the sampler; data rows probed at each scale.
    """
    for name, fn in (("step", step), ("sampler", sampler)):
        if not callable(fn):
            raise ParameterError(f"{name} must be callable")
    data = _check_data(data)
    n = len(data)
    steps = check_int("steps", steps, minimum=1, maximum=10**7)
    claim = check_claim(epsilon, delta)
    params = _check_params(params, data)
    told = _check_told(scheme, n)
    canaries, canary_runs, crafted = _check_canaries(canaries, canary_runs, canary_rows, data)
    confidence = 1 - check_level("confidence", 1 - confidence)
    alpha = check_level("alpha", alpha)
    n_batches = check_int("n_batches", n_batches, minimum=10, maximum=10**6)
    probes = check_int("probes", probes, minimum=1, maximum=100)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng) % 2**62
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(seed).spawn(7)]

    ident, sampling, findings, rate = _sampler_part(sampler, n, n_batches, told, seeds[:2],
                                                    alpha, confidence)
    wstep, wsampler = guard.wrap(step, "step", copy_arg=1), guard.wrap(sampler, "sampler")
    limits = {"timeout": timeout, "total_timeout": total_timeout,
              "shared": (wstep, wsampler)}
    base, at = guard.run(
        lambda tick: _step_part(wstep, wsampler, data, params, probes, seeds[2],
                                min(_WARM, steps)), what="the step's probes", **limits)
    points = [p for _, p in at]
    notes: list[str] = []
    for p in points:
        findings += list(p.findings)
    mus = None
    if not any(p.findings for p in points):
        def sample(p, worst):
            keys = np.random.default_rng(seeds[6]).integers(0, 2**62, size=2 * _PAIRS + 1)
            return guard.run(lambda tick: sample_noise(wstep, data, p, base, worst, keys,
                                                       confidence),
                             what="the step's sampled noise", **limits)
        mus = _noise(step, data, base, at, claim, seeds[3], notes, findings, sample)
    mu = None if mus is None else mus[0]
    cert = relation = None
    accounted = ""
    if mu is not None and not any(f.fatal for f in findings):
        relation, cert, accounted = _certify(ident, rate, mus, steps, n, told, claim)
    canary = runs = None
    run = _Run(step=wstep, sampler=wsampler, data=data, steps=steps, params=params,
               base=base, delta=claim.delta, confidence=confidence, crafted=crafted,
               model=_score_model(points[0], mu, ident))
    if canaries and not any(p.blocked and not p.findings[0].fatal for p in points):
        canary = guard.run(lambda tick: _canary_part(run, canaries, seeds[4]),
                           what="the one-run canary audit", **limits)
    if canary_runs:
        runs = guard.run(lambda tick: _runs_part(run, canary_runs, seeds[5]),
                         what="the canary runs", **limits)
    lower = max([b.epsilon_lower for b in (canary, runs) if b is not None], default=0.0)
    findings += _bound_findings(cert, lower, claim, ident, mu)
    verdict = _verdict(findings, cert, claim.epsilon)
    return TrainingAudit(
        verdict=verdict, findings=tuple(findings), scheme=ident, sampling=sampling,
        certified_epsilon=cert, accounted=accounted, relation=relation,
        noise_multiplier=None if not mu else 1 / mu, epsilon_lower=lower,
        confidence=confidence, canary=canary, runs=runs,
        reasons=tuple(_reasons(cert, claim, ident, mu, told)), epsilon=claim.epsilon,
        delta=claim.delta, steps=steps, population=n,
        calls=sum(p.calls for p in points), seed=seed, notes=tuple(dict.fromkeys(notes)))


def _certify(ident, rate, mus, steps, n, told, claim):
    """(relation, certified interval, the events in words) of the run at μ — its upper end
    at the upper μ, its lower end at the lower one (the same μ when the trace measured it)."""
    hi_mu, lo_mu = mus
    relation, events, accounted = run_events(ident.kind, ident.scheme, rate, hi_mu, steps, n,
                                             told)
    cert = certify_run(relation, events, claim.delta, claim.epsilon,
                       without_amplification(ident.kind, ident.scheme, hi_mu, steps))
    if lo_mu < hi_mu:
        low = certify_run(relation, run_events(ident.kind, ident.scheme, rate, lo_mu, steps,
                                               n, told)[1], claim.delta, claim.epsilon)
        cert = interval(min(ends(low)[0], ends(cert)[0]), ends(cert)[1])
    return relation, cert, accounted


def _score_model(first: StepProbe, mu, ident) -> tuple:
    """(τ, q) of the canaries' likelihood-ratio score: the noise's scale in update units
    (the first point's largest move over μ) and the mean inclusion rate; (None, None) when
    the step's noise was not measured (the scores are then plain sums)."""
    if not mu or not first.shift:
        return None, None
    return first.shift / mu, min(max(ident.rate, 1e-12), 1.0)


def _noise(step, data, base, at, claim, seed, notes, findings, sample):
    """(μ, μ_low): the largest μ over the probe points (the trace of each point's worst pair,
    exact: μ_low = μ; where the trace cannot follow the noise, ``sample(params, worst)``
    measures it: an upper and a lower confidence bound), or None."""
    mus = []
    for params, p in at:
        if p.worst is None:
            continue
        mu, finding = _mu(step, data, params, base, p.worst, claim.epsilon, claim.delta,
                          seed, notes)
        if mu == _SAMPLE:
            measured = sample(params, p.worst)
            if measured.mu is None:
                findings.append(TrainingFinding(
                    "the noise", f"not isotropic Gaussian noise: {measured.detail}", False))
                return None
            notes.append(f"the trace cannot follow the step's noise (a generator of its "
                         f"own, keyed from rng): {measured.detail}; the certified interval "
                         f"holds at that confidence")
            mu, finding = (measured.mu, measured.mu_low), None
        if finding is not None:
            findings.append(finding)
            return None
        if mu is None:
            return None
        mus.append(mu if isinstance(mu, tuple) else (mu, mu))
    return max(mus, default=None)


def _bound_findings(cert, lower, claim, ident, mu) -> list:
    out = []
    if cert is not None:
        lo, hi = (float(x) for x in ends(cert))
        if decide_le(cert, claim.epsilon) is False:       # the lower end above the claim
            out.append(TrainingFinding(
                "the noise" if ident.kind in ("independent inclusions", "allocation",
                                              "fixed size") else "the sampler",
                f"the run certifies ε(δ = {claim.delta:g}) in [{lo:.6g}, {hi:.6g}], above "
                f"the claim {claim.epsilon:g} (noise multiplier {1 / mu:.6g} under "
                f"{ident.kind})"))
    if lower > claim.epsilon:
        out.append(TrainingFinding("the canaries", f"the canaries show ε ≥ {lower:.4g}, above "
                                   f"the claim {claim.epsilon:g}"))
    return out


def _verdict(findings, cert, epsilon) -> str:
    if any(f.fatal for f in findings):
        return "fail"
    if cert is None or any(f.call == "the step" for f in findings):
        return "inconclusive"
    return "pass" if decide_le(cert, epsilon) else "inconclusive"


def _reasons(cert, claim, ident, mu, told) -> list:
    if cert is None:
        return []
    lo, hi = (float(x) for x in ends(cert))
    if lo <= claim.epsilon * (1 + 1e-9) and hi >= claim.epsilon * (1 - 1e-3):
        return []
    out = []
    if ident.kind in ("sequential", "shuffle", "with replacement"):
        out.append(f"the sampler runs {ident.kind} batches: no amplification by Poisson "
                   "subsampling applies to it (shuffled batches accounted as Poisson "
                   "overstate privacy)")
    if told is not None and not _same_family(told, ident):
        out.append(f"the accountant was told {told.describe()}")
    out.append(f"one step's noise is {1 / mu:.6g} times one record's largest move (the "
               "noise multiplier measured)")
    side = "above" if lo > claim.epsilon else "below"
    out.append(f"the certified interval [{lo:.6g}, {hi:.6g}] is {side} the claim "
               f"{claim.epsilon:g}")
    return out
