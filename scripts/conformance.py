"""Conformance of third-party differential-privacy libraries: their laws and their claims.

Every mechanism is audited twice with the black-box auditors of :mod:`verification.audit`:

* its **law** — ``audit_sampler`` on the noise it adds to 0, against the law its
  documentation claims, with the library's parameterisation translated exactly (integer
  mechanisms against privtools' exact ``DiscreteLaplace`` / ``DiscreteGaussian``, float
  mechanisms against ``scipy.stats``);
* its **privacy claim** — ``audit_mechanism`` on the neighbouring query answers 0 and 1
  (sensitivity 1) and 2^20 and 2^20 + 1 (where float artefacts grow), at ε ∈ {0.1, 1, 3, 10}
  and, for the approximate-DP mechanisms, δ ∈ {1e-6, 1e-3, 0.1}.

Libraries, each where installed (otherwise the table says so): OpenDP (``make_laplace``,
``make_geometric``, ``make_gaussian`` on float and integer domains), diffprivlib
(``diffprivlib.mechanisms``), python-dp (``pydp.algorithms.numerical_mechanisms``), and the
numpy share samplers people write for distributed DP — Pólya shares
``rng.negative_binomial(r, 1 - exp(-1/s))`` with fractional r, their differences (the share
of the discrete Laplace, Theorem 1 of paper 000) and Skellam shares
``rng.poisson(mu) - rng.poisson(mu)`` — with the sums of n shares against the laws they
should sum to.

Privacy audits of float outputs also try the auditor's bit-level events (``bits=True``;
``--no-bits`` audits the real-arithmetic algorithm
only), so they judge the doubles a library returns (Mironov, CCS 2012). Laws are audited in
real arithmetic.

Every row is tested at level α = 0.01 / m, m the number of rows of the full grid of the
mode (Bonferroni), so the chance of any false alarm anywhere in the table is at most 1 %.
Each row has its own seed, derived from ``--seed`` and the row's id, so one row can be
repeated alone with ``--only ROW_ID``; the draws repeat bit for bit where the library can be
seeded (numpy, diffprivlib), not where it uses its own randomness (OpenDP, python-dp).

Usage::

    python scripts/conformance.py                  # full grid -> docs/conformance.md
    python scripts/conformance.py --quick          # reduced grid, about a minute
    python scripts/conformance.py --only diffprivlib.Laplace --json out.json
    python scripts/conformance.py --only 'opendp.gaussian_float/privacy/*'
    python scripts/conformance.py --list           # the row ids

``--only`` takes comma-separated library names, mechanism keys, row ids or shell patterns
over row ids. Runs of a selection or of ``--quick`` print the markdown unless ``--markdown``
is given, so they never overwrite the full table.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import fnmatch  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import importlib.metadata  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from fractions import Fraction  # noqa: E402
from multiprocessing import get_context  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402

from privtools.errors import ParameterError  # noqa: E402
from privtools.noise import (  # noqa: E402
    DiscreteGaussian,
    DiscreteLaplace,
    Polya,
    PolyaDifference,
    Skellam,
)
from privtools.testing import adapters  # noqa: E402
from privtools.validation import check_int  # noqa: E402
from verification.audit import audit_mechanism, audit_sampler  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import describe  # noqa: E402 - sibling module

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MARKDOWN = "docs/conformance.md"
FAMILY_ALPHA = 0.01                     # chance of any false alarm in the whole table
BIG = 2**20                             # the large-magnitude pair: 2^20 and 2^20 + 1

FULL = {"eps": (0.1, 1.0, 3.0, 10.0), "delta": (1e-6, 1e-3, 0.1),
        "law_eps": (0.1, 1.0, 10.0), "law_delta": 1e-3, "pairs": ((0, 1), (BIG, BIG + 1)),
        "shares_n": (16, 1024)}
QUICK = {"eps": (1.0,), "delta": (1e-3,), "law_eps": (1.0,), "law_delta": 1e-3,
         "pairs": ((0, 1),), "shares_n": (16,)}
QUICK_DRAWS = 20_000
SHARE_SCALE = 4                 # Pólya shares: Lap_Z(4) in total (ε = 1/4 at sensitivity 1)
SKELLAM_VAR = 100               # Skellam shares: Sk(0, 100) in total
PRIVACY_SHARES = 16             # users whose Pólya-difference shares make the audited noise
SUM_DRAW_BUDGET = 10**8         # shares drawn per law audit of a sum of n shares (at most)


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
    (law Pólya(1/n, e^{-1/s}))."""
    n = check_int("n", n, minimum=1)
    r, p = 1.0 / n, _polya_p(scale)

    def sampler(size, rng):
        return rng.negative_binomial(r, p, size)

    return sampler


def polya_difference_share(n: int, scale) -> Callable:
    """γ⁺ − γ⁻ of two such Pólya shares: one user's share of Lap_Z(s) (Theorem 1, 000)."""
    n = check_int("n", n, minimum=1)
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
    """``rng.poisson(mu) − rng.poisson(mu)``: one user's Skellam share, law Sk(0, 2 mu)."""
    mu = float(mu)
    if not mu > 0:
        raise ParameterError(f"mu must be > 0, got {mu!r}")

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


# ====================================================================== the mechanisms
@dataclass
class Built:
    """One configured mechanism: ``mechanism(dataset, size, rng)``, the law of the noise it
    adds to 0 (``sampler(size, rng)`` against ``reference``) and what the table says."""

    mechanism: Callable | None
    sampler: Callable
    reference: object
    reference_text: str
    parameters: str = ""


