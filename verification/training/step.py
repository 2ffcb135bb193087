"""One training step on neighbouring batches: what one record does to one update.

The step ``step(params, batch, rng) -> params`` is called with common random numbers — the
same seed for a batch and its neighbour — so that additive noise cancels in the difference
of the two updates and what is left is the record's own move, exactly (up to the rounding
of the parameters' floats). Each check below is decided from a handful of calls, without
statistics:

* **fresh randomness** — two calls with the same seed agree (else the step draws
  randomness that does not come through ``rng``: nothing can be decided); two calls with
  different seeds differ (else no noise is drawn afresh: noise drawn once and reused
  across steps, or none — the difference of two updates then releases the data with no
  noise at all);
* **the normaliser** — the record's move is the same under every seed (else the noise is
  scaled by a factor that depends on the batch: the noisy sum divided by the realised batch
  size, opacus#819; the factor is measured and named);
* **per-example clipping** — the record's move is the same inside the batch as beside a
  single other record (else its contribution depends on the batch: the clipping acts on the
  batch's sum or mean, not on each example's gradient);
* **bounded sensitivity** — a record scaled by 10⁶ moves the update no further than the
  same record scaled by 10³ (else there is no clipping: the sum's sensitivity is
  unbounded).

What the probes exercise is what is seen: a record that moves the update further than every
probe is not seen. The noise's law and its scale relative to the largest move are read by
the trace (:func:`verification.audit.trace_mechanism`) on the pair of the largest move.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError

__all__ = ["CALLS", "TrainingFinding", "StepProbe", "probe_step", "SCALES", "SampledNoise",
           "sample_noise"]

#: The calls a finding names.
CALLS = ("the step", "the clipping", "the normaliser", "the noise", "the sampler",
         "the accounting", "the canaries")
#: The scales of the probe records: each probe row as it is, ×10³ and ×10⁶.
SCALES = (1.0, 1e3, 1e6)
_GROWTH = 10.0          # a move 10× larger at 10⁶ than at 10³: no clipping


@dataclass(frozen=True)
class TrainingFinding:
    """One thing the training audit found: the ``call`` it names (one of :data:`CALLS`),
    the ``detail`` (what differs, with the values) and whether it is ``fatal`` (a bug that
    breaks the analysis the claim rests on: the verdict is ``"fail"``)."""

    call: str
    detail: str
    fatal: bool = True

    def __post_init__(self):
        if self.call not in CALLS:
            raise ValueError(f"call must be one of {CALLS}, got {self.call!r}")

    def describe(self) -> str:
        """The finding in one line."""
        return f"{self.call}: {self.detail}"

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"call": self.call, "detail": self.detail, "fatal": self.fatal,
                "description": self.describe()}


@dataclass(frozen=True)
class StepProbe:
    """What :func:`probe_step` found at one parameter point: the ``findings``, the largest
    ``shift`` of the update by one bounded probe record (parameter units), the ``noise``
    (norm of the difference of two updates of the same batch under two seeds), the probe
    row of the largest shift (``worst``, or None), the number of step ``calls`` and the base
    ``batch_size``; ``blocked``: nothing below the first finding could be decided."""

    findings: tuple
    shift: float
    noise: float
    worst: np.ndarray | None
    calls: int
    batch_size: int
    blocked: bool = False


class _Caller:
    """The step called on rows of the data with a seed: the update (new − old params)."""

    def __init__(self, step, params: np.ndarray):
        self.step, self.params, self.calls = step, params, 0
        self.rtol = 1e-9            # of a float64 step; 64 ulps of a float32 one
        self.eps = float(np.finfo(float).eps)

    def floor(self, *updates) -> float:
        """The rounding of parameters of this size in the step's floats: an update is a
        difference of two parameter vectors, each rounded to a few ulps."""
        size = float(np.linalg.norm(self.params)) + sum(float(np.linalg.norm(x))
                                                        for x in updates)
        return 16 * self.eps * size

    def __call__(self, rows: np.ndarray, seed: int) -> np.ndarray:
        self.calls += 1
        out = self.step(self.params.copy(), rows, np.random.default_rng(seed))
        kind = getattr(out, "dtype", None)
        if kind is not None and np.issubdtype(kind, np.floating) and np.finfo(kind).bits < 64:
            self.rtol = max(self.rtol, 64 * float(np.finfo(kind).eps))
            self.eps = max(self.eps, float(np.finfo(kind).eps))
        try:
            new = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"step must return the new params (an array of "
                                 f"{self.params.size} numbers), got {type(out).__name__}") \
                from None
        if new.shape != self.params.shape:
            raise ParameterError(f"step returned params of shape {new.shape}; the params "
                                 f"it was given have shape {self.params.shape}")
        return new - self.params


def _close(x: np.ndarray, y: np.ndarray, scale: float, rtol: float = 1e-9,
           floor: float = 0.0) -> bool:
    """Equal up to the rounding of the parameters' floats: ``rtol`` of ``scale`` (10⁻⁹ for
    float64 parameters, 64 ulps for float32 ones) plus the ``floor`` of the parameters'
    own rounding."""
    return bool(np.linalg.norm(x - y) <= rtol * scale + floor + 1e-300)


def probe_step(step, data: np.ndarray, params: np.ndarray, base: np.ndarray,
               probes: np.ndarray, seeds: tuple[int, int]) -> StepProbe:
    """The checks of the module doc at ``params``, on the batch ``data[base]`` and its
    neighbours with one of the ``probes`` rows added (each probe at every scale of
    :data:`SCALES`), with the two ``seeds``."""
    u = _Caller(step, params)
    d = data[base]
    s1, s2 = seeds
    a1 = u(d, s1)
    if not np.array_equal(a1, u(d, s1), equal_nan=True):
        return _blocked(u, d, "two calls on the same batch with the same rng returned "
                        "different params: the step draws randomness that does not come "
                        "through rng (a global or a library's generator), so neither the "
                        "noise nor the neighbours can be compared", "the step", False)
    a2 = u(d, s2)
    noise = float(np.linalg.norm(a1 - a2))
    if noise == 0 or not np.isfinite(noise):
        what = ("the update is the same for every rng: no noise is drawn afresh in this "
                "step (noise drawn once and reused across steps, or none), so the "
                "difference of two updates releases the data with no noise"
                if noise == 0 else "the update is not finite on the base batch")
        return _blocked(u, d, what, "the noise", noise == 0)
    findings: list[TrainingFinding] = []
    moves = _moves(u, d, a1, a2, probes, seeds, noise, findings)
    if not findings:
        _additivity(u, d, moves, s1, noise, findings)
    bounded = [m for m in moves if m[1] < SCALES[-1]] if not findings else []
    worst = max(bounded, key=lambda m: m[2], default=None)
    return StepProbe(findings=tuple(findings),
                     shift=0.0 if worst is None else worst[2], noise=noise,
                     worst=None if worst is None else worst[0],
                     calls=u.calls, batch_size=len(d))


def _blocked(u, d, detail, call, fatal) -> StepProbe:
    return StepProbe(findings=(TrainingFinding(call, detail, fatal),), shift=0.0, noise=0.0,
                     worst=None, calls=u.calls, batch_size=len(d), blocked=True)


def _moves(u, d, a1, a2, probes, seeds, noise, findings) -> list:
    """(row, scale, ‖move‖, move) of every finite probe; the normaliser and the clipping's
    bound checked on the way."""
    s1, s2 = seeds
    n = len(d)
    moves = []
    for row in probes:
        by_scale = {}
        for scale in SCALES:
            r = np.asarray(row, dtype=float) * scale
            b1 = u(np.vstack([d, r]), s1)
            if not np.all(np.isfinite(b1)):
                continue
            m1 = b1 - a1
            if scale == 1.0 and not findings:
                m2 = u(np.vstack([d, r]), s2) - a2
                if not _close(m1, m2, noise + float(np.linalg.norm(m1)), u.rtol,
                              u.floor(a1, a2, b1)):
                    lam = float(np.dot(b1 - a1 - m2 + (a1 - a2), a1 - a2) /
                                np.dot(a1 - a2, a1 - a2))
                    findings.append(_normaliser(n, lam))
                    return moves
            size = float(np.linalg.norm(m1))
            by_scale[scale] = size
            moves.append((r, scale, size, m1))
        big, mid = by_scale.get(SCALES[-1]), by_scale.get(SCALES[-2])
        if big is not None and mid is not None and big > _GROWTH * mid and not findings:
            findings.append(TrainingFinding(
                "the clipping", f"a record scaled by 10⁶ moves the update {big:.4g} (in "
                f"parameter norm), {big / mid:.3g}× as far as the same record scaled by 10³ "
                f"({mid:.4g}): one record's move grows without bound — no clipping of the "
                "per-example gradients, the sum's sensitivity is unbounded"))
    return moves


def _normaliser(n: int, lam: float) -> TrainingFinding:
    ratio = n / (n + 1)
    named = (f" = {n}/{n + 1}: the noisy sum is divided by the realised batch size, which "
             "depends on the data (opacus#819)" if abs(lam - ratio) <= 1e-6 * ratio else
             ": the noise's scale depends on the batch")
    return TrainingFinding(
        "the normaliser", f"adding one record to a batch of {n} multiplies the step's noise "
        f"by {lam:.9g}{named}; the Gaussian analysis of the accountant does not apply (the "
        "two batches' updates are Gaussians of different scales)")


def _additivity(u, d, moves, s1, noise, findings) -> None:
    """Each probe's move inside the batch against its move beside one record."""
    one = d[:1]
    c1 = u(one, s1)
    for r, scale, size, m1 in moves:
        if scale == SCALES[-1]:
            continue
        e1 = u(np.vstack([one, r]), s1) - c1
        if not np.all(np.isfinite(e1)):
            continue
        other = float(np.linalg.norm(e1))
        if not _close(e1, m1, noise + size + other, u.rtol, u.floor(c1, m1, e1)):
            findings.append(TrainingFinding(
                "the clipping", f"a record (probe ×{scale:g}) moves the update by {other:.6g}"
                f" beside one other record and by {size:.6g} inside the batch of {len(d)}: "
                "its contribution depends on the rest of the batch, so the clipping (or a "
                "rescaling) acts on the batch's summed or mean gradient, not on each "
                "example's gradient; one record can then move the sum by more than the "
                "clipping norm"))
            return


