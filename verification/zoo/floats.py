"""Float attacks: noise-addition mechanisms whose floating-point implementation is not as
private as the real-arithmetic algorithm, and the snapping mechanism that repairs them.

Every mechanism releases one query answer ``f(d)`` (the single entry of ``dataset``) plus
noise, follows the zoo's contract ``mechanism(dataset, size, rng)`` and returns ``(size,)``
float64 drawn with the ``numpy.random.Generator`` ``rng`` only.

Why they leak (Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012). A double-precision noise sample ``Y`` is not a real number: it lies on
the floats its sampler can reach, and ``f(d) ⊕ Y`` is rounded to the floats near ``f(d) + Y``.
Two facts make the loss unbounded on the neighbouring answers 0 and 1:

* *the addition*: every double of magnitude at least 1/2 is a multiple of 2^-53, and when
  ``|1 + Y| < 1/2`` the sum ``1 ⊕ Y`` is exact (Sterbenz), ``Y`` having magnitude in
  ``(1/2, 3/2)``; so on ``f(d) = 1`` *every* output is a multiple of 2^-53, while on
  ``f(d) = 0`` the output is ``Y`` itself, and a ``Y`` of magnitude below 1/2 usually is not.
  The event "the output is not a multiple of 2^-53" has probability exactly 0 on 1, and on
  0 about ``Σ_k P(2^-(k+1) <= |Y| < 2^-k)·(1 − 2^-k)`` (a ``Y`` in that binade is a
  multiple of 2^-53 only if its ``k`` lowest mantissa bits are zero) — whatever the
  sampler, even one that reaches every double (:func:`laplace_full_uniform`);
* *the sampler* (Mironov's attack proper): the textbook inversion maps 2^53 uniform values
  onto the outputs, so only a sparse, input-dependent subset of the doubles is reachable
  from each ``f(d)``; :func:`laplace_exp_difference` even puts its small values on the
  coarse lattice of the larger exponential (catastrophic cancellation), which the sampler
  alone already shows (:func:`verification.audit.audit_sampler` with ``bits=True``).

The zoo's entries (suite ``"floats"``, :mod:`verification.zoo`) claim ε = 1/2 (and δ = 1e-5
for the Gaussians) on answers that move by at most 1:

* textbook Laplace — :func:`laplace_inversion` (inverse CDF of a 53-bit uniform),
  :func:`laplace_log_uniform` (``±b·ln U``), :func:`laplace_exp_difference`
  (``−b ln U1 + b ln U2``) and :func:`laplace_full_uniform` (a uniform reaching every
  double, Mironov's U*, but no snapping) — true ε = ∞;
* Gaussian mechanisms — :func:`gaussian_box_muller` (Box and Muller 1958),
  :func:`gaussian_polar` (Marsaglia and Bray 1964) and :func:`gaussian_ziggurat` (numpy's
  ziggurat ``standard_normal``), σ by the classical bound (Dwork and Roth 2014,
  Theorem A.1) — true ε = ∞ at δ = 1e-5: the lattice event above has probability about
  ``P(|Z| < 1/2) ≈ 0.04`` on 0 and 0 on 1, far above δ (Jin, McMurtry, Rubinstein,
  Ohrimenko, "Are we there yet? Timing and floating-point attacks on differential privacy
  systems", S&P 2022, attack the float Gaussian samplers of DP libraries);
* rounded continuous noise used as discrete noise — :func:`laplace_noise_truncated` rounds
  the *noise* toward zero (an integer cast) and claims the discrete Laplace's ε: zero
  collects ``Y ∈ (−1, 1)``, twice the mass of any other integer's cell, so the loss on
  integer answers is exactly ε + ln 2; :func:`laplace_output_rounded` rounds the *output*
  to the nearest integer, which is post-processing of ``f(d) + Y`` and hides the low bits:
  a control, ε-DP;
* :func:`snapping` — Mironov's snapping mechanism, the control that must pass.
"""

from __future__ import annotations

import math

import numpy as np

from privtools.errors import ParameterError

from .simple import as_queries, check_size

__all__ = [
    "uniform_53", "uniform_full", "random_sign",
    "laplace_inversion_noise", "laplace_log_uniform_noise", "laplace_exp_difference_noise",
    "laplace_full_uniform_noise", "gaussian_box_muller_noise", "gaussian_polar_noise",
    "gaussian_ziggurat_noise",
    "laplace_inversion", "laplace_log_uniform", "laplace_exp_difference",
    "laplace_full_uniform", "gaussian_box_muller", "gaussian_polar", "gaussian_ziggurat",
    "laplace_noise_truncated", "laplace_output_rounded", "snapping",
    "classical_gaussian_sigma", "snapping_epsilon", "snapping_lattice",
]