@dataclass(frozen=True)
class Entry:
    """A mechanism of a library with its grid: ``build(lib, eps, delta, x0)`` -> Built."""

    key: str
    library: str
    label: str
    kind: str                    # "pure" (δ = 0) | "approx" | "law" (shares: law only)
    integer: bool
    n_law: int
    n_privacy: int
    cost_us: float               # rough µs per draw, to schedule the longest rows first
    build: Callable
    max_epsilon: float = math.inf
    note: str = ""


def _fmt(x) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    return f"{x:g}"


# ---------------------------------------------------------------- OpenDP
def _opendp_spaces(dp, integer: bool, l2: bool):
    t = int if integer else float
    atom = dp.atom_domain(T=int) if integer else dp.atom_domain(T=float, nan=False)
    metric = dp.l2_distance(T=t) if l2 else dp.l1_distance(T=t)
    return dp.vector_domain(atom), metric


def _opendp_pure(name: str, integer: bool):
    def build(dp, eps, delta, x0):
        space = _opendp_spaces(dp, integer, l2=False)
        make = getattr(dp.m, name)
        d_in = 1 if integer else 1.0
        scale = dp.binary_search_param(lambda s: make(*space, scale=s), d_in=d_in,
                                       d_out=float(eps))
        adapted = adapters.opendp(make(*space, scale=scale), name=name)
        mech = OpenDPBatch(adapted)
        if integer:
            ref, text = DiscreteLaplace(scale), f"Lap_Z({scale:.6g}) (privtools, exact)"
        else:
            ref, text = st.laplace(scale=scale), f"Laplace(0, {scale:.6g}) (scipy)"
        return Built(mech, lambda size, rng: mech(0, size, rng), ref, text,
                     f"scale = {scale:.6g}: ε = {adapted.epsilon:.6g} by OpenDP's map")
    return build


def _opendp_gaussian(integer: bool):
    def build(dp, eps, delta, x0):
        space = _opendp_spaces(dp, integer, l2=True)
        d_in = 1 if integer else 1.0

        def chain(s):
            meas = dp.m.make_gaussian(*space, scale=s)
            return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), float(delta))

        scale = dp.binary_search_param(chain, d_in=d_in, d_out=(float(eps), float(delta)))
        # the adapter reads (ε, δ) through the same chain: make_fix_delta(make_zCDP_to_approxDP)
        adapted = adapters.opendp(dp.m.make_gaussian(*space, scale=scale), delta=float(delta),
                                  name="make_gaussian")
        mech = OpenDPBatch(adapted)
        if integer:
            ref, text = DiscreteGaussian(sigma=scale), f"N_Z(0, {scale:.6g}²) (privtools, exact)"
        else:
            ref, text = st.norm(scale=scale), f"N(0, {scale:.6g}²) (scipy)"
        e, d = adapted.epsilon, adapted.delta
        return Built(mech, lambda size, rng: mech(0, size, rng), ref, text,
                     f"scale = {scale:.6g}: (ε, δ) = ({e:.6g}, {d:g}) by OpenDP's zCDP map "
                     "and make_zCDP_to_approxDP")
    return build


# ---------------------------------------------------------------- diffprivlib
def _dpl(name: str, integer: bool, bounded: bool = False):
    """A diffprivlib mechanism at sensitivity 1; ``bounded`` ones get the domain
    [x0 − 10, x0 + 10] around the pair."""
    def build(mod, eps, delta, x0):
        cls = getattr(mod, name)
        kw = {"epsilon": float(eps), "sensitivity": 1}
        if delta:
            kw["delta"] = float(delta)
        if bounded:
            kw["lower"], kw["upper"] = float(x0 - 10), float(x0 + 10)

        # the adapter seeds a copy per call from rng, as random_state=seed would
        mech = adapters.diffprivlib(cls(**kw), name=name)
        law_kw = dict(kw, lower=-10.0, upper=10.0) if bounded else kw
        law_mech = adapters.diffprivlib(cls(**law_kw), name=name)
        base = cls(**law_kw, random_state=0)

        def sampler(size, rng):
            return law_mech(0, size, rng)

        if name == "Laplace":
            b = 1.0 / float(eps)
            ref, text, par = st.laplace(scale=b), f"Laplace(0, {b:.6g}) (scipy)", \
                f"scale = Δ/ε = {b:.6g}"
        elif name == "LaplaceTruncated":
            b = 1.0 / float(eps)

            def truncated(size, rng):
                return truncated_pit(law_mech(0, size, rng), b, -10.0, 10.0, rng)
            sampler, ref = truncated, st.uniform()
            text = (f"Laplace(0, {b:.6g}) clipped to [−10, 10], through its randomised "
                    "probability-integral transform: Uniform(0, 1)")
            par = f"scale = Δ/ε = {b:.6g}, domain [x − 10, x + 10]"
        elif name == "LaplaceBoundedDomain":
            b = 1.0 / base.effective_epsilon()

            def conditioned(size, rng):
                return bounded_pit(law_mech(0, size, rng), b, -10.0, 10.0)
            sampler, ref = conditioned, st.uniform()
            text = (f"Laplace(0, {b:.6g}) conditioned on [−10, 10], through its "
                    "probability-integral transform: Uniform(0, 1)")
            par = (f"scale = Δ/effective_epsilon() = {b:.6g} (its calibration for the "
                   "domain), domain [x − 10, x + 10]")
        elif name == "Geometric":
            b = 1.0 / float(eps)
            ref, text = DiscreteLaplace(b), f"Lap_Z({b:.6g}) (privtools, exact)"
            par = f"P(k) ∝ e^(−ε|k|/Δ): Lap_Z(Δ/ε = {b:.6g})"
        elif name == "Gaussian":
            sigma = math.sqrt(2 * math.log(1.25 / float(delta))) / float(eps)
            ref, text = st.norm(scale=sigma), f"N(0, {sigma:.6g}²) (scipy)"
            par = (f"σ = √(2 ln(1.25/δ)) Δ/ε = {sigma:.6g} (variance() = "
                   f"{base.variance(0):.6g})")
        elif name == "GaussianAnalytic":
            sigma = math.sqrt(base.variance(0))
            ref, text = st.norm(scale=sigma), f"N(0, {sigma:.6g}²) (scipy)"
            par = f"σ = √variance() = {sigma:.6g} (Balle–Wang calibration)"
        elif name == "GaussianDiscrete":
            sigma = float(base._scale)
            ref = DiscreteGaussian(sigma=sigma)
            text = f"N_Z(0, {sigma:.6g}²) (privtools, exact)"
            par = f"σ = {sigma:.6g} (the calibrated `_scale`; no public accessor)"
        else:
            raise ParameterError(f"name: no diffprivlib law known for {name!r}")
        return Built(mech, sampler, ref, text, par)
    return build


