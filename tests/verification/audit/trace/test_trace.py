"""The grey-box trace (:func:`verification.audit.trace_mechanism`) against ground truth.

* The glue zoo (:mod:`verification.zoo.glue`): on each entry's pair the trace reports
  exactly the entry's finding kinds; the private controls hold (continuous noise only with
  ``arithmetic="real"``, integer noise with the default), and the certified interval
  contains the exact ε wherever the verdict is decided.
* Exact findings do not depend on the recording's seed.
* The literature's zoo: no false findings on its private mechanisms; the calibration bugs'
  worst pair certifies their true ε; noisy max and SVT are handed on, never decided.
* Untrusted code: exits and exceptions become ``UserCodeError``; prints are captured, not
  read; a dataset mutated in place is traced on fresh copies.

Oracles: closed forms (Laplace |s|/b), the analytic Gaussian ε(δ) of Balle and Wang
(:func:`verification.zoo.glue.gaussian_epsilon`, re-solved here at 70 digits) and the
integer laws' ε(δ) from ``tests/oracles.py``'s PMFs; comparisons are exact
(:func:`privtools.certified.ends`).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from functools import cache

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.certified import decide_le, ends
from privtools.errors import UserCodeError
from tests import oracles
from verification import zoo
from verification.audit import trace_mechanism
from verification.zoo.floats import classical_gaussian_sigma
from verification.zoo.glue import GlueMechanism, glue_suite

_SEED = 20240611
_EXACT_KINDS = {"data-dependent-parameter", "unnoised-output", "sensitivity"}


@cache
def _suite() -> dict[str, GlueMechanism]:
    return {m.name: m for m in glue_suite()}


@cache
def _trace(name: str, arithmetic: str, seed: int = _SEED):
    m = _suite()[name]
    d, dp = m.pair
    return trace_mechanism(m.mechanism, d, dp, m.epsilon, m.delta, rng=seed,
                           arithmetic=arithmetic)


def _continuous(m: GlueMechanism) -> bool:
    return m.name in ("ClippedSumLaplace", "PublicBinsHistogram", "GaussianSum",
                      "ReportNoisyMax", "FirstAboveThreshold")


_NAMES = [m.name for m in glue_suite()]
def _param(name):
    return name


# ====================================================================== the glue zoo
def test_glue_suite_is_well_formed():
    suite = glue_suite()
    assert len(suite) >= 20 and len({m.name for m in suite}) == len(suite)
    for m in suite:
        d, dp = m.pair
        assert d != dp and abs(len(d) - len(dp)) == 1          # add/remove neighbours
        assert set(m.kinds) <= _EXACT_KINDS | {"untraceable", "noise-dependent-control-flow",
                                               "path-loss"}
        assert m.private == (m.true_epsilon is None or m.true_epsilon <= m.epsilon)
        if m.private and m.kinds:        # a private law the trace cannot decide
            assert set(m.kinds) <= {"untraceable", "noise-dependent-control-flow"}
        assert m.mechanism.func.__doc__
        out = m.mechanism(d, 3, np.random.default_rng(0))      # vectorised over size
        leaves = out.values() if isinstance(out, dict) else (
            out if isinstance(out, list) else [out])
        assert all(np.shape(v)[:1] == (3,) for v in leaves)
    kinds = {k for m in suite for k in m.kinds}
    assert kinds == _EXACT_KINDS | {"untraceable", "path-loss"}
    assert sum(not m.kinds for m in suite) >= 6


@pytest.mark.parametrize("name", [_param(n) for n in _NAMES])
def test_kinds_on_the_exposing_pair(name):
    """The trace's finding kinds on the entry's pair are exactly the entry's ``kinds``;
    an entry with an exact finding of infinite loss fails."""
    m = _suite()[name]
    r = _trace(name, "real")
    assert set(r.kinds()) == set(m.kinds), r.describe()
    if "unnoised-output" in m.kinds:
        assert r.verdict == "fail"
        assert any(f.loss == math.inf and f.exact for f in r.findings)


@pytest.mark.parametrize("name", [n for n in _NAMES if not _suite()[n].kinds])
def test_private_controls_hold(name):
    """No findings and ``holds`` — with ``arithmetic="real"`` for continuous noise; with
    the default arithmetic continuous noise is ``inconclusive`` (never ``holds``) and
    integer noise holds."""
    m = _suite()[name]
    real, exact = _trace(name, "real"), _trace(name, "exact")
    assert real.verdict == "holds" and real.findings == (), real.describe()
    assert exact.findings == ()
    if _continuous(m):
        assert exact.verdict == "inconclusive"
        assert any("continuous" in u for u in exact.undecided)
    else:
        assert exact.verdict == "holds"
    assert decide_le(real.epsilon_interval, Fraction(m.epsilon) * (1 + Fraction(2) ** -40))


@pytest.mark.parametrize("name", [n for n in _NAMES if _suite()[n].kinds])
def test_bugs_never_hold(name):
    for arithmetic in ("exact", "real"):
        assert _trace(name, arithmetic).verdict != "holds"


def _frac(x: mpmath.mpf) -> Fraction:
    """A finite mpf at its exact binary value (``mpf(x)`` would round it to 53 bits)."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _contains(iv, value) -> bool:
    """Does the interval hold ``value`` (read at its exact binary value)?"""
    lo, hi = ends(iv)
    v = Fraction(value)
    return _frac(lo) <= v <= _frac(hi)