# ----------------------------------------------------------------------------- parameters

def _positive(name: str, value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def classical_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """σ = Δ·√(2 ln(1.25/δ))/ε, the classical Gaussian mechanism's noise (Dwork and Roth,
    The Algorithmic Foundations of Differential Privacy, 2014, Theorem A.1: (ε, δ)-DP for
    ε < 1 in real arithmetic)."""
    eps = _positive("epsilon", epsilon)
    if eps >= 1:
        raise ParameterError(f"epsilon must be < 1 for the classical Gaussian bound, got "
                             f"{epsilon!r}")
    d = _positive("delta", delta)
    if d >= 1:
        raise ParameterError(f"delta must be < 1, got {delta!r}")
    return _positive("sensitivity", sensitivity) * math.sqrt(2 * math.log(1.25 / d)) / eps


# ----------------------------------------------------------------------------- uniforms

def uniform_53(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniforms on ``(0, 1]`` with 53-bit resolution: ``1 − U`` for numpy's
    ``U = k·2^-53`` — the multiples of 2^-53, each with probability 2^-53."""
    return 1.0 - rng.random(n)


def _bit_length(w: np.ndarray) -> np.ndarray:
    """Bit length of non-zero uint64 values, exactly (no rounding in the float conversion:
    the top 53 bits are converted on their own)."""
    hi = w >> np.uint64(11)
    _, e_hi = np.frexp(hi.astype(np.float64))
    _, e_lo = np.frexp(w.astype(np.float64))        # exact when w < 2^53, i.e. hi == 0
    return np.where(hi > 0, e_hi.astype(np.int64) + 11, e_lo.astype(np.int64))


def uniform_full(rng: np.random.Generator, n: int) -> np.ndarray:
    """Mironov's U*: each double in ``(0, 1)`` with probability equal to its ulp, i.e. the
    real uniform rounded down to the doubles (Mironov 2012, Section 5.2: "an exponent from
    the geometric distribution with parameter 1/2 and a significand drawn uniformly from
    {0,1}^52"). The exponent counts the leading zeros of a stream of random 64-bit words;
    exponents below −1022 (probability 2^-1022) are clamped to −1022."""
    mant = rng.integers(0, 1 << 52, size=n, dtype=np.uint64)
    zeros = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        w = rng.integers(0, 1 << 64, size=todo.size, dtype=np.uint64)
        hit = w != 0
        zeros[todo[hit]] += 64 - _bit_length(w[hit])
        zeros[todo[~hit]] += 64
        todo = todo[~hit]
    expo = (1022 - np.minimum(zeros, 1021)).astype(np.uint64)   # U* in [2^-(g+1), 2^-g)
    return ((expo << np.uint64(52)) | mant).view(np.float64)


def random_sign(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fair signs ±1.0."""
    return np.where(rng.integers(0, 2, size=n) == 1, -1.0, 1.0)


# ----------------------------------------------------------------------------- Laplace noise

def _uniform_grid(rng: np.random.Generator, n: int, resolution: int) -> np.ndarray:
    """``n`` uniforms ``k·2^-r`` on ``(0, 1)`` (``r = resolution``; 0 is drawn again)."""
    if resolution == 53:
        u = rng.random(n)
    else:
        u = np.ldexp(rng.integers(0, 1 << resolution, size=n).astype(np.float64), -resolution)
    bad = u == 0.0
    while bad.any():
        u[bad] = _uniform_grid(rng, int(bad.sum()), resolution)
        bad = u == 0.0
    return u


def laplace_inversion_noise(rng: np.random.Generator, scale: float, n: int, *,
                            resolution: int = 53) -> np.ndarray:
    """Lap(0, ``scale``) by inverting its CDF at a uniform of ``resolution`` bits — the
    textbook sampler of Mironov (2012, Section 3): ``r = U − 1/2``,
    ``Y = −b·sgn(r)·ln(1 − 2|r|)``, ``U = k·2^-resolution`` (53: numpy's ``random()``; 32:
    the ``rand()/RAND_MAX`` style of C code); ``U = 0``, where the log is infinite, is drawn
    again. numpy's ``Generator.laplace`` computes the same inversion at 53 bits."""
    if not (isinstance(resolution, int) and 1 <= resolution <= 53):
        raise ParameterError(f"resolution must be an int in [1, 53], got {resolution!r}")
    u = _uniform_grid(rng, n, resolution)
    r = u - 0.5
    return -scale * np.sign(r) * np.log(1.0 - 2.0 * np.abs(r))


def laplace_log_uniform_noise(rng: np.random.Generator, scale: float, n: int) -> np.ndarray:
    """Lap(0, ``scale``) as ``S·b·ln U``: an exponential magnitude ``−b ln U`` (``U`` 53-bit
    on ``(0, 1]``) with a fair sign ``S``."""
    return random_sign(rng, n) * (scale * np.log(uniform_53(rng, n)))


def laplace_exp_difference_noise(rng: np.random.Generator, scale: float,
                                 n: int) -> np.ndarray:
    """Lap(0, ``scale``) as the difference of two exponentials, ``−b ln U1 + b ln U2``
    (the identity Lap = Exp − Exp; Kotz, Kozubowski, Podgórski, The Laplace Distribution
    and Generalizations, 2001). The subtraction cancels: a small output is a multiple of
    the ulp of the larger exponential, so its low bits are zero."""
    e1 = -scale * np.log(uniform_53(rng, n))
    e2 = -scale * np.log(uniform_53(rng, n))
    return e1 - e2


def laplace_full_uniform_noise(rng: np.random.Generator, scale: float,
                               n: int) -> np.ndarray:
    """Lap(0, ``scale``) as ``S·b·ln U*`` with Mironov's full-resolution uniform
    (:func:`uniform_full`): the noise of the snapping mechanism, which reaches every double
    at the precision of ``ln``."""
    return random_sign(rng, n) * (scale * np.log(uniform_full(rng, n)))


# ----------------------------------------------------------------------------- Gaussian noise

def gaussian_box_muller_noise(rng: np.random.Generator, sigma: float, n: int) -> np.ndarray:
    """N(0, σ²) by the Box–Muller transform (Box and Muller, "A note on the generation of
    random normal deviates", 1958): ``R = √(−2 ln U1)``, ``θ = 2π U2``, the pair
    ``(R cos θ, R sin θ)`` — both used, ``U1`` 53-bit on ``(0, 1]``, ``U2`` on ``[0, 1)``."""
    m = (n + 1) // 2
    radius = np.sqrt(-2.0 * np.log(uniform_53(rng, m)))
    theta = 2.0 * np.pi * rng.random(m)
    z = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)])[:n]
    return sigma * z


