"""Certificates that are never wrong: the trace's verdicts on mechanisms that fooled the
probes, on non-finite and ill-typed outputs, and on runs of different shapes.

Each case states the true privacy loss of the pair (by a short argument in its docstring)
and the verdict the trace must give: ``holds`` only where the loss is at most the claim,
``fail`` only where it is above, and never a crash.
"""

from __future__ import annotations

import math
import re
import textwrap
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from typer.testing import CliRunner

from privtools.certified import ends
from privtools.cli import app
from privtools.errors import ParameterError
from privtools.noise import DiscreteLaplace
from privtools.testing import PrivacyAssertionError, assert_private
from tests import oracles
from verification.audit import audit_mechanism, trace_mechanism

_D, _DP = [0.5, 0.2, 0.4], [0.5, 0.2]


def _rint_first(eps):
    def release(data, size, rng):
        return sum(data) + np.rint(rng.laplace(0.0, 1.0 / eps))
    return release


@pytest.mark.parametrize("eps", [1.0, 0.5, 0.25])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("arithmetic", ["exact", "real"])
def test_rounding_the_noise_before_the_data_fails(eps, seed, arithmetic):
    """``s + rint(Lap)``: the outputs live on 1.1 + ℤ and 0.7 + ℤ — disjoint supports, ε = ∞.
    (The probes saw a linear function at their integer shifts and certified 0.4.)"""
    r = trace_mechanism(_rint_first(eps), _D, _DP, eps, rng=seed, arithmetic=arithmetic)
    assert r.verdict == "fail", r.describe()
    assert ends(r.epsilon_interval) == (mpmath.inf, mpmath.inf)
    assert "rint" in r.describe() or "ℤ" in r.describe()


def test_rounding_after_the_data_is_post_processing():
    """``rint(s + Lap(1))``: a fixed function of the release s + Lap(1), whose loss 0.4
    bounds it; certified from above (lower end 0)."""
    r = trace_mechanism(lambda d, size, rng: np.rint(sum(d) + rng.laplace(0.0, 1.0)), _D, _DP,
                        0.5, rng=0, arithmetic="real")
    assert r.verdict == "holds", r.describe()
    lo, hi = ends(r.epsilon_interval)
    assert lo == 0 and abs(float(hi) - 0.4) < 1e-12


@pytest.mark.parametrize("arithmetic", ["exact", "real"])
def test_clipping_the_noise_beyond_the_probes_is_never_certified(arithmetic):
    """``s + clip(Lap(1), −1000, 1000)``: the probes never reach the clip; its point masses at
    s ± 1000 move with s, so ε = ∞. The trace knows the clip touched the draw."""
    r = trace_mechanism(lambda d, size, rng: sum(d) + np.clip(rng.laplace(0, 1.0), -1e3, 1e3),
                        _D, _DP, 1.0, rng=0, arithmetic=arithmetic)
    assert r.verdict != "holds", r.describe()


def _empty_mean(data, size, rng):
    return float(np.mean(data)) + rng.laplace(0.0, 1.0, size) if len(data) else \
        np.mean(np.asarray(data, dtype=float)) + rng.laplace(0.0, 1.0, size)


def _overflow(data, size, rng):
    return np.float64(1e308) * len(data) + rng.laplace(0.0, 1.0, size)


def _nan_record(data, size, rng):
    return np.sum(np.asarray(data, dtype=float)) + rng.laplace(0.0, 1.0, size)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("mechanism, d, dp", [
    (_empty_mean, [], [1.0]), (_empty_mean, [1.0], []),
    (_overflow, [1, 2], [1]), (_overflow, [1], [1, 2]),
    (_nan_record, [float("nan")], [1.0])])
@pytest.mark.parametrize("arithmetic", ["exact", "real"])
def test_non_finite_on_one_side_fails(mechanism, d, dp, arithmetic):
    """NaN or ±∞ whatever the draws on one dataset, a finite noisy value on the other:
    disjoint supports, ε = ∞ — under the default arithmetic too."""
    r = trace_mechanism(mechanism, d, dp, 1.0, rng=0, arithmetic=arithmetic)
    assert r.verdict == "fail", r.describe()
    assert ends(r.epsilon_interval) == (mpmath.inf, mpmath.inf)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_assert_private_trace_mode_fails_a_non_finite_output():
    with pytest.raises(PrivacyAssertionError):
        assert_private(_empty_mean, [], [1.0], 1.0, mode="trace")