# ---------------------------------------------------------------- python-dp
def _pydp(name: str, integer: bool):
    def build(nm, eps, delta, x0):
        if name == "LaplaceMechanism":
            m = nm.LaplaceMechanism(float(eps), 1.0)
            b = float(m.diversity)
            if integer:
                ref = rounded_laplace_table(b)
                text = f"Laplace(0, {b:.6g}) rounded to the nearest integer (exact table)"
            else:
                ref, text = st.laplace(scale=b), f"Laplace(0, {b:.6g}) (scipy)"
            par = f"diversity = Δ/ε = {b:.6g}"
        else:
            m = nm.GaussianMechanism(float(eps), float(delta), 1.0)
            ref, text = st.norm(scale=m.std), f"N(0, {m.std:.6g}²) (scipy)"
            par = f"std = {m.std:.6g} (its analytic calibration)"
        mech = PyDPNoise(m, integer)
        return Built(mech, lambda size, rng: mech(0, size, rng), ref, text, par)
    return build


# ---------------------------------------------------------------- numpy shares
def _shares_law(which: str):
    """Law-only rows; ``eps`` carries n (the number of users)."""
    def build(_np, n, delta, x0):
        n = int(n)
        s = SHARE_SCALE
        mu = SKELLAM_VAR / (2 * n)
        r = Fraction(1, n)
        if which == "polya_share":
            return Built(None, polya_share(n, s), Polya(r, scale=s),
                         f"Pólya(1/{n}, e^(−1/{s})) (privtools, exact)",
                         f"negative_binomial(1/{n}, 1 − e^(−1/{s}))")
        if which == "polya_difference_share":
            return Built(None, polya_difference_share(n, s), PolyaDifference(r, scale=s),
                         f"Pólya(1/{n}, e^(−1/{s})) − Pólya(1/{n}, e^(−1/{s})) (privtools)",
                         "difference of two such draws")
        if which == "polya_sum":
            return Built(None, share_sum(polya_share(n, s), n), Polya(1, scale=s),
                         f"Pólya(1, e^(−1/{s})) = Geometric (privtools, exact)",
                         f"sum of {n} Pólya shares")
        if which == "polya_difference_sum":
            return Built(None, share_sum(polya_difference_share(n, s), n), DiscreteLaplace(s),
                         f"Lap_Z({s}) (privtools, exact; Fact 1 of 000)",
                         f"sum of {n} Pólya-difference shares")
        if which == "skellam_share":
            return Built(None, skellam_share(mu), Skellam(Fraction(SKELLAM_VAR, n)),
                         f"Sk(0, {SKELLAM_VAR}/{n}) (privtools, exact)",
                         f"poisson({mu:g}) − poisson({mu:g})")
        if which == "skellam_sum":
            return Built(None, share_sum(skellam_share(mu), n), Skellam(SKELLAM_VAR),
                         f"Sk(0, {SKELLAM_VAR}) (privtools, exact)",
                         f"sum of {n} Skellam shares")
        raise ParameterError(f"which: unknown share sampler {which!r}")
    return build


def _shares_privacy(_np, eps, delta, x0):
    """x + Σ of 16 Pólya-difference shares at s = 1/ε: Lap_Z(1/ε) in total, ε-DP."""
    s = 1.0 / float(eps)
    noise = share_sum(polya_difference_share(PRIVACY_SHARES, s), PRIVACY_SHARES)
    return Built(SharedNoise(noise), noise, DiscreteLaplace(s),
                 f"Lap_Z({s:.6g}) (privtools, exact)",
                 f"sum of {PRIVACY_SHARES} Pólya-difference shares at s = 1/ε")


