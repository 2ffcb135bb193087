"""The libraries audited by ``conformance.py``: how each is loaded (and its version), the
wrappers around their mechanisms, the numpy share samplers people write for distributed DP
(Pólya, Pólya-difference and Skellam shares; Theorem 1 and Fact 1 of paper 000) and the
reference transforms of the laws of bounded mechanisms."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import math
import re
import sys
import types
from collections.abc import Callable

import numpy as np
import scipy.stats as st

from privtools.errors import ParameterError
from privtools.noise import (
    Polya,
    PolyaDifference,
    Skellam,
)
from privtools.testing import adapters
from privtools.validation import check_int


# ====================================================================== libraries
def load_opendp():
    """``opendp.prelude`` with the "contrib" feature enabled (the only one these mechanisms
    and the zCDP → (ε, δ) conversion need), or None when OpenDP is not installed."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    return dp


_DIFFPRIVLIB: tuple | None = None


def load_diffprivlib():
    """``(diffprivlib.mechanisms or None, note)``.

    diffprivlib's package ``__init__`` imports its scikit-learn models; with a scikit-learn
    newer than it supports that import fails although ``diffprivlib.mechanisms`` uses no
    part of it. The mechanisms are then loaded under a bare package module (no
    ``__init__``), and the note says so."""
    global _DIFFPRIVLIB
    if _DIFFPRIVLIB is not None:
        return _DIFFPRIVLIB
    try:
        import diffprivlib.mechanisms as mech

        _DIFFPRIVLIB = (mech, "")
        return _DIFFPRIVLIB
    except ImportError as exc:
        # the message without the file paths of this machine
        failure = re.sub(r" \(/[^)]*\)", "", f"{type(exc).__name__}: {exc}")
    for name in [k for k in sys.modules if k == "diffprivlib" or k.startswith("diffprivlib.")]:
        del sys.modules[name]
    spec = importlib.util.find_spec("diffprivlib")
    if spec is None or not spec.submodule_search_locations:
        _DIFFPRIVLIB = (None, "not installed")
        return _DIFFPRIVLIB
    pkg = types.ModuleType("diffprivlib")
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["diffprivlib"] = pkg
    try:
        mech = importlib.import_module("diffprivlib.mechanisms")
    except ImportError as exc:
        del sys.modules["diffprivlib"]
        _DIFFPRIVLIB = (None, f"cannot be imported ({type(exc).__name__}: {exc})")
        return _DIFFPRIVLIB
    _DIFFPRIVLIB = (mech, (
        f"`import diffprivlib` fails here ({failure}, in the package's scikit-learn "
        "models); `diffprivlib.mechanisms` does not use them and was loaded without the "
        "package `__init__`"))
    return _DIFFPRIVLIB


def load_pydp():
    try:
        import pydp.algorithms.numerical_mechanisms as nm
    except ImportError:
        return None
    return nm


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


LIBRARIES = {
    # name: (distribution, loader, randomness)
    "opendp": ("opendp", lambda: load_opendp(),
               "OpenDP's own (OS-seeded CSPRNG in Rust): cannot be seeded, runs are not "
               "bit-reproducible"),
    "diffprivlib": ("diffprivlib", lambda: load_diffprivlib()[0],
                    "seeded: each call builds the mechanism with `random_state` = an integer "
                    "drawn from the audit's numpy Generator (a numpy `RandomState`, not the "
                    "`secrets` generator it uses when unseeded)"),
    "python-dp": ("python-dp", lambda: load_pydp(),
                  "the library's own (C++, not seedable from Python): runs are not "
                  "bit-reproducible"),
    "numpy": ("numpy", lambda: np, "the audit's numpy Generator (PCG64): bit-reproducible"),
}


# ====================================================================== wrappers
# OpenDP measurements and diffprivlib mechanisms are wrapped, and their privacy claims read,
# by privtools' public adapters (privtools.testing.adapters), as users audit them. Kept
# here: the batch form of an OpenDP vector measurement (one call for ``size`` draws, where
# the adapter makes one call per output) and python-dp, which has no adapter.
class OpenDPBatch:
    """An OpenDP measurement on a vector domain, as adapted by :func:`adapters.opendp`,
    releasing ``size`` independent draws of its scalar mechanism on the query answer
    ``dataset``: one output on the dataset of ``size`` copies of the answer. ``rng`` is not
    used: OpenDP draws its own randomness."""

    def __init__(self, adapted: adapters.AdaptedMechanism):
        self.adapted = adapted

    def __call__(self, dataset, size, rng=None):
        return self.adapted([dataset] * int(size), 1, rng)[0]


class PyDPNoise:
    """python-dp's ``add_noise`` called ``size`` times on the query answer ``dataset`` (an
    int answer takes the integer overload). ``rng`` is not used: python-dp draws its own
    randomness."""

    def __init__(self, target, integer: bool):
        self.target = target
        self.integer = integer

    def __call__(self, dataset, size, rng=None):
        value = int(dataset) if self.integer else float(dataset)
        add = self.target.add_noise
        return np.fromiter((add(value) for _ in range(int(size))), count=int(size),
                           dtype=np.int64 if self.integer else np.float64)