@pytest.mark.parametrize("out", [None, "hello", b"bytes"])
def test_contract_violations_are_refused_as_the_sampled_audit_refuses_them(out):
    def mechanism(data, size, rng):
        return out
    with pytest.raises(ParameterError) as traced:
        trace_mechanism(mechanism, [1.0], [2.0], 1.0, rng=0)
    with pytest.raises(ParameterError) as sampled:
        audit_mechanism(mechanism, [1.0], [2.0], 1.0, 1000, rng=0)
    same = re.compile(r"a list of \d+ outputs")      # the trace asks for one release
    assert same.sub("", str(traced.value)) == same.sub("", str(sampled.value))


def _threshold(data, size, rng):
    if len(data) > 2:
        return sum(data) + rng.laplace(0.0, 1.0)
    return float(sum(data))


_CACHE: dict = {}


def _cached(data, size, rng):
    if "z" not in _CACHE:
        _CACHE["z"] = rng.laplace(0.0, 1.0)
    return sum(data) + _CACHE["z"]


@pytest.mark.parametrize("mechanism", [_threshold, _cached])
@pytest.mark.parametrize("swap", [False, True])
def test_runs_of_different_shapes_are_verdicts_not_crashes(mechanism, swap):
    """Noise drawn only past a threshold, or once and kept across calls: different numbers
    of noise calls on d and d' (or between runs). A verdict, never an IndexError; never a
    certificate."""
    _CACHE.clear()
    d, dp = ([1.0, 1.0, 1.0], [1.0, 1.0]) if not swap else ([1.0, 1.0], [1.0, 1.0, 1.0])
    r = trace_mechanism(mechanism, d, dp, 1.0, rng=0, arithmetic="real")
    assert r.verdict in ("fail", "inconclusive"), r.describe()


def test_outputs_of_different_types_are_not_certified():
    def mechanism(data, size, rng):
        if len(data) > 1:
            return {"x": sum(data) + rng.laplace(0.0, 1.0)}
        return [sum(data) + rng.laplace(0.0, 1.0)]
    r = trace_mechanism(mechanism, [1.0, 2.0], [1.0], 10.0, rng=0, arithmetic="real")
    assert r.verdict != "holds"


def test_a_plain_value_nested_in_a_dict_fails():
    def mechanism(data, size, rng):
        return {"count": len(data) + rng.laplace(0.0, 1.0), "stats": {"max": max(data)}}
    r = trace_mechanism(mechanism, [1.0, 2.0], [1.0, 3.0], 1.0, rng=0, arithmetic="real")
    assert r.verdict == "fail" and "unnoised-output" in r.kinds(), r.describe()


@pytest.mark.parametrize("body", [
    "return float(sum(d) + rng.laplace(0.0, 1.0))",                 # an escape
    "return max(0.0, sum(d) + rng.laplace(0.0, 1.0))",               # a branch
    "z = rng.laplace(0.0, 1.0)\n    return sum(d) + z + (0 if float(z) < 100 else 1000)",
    "z = rng.laplace(0.0, 1.0)\n    return sum(d) + (z if isinstance(z, float) else 2 * z)",
])
def test_what_the_tracker_cannot_follow_is_never_certified(body):
    """Past an escape (``float()``), a branch on a noisy value, or a mechanism that inspects
    the type of its noise, the dependence is unknown: never ``holds``."""
    ns: dict = {}
    exec(f"def mechanism(d, size, rng):\n    {body}", {"np": np}, ns)
    r = trace_mechanism(ns["mechanism"], [1.0, 2.0], [1.0], 10.0, rng=0, arithmetic="real")
    assert r.verdict != "holds", r.describe()