ENTRIES: tuple[Entry, ...] = (
    Entry("opendp.laplace_float", "opendp", "make_laplace, float domain", "pure", False,
          200_000, 200_000, 26, _opendp_pure("make_laplace", False)),
    Entry("opendp.laplace_int", "opendp", "make_laplace, integer domain", "pure", True,
          500_000, 500_000, 9, _opendp_pure("make_laplace", True)),
    Entry("opendp.geometric", "opendp", "make_geometric", "pure", True,
          500_000, 500_000, 9, _opendp_pure("make_geometric", True)),
    Entry("opendp.gaussian_float", "opendp", "make_gaussian, float domain", "approx", False,
          200_000, 100_000, 63, _opendp_gaussian(False)),
    Entry("opendp.gaussian_int", "opendp", "make_gaussian, integer domain", "approx", True,
          500_000, 200_000, 13, _opendp_gaussian(True)),
    Entry("diffprivlib.Laplace", "diffprivlib", "Laplace", "pure", False,
          1_000_000, 1_000_000, 5, _dpl("Laplace", False)),
    Entry("diffprivlib.LaplaceTruncated", "diffprivlib", "LaplaceTruncated", "pure", False,
          500_000, 500_000, 10, _dpl("LaplaceTruncated", False, bounded=True)),
    Entry("diffprivlib.LaplaceBoundedDomain", "diffprivlib", "LaplaceBoundedDomain", "pure",
          False, 250_000, 250_000, 22, _dpl("LaplaceBoundedDomain", False, bounded=True)),
    Entry("diffprivlib.Geometric", "diffprivlib", "Geometric", "pure", True,
          1_000_000, 1_000_000, 6, _dpl("Geometric", True)),
    Entry("diffprivlib.Gaussian", "diffprivlib", "Gaussian", "approx", False,
          1_000_000, 500_000, 6, _dpl("Gaussian", False), max_epsilon=1.0,
          note="refuses ε > 1 (its documentation sends larger ε to GaussianAnalytic)"),
    Entry("diffprivlib.GaussianAnalytic", "diffprivlib", "GaussianAnalytic", "approx", False,
          1_000_000, 500_000, 5, _dpl("GaussianAnalytic", False)),
    Entry("diffprivlib.GaussianDiscrete", "diffprivlib", "GaussianDiscrete", "approx", True,
          250_000, 200_000, 20, _dpl("GaussianDiscrete", True)),
    Entry("python-dp.LaplaceMechanism_float", "python-dp", "LaplaceMechanism, float "
          "add_noise", "pure", False, 1_000_000, 1_000_000, 5, _pydp("LaplaceMechanism", False)),
    Entry("python-dp.LaplaceMechanism_int", "python-dp", "LaplaceMechanism, integer "
          "add_noise", "pure", True, 1_000_000, 1_000_000, 4, _pydp("LaplaceMechanism", True)),
    Entry("python-dp.GaussianMechanism", "python-dp", "GaussianMechanism, float add_noise",
          "approx", False, 1_000_000, 500_000, 4, _pydp("GaussianMechanism", False)),
    Entry("numpy.polya_share", "numpy", "Pólya share: negative_binomial(1/n, 1 − e^(−1/s))",
          "law", True, 1_000_000, 0, 0.05, _shares_law("polya_share")),
    Entry("numpy.polya_difference_share", "numpy", "Pólya-difference share (Theorem 1 of 000)",
          "law", True, 1_000_000, 0, 0.1, _shares_law("polya_difference_share")),
    Entry("numpy.polya_sum", "numpy", "sum of n Pólya shares", "law", True,
          1_000_000, 0, 0.05, _shares_law("polya_sum")),
    Entry("numpy.polya_difference_sum", "numpy", "sum of n Pólya-difference shares", "law",
          True, 1_000_000, 0, 0.1, _shares_law("polya_difference_sum")),
    Entry("numpy.skellam_share", "numpy", "Skellam share: poisson(μ) − poisson(μ)", "law",
          True, 1_000_000, 0, 0.1, _shares_law("skellam_share")),
    Entry("numpy.skellam_sum", "numpy", "sum of n Skellam shares", "law", True,
          1_000_000, 0, 0.1, _shares_law("skellam_sum")),
    Entry("numpy.polya_difference_mechanism", "numpy",
          f"x + sum of {PRIVACY_SHARES} Pólya-difference shares (s = 1/ε)", "pure", True,
          1_000_000, 1_000_000, 3.2, _shares_privacy),
)
ENTRY = {e.key: e for e in ENTRIES}


# ====================================================================== the grid
@dataclass(frozen=True)
class Row:
    """One audit: ``check`` is "law" or "privacy"; ``eps`` is n for the share-law rows."""

    id: str
    key: str
    check: str
    eps: float
    delta: float
    pair: tuple | None
    n_samples: int
    cost: float = field(default=0.0, compare=False)


def _pair_label(pair) -> str:
    return "0 vs 1" if pair[0] == 0 else "2^20 vs 2^20+1"