def gaussian_polar_noise(rng: np.random.Generator, sigma: float, n: int) -> np.ndarray:
    """N(0, σ²) by Marsaglia's polar method (Marsaglia and Bray, "A convenient method for
    generating normal variables", SIAM Review 1964): ``u, v`` uniform on ``[−1, 1)``,
    rejected unless ``0 < s = u² + v² < 1``, then the pair ``u·√(−2 ln s / s)``,
    ``v·√(−2 ln s / s)`` — both used."""
    m = (n + 1) // 2
    us, vs, have = [np.empty(0)], [np.empty(0)], 0
    while have < m:
        k = int((m - have) / 0.78) + 16
        u = 2.0 * rng.random(k) - 1.0
        v = 2.0 * rng.random(k) - 1.0
        s = u * u + v * v
        ok = (s > 0) & (s < 1)
        us.append(u[ok])
        vs.append(v[ok])
        have += int(ok.sum())
    u, v = np.concatenate(us)[:m], np.concatenate(vs)[:m]
    s = u * u + v * v
    f = np.sqrt(-2.0 * np.log(s) / s)
    return sigma * np.concatenate([u * f, v * f])[:n]


def gaussian_ziggurat_noise(rng: np.random.Generator, sigma: float, n: int) -> np.ndarray:
    """N(0, σ²) as ``σ·Z`` with numpy's ``standard_normal``, a ziggurat sampler (Marsaglia and
    Tsang, "The ziggurat method for generating random variables", 2000): a 52-bit random
    integer times a layer width, with exact tail and wedge corrections."""
    return sigma * rng.standard_normal(n)


# ----------------------------------------------------------------------------- mechanisms

def _answer(dataset) -> float:
    return float(as_queries(dataset, length=1)[0])


def _additive(dataset, size, rng, noise, scale) -> np.ndarray:
    n = check_size(size, rng)
    x = _answer(dataset)
    out = noise(rng, scale, n)
    out += x
    return out