def _gaussian_bracket(sigma: float, delta: float) -> tuple:
    """The analytic Gaussian ε(δ) (Balle–Wang Thm 8, shift 1) bracketed at 70 digits."""
    with mpmath.workdps(70):
        s, dv = mpmath.mpf(sigma), mpmath.mpf(delta)

        def dl(e):
            return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(
                -1 / (2 * s) - e * s)
        lo, hi = mpmath.mpf(0), mpmath.mpf(4)
        for _ in range(220):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if dl(mid) > dv else (lo, mid)
        return lo, hi


def _integer_bracket(pmf, delta: float, k: int = 130) -> tuple:
    """ε(δ) of a symmetric integer law against its shift by 1, bracketed at 70 digits:
    δ(ε) = Σ_x max(0, p(x) − e^ε p(x − 1)) (tails beyond ±k are below 1e-60)."""
    with mpmath.workdps(70):
        p = {x: pmf(x) for x in range(-k - 1, k + 1)}
        dv = mpmath.mpf(delta)

        def dl(e):
            ee = mpmath.exp(e)
            return sum(max(mpmath.mpf(0), p[x] - ee * p[x - 1]) for x in range(-k, k + 1))
        lo, hi = mpmath.mpf(0), mpmath.mpf(4)
        for _ in range(220):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if dl(mid) > dv else (lo, mid)
        return lo, hi


def _meets(iv, bracket) -> bool:
    """The certified interval meets the oracle's bracket (both hold the true value)."""
    lo, hi = ends(iv)
    return bracket[0] <= hi and bracket[1] >= lo


@pytest.mark.parametrize("name", [_param(n) for n in _NAMES
                                  if _suite()[n].true_epsilon is not None])
def test_certified_interval_contains_the_true_epsilon(name):
    """Wherever the verdict is decided, the certified interval holds the entry's exact ε
    (the pairs are worst cases); an infinite ε is the interval [∞, ∞]. Undecided entries
    have no interval."""
    m = _suite()[name]
    r = _trace(name, "real")
    if r.verdict == "inconclusive":
        assert r.epsilon_interval is None and set(m.kinds) & {
            "untraceable", "noise-dependent-control-flow", "data-dependent-parameter"}
        return
    if m.name == "RangeScaledGaussian":
        # ∞ is the supremum (a constant dataset has range 0); this pair's ranges are 2 and
        # 1, so its view is N(3, (2σ)²) against N(1, σ²): the independent oracle's ε(δ)
        sigma = Fraction(classical_gaussian_sigma(m.epsilon, m.delta))
        exact = oracles.gaussian_pair_epsilon(0, 2 * sigma, -2, sigma, Fraction(m.delta))
        lo, hi = ends(r.epsilon_interval)
        assert r.verdict == "fail" and lo - 1e-8 <= exact <= hi + 1e-8
        return
    if m.true_epsilon == math.inf:
        assert r.verdict == "fail" and ends(r.epsilon_interval) == (mpmath.inf, mpmath.inf)
        return
    if m.delta == 0 and r.paths is not None and r.paths.refused is None:
        # decided by its paths: the pair's loss, which the supremum bounds; a leak found
        lo, hi = (_frac(x) for x in ends(r.epsilon_interval))
        assert lo <= Fraction(m.true_epsilon) * (1 + Fraction(1, 10**12))
        assert (r.verdict == "fail") == (not m.private)
        return
    if m.delta == 0:
        assert _contains(r.epsilon_interval, m.true_epsilon)
        return
    used = m.mechanism.keywords.get("used_delta", m.delta)
    bracket = _gaussian_bracket(classical_gaussian_sigma(m.epsilon, used), m.delta)
    assert _meets(r.epsilon_interval, bracket)
    # the float the zoo lists is the exact value rounded to nearest: within half an ulp
    ulp = math.ulp(m.true_epsilon)
    lo, hi = (_frac(x) for x in ends(r.epsilon_interval))
    assert lo <= Fraction(m.true_epsilon) + Fraction(ulp) / 2
    assert hi >= Fraction(m.true_epsilon) - Fraction(ulp) / 2