def build_grid(quick: bool) -> list[Row]:
    """Every row of the mode, installed or not (so α = 0.01/m does not depend on what is
    installed)."""
    g = QUICK if quick else FULL
    rows = []
    for e in ENTRIES:
        if e.kind == "law":
            for n in g["shares_n"]:
                size = QUICK_DRAWS if quick else e.n_law
                if e.key.endswith("_sum"):
                    size = max(10_000, min(size, SUM_DRAW_BUDGET // n))
                rid = f"{e.key}/law/n={n}"
                rows.append(Row(rid, e.key, "law", n, 0.0, None, size,
                                size * e.cost_us * (n if e.key.endswith("_sum") else 1)))
            continue
        law_delta = g["law_delta"] if e.kind == "approx" else 0.0
        n_law = QUICK_DRAWS if quick else e.n_law
        n_priv = QUICK_DRAWS if quick else e.n_privacy
        for eps in g["law_eps"]:
            if eps > e.max_epsilon:
                continue
            claim = f"eps={_fmt(eps)}" + (f"/delta={law_delta:g}" if law_delta else "")
            rows.append(Row(f"{e.key}/law/{claim}", e.key, "law", eps, law_delta, None, n_law,
                            n_law * e.cost_us))
        deltas = g["delta"] if e.kind == "approx" else (0.0,)
        for eps in g["eps"]:
            if eps > e.max_epsilon:
                continue
            for delta in deltas:
                claim = f"eps={_fmt(eps)}" + (f"/delta={delta:g}" if delta else "")
                for pair in g["pairs"]:
                    x = "0" if pair[0] == 0 else "2^20"
                    rows.append(Row(f"{e.key}/privacy/{claim}/x={x}", e.key,
                                    "privacy", eps, delta, pair, n_priv,
                                    2 * n_priv * e.cost_us))
    return rows


def select(rows: list[Row], only: str | None) -> list[Row]:
    """The rows matching ``only`` (comma-separated library names, mechanism keys, row ids or
    shell patterns over row ids)."""
    if only is None:
        return rows
    if not isinstance(only, str) or not only.strip():
        raise ParameterError(f"only must be a non-empty selection, got {only!r}")
    pats = [p.strip() for p in only.split(",") if p.strip()]
    out = [r for r in rows if any(p in (ENTRY[r.key].library, r.key, r.id)
                                  or fnmatch.fnmatchcase(r.id, p) for p in pats)]
    if not out:
        raise ParameterError(f"only: no configuration matches {only!r}; library names are "
                             f"{sorted(LIBRARIES)}, keys e.g. {ENTRIES[0].key!r}")
    return out


def row_seed(seed: int, row_id: str) -> int:
    """The audit seed of a row: a function of ``--seed`` and the row's id only."""
    digest = hashlib.sha256(f"{seed}/{row_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


# ====================================================================== running a row
_LOADED: dict = {}


def _library(name: str):
    if name not in _LOADED:
        _LOADED[name] = LIBRARIES[name][1]()
    return _LOADED[name]


def run_row(row: Row, seed: int, alpha: float, bits: bool = True) -> dict:
    """Audit one row; returns the JSON-ready record (never raises for a library's error:
    the record says what went wrong). ``bits``: privacy audits of float outputs also try
    the bit-level events of the auditor (when it has them)."""
    e = ENTRY[row.key]
    rec = {"id": row.id, "library": e.library, "mechanism": e.label, "key": e.key,
           "check": row.check, "epsilon": row.eps if e.kind != "law" else None,
           "delta": row.delta, "pair": list(row.pair) if row.pair else None,
           "n_samples": row.n_samples, "seed": row_seed(seed, row.id), "alpha": alpha,
           "seeded": e.library in ("numpy", "diffprivlib"),
           "bits": bool(bits and row.check == "privacy" and not e.integer)}
    if e.kind == "law":
        rec["n_users"] = int(row.eps)
    lib = _library(e.library)
    if lib is None:
        rec.update(verdict="skipped", reason=f"{e.library} is not installed")
        return rec
    t0 = time.perf_counter()
    try:
        x0 = row.pair[0] if row.pair else 0
        built = e.build(lib, row.eps, row.delta, x0)
        rec["parameters"] = built.parameters
        rec["reference"] = built.reference_text
        if row.check == "law":
            res = audit_sampler(built.sampler, built.reference, row.n_samples,
                                rng=rec["seed"], alpha=alpha)
            rec.update(verdict=res.verdict, p_value=res.p_value, reason=res.reason,
                       tests={k: v["p_value"] for k, v in res.tests.items()},
                       worst=_worst(res.tests))
        else:
            res = audit_mechanism(built.mechanism, row.pair[0], row.pair[1], row.eps,
                                  row.n_samples, rng=rec["seed"], delta=row.delta,
                                  alpha=alpha, bits=rec["bits"])
            rec.update(verdict=res.verdict, epsilon_lower=res.epsilon_lower,
                       epsilon_estimate=res.epsilon_estimate,
                       epsilon_max_detectable=res.epsilon_max_detectable,
                       p_value=res.p_value, reason=res.reason,
                       event=res.event.describe() if res.event else None,
                       counts={k: res.counts.get(k) for k in
                               ("count_favoured", "count_other", "n_favoured", "n_other")},
                       family=res.selection.get("family"),
                       bit_event=_is_bit_event(res.event))
    except Exception as exc:  # a library refusing a configuration is a finding, not a crash
        rec.update(verdict="error", reason=f"{type(exc).__name__}: {exc}")
    rec["seconds"] = time.perf_counter() - t0
    return rec


def _is_bit_event(event) -> bool:
    """Whether the auditor's event reads the float encoding (a bit-level view)."""
    from verification.audit.events import Binade, BitClass, Lattice, LowBits

    return event is not None and isinstance(event.view, (LowBits, Binade, Lattice, BitClass))


def _worst(tests: dict) -> str:
    """The most telling detail of a law audit's tests, in words."""
    if not tests:
        return ""
    name, t = min(tests.items(), key=lambda kv: kv[1]["p_value"])
    if name == "tails" and t.get("thresholds"):
        th = t["thresholds"][0]
        return (f"tails: {th['tail']} seen {th['observed']} times, expected "
                f"{th['expected']:.4g}")
    if name == "moments":
        m = min((t["mean"], t["variance"]), key=lambda x: x["p_value"])
        which = "mean" if m is t["mean"] else "variance"
        return f"{which}: {m['observed']:.6g} vs {m['expected']:.6g} (z = {m['z']:.3g})"
    if name == "g_test" and t.get("worst_bins"):
        b = t["worst_bins"][0]
        where = b.get("bin", b.get("value"))
        return (f"G-test: worst bin {where} seen {b['observed']}, expected "
                f"{b['expected']:.4g}")
    if name == "ks_test":
        return f"KS statistic {t['statistic']:.3g}"
    return name


def _run_task(task):
    row, seed, alpha, bits = task
    return run_row(row, seed, alpha, bits)


# ====================================================================== report
def _library_status() -> dict:
    out = {}
    for name, (dist, _, randomness) in LIBRARIES.items():
        version = _version(dist)
        note = ""
        if name == "diffprivlib" and version is not None:
            mod, note = load_diffprivlib()
            installed = mod is not None
        else:
            installed = version is not None and _library(name) is not None
        out[name] = {"version": version, "installed": installed, "randomness": randomness,
                     "note": note}
    return out


def _num(x, digits=4) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}g}"


def _claim(rec) -> str:
    return f"ε = {_fmt(rec['epsilon'])}" + (f", δ = {rec['delta']:g}" if rec["delta"] else "")


def command(rec, meta) -> str:
    cmd = f"python scripts/conformance.py --only '{rec['id']}' --seed {meta['seed']}"
    return cmd + (" --quick" if meta["quick"] else "") + \
        ("" if meta["bits_requested"] else " --no-bits")


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(records: list[dict], meta: dict) -> str:
    lib = meta["libraries"]
    mach = meta["machine"]
    conf = 1 - meta["alpha"]
    lines = ["# Conformance of third-party differential-privacy libraries", ""]
    run = "python scripts/conformance.py" + (" --quick" if meta["quick"] else "") + \
        (f" --only '{meta['only']}'" if meta["only"] else "") + f" --seed {meta['seed']}" + \
        ("" if meta["bits_requested"] else " --no-bits")
    if meta["bits"]:
        level = ("The privacy audits of float outputs include the auditor's bit-level events "
                 "(lowest mantissa bits, binades, representation classes: `audit_mechanism("
                 "..., bits=True)`), so they audit the floats the library returns, not only "
                 "the real-arithmetic algorithm; a failure through such an event is marked "
                 "*bits* (Mironov, CCS 2012). The laws are audited in real arithmetic (a "
                 "library that snaps its noise to a lattice does so on purpose).")
    elif meta["bits_requested"]:
        level = ("This auditor has no bit-level events: float outputs are audited through "
                 "thresholds and intervals only (the real-arithmetic algorithm).")
    else:
        level = ("Run with `--no-bits`: float outputs are audited through thresholds and "
                 "intervals only (the real-arithmetic algorithm), not their bits.")
    lines += [
        f"Generated by `{run}` in {meta['seconds'] / 60:.1f} min with {meta['workers']} "
        f"worker process(es) on {mach['cpu']} ({mach['cores']} cores), {mach['platform']}, "
        f"Python {mach['python']}, numpy {mach['numpy']}, scipy {mach['scipy']}.", "",
        "Each mechanism is audited twice: its **law** — the noise it adds to 0, with "
        "`verification.audit.audit_sampler`, against the law its documentation claims, in "
        "the library's own parameterisation — and its **privacy claim** — "
        "`verification.audit.audit_mechanism` on the query answers 0 and 1 (sensitivity 1) "
        "and 2^20 and 2^20 + 1 (where float artefacts grow). "
        f"{meta['n_rows']} configurations make the grid of this mode; every row is tested at "
        f"α = 0.01/{meta['n_rows']} = {meta['alpha']:.3g} (Bonferroni), so the chance of any "
        "false alarm in the whole table is at most 1 %, and ε_lower holds with confidence "
        f"1 − α = {conf:.6g}. The pairs, budgets and seed were fixed before any run: "
        "nothing was searched to produce a failure. A pass only says the draws showed no "
        "violation; *inconclusive* means the draws cannot certify any ε above the claim.", "",
        level, "",
        "## Libraries", "",
        "| library | version | randomness in the audit | note |", "|---|---|---|---|"]
    for name, s in lib.items():
        version = s["version"] or "not installed"
        if s["version"] and not s["installed"]:
            version += " (cannot be imported)"
        lines.append(f"| {name} | {version} | {_cell(s['randomness'])} | {_cell(s['note'])} |")
    lines.append("")
    present = [e for e in ENTRIES if any(r["key"] == e.key for r in records)]
    # ---------------------------------------------------------------- summary
    lines += ["## Summary", "",
              "| library | mechanism | law | privacy | max ε_lower / ε | draws per dataset "
              "(law / privacy) |", "|---|---|---|---|---|---|"]
    for e in present:
        rs = [r for r in records if r["key"] == e.key]
        law = [r for r in rs if r["check"] == "law"]
        pri = [r for r in rs if r["check"] == "privacy"]
        ratio = [r["epsilon_lower"] / r["epsilon"] for r in pri
                 if r.get("epsilon_lower") is not None]
        ns = f"{_draws(law)} / {_draws(pri)}"
        by_bits = sum(1 for r in pri if r["verdict"] == "fail" and r.get("bit_event"))
        tally = _tally(pri) + (f" ({by_bits} through bits)" if by_bits else "")
        lines.append(f"| {e.library} | {_cell(e.label)} | {_tally(law)} | {tally} | "
                     f"{_num(max(ratio), 3) if ratio else '—'} | {ns} |")
    lines.append("")
    # ---------------------------------------------------------------- findings
    lines += ["## Findings", ""]
    bad = [r for r in records if r["verdict"] in ("fail", "error")]
    if not bad:
        lines += ["No configuration failed.", ""]
    for e in present:
        mine = [r for r in bad if r["key"] == e.key]
        if mine:
            lines += _findings(e, mine, [r for r in records if r["key"] == e.key], meta)
    # ---------------------------------------------------------------- details
    for name in LIBRARIES:
        ents = [e for e in present if e.library == name]
        if not ents:
            continue
        lines += [f"## {name}", ""]
        law = [r for r in records if r["library"] == name and r["check"] == "law"]
        if law:
            lines += ["### Laws", "",
                      "| mechanism | configuration | reference law | draws | verdict | p | "
                      "test closest to rejecting |", "|---|---|---|---|---|---|---|"]
            for r in law:
                conf_text = (f"n = {r['n_users']}" if "n_users" in r else _claim(r))
                if r.get("parameters"):
                    conf_text += f"; {r['parameters']}"
                lines.append(f"| {_cell(ENTRY[r['key']].label)} | {_cell(conf_text)} | "
                             f"{_cell(r.get('reference', '—'))} | {r['n_samples']:,} | "
                             f"{_verdict(r)} | {_num(r.get('p_value'), 3)} | "
                             f"{_cell(r.get('worst') or r.get('reason', ''))} |")
            lines.append("")
        pri = [r for r in records if r["library"] == name and r["check"] == "privacy"]
        if pri:
            lines += ["### Privacy claims", "",
                      "| mechanism | claim | pair | draws per dataset | verdict | ε_lower | "
                      "max certifiable | event tested |", "|---|---|---|---|---|---|---|---|"]
            for r in pri:
                lines.append(f"| {_cell(ENTRY[r['key']].label)} | {_claim(r)} | "
                             f"{_pair_label(r['pair'])} | {r['n_samples']:,} | {_verdict(r)} | "
                             f"{_num(r.get('epsilon_lower'))} | "
                             f"{_num(r.get('epsilon_max_detectable'), 3)} | "
                             f"{'*bits*: ' if r.get('bit_event') else ''}"
                             f"{_cell(r.get('event') or r.get('reason', ''))} |")
            lines.append("")
    # ---------------------------------------------------------------- notes
    lines += ["## Notes", ""]
    notes = [
        "OpenDP mechanisms are calibrated with OpenDP's own `binary_search_param` so that "
        "their privacy map gives the claimed ε (Laplace, geometric) or, through "
        "`make_zCDP_to_approxDP` and `make_fix_delta`, the claimed (ε, δ) (Gaussian); they "
        "are drawn on a `vector_domain`, one call giving `size` independent draws of the "
        "scalar mechanism.",
        "diffprivlib's bounded mechanisms use the domain [x − 10, x + 10] around the pair "
        "(law rows: [−10, 10]); their laws are tested through the probability-integral "
        "transform of the claimed law, which is Uniform(0, 1) exactly when the claim holds.",
        "python-dp's integer `add_noise` adds its Laplace sample rounded to the nearest "
        "integer (its C++ documentation); its law is compared with that rounded Laplace.",
        "The numpy share rows use s = 4 (Lap_Z(4) in total) and Sk(0, 100) in total, at n "
        "users as shown; the sums of n shares use at most 10^8 share draws per audit. The "
        "Skellam shares are audited for their law only (their privacy is a Rényi claim of "
        "the protocol, not of numpy).",
        "Several rows at ε = 10 (and at δ = 0.1) are inconclusive by design: certifying "
        "ε > 10 at this α needs far more draws than a cheap audit takes.",
    ]
    for e in present:
        if e.note:
            notes.append(f"{e.library} {e.label}: {e.note}; those configurations are not in "
                         "the grid.")
    skipped = sorted({r["library"] for r in records if r["verdict"] == "skipped"})
    for name in skipped:
        notes.append(f"{name} is not installed here: its rows are skipped (install the "
                     "`conformance` extra).")
    lines += [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def _findings(e: Entry, bad: list[dict], rows: list[dict], meta: dict) -> list[str]:
    """The failures of one mechanism: what was seen, with one reproducing command each."""
    conf = 1 - meta["alpha"]
    own = "" if bad[0]["seeded"] else (" The library draws its own randomness, so a rerun "
                                       "sees fresh draws (same configuration and seed).")
    out = [f"### {e.library} {e.label}", ""]
    pri = [r for r in bad if r["check"] == "privacy" and r["verdict"] == "fail"]
    law = [r for r in bad if r["check"] == "law" and r["verdict"] == "fail"]
    err = [r for r in bad if r["verdict"] == "error"]
    if pri:
        n_pri = sum(1 for r in rows if r["check"] == "privacy")
        by_bits = sum(1 for r in pri if r.get("bit_event"))
        top = max(pri, key=lambda r: r["epsilon_lower"])
        share = "all" if by_bits == len(pri) else f"{by_bits} of them"
        how = (f"{share} through an event on the float encoding — the doubles returned, "
               "not the real-arithmetic algorithm (Mironov, CCS 2012)"
               if by_bits else "through events on the output's value")
        out += [f"{len(pri)} of {n_pri} privacy audits fail, {how}. Strongest: claim "
                f"{_claim(top)} on the answers {_pair_label(top['pair'])}, "
                f"ε ≥ {_num(top['epsilon_lower'])} with confidence {conf:.6g}; the event "
                f"`{top.get('event')}` was chosen on selection draws and tested on fresh "
                f"ones.{own}", "",
                "| claim | answers | ε_lower | event held in (favoured vs other) | "
                "reproduce |", "|---|---|---|---|---|"]
        for r in pri:
            c = r.get("counts") or {}
            held = (f"{c.get('count_favoured')}/{c.get('n_favoured')} vs "
                    f"{c.get('count_other')}/{c.get('n_other')}")
            out.append(f"| {_claim(r)} | {_pair_label(r['pair'])} | "
                       f"{_num(r['epsilon_lower'])}{' (bits)' if r.get('bit_event') else ''} "
                       f"| {held} | `{command(r, meta)}` |")
        out.append("")
    if law:
        out += [f"{len(law)} law audit(s) reject the documented law.{own}", "",
                "| configuration | reference law | p | detail | reproduce |",
                "|---|---|---|---|---|"]
        for r in law:
            what = (f"n = {r['n_users']}" if "n_users" in r else _claim(r))
            out.append(f"| {_cell(what + '; ' + r.get('parameters', ''))} | "
                       f"{_cell(r.get('reference'))} | {_num(r.get('p_value'), 3)} | "
                       f"{_cell((r.get('reason') or '') + '; ' + (r.get('worst') or ''))} | "
                       f"`{command(r, meta)}` |")
        out.append("")
    for r in err:
        out += [f"- `{r['id']}` could not run: {_cell(r.get('reason'))} "
                f"(`{command(r, meta)}`)", ""]
    return out


def _verdict(r) -> str:
    v = r["verdict"]
    return f"**{v.upper()}**" if v in ("fail", "error") else v


def _tally(rs) -> str:
    if not rs:
        return "—"
    counts = {}
    for r in rs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    order = ("pass", "fail", "inconclusive", "error", "skipped")
    return ", ".join(f"{counts[k]} {k}" for k in order if k in counts)


def _draws(rs) -> str:
    ns = sorted({r["n_samples"] for r in rs})
    if not ns:
        return "—"
    return f"{ns[0]:,}" if len(ns) == 1 else f"{ns[0]:,}–{ns[-1]:,}"


# ====================================================================== main
def run(rows: list[Row], seed: int, alpha: float, workers: int, log=None,
        bits: bool = True) -> list[dict]:
    """Audit ``rows`` (longest first across ``workers`` processes); records in grid order."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    order = sorted(rows, key=lambda r: -r.cost)
    done: dict[str, dict] = {}
    total = len(rows)

    def report(rec):
        done[rec["id"]] = rec
        extra = ""
        if rec.get("epsilon_lower") is not None:
            extra = f" ε_lower = {rec['epsilon_lower']:.4g}"
        elif rec.get("p_value") is not None:
            extra = f" p = {rec['p_value']:.3g}"
        log(f"[{len(done)}/{total}] {rec['id']}: {rec['verdict']}{extra} "
            f"({rec.get('seconds', 0.0):.1f} s)")

    tasks = [(r, seed, alpha, bits) for r in order]
    if workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            report(_run_task(t))
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_run_task, t) for t in tasks]
            for fut in as_completed(futures):
                report(fut.result())
    return [done[r.id] for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="reduced grid (ε = 1, δ = 1e-3, the pair 0/1, 20000 draws)")
    ap.add_argument("--json", default=None, metavar="PATH", help="write every record here")
    ap.add_argument("--markdown", default=None, metavar="PATH",
                    help=f"write the table here (default {DEFAULT_MARKDOWN} for the full, "
                    "unselected run; otherwise printed)")
    ap.add_argument("--seed", type=int, default=0, help="root seed of every row's audit")
    ap.add_argument("--only", default=None, metavar="NAME",
                    help="comma-separated libraries, mechanism keys, row ids or patterns")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes auditing rows in parallel (results do not depend on it)")
    ap.add_argument("--no-bits", action="store_true",
                    help="audit float mechanisms in real arithmetic only: no bit-level events")
    ap.add_argument("--list", action="store_true", help="list the row ids and exit")
    args = ap.parse_args(argv)
    seed = check_int("seed", args.seed, minimum=0)
    workers = check_int("workers", args.workers, minimum=1)
    grid = build_grid(args.quick)
    rows = select(grid, args.only)
    if args.list:
        print("\n".join(r.id for r in rows))
        return 0
    alpha = FAMILY_ALPHA / len(grid)
    t0 = time.perf_counter()
    bits = not args.no_bits
    records = run(rows, seed, alpha, workers, bits=bits)
    meta = {"quick": args.quick, "only": args.only, "seed": seed, "alpha": alpha,
            "bits": bits, "bits_requested": not args.no_bits,
            "n_rows": len(grid), "n_run": len(rows), "workers": workers,
            "seconds": time.perf_counter() - t0, "machine": describe(),
            "libraries": _library_status()}
    text = to_markdown(records, meta)
    target = args.markdown
    if target is None and not args.quick and args.only is None:
        target = str(ROOT / DEFAULT_MARKDOWN)
    if target is None:
        print(text)
    else:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(text, encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "rows": records}, indent=1,
                                              default=_json_default), encoding="utf-8")
    return 0


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, Fraction):
        return str(x)
    return str(x)


if __name__ == "__main__":
    sys.exit(main())