def laplace_inversion(dataset, size, rng, *, epsilon: float = 0.5) -> np.ndarray:
    """``f(d) ⊕ Y`` with ``Y`` from :func:`laplace_inversion_noise` at scale 1/ε — the float
    Laplace mechanism Mironov attacks (CCS 2012, Sections 3–4). ε-DP in real arithmetic,
    not ε-DP for any finite ε in doubles (see the module doc)."""
    return _additive(dataset, size, rng, laplace_inversion_noise,
                     1.0 / _positive("epsilon", epsilon))


def laplace_log_uniform(dataset, size, rng, *, epsilon: float = 0.5) -> np.ndarray:
    """``f(d) ⊕ S·(1/ε)·ln U`` (:func:`laplace_log_uniform_noise`); true ε = ∞ in doubles."""
    return _additive(dataset, size, rng, laplace_log_uniform_noise,
                     1.0 / _positive("epsilon", epsilon))


def laplace_exp_difference(dataset, size, rng, *, epsilon: float = 0.5) -> np.ndarray:
    """``f(d) ⊕ (−(1/ε) ln U1 + (1/ε) ln U2)`` (:func:`laplace_exp_difference_noise`); true
    ε = ∞ in doubles."""
    return _additive(dataset, size, rng, laplace_exp_difference_noise,
                     1.0 / _positive("epsilon", epsilon))


def laplace_full_uniform(dataset, size, rng, *, epsilon: float = 0.5) -> np.ndarray:
    """``f(d) ⊕ S·(1/ε)·ln U*`` with the full-resolution uniform but *without* snapping: the
    sampler reaches every double, and still the sum leaks (the lattice of ``1 ⊕ Y``; see
    the module doc) — true ε = ∞ in doubles."""
    return _additive(dataset, size, rng, laplace_full_uniform_noise,
                     1.0 / _positive("epsilon", epsilon))


def _sigma(epsilon, delta) -> float:
    return classical_gaussian_sigma(epsilon, delta)


def gaussian_box_muller(dataset, size, rng, *, epsilon: float = 0.5,
                        delta: float = 1e-5) -> np.ndarray:
    """``f(d) ⊕ σZ``, ``Z`` by Box–Muller, σ = √(2 ln(1.25/δ))/ε: (ε, δ)-DP in real
    arithmetic (Dwork–Roth Theorem A.1), no finite ε at δ in doubles."""
    return _additive(dataset, size, rng, gaussian_box_muller_noise, _sigma(epsilon, delta))


def gaussian_polar(dataset, size, rng, *, epsilon: float = 0.5,
                   delta: float = 1e-5) -> np.ndarray:
    """``f(d) ⊕ σZ``, ``Z`` by Marsaglia's polar method, σ as :func:`gaussian_box_muller`."""
    return _additive(dataset, size, rng, gaussian_polar_noise, _sigma(epsilon, delta))


def gaussian_ziggurat(dataset, size, rng, *, epsilon: float = 0.5,
                      delta: float = 1e-5) -> np.ndarray:
    """``f(d) ⊕ σZ``, ``Z`` from numpy's ziggurat, σ as :func:`gaussian_box_muller`."""
    return _additive(dataset, size, rng, gaussian_ziggurat_noise, _sigma(epsilon, delta))


def _clamped_count(dataset, bound: float) -> float:
    x = _answer(dataset)
    return min(max(x, -bound), bound)


def _check_bound(bound, scale) -> float:
    b = _positive("bound", bound)
    if 2 * b + 1 > 24 * scale:
        raise ParameterError(f"bound must keep 2·bound + 1 <= 24·scale = {24 * scale:g} (deep "
                             f"inside the noise sampler's reach), got {bound!r}")
    return b


def laplace_noise_truncated(dataset, size, rng, *, epsilon: float = 0.5,
                            bound: float = 8.0) -> np.ndarray:
    """A count plus Laplace noise *rounded toward zero* (an integer cast), used as if it were
    the discrete Laplace (geometric mechanism, Ghosh, Roughgarden, Sundararajan 2009) of
    parameter ε: ``clamp_B(clamp_B(f(d)) + trunc(Y))``, ``Y`` textbook Lap(1/ε), ``B =
    bound``.

    ``trunc(Y) = 0`` on ``(−1, 1)`` — probability ``1 − e^-ε`` — while ``trunc(Y) = j ≠ 0``
    has ``e^-ε|j|·(1 − e^-ε)/2``: the zero cell holds twice the mass the discrete law gives
    it, so on integer counts ``P(0 | f) / P(0 | f + 1) = 2e^ε`` and the true privacy is
    exactly ε + ln 2 (the clamped ends have the smaller ratio ``2e^ε − 1``)."""
    scale = 1.0 / _positive("epsilon", epsilon)
    b = _check_bound(bound, scale)
    n = check_size(size, rng)
    x = _clamped_count(dataset, b)
    out = np.trunc(laplace_inversion_noise(rng, scale, n))
    out += x
    return np.clip(out, -b, b)


