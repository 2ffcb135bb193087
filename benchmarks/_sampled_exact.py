"""Exact privacy curves of sampled mechanisms, in mpmath at 100 digits, for
``bench_sampled_accounting.py``.

Every curve here is the hockey-stick divergence δ(ε) of a dominating pair, with both
directions taken and the larger one kept (add/remove for Poisson sampling, the pair and its
reverse for sampling without replacement). With (P, Q) the pair of one release and γ the
sampling rate, the sampled pair is (M, Q) and (Q, M), M = γP + (1 − γ)Q.

    rr_delta(eps0, rate, k, eps)        k-fold randomized response at ε₀ inside the sampler:
                                        a binomial sum over the two output symbols
    gaussian_sampled_delta(sigma, rate, eps)
                                        one sampled Gaussian release (sensitivity 1), closed
                                        form in normal CDFs
    gaussian_delta(sigma, k, eps)       k Gaussian releases, no sampling: μ-GDP, μ = √k/σ
    epsilon_for_delta(curve, delta)     ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ} by bisection, returned
                                        as a bracket (a, b) with δ(a) > δ ≥ δ(b)

Also the benchmark's one non-numeric helper: ``load_opacus_accountants()``, Opacus's
accountant modules read without torch.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from fractions import Fraction
from pathlib import Path

import mpmath

DPS = 100                      # working digits
BRACKET = mpmath.mpf(10) ** -85  # relative width at which the ε bisection stops

__all__ = ["DPS", "rr_delta", "gaussian_sampled_delta", "gaussian_delta",
           "epsilon_for_delta", "mpf", "load_opacus_accountants"]


def mpf(x) -> mpmath.mpf:
    """``x`` (int, float, str or Fraction) as an mpf, exactly for Fractions and floats."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _hockey_two_points(a: tuple, b: tuple, k: int, eps) -> mpmath.mpf:
    """H_{e^ε}(A^k ‖ B^k) for two distributions A, B on two points: the k-fold outcome is
    summarised by how many times the first point came up."""
    e = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for j in range(k + 1):
        pa = a[0] ** j * a[1] ** (k - j)
        pb = b[0] ** j * b[1] ** (k - j)
        gap = pa - e * pb
        if gap > 0:
            total += mpmath.binomial(k, j) * gap
    return total


def rr_delta(eps0, rate, k: int, eps) -> mpmath.mpf:
    """Exact δ(ε) of k runs of ε₀-randomized response inside a sampler of rate ``rate``
    (Poisson with q = rate under add/remove, or without replacement at γ = rate under
    replace-one): the larger of H(M^k ‖ Q^k) and H(Q^k ‖ M^k)."""
    with mpmath.workdps(DPS):
        e0 = mpmath.exp(mpf(eps0))
        g = mpf(rate)
        p = (e0 / (1 + e0), 1 / (1 + e0))
        q = (p[1], p[0])
        m = (g * p[0] + (1 - g) * q[0], g * p[1] + (1 - g) * q[1])
        eps = mpf(eps)
        return +max(_hockey_two_points(m, q, k, eps), _hockey_two_points(q, m, k, eps))


def gaussian_sampled_delta(sigma, rate, eps) -> mpmath.mpf:
    """Exact δ(ε) of one Gaussian release N(·, σ²) of sensitivity 1 inside a sampler of
    rate ``rate``. With μ = 1/(2σ²), s = √(2μ), the loss of the inner pair is N(μ, 2μ)
    under P and N(−μ, 2μ) under Q.

    remove, (M, Q): δ = γ(Φ((μ − t)/s) − e^t Φ((−μ − t)/s)), e^t = 1 + (e^ε − 1)/γ;
    add, (Q, M): when e^{−ε} > 1 − γ, t₂ = log((e^{−ε} − 1 + γ)/γ) and
    δ = (1 − e^ε(1 − γ)) Φ((t₂ + μ)/s) − γ e^ε Φ((t₂ − μ)/s), otherwise 0."""
    with mpmath.workdps(DPS):
        sig, g, eps = mpf(sigma), mpf(rate), mpf(eps)
        mu = 1 / (2 * sig**2)
        s = mpmath.sqrt(2 * mu)
        e = mpmath.exp(eps)
        et = 1 + (e - 1) / g
        t = mpmath.log(et)
        remove = g * (mpmath.ncdf((mu - t) / s) - et * mpmath.ncdf((-mu - t) / s))
        add = mpmath.mpf(0)
        if 1 / e > 1 - g:
            t2 = mpmath.log((1 / e - 1 + g) / g)
            add = (1 - e * (1 - g)) * mpmath.ncdf((t2 + mu) / s) \
                - g * e * mpmath.ncdf((t2 - mu) / s)
        return +max(remove, add, mpmath.mpf(0))


def gaussian_delta(sigma, k: int, eps) -> mpmath.mpf:
    """Exact δ(ε) of k Gaussian releases N(·, σ²), sensitivity 1, without sampling: the
    composition is μ-GDP with μ = √k/σ, δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)."""
    with mpmath.workdps(DPS):
        mu = mpmath.sqrt(k) / mpf(sigma)
        eps = mpf(eps)
        return +(mpmath.ncdf(-eps / mu + mu / 2)
                 - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2))


def epsilon_for_delta(curve, delta) -> tuple[mpmath.mpf, mpmath.mpf]:
    """ε(δ) = inf{ε ≥ 0 : curve(ε) ≤ δ} of a non-increasing ``curve``, as a bracket (a, b)
    of relative width at most 1e-85: curve(a) > δ ≥ curve(b) (a = b = 0 when curve(0) ≤ δ).
    """
    with mpmath.workdps(DPS):
        d = mpf(delta)
        if curve(0) <= d:
            return mpmath.mpf(0), mpmath.mpf(0)
        a, b = mpmath.mpf(0), mpmath.mpf(1)
        while curve(b) > d:
            a, b = b, 2 * b
        while b - a > BRACKET * b:
            mid = (a + b) / 2
            if curve(mid) > d:
                a = mid
            else:
                b = mid
        return a, b


def load_opacus_accountants():
    """Opacus's accountant modules loaded by file path under a private package name,
    without importing torch. Only ``opacus/accountants/accountant.py`` needs torch (for
    its optimizer hook); its base class ``IAccountant`` only holds the ``history`` list,
    so a stand-in of that class is registered in its place. Returns (rdp, prv) modules."""
    spec = importlib.util.find_spec("opacus")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("opacus is not installed")
    root = Path(list(spec.submodule_search_locations)[0]) / "accountants"
    pkg = types.ModuleType("_opacus_accountants")
    pkg.__path__ = [str(root)]
    base = types.ModuleType("_opacus_accountants.accountant")

    class IAccountant:
        """Stand-in for opacus.accountants.accountant.IAccountant (torch-free)."""

        def __init__(self):
            self.history = []

    base.IAccountant = IAccountant
    sys.modules["_opacus_accountants"] = pkg
    sys.modules["_opacus_accountants.accountant"] = base
    rdp = importlib.import_module("_opacus_accountants.rdp")
    prv = importlib.import_module("_opacus_accountants.prv")
    if "torch" in sys.modules:                      # pragma: no cover - would mean it leaked
        raise ImportError("loading Opacus's accountants imported torch")
    return rdp, prv