@pytest.mark.parametrize("name, pmf", [
    ("SkellamCount", lambda x: oracles.skellam_series(x, Fraction(50))),
    ("DiscreteGaussianCount", lambda x: oracles.dgauss(x, Fraction(50)))])
def test_integer_law_interval_meets_the_pmf_oracle(name, pmf):
    m = _suite()[name]
    r = _trace(name, "exact")
    assert r.verdict == "holds"
    assert _meets(r.epsilon_interval, _integer_bracket(pmf, m.delta))


_SEEDED = [n for n in _NAMES if set(_suite()[n].kinds) & _EXACT_KINDS]


@pytest.mark.parametrize("name", _SEEDED)
@settings(max_examples=3)
@given(seed=st.integers(0, 2**32 - 1))
def test_exact_findings_do_not_depend_on_the_seed(name, seed):
    """Findings (kind, where, loss, exact) and the interval ends are the same for every
    recording seed."""
    base = _trace(name, "real")
    r = _trace(name, "real", seed)
    assert [(f.kind, f.where, f.loss, f.exact) for f in r.findings] == \
        [(f.kind, f.where, f.loss, f.exact) for f in base.findings]
    assert all(f.exact for f in r.findings)
    assert r.interval_ends == base.interval_ends and r.verdict == base.verdict


# ====================================================================== the literature's zoo
def _private_zoo():
    return [m for m in zoo.dpsniper_suite() + zoo.statdp_suite() if m.private]


@pytest.mark.parametrize("name", [m.name for m in _private_zoo()])
def test_no_false_findings_on_private_zoo_mechanisms(name):
    m = zoo.get(name)
    cache: dict = {}                     # each dataset's paths explored once
    for d, dp in m.pairs[:4]:
        for arithmetic in ("exact", "real"):
            r = trace_mechanism(m.mechanism, d, dp, m.epsilon, m.delta, rng=_SEED,
                                arithmetic=arithmetic, path_cache=cache)
            assert r.verdict != "fail", r.describe()
            assert not any(f.exact for f in r.findings), r.describe()


@pytest.mark.parametrize("name, scale", [
    ("NoisyHist2", 0.1), ("PrefixSum", 1 / 0.1), ("Histogram-eps@0.2", 0.2)])
def test_calibration_bugs_certify_their_true_epsilon(name, scale):
    """The worst pair's interval holds the exact ε of the float calibration (Δ/b with b
    the float scale the code computes), which is the zoo's real-arithmetic ε to within
    the claim's slack 2⁻⁴⁰."""
    m = zoo.get(name)
    worst = None
    for d, dp in m.pairs:
        r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=_SEED, arithmetic="real")
        assert r.verdict == "fail" or r.findings == ()
        if worst is None or ends(r.epsilon_interval)[1] > ends(worst.epsilon_interval)[1]:
            worst = r
    assert worst.verdict == "fail" and worst.kinds() == ("sensitivity",)
    k = 10 if name == "PrefixSum" else 1        # answers the worst pair moves by 1
    exact = Fraction(k) / Fraction(scale)
    assert _contains(worst.epsilon_interval, exact)
    slack = Fraction(2) ** -40
    lo, _ = ends(worst.epsilon_interval)
    true = Fraction(m.true_epsilon)
    assert decide_le(worst.epsilon_interval, true * (1 + slack))
    assert _frac(lo) >= true * (1 - slack)


