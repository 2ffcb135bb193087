"""The mechanisms ``conformance.py`` audits: one :class:`Entry` per configured mechanism,
built into its mechanism, the law of its noise and the reference law its documentation
claims (privtools' exact laws for integer noise — Fact 2 and Theorem 1 of paper 000 —
``scipy.stats`` for float noise)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import scipy.stats as st
from _conformance_libraries import (
    OpenDPBatch,
    PyDPNoise,
    SharedNoise,
    bounded_pit,
    polya_difference_share,
    polya_share,
    rounded_laplace_table,
    share_sum,
    skellam_share,
    truncated_pit,
)

from privtools.errors import ParameterError
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Polya,
    PolyaDifference,
    Skellam,
)
from privtools.testing import adapters

SHARE_SCALE = 4                 # Pólya shares: Lap_Z(4) in total (ε = 1/4 at sensitivity 1)
SKELLAM_VAR = 100               # Skellam shares: Sk(0, 100) in total
PRIVACY_SHARES = 16             # users whose Pólya-difference shares make the audited noise


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


def _pair_label(pair) -> str:
    return "0 vs 1" if pair[0] == 0 else "2^20 vs 2^20+1"