def laplace_output_rounded(dataset, size, rng, *, epsilon: float = 0.5,
                           bound: float = 8.0) -> np.ndarray:
    """A count plus textbook Laplace noise, the *output* rounded to the nearest integer:
    ``clamp_B(rint(clamp_B(f(d)) ⊕ Y))``, ``Y`` Lap(1/ε) by inversion, ``B = bound``.

    Rounding the sum is post-processing of the Laplace mechanism on the clamped answer
    (sensitivity 1), so it is ε-DP in real arithmetic; in doubles the rounding to ℤ erases
    the low bits that leak, and the only float effects are the sampler's discretisation
    (``2^-53`` per uniform value) and the rounding of ``f ⊕ Y`` near the cell boundaries
    ``k + 1/2`` — a relative change below 1e-8 in the masses of the ``2B + 1`` outputs,
    which ``2B + 1 <= 24/ε`` keeps deep inside the sampler's reach ``52 ln 2/ε``."""
    scale = 1.0 / _positive("epsilon", epsilon)
    b = _check_bound(bound, scale)
    n = check_size(size, rng)
    x = _clamped_count(dataset, b)
    out = laplace_inversion_noise(rng, scale, n)
    out += x
    out = np.rint(out)
    out += 0.0                                        # −0.0 (from rint of (−1/2, 0)) to 0.0
    return np.clip(out, -b, b)


# ----------------------------------------------------------------------------- snapping

def snapping_lattice(scale: float) -> float:
    """Λ, the smallest power of two ≥ ``scale`` (exact, from the binary exponent)."""
    m, e = math.frexp(_positive("scale", scale))
    return scale if m == 0.5 else math.ldexp(1.0, e)


def snapping_epsilon(scale: float, bound: float) -> float:
    """The privacy of the snapping mechanism for answers of sensitivity 1: (1/λ +
    2^-49·B/λ)-DP for λ < B < 2^46·λ (Mironov 2012, Section 5.2, Theorem 1, with a
    correctly rounded logarithm)."""
    lam, b = _positive("scale", scale), _positive("bound", bound)
    if not lam < b < 2.0**46 * lam:
        raise ParameterError(f"bound must satisfy scale < bound < 2^46·scale (Mironov's "
                             f"theorem), got scale = {scale!r}, bound = {bound!r}")
    return 1.0 / lam + 2.0**-49 * b / lam


def snapping(dataset, size, rng, *, scale: float = 2.0, bound: float = 1024.0) -> np.ndarray:
    """Mironov's snapping mechanism (CCS 2012, Section 5.2):

        f̃(d) = clamp_B(⌊clamp_B(f(d)) ⊕ S ⊗ λ ⊗ LN(U*)⌉_Λ)

    with ``λ = scale``, ``B = bound``, ``U*`` the full-resolution uniform
    (:func:`uniform_full`), ``S`` a fair sign, ``Λ`` the smallest power of two ≥ λ
    (:func:`snapping_lattice`) and ``⌊·⌉_Λ`` rounding to the nearest multiple of Λ (ties
    toward +∞, done exactly: ``x/Λ`` is exact and its fraction is read without rounding).
    Every output is a multiple of Λ in ``[−B, B]``; the mechanism is
    (1/λ + 2^-49·B/λ)-DP (:func:`snapping_epsilon`). ``LN`` here is numpy's ``log``, a
    faithful but not proven correctly rounded logarithm — the theorem assumes the latter."""
    lam = _positive("scale", scale)
    b = _positive("bound", bound)
    snapping_epsilon(lam, b)                          # checks λ < B < 2^46·λ
    big = snapping_lattice(lam)
    n = check_size(size, rng)
    x = min(max(_answer(dataset), -b), b)
    y = laplace_full_uniform_noise(rng, lam, n)
    y += x
    y /= big                                          # exact: a power of two
    whole = np.floor(y)
    up = (y - whole) >= 0.5                           # exact below 2^52
    out = (whole + up) * big
    return np.clip(out, -b, b)