@pytest.mark.slow
@pytest.mark.parametrize("name", [m.name for m in zoo.dpsniper_suite() if "SVT" in m.name])
def test_svt_is_decided_by_its_paths(name):
    """The sparse vector's noise steers its answers: every path on both datasets is
    integrated. A private variant holds on the pair; a leaky one holds only where this
    pair's loss is within the claim, and its certified lower end never exceeds its true
    ε."""
    m = zoo.get(name)
    d, dp = m.pairs[0]
    if name == "SVT6":                   # no cutoff: 2^k paths, each its own output; k = 5
        d, dp = d[:5], dp[:5]
    r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=_SEED, arithmetic="real")
    if name == "SVT34Parallel":          # 20 comparisons made at once: 2^20 paths
        assert r.verdict == "inconclusive" and "more than" in r.paths.refused
        return
    if r.paths is None:                  # decided by the releases (post-processing) alone
        assert r.verdict == "holds" and m.private, r.describe()
        return
    assert r.paths.refused is None, r.describe()
    lo, hi = ends(r.epsilon_interval)
    assert _frac(lo) <= Fraction(m.true_epsilon) * (1 + Fraction(1, 10**9)) \
        if m.true_epsilon != math.inf else True
    if m.private:
        assert r.verdict == "holds", r.describe()
    if r.verdict == "holds":             # a certificate for this pair: a leaky variant's
        assert _frac(hi) <= Fraction(m.epsilon) * (1 + Fraction(2) ** -40)   # too, here


_LAPLACE_MAX = [m.name for m in zoo.dpsniper_suite() + zoo.statdp_suite()
                if m.name in ("ReportNoisyMax1", "ReportNoisyMax3") or
                m.name.startswith(("NoisyMax-v1a", "NoisyMax-v1b"))]


@pytest.mark.parametrize("name", _LAPLACE_MAX)
def test_laplace_noisy_max_is_certified_as_post_processing(name):
    """argmax / max of ``q + Lap(2/ε)`` is a fixed function of the noisy answers: the
    tracked forms certify the pair's loss from above by the answers' exact loss
    Σ|Δq|·ε/2 (lower end 0). It holds when that is within the claim; otherwise the paths
    decide — the argmax holds, the released maximum never does and its certified lower end
    never exceeds its true ε."""
    m = zoo.get(name)
    for d, dp in m.pairs[:6]:
        r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=_SEED, arithmetic="real")
        bound = Fraction(sum(abs(a - b) for a, b in zip(d, dp))) * Fraction(m.epsilon) / 2
        lo, hi = ends(r.epsilon_interval)
        if bound <= Fraction(m.epsilon):
            assert r.verdict == "holds", r.describe()
            assert lo == 0 and _frac(hi) >= bound and \
                _frac(hi) <= bound * (1 + Fraction(1, 10**12))
        else:                  # beyond the bound the paths decide: exact where they do
            assert r.paths is not None and r.paths.refused is None, r.describe()
            assert (r.verdict == "holds") == m.private, r.describe()
            if not m.private:
                assert _frac(ends(r.epsilon_interval)[0]) <= \
                    Fraction(m.true_epsilon) * (1 + Fraction(1, 10**9))


@pytest.mark.parametrize("name", [m.name for m in zoo.dpsniper_suite() + zoo.statdp_suite()
                                  if m.name in ("ReportNoisyMax2", "ReportNoisyMax4") or
                                  m.name.startswith(("NoisyMax-v2a", "NoisyMax-v2b"))])
def test_exponential_noisy_max_is_decided_by_its_paths(name):
    """Exponential noise has no privacy-loss distribution in the accountant, but its paths
    integrate: the argmax holds, the released maximum fails with an infinite loss where the
    pair moves the answers' maximum (its support starts there)."""
    m = zoo.get(name)
    for d, dp in m.pairs[:3]:
        r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=_SEED, arithmetic="real")
        assert r.paths is not None and r.paths.refused is None, r.describe()
        if m.private:
            assert r.verdict == "holds", r.describe()
        elif max(d) != max(dp):
            assert r.verdict == "fail" and ends(r.epsilon_interval)[0] == mpmath.inf