def _polya_p(scale) -> float:
    """numpy's success probability for Pólya(·, β = e^{-1/s}): p = 1 − β."""
    return -math.expm1(-1.0 / float(scale))


def polya_share(n: int, scale) -> Callable:
    """One user's Pólya share as commonly written: ``rng.negative_binomial(1/n, 1 − e^{-1/s})``
    (law Pólya(1/n, e^{-1/s}); ``scale`` checked by Pólya's parameter table)."""
    n = check_int("n", n, minimum=1)
    Polya.parameter("scale").check(scale)
    r, p = 1.0 / n, _polya_p(scale)

    def sampler(size, rng):
        return rng.negative_binomial(r, p, size)

    return sampler


def polya_difference_share(n: int, scale) -> Callable:
    """γ⁺ − γ⁻ of two such Pólya shares: one user's share of Lap_Z(s) (Theorem 1, 000);
    ``scale`` checked by the Pólya difference's parameter table."""
    n = check_int("n", n, minimum=1)
    PolyaDifference.parameter("scale").check(scale)
    r, p = 1.0 / n, _polya_p(scale)

    def sampler(size, rng):
        return rng.negative_binomial(r, p, size) - rng.negative_binomial(r, p, size)

    return sampler


def share_sum(share: Callable, n: int) -> Callable:
    """The sum of ``n`` i.i.d. draws of ``share(size, rng)`` (one vector per user)."""
    n = check_int("n", n, minimum=1)

    def sampler(size, rng):
        total = np.zeros(int(size), dtype=np.int64)
        for _ in range(n):
            total += share(size, rng)
        return total

    return sampler


def skellam_share(mu) -> Callable:
    """``rng.poisson(mu) − rng.poisson(mu)``: one user's Skellam share, law Sk(0, 2 mu) (its
    variance 2 mu checked by Skellam's parameter table)."""
    mu = float(mu)
    if not mu > 0:
        raise ParameterError(f"mu must be > 0, got {mu!r}")
    Skellam.parameter("var").check(2 * mu, name="2 mu")

    def sampler(size, rng):
        return rng.poisson(mu, size) - rng.poisson(mu, size)

    return sampler


class SharedNoise:
    """``mechanism(dataset, size, rng)``: the answer plus the sum of n users' shares."""

    def __init__(self, sampler: Callable):
        self.sampler = sampler

    def __call__(self, dataset, size, rng):
        return int(dataset) + self.sampler(size, rng)


# ---------------------------------------------------------------- reference laws
def rounded_laplace_table(b: float) -> dict:
    """{k: P(round(L) = k)} for L ~ Laplace(0, b): 1 − e^{-1/(2b)} at 0 and
    ½ e^{-(|k| − ½)/b} (1 − e^{-1/b}) elsewhere, up to tails below 1e-17."""
    k_max = int(math.ceil(b * (40 * math.log(10) + 1))) + 1
    k = np.arange(1, k_max + 1, dtype=float)
    side = 0.5 * np.exp(-(k - 0.5) / b) * -math.expm1(-1.0 / b)
    table = {0: -math.expm1(-0.5 / b)}
    for j, q in zip(range(1, k_max + 1), side):
        table[j] = float(q)
        table[-j] = float(q)
    total = math.fsum(table.values())
    return {j: q / total for j, q in table.items()}


def truncated_pit(draws, b: float, lower: float, upper: float, rng) -> np.ndarray:
    """Randomised probability-integral transform of Laplace(0, b) clipped to [lower, upper]:
    Uniform(0, 1) exactly when the draws follow that law (the atoms at the bounds are spread
    with fresh uniforms from ``rng``); draws outside the bounds map to NaN."""
    x = np.asarray(draws, dtype=np.float64)
    law = st.laplace(scale=b)
    u = law.cdf(x)
    v = rng.random(x.size)
    lo, hi = law.cdf(lower), law.sf(upper)
    u = np.where(x == lower, v * lo, u)
    u = np.where(x == upper, 1.0 - hi + v * hi, u)
    return np.where((x < lower) | (x > upper), np.nan, u)


def bounded_pit(draws, b: float, lower: float, upper: float) -> np.ndarray:
    """Probability-integral transform of Laplace(0, b) conditioned on [lower, upper]
    (Uniform(0, 1) under that law); draws outside the bounds map to NaN."""
    x = np.asarray(draws, dtype=np.float64)
    law = st.laplace(scale=b)
    lo, mass = law.cdf(lower), law.cdf(upper) - law.cdf(lower)
    u = (law.cdf(x) - lo) / mass
    return np.where((x < lower) | (x > upper), np.nan, u)


_LOADED: dict = {}


def _library(name: str):
    if name not in _LOADED:
        _LOADED[name] = LIBRARIES[name][1]()
    return _LOADED[name]