def test_integer_noise_controls_hold_under_the_default_arithmetic():
    r = trace_mechanism(lambda d, size, rng: len(d) + DiscreteLaplace(2).sample(rng=rng),
                        [1, 2], [1], 0.5, rng=0)
    assert r.verdict == "holds" and ends(r.epsilon_interval) == (0.5, 0.5), r.describe()
    r = trace_mechanism(lambda d, size, rng: len(d) + rng.integers(-3, 4), [1, 2], [1], 9.0,
                        rng=0)
    assert r.verdict == "fail" and ends(r.epsilon_interval)[0] == mpmath.inf    # shifted box


def test_numpy_float_samplers_hold_only_in_the_real_model():
    """``geometric(p) − geometric(p)`` is the two-sided geometric of ratio 1 − p (ε = 1 for
    p = 1 − e⁻¹). numpy draws the geometric as ⌈log(U)/log(1 − p)⌉ in floating point, with
    U ≥ 2⁻⁵³: a bounded support, so the implemented law is certified only in the real model."""
    p = 1 - math.exp(-1.0)

    def mechanism(d, size, rng):
        return len(d) + rng.geometric(p) - rng.geometric(p)
    real = trace_mechanism(mechanism, [1, 2], [1], 1.0, rng=0, arithmetic="real")
    assert real.verdict == "holds", real.describe()
    lo, hi = ends(real.epsilon_interval)
    exact_eps = -mpmath.log(mpmath.mpf(1) - mpmath.mpf(Fraction(p).numerator) /
                            Fraction(p).denominator)
    assert lo <= exact_eps <= hi
    exact = trace_mechanism(mechanism, [1, 2], [1], 1.0, rng=0)
    assert exact.verdict == "inconclusive"
    assert any("floating point" in u for u in exact.undecided)


# ------------------------------------------------------------------ the command line
_FILE = textwrap.dedent('''
    import numpy as np

    def rint_first(data, size, rng):
        return np.sum(data) + np.rint(rng.laplace(0.0, 1.0, size))

    def empty_mean(data, size, rng):
        return np.mean(np.asarray(data, dtype=float)) + rng.laplace(0.0, 1.0, size)

    def nothing(data, size, rng):
        return None
''')


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, d, dp, code", [
    ("rint_first", "[0.5, 0.2, 0.4]", "[0.5, 0.2]", 1),
    ("empty_mean", "[]", "[1.0]", 1),
    ("nothing", "[1.0]", "[2.0]", 2),
])
def test_the_cli_never_passes_what_the_trace_cannot_certify(tmp_path, name, d, dp, code):
    path = tmp_path / "mech.py"
    path.write_text(_FILE)
    res = CliRunner().invoke(app, ["audit", "--mechanism-file", f"{path}:{name}", "--epsilon",
                                   "1", "--d", d, "--d-prime", dp, "--samples", "20000",
                                   "--seed", "1"])
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output


@pytest.mark.slow
@pytest.mark.parametrize("coef_or_call", ["call", "coefficient"])
@pytest.mark.parametrize("eps, verdict", [(1.0, "fail"), (20.0, "holds")])
def test_a_data_dependent_gaussian_scale_is_certified_at_positive_delta(coef_or_call, eps,
                                                                       verdict):
    """σ = 2 + len(d)/10 (2.3 on d, 2.2 on d'), passed to rng.normal or multiplied in the
    code: the view is N(3, 2.3²) against N(2, 2.2²). Its ε(δ) is finite at δ > 0 — the
    interval holds the independent oracle's value — and infinite at δ = 0."""
    def mechanism(d, size, rng):
        sigma = 2.0 + 0.1 * len(d)
        if coef_or_call == "call":
            return sum(d) + rng.normal(0.0, sigma, size)
        return sum(d) + rng.standard_normal(size) * sigma
    d, dp = [1, 1, 1], [1, 1]
    r = trace_mechanism(mechanism, d, dp, eps, 1e-5, rng=0, arithmetic="real")
    assert r.verdict == verdict, r.describe()
    exact = oracles.gaussian_pair_epsilon(0, Fraction(2.0 + 0.1 * 3), -1, Fraction(2.0 + 0.1 * 2),
                                          Fraction(1, 10**5))
    lo, hi = ends(r.epsilon_interval)
    assert lo - 1e-8 <= exact <= hi + 1e-8
    pure = trace_mechanism(mechanism, d, dp, eps, 0.0, rng=0, arithmetic="real")
    assert pure.verdict == "fail" and ends(pure.epsilon_interval)[0] == mpmath.inf