# ====================================================================== untrusted code
def _laplace_count(d, size, rng):
    return len(d) + rng.laplace(0.0, 2.0, size)


def _exits(d, size, rng):
    sys.exit(3)


def _exits_on_d_prime(d, size, rng):
    if len(d) == 2:
        sys.exit(0)
    return _laplace_count(d, size, rng)


def _raises(d, size, rng):
    raise RuntimeError("boom")


def _raises_on_a_probe(d, size, rng):
    x = rng.laplace(0.0, 2.0, size)
    if abs(x[0]) > 40:              # only a probe's move (by up to 29·2) gets here
        raise RuntimeError("boom")
    return len(d) + x


def _prints(d, size, rng):
    print("the data is", list(d))
    return _laplace_count(d, size, rng)


def _mutates(d, size, rng):
    d.append(1.0)
    d[0] = 1.0
    return float(np.clip(d, 0.0, 1.0).sum()) + rng.laplace(0.0, 2.0, size)


@pytest.mark.parametrize("mech, what", [(_exits, "sys.exit(3)"),
                                        (_exits_on_d_prime, "sys.exit(0)"),
                                        (_raises, "RuntimeError")])
def test_exit_and_raise_are_user_code_errors(mech, what):
    with pytest.raises(UserCodeError, match=what.replace("(", r"\(").replace(")", r"\)")):
        trace_mechanism(mech, [1, 2, 3], [1, 2], 0.5, arithmetic="real", rng=_SEED)


def test_a_raise_on_a_probe_is_not_a_pass():
    r = trace_mechanism(_raises_on_a_probe, [1, 2, 3], [1, 2], 0.5, arithmetic="real",
                        rng=_SEED)
    assert r.verdict == "inconclusive" and any("fail" in u for u in r.undecided)


def test_prints_are_captured_and_do_not_change_the_verdict():
    quiet = trace_mechanism(_laplace_count, [1, 2, 3], [1, 2], 0.5, arithmetic="real",
                            rng=_SEED)
    loud = trace_mechanism(_prints, [1, 2, 3], [1, 2], 0.5, arithmetic="real", rng=_SEED)
    assert (loud.verdict, loud.findings, loud.interval_ends) == \
        (quiet.verdict, quiet.findings, quiet.interval_ends)
    assert "the data is [1, 2, 3]" in loud.user_code.stdout
    assert "the data is [1, 2]\n" in loud.user_code.stdout
    assert "printed on stdout" in loud.describe()
    assert quiet.user_code.stdout == ""


def test_a_mutating_mechanism_is_traced_on_fresh_copies():
    d, dp = [0.25, 0.75, 1.0], [0.25, 0.75]
    r = trace_mechanism(_mutates, d, dp, 0.5, arithmetic="real", rng=_SEED)
    assert d == [0.25, 0.75, 1.0] and dp == [0.25, 0.75]
    assert r.verdict == "holds" and r.findings == ()
    # every run sees d with 1.0 appended and d[0] = 1: clipped sums 3.75 and 2.75 → ε = 1/2
    assert ends(r.epsilon_interval) == (mpmath.mpf(0.5), mpmath.mpf(0.5))
    assert r.user_code.mutations and "fresh copy" in r.user_code.mutations[0]


# ====================================================================== zero noise
def _zero_scale_gaussian(d, size, rng):
    return len(d) + rng.normal(0.0, 0.0, size)


@pytest.mark.parametrize("mech, pair, delta", [
    (_suite()["RangeScaledLaplace"].mechanism, ((2.0, 2.0), (2.0,)), 0.0),
    (_zero_scale_gaussian, ((1, 2, 3), (1, 2)), 1e-5)])
def test_zero_scale_noise_is_an_unnoised_output(mech, pair, delta):
    """A constant dataset gives the range-scaled Laplace the scale 0: the sums 4 and 2 are
    released without noise, an infinite loss the trace must report, not raise on."""
    r = trace_mechanism(mech, *pair, 0.5, delta, rng=_SEED, arithmetic="real")
    assert r.verdict == "fail" and "unnoised-output" in r.kinds()