@dataclass(frozen=True)
class SampledNoise:
    """The step's noise measured from pairs of seeds, where the trace cannot follow it (a
    framework's own generator keyed from ``rng``): ``mu`` the move's upper confidence bound in
    units of the noise (None when a test failed), ``scale_low`` the noise's standard
    deviation's lower bound, ``pairs``, ``confidence`` and the ``tests`` (name → p-value)."""

    mu: float | None
    mu_low: float | None
    scale_low: float
    scale: float
    pairs: int
    confidence: float
    tests: dict
    detail: str


def sample_noise(step, data: np.ndarray, params: np.ndarray, base: np.ndarray,
                 worst: np.ndarray, seeds: np.ndarray, confidence: float) -> SampledNoise:
    """The noise of ``step`` on the batch ``data[base]`` from ``len(seeds) // 2`` pairs of
    seeds: z = (u(s) − u(s'))/√2 is the noise's difference, free of the data; isotropic
    Gaussian noise of standard deviation τ makes its d·K coordinates independent N(0, τ²).
    Tested at ``1 − confidence`` (Bonferroni over two tests): normality of z along the move
    of ``worst`` (Shapiro–Wilk) and the variance along the move against the pooled variance
    (an F test: isotropy where it matters); then τ's lower bound from the pooled χ² at
    ``confidence`` and μ = ‖move‖/τ_low, an upper confidence bound on the pair's normalised
    move (and ``mu_low`` = ‖move‖/τ_high, a lower one: the certified interval's lower end is
    read at it, so that a verdict of fail is not the confidence bound's doing)."""
    from scipy import stats

    u = _Caller(step, params)
    d = data[base]
    s0 = int(seeds[0])
    move = u(np.vstack([d, worst]), s0) - u(d, s0)
    norm = float(np.linalg.norm(move))
    pairs = (len(seeds) - 1) // 2
    z = np.array([(u(d, int(seeds[1 + 2 * k])) - u(d, int(seeds[2 + 2 * k]))) / np.sqrt(2)
                  for k in range(pairs)])
    dof = z.size
    pooled = float(np.sum(z ** 2) / dof)
    along = z @ (move / norm) if norm > 0 else np.zeros(pairs)
    level = (1 - confidence) / 2
    f = float(np.mean(along ** 2) / pooled) if pooled > 0 else np.inf
    tests = {"normal along the move": float(stats.shapiro(along).pvalue),
             "isotropic along the move": float(2 * min(stats.f.cdf(f, pairs, dof),
                                                       stats.f.sf(f, pairs, dof)))}
    low = float(np.sqrt(np.sum(z ** 2) / stats.chi2.ppf(1 - level, dof)))
    high = float(np.sqrt(np.sum(z ** 2) / stats.chi2.ppf(level, dof)))
    ok = all(p > level for p in tests.values()) and low > 0
    detail = (f"the noise sampled from {pairs} pairs of seeds: standard deviation "
              f"{np.sqrt(pooled):.6g} (at least {low:.6g} at {confidence:.0%}), "
              + ", ".join(f"{k} p = {p:.3g}" for k, p in tests.items()))
    return SampledNoise(mu=norm / low if ok else None, mu_low=norm / high if ok else None,
                        scale_low=low,
                        scale=float(np.sqrt(pooled)), pairs=pairs, confidence=confidence,
                        tests=tests, detail=detail)