@pytest.mark.parametrize("claim, verdict", [(0.5, "holds"), (0.4, "fail")])
def test_rounding_before_an_integer_shift_is_the_laplace_release(claim, verdict):
    """``s + rint(Lap(2))`` with s moving by 1: rint commutes with integer shifts, so the view
    is Lap(2) shifted by 1 (ε ≤ 1/2 by post-processing), and the rounded law keeps the
    geometric tails e^{−|k|/2} (ε ≥ 1/2): exactly 1/2."""
    r = trace_mechanism(lambda d, size, rng: sum(d) + np.rint(rng.laplace(0.0, 2.0)),
                        [1, 1], [1], claim, rng=0, arithmetic="real")
    assert r.verdict == verdict, r.describe()
    assert ends(r.epsilon_interval) == (0.5, 0.5)


def test_rounding_a_scaled_draw_with_an_offset():
    """``s − floor(1/4 + 3·Lap(1))``: the view is Lap(1) moved by 1/3 — exactly 1/3."""
    r = trace_mechanism(lambda d, size, rng: sum(d) - np.floor(0.25 + 3 * rng.laplace(0, 1.0)),
                        [2, 1], [2], 0.4, rng=0, arithmetic="real")
    assert r.verdict == "holds", r.describe()
    lo, hi = ends(r.epsilon_interval)
    third = mpmath.mpf(1) / 3
    assert lo <= third <= hi and hi - lo < 1e-15


def test_rounding_a_gaussian_or_at_positive_delta_is_an_upper_bound():
    r = trace_mechanism(lambda d, size, rng: sum(d) + np.rint(rng.normal(0.0, 2.0)),
                        [1, 1], [1], 1.0, 1e-5, rng=0, arithmetic="real")
    assert r.verdict == "inconclusive" and ends(r.epsilon_interval)[0] == 0


@pytest.mark.parametrize("delta, verdict", [(0.0, "fail"), (1e-3, "fail"),
                                            (0.05, "inconclusive")])
def test_clipping_the_noise_before_the_data_moves_its_atoms(delta, verdict):
    """``s + clip(Lap(1), −3, 3)``: point masses ½e⁻³ ≈ 0.0249 at s − 3 and s + 3 on d, at
    s' ± 3 on d', which the other dataset gives probability 0 — pure ε = ∞, and ε(δ) = ∞
    for δ below the atom's mass (the clip's three paths decide it). Above it (δ = 0.05)
    the releases bound the pair only by their pure loss (∞ here): not certified."""
    r = trace_mechanism(lambda d, size, rng: sum(d) + np.clip(rng.laplace(0.0, 1.0), -3, 3),
                        [1, 1], [1], 5.0, delta, rng=0, arithmetic="real")
    assert r.verdict == verdict, r.describe()


def test_randomness_around_rng_behind_a_plain_output_is_not_certified():
    """A leaf no draw reaches, equal on d and d' in the traced runs, but drawn from a
    generator of the mechanism's own: 0 with probability 0.97, else len(d) — true ε = ∞.
    Before a HOLDS the trace asks 32 more fresh runs per dataset to agree on such outputs
    (the generator is seeded by a call counter, so the runs are the same on every test run).
    This HOLDS was issued while the tracked path skipped that check."""
    calls = [0]

    def mechanism(d, size, rng):
        calls[0] += 1
        coin = bool(np.random.default_rng(calls[0]).random() < 0.97)
        return [(len(d) + DiscreteLaplace(2).sample(rng=rng), 0 if coin else len(d))]
    r = trace_mechanism(mechanism, [1, 2], [1], 0.5, rng=0)
    assert r.verdict != "holds", r.describe()
