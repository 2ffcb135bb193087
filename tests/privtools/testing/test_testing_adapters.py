"""privtools.testing.adapters: OpenDP measurements and diffprivlib mechanisms as
``mechanism(dataset, size, rng)`` with the claim read from the library object.

Each library test skips when the library is missing, unless PRIVTOOLS_REQUIRE_CONFORMANCE=1
(CI installs the extras): then a missing library fails the test. diffprivlib's package
``__init__`` imports its scikit-learn models, which fail with a scikit-learn newer than it
supports; its ``mechanisms`` are then loaded under a bare package module (as
studies/conformance.py does). Seeds are fixed; OpenDP cannot be seeded, so the tests on its
draws check only what holds for every draw (and the audit that passes runs at a tiny α).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import math
import pickle
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.testing import adapters
from tests.optional import OPTIONAL, REQUIRED
from tests.optional import need as _need
from verification.audit import audit_mechanism

ROOT = Path(__file__).resolve().parents[3]


def _load_diffprivlib_mechanisms():
    """``diffprivlib.mechanisms``, without the package ``__init__`` if that fails."""
    try:
        import diffprivlib.mechanisms as mech

        return mech
    except ImportError:
        pass
    for name in [k for k in sys.modules if k == "diffprivlib" or k.startswith("diffprivlib.")]:
        del sys.modules[name]
    try:
        spec = importlib.util.find_spec("diffprivlib")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        if REQUIRED:
            pytest.fail("diffprivlib is not installed (PRIVTOOLS_REQUIRE_CONFORMANCE=1)")
        pytest.skip(f"{OPTIONAL}: diffprivlib")
    pkg = types.ModuleType("diffprivlib")
    pkg.__path__ = list(spec.submodule_search_locations)
    sys.modules["diffprivlib"] = pkg
    try:
        return importlib.import_module("diffprivlib.mechanisms")
    except ImportError:
        del sys.modules["diffprivlib"]
        raise


@pytest.fixture(scope="module")
def dp():
    mod = _need("opendp.prelude", "opendp")
    mod.enable_features("contrib")          # the user's code does this, not the adapter
    return mod


@pytest.fixture(scope="module")
def dpl():
    return _load_diffprivlib_mechanisms()


def _laplace(dp, scale=2.0):
    return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                             scale=scale)


def _gaussian(dp, scale=2.0):
    return dp.m.make_gaussian(dp.atom_domain(T=float, nan=False),
                              dp.absolute_distance(T=float), scale=scale)


# ====================================================================== OpenDP: claims
@pytest.mark.parametrize("scale", [0.5, 2.0, 4.0])
def test_opendp_laplace_claim_is_d_in_over_scale(dp, scale):
    m = adapters.opendp(_laplace(dp, scale))
    assert m.epsilon == 1.0 / scale and m.delta == 0.0
    assert m.d_in == 1.0 and isinstance(m.d_in, float)
    assert m.library == "opendp" and m.seedable is False
    assert "make_laplace" in m.name and "MaxDivergence" in m.name
    assert adapters.opendp(_laplace(dp, scale), d_in=3).epsilon == 3.0 / scale


def test_opendp_integer_laplace_takes_an_integer_unit_distance(dp):
    meas = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=4.0)
    m = adapters.opendp(meas, name="counting query")
    assert (m.epsilon, m.d_in, m.name) == (0.25, 1, "counting query")
    assert type(m.d_in) is int


def test_opendp_gaussian_zcdp_claim_uses_opendps_conversion(dp):
    scale, delta = 2.0, 1e-6
    meas = _gaussian(dp, scale)
    rho = meas.map(1.0)
    assert rho == 1.0 / (2 * scale**2)
    m = adapters.opendp(meas, delta=delta)
    expected = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), delta).map(1.0)
    assert (m.epsilon, m.delta) == expected
    assert m.delta == delta
    # tighter than, and consistent with, the Bun-Steinke conversion
    assert rho < m.epsilon <= adapters.zcdp_epsilon(rho, delta)
    assert "make_zCDP_to_approxDP" in m.claim_source


def test_opendp_zcdp_falls_back_to_bun_steinke_without_contrib(dp):
    import opendp.mod

    meas = _gaussian(dp, 2.0)
    was_enabled = "contrib" in opendp.mod.GLOBAL_FEATURES
    dp.disable_features("contrib")
    try:
        m = adapters.opendp(meas, delta=1e-5)
    finally:
        if was_enabled:
            dp.enable_features("contrib")
    assert m.epsilon == adapters.zcdp_epsilon(0.125, 1e-5)
    assert m.delta == 1e-5 and "Bun & Steinke" in m.claim_source


def test_zcdp_epsilon_is_bun_steinke_proposition_1_3():
    # rho = 1/2, delta = e^-2: 1/2 + 2 sqrt(1/2 * 2) = 5/2
    assert math.isclose(adapters.zcdp_epsilon(0.5, math.exp(-2)), 2.5, rel_tol=1e-15)
    assert adapters.zcdp_epsilon(0, 1e-6) == 0.0
    for bad in [(-1, 1e-6), (0.5, 0), (0.5, 1), (0.5, None), (math.inf, 0.1)]:
        with pytest.raises(ParameterError, match="rho|delta"):
            adapters.zcdp_epsilon(*bad)


def test_opendp_approximate_and_smoothed_measures(dp):
    gauss = _gaussian(dp, 2.0)
    smoothed = dp.c.make_zCDP_to_approxDP(gauss)
    m = adapters.opendp(smoothed, delta=1e-6)
    assert (m.epsilon, m.delta) == (smoothed.map(1.0).epsilon(1e-6), 1e-6)
    fixed = dp.c.make_fix_delta(smoothed, 1e-6)
    m = adapters.opendp(fixed)
    assert (m.epsilon, m.delta) == fixed.map(1.0)
    approx_zcdp = dp.c.make_approximate(gauss)
    m = adapters.opendp(approx_zcdp, delta=1e-6)
    assert (m.epsilon, m.delta) == dp.c.make_fix_delta(
        dp.c.make_zCDP_to_approxDP(approx_zcdp), 1e-6).map(1.0)
    with pytest.raises(ParameterError, match="delta"):
        adapters.opendp(fixed, delta=1e-3)          # the measure states its own δ
    with pytest.raises(ParameterError, match="delta"):
        adapters.opendp(smoothed)


def test_opendp_default_d_in_and_unsupported_measures(dp):
    noisy_max = dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=int)),
                                    dp.linf_distance(T=int), dp.max_divergence(), scale=1.0)
    with pytest.raises(ParameterError, match="d_in.*LInfDistance"):
        adapters.opendp(noisy_max)
    assert adapters.opendp(noisy_max, d_in=1).epsilon == noisy_max.map(1)
    with pytest.raises(ParameterError, match="d_in"):
        adapters.opendp(_laplace(dp), d_in="one")
    import opendp.mod

    had = "honest-but-curious" in opendp.mod.GLOBAL_FEATURES
    dp.enable_features("honest-but-curious")
    try:
        custom = dp.m.make_user_measurement(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
            dp.user_divergence("MyDivergence"), lambda x: x, lambda d: d, TO=float)
    finally:
        if not had:
            dp.disable_features("honest-but-curious")
    with pytest.raises(ParameterError, match="measurement.*MyDivergence"):
        adapters.opendp(custom)


# ====================================================================== OpenDP: draws
def test_opendp_scalar_outputs(dp):
    m = adapters.opendp(_laplace(dp))
    out = m(0, 1000, np.random.default_rng(0))
    assert out.shape == (1000,) and out.dtype == np.float64
    assert np.isfinite(out).all() and len(np.unique(out)) > 990
    ints = adapters.opendp(dp.m.make_geometric(dp.atom_domain(T=int),
                                               dp.absolute_distance(T=int), scale=2.0))
    out = ints(np.int64(3), 500)          # numpy integers are accepted as the answer
    assert out.shape == (500,) and out.dtype == np.int64


def test_opendp_vector_domain_outputs(dp):
    meas = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int), size=3),
                              dp.l2_distance(T=int), scale=2.0)
    m = adapters.opendp(meas, delta=1e-6)
    assert m.d_in == 1
    out = m([1, 2, 3], 200)
    assert out.shape == (200, 3) and out.dtype == np.int64
    floats = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                               dp.l1_distance(T=float), scale=1.0)
    out = adapters.opendp(floats)(np.array([0.0, 1.0, 2.0, 3.0]), 50)
    assert out.shape == (50, 4) and out.dtype == np.float64
    with pytest.raises(ParameterError, match="dataset"):
        m([1, 2], 10)                       # not in the sized domain
    with pytest.raises(ParameterError, match="dataset"):
        m([1.5, 2, 3], 10)                  # not integers
    with pytest.raises(ParameterError, match="dataset"):
        m(7, 10)                            # not a vector


def test_opendp_sum_of_a_bounded_vector(dp):
    meas = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))),
                         dp.symmetric_distance()) >> dp.m.then_laplace(scale=5.0)
    m = adapters.opendp(meas)
    assert (m.d_in, m.epsilon) == (1, 2.0)           # one record added or removed
    assert "make_sum" in m.name and "make_laplace" in m.name
    out = m([1, 2, 3], 100)
    assert out.shape == (100,) and out.dtype == np.int64


def test_opendp_default_dataset_strategies(dp):
    sum_meas = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))),
                             dp.symmetric_distance()) >> dp.m.then_laplace(scale=5.0)
    m = adapters.opendp(sum_meas)
    assert repr(m.datasets) == repr(st.lists(st.integers(0, 10), max_size=32))
    ints = adapters.opendp(dp.m.make_geometric(dp.atom_domain(T=int),
                                               dp.absolute_distance(T=int), scale=2.0))
    assert repr(ints.datasets) == repr(st.integers(-100, 100))
    given_strategy = st.just(0.0)
    assert adapters.opendp(_laplace(dp), datasets=given_strategy).datasets is given_strategy
    with pytest.raises(ParameterError, match="datasets"):
        adapters.opendp(_laplace(dp), datasets=0.0)

    @settings(max_examples=20, derandomize=True, deadline=None)
    @given(data=m.datasets)
    def every_default_dataset_runs(data):
        assert m(data, 3).shape == (3,)

    every_default_dataset_runs()


def test_opendp_adapter_pickles_through_opendp_serialize(dp):
    meas = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))),
                         dp.symmetric_distance()) >> dp.m.then_laplace(scale=5.0)
    m = adapters.opendp(meas)
    back = pickle.loads(pickle.dumps(m))
    assert (back.epsilon, back.delta, back.d_in, back.name) == (m.epsilon, m.delta, m.d_in,
                                                                m.name)
    assert back([1, 2], 20).shape == (20,) and repr(back.datasets) == repr(m.datasets)


def test_opendp_bad_inputs_name_the_parameter(dp):
    lap, gauss = _laplace(dp), _gaussian(dp)
    with pytest.raises(ParameterError, match="measurement"):
        adapters.opendp(3)
    with pytest.raises(ParameterError, match="delta"):
        adapters.opendp(gauss)                      # zCDP needs a δ
    for delta in [0, 1, -0.1, 1.5, math.nan, True, "x"]:
        with pytest.raises(ParameterError, match="delta"):
            adapters.opendp(gauss, delta=delta)
    with pytest.raises(ParameterError, match="delta"):
        adapters.opendp(lap, delta=1e-6)            # pure DP: δ = 0 is the claim
    with pytest.raises(ParameterError, match="name"):
        adapters.opendp(lap, name=3)
    m = adapters.opendp(lap)
    for size in [0, -1, 2.5, True, "10"]:
        with pytest.raises(ParameterError, match="size"):
            m(0, size)
    with pytest.raises(ParameterError, match="dataset"):
        m("zero", 10)
    with pytest.raises(ParameterError, match="rng"):
        m(0, 10, "seed")


# ====================================================================== diffprivlib
def test_diffprivlib_claims_are_the_mechanisms_parameters(dpl):
    lap = dpl.Laplace(epsilon=0.7, sensitivity=1)
    m = adapters.diffprivlib(lap)
    assert (m.epsilon, m.delta) == (lap.epsilon, lap.delta) == (0.7, 0.0)
    assert m.library == "diffprivlib" and m.seedable is True and m.d_in is None
    assert m.name.startswith("Laplace(")
    gauss = dpl.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1)
    assert (adapters.diffprivlib(gauss).epsilon, adapters.diffprivlib(gauss).delta) == (1.0,
                                                                                        1e-5)
    assert adapters.diffprivlib(lap, name="my laplace").name == "my laplace"


@pytest.mark.parametrize("make, answer, dtype", [
    (lambda d: d.Laplace(epsilon=1, sensitivity=1), 0, np.float64),
    (lambda d: d.Gaussian(epsilon=0.5, delta=1e-3, sensitivity=1), 0.0, np.float64),
    (lambda d: d.LaplaceTruncated(epsilon=1, sensitivity=1, lower=-2, upper=2), 0, np.float64),
    (lambda d: d.LaplaceBoundedDomain(epsilon=1, sensitivity=1, lower=-2, upper=2), 0,
     np.float64),
    (lambda d: d.Geometric(epsilon=1, sensitivity=1), 0, np.int64),
    (lambda d: d.GeometricTruncated(epsilon=1, sensitivity=1, lower=-2, upper=2), 0, np.int64),
    (lambda d: d.GaussianDiscrete(epsilon=1, delta=1e-3, sensitivity=1), 0, np.int64),
])
def test_diffprivlib_draws_repeat_from_a_seed(dpl, make, answer, dtype):
    m = adapters.diffprivlib(make(dpl))
    a = m(answer, 300, np.random.default_rng(5))
    assert a.shape == (300,) and a.dtype == dtype
    assert np.array_equal(a, m(answer, 300, np.random.default_rng(5)))
    assert not np.array_equal(a, m(answer, 300, np.random.default_rng(6)))
    assert np.array_equal(a, m(answer, 300, 5))          # an int seed is a generator's seed


def test_diffprivlib_seeding_is_the_constructors_random_state(dpl):
    """A call with ``rng`` draws what the mechanism built with ``random_state = s`` draws,
    ``s`` the first integer below 2^32 drawn from ``rng``."""
    s = int(np.random.default_rng(11).integers(2**32))
    ref = dpl.Laplace(epsilon=1, sensitivity=1, random_state=s)
    expected = [ref.randomise(2.5) for _ in range(50)]
    m = adapters.diffprivlib(dpl.Laplace(epsilon=1, sensitivity=1))
    assert m(2.5, 50, np.random.default_rng(11)).tolist() == expected


def test_diffprivlib_adapter_keeps_its_own_copy_and_pickles(dpl):
    lap = dpl.Laplace(epsilon=1, sensitivity=1)      # unseeded: an OS-seeded SystemRandom
    m = adapters.diffprivlib(lap)
    lap.epsilon = 5.0
    assert m.epsilon == 1.0 and m.target.epsilon == 1.0
    back = pickle.loads(pickle.dumps(m))
    assert np.array_equal(back(0, 100, np.random.default_rng(3)),
                          m(0, 100, np.random.default_rng(3)))
    with pytest.raises(AttributeError):
        m.epsilon = 2.0


def test_diffprivlib_bad_inputs_name_the_parameter(dpl):
    with pytest.raises(ParameterError, match="mechanism"):
        adapters.diffprivlib(3)
    with pytest.raises(ParameterError, match="mechanism.*class Laplace"):
        adapters.diffprivlib(dpl.Laplace)
    with pytest.raises(ParameterError, match="name"):
        adapters.diffprivlib(dpl.Laplace(epsilon=1, sensitivity=1), name=1)
    geo = adapters.diffprivlib(dpl.Geometric(epsilon=1, sensitivity=1))
    with pytest.raises(ParameterError, match="dataset"):
        geo(0.5, 10)                                 # Geometric takes integers
    with pytest.raises(ParameterError, match="dataset"):
        geo(True, 10)
    for size in [0, 1.0, None]:
        with pytest.raises(ParameterError, match="size"):
            geo(0, size)
    with pytest.raises(ParameterError, match="rng"):
        geo(0, 10, np.random.RandomState(0))


def test_duck_typed_mechanism_without_a_generator_is_not_seedable():
    """Anything with ``randomise``, ``epsilon`` and ``delta`` is adapted (diffprivlib is not
    imported); without ``_rng`` the draws use the object's own randomness."""

    class Constant:
        epsilon, delta = 0.0, 0.0

        def randomise(self, value):
            return value + 1

    m = adapters.diffprivlib(Constant())
    assert m.seedable is False and (m.epsilon, m.delta) == (0.0, 0.0)
    assert m(4, 3, np.random.default_rng(0)).tolist() == [5, 5, 5]

    class NoClaim:
        def randomise(self, value):
            return value

    with pytest.raises(ParameterError, match="mechanism.*epsilon"):
        adapters.diffprivlib(NoClaim())


def test_adapters_import_neither_library_at_module_import():
    tree = ast.parse((ROOT / "privtools" / "testing" / "adapters.py").read_text())
    top = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            top.add(node.module.split(".")[0])
    assert not top & {"opendp", "diffprivlib", "hypothesis"}


# ====================================================================== end to end
def test_audit_passes_opendp_laplace_at_its_own_claim(dp):
    # OpenDP cannot be seeded: the verdict is random, wrong with probability <= alpha
    m = adapters.opendp(_laplace(dp, 2.0))
    res = audit_mechanism(m, 0, 1, m.epsilon, 20_000, rng=1, alpha=1e-6)
    assert res.passed, res.summary()


def test_audit_fails_an_understated_diffprivlib_claim(dpl):
    m = adapters.diffprivlib(dpl.Laplace(epsilon=1, sensitivity=1))
    res = audit_mechanism(m, 0, 1, 0.2, 20_000, rng=1)      # seeded: a fixed outcome
    assert not res.passed and res.epsilon_lower > 0.5
    assert audit_mechanism(m, 0, 1, m.epsilon, 20_000, rng=1).passed


# ------------------------------------------------------------------ under a grey-box trace
def test_diffprivlib_under_a_trace_checks_the_glue_exactly(dpl):
    """The library's noise is one recorded call of its law: an unclipped sum handed to a
    sensitivity-1 Laplace is shifted by 3 (ε = 3 for the pair, exactly); clipped, it holds
    at ε = 1; the geometric mechanism is the discrete Laplace of scale Δ/ε."""
    from verification.audit import trace_mechanism

    lap = adapters.diffprivlib(dpl.Laplace(epsilon=1, sensitivity=1))

    def unclipped(d, size, rng):
        return lap(float(np.sum(d)), size, rng)

    def clipped(d, size, rng):
        return lap(float(np.sum(np.clip(d, 0, 1))), size, rng)

    bad = trace_mechanism(unclipped, [0.5, 3.0], [0.5], 1.0, rng=0, arithmetic="real")
    assert bad.verdict == "fail" and bad.kinds() == ("sensitivity",)
    assert bad.epsilon_bounds == (3.0, 3.0)
    good = trace_mechanism(clipped, [0.5, 3.0], [0.5], 1.0, rng=0, arithmetic="real")
    assert good.verdict == "holds" and good.epsilon_bounds == (1.0, 1.0)
    assert trace_mechanism(clipped, [0.5, 3.0], [0.5], 1.0, rng=0).verdict == "inconclusive"
    geo = adapters.diffprivlib(dpl.Geometric(epsilon=0.5, sensitivity=2))
    r = trace_mechanism(lambda d, size, rng: geo(int(np.sum(d)), size, rng), [1, 1], [1], 0.5,
                        rng=0)
    assert r.verdict == "holds" and r.epsilon_bounds == (0.25, 0.25)     # shift 1, scale 4
    assert "DiscreteLaplace(scale=Fraction(4, 1))" in r.releases[0].law


def test_opendp_under_a_trace_is_replayed_though_it_draws_its_own_randomness(dp):
    """OpenDP cannot be seeded, yet under a trace its noise is recorded once and served
    again, so the replay is exact and the glue is decided: a count shifted by 3 through an
    integer Laplace of scale 2 costs ε = 3/2 exactly."""
    from verification.audit import trace_mechanism

    m = adapters.opendp(dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                          scale=2.0))
    r = trace_mechanism(lambda d, size, rng: m(int(np.sum(d)), size, rng), [1, 1], [1, 4],
                        0.5, rng=0)
    assert r.verdict == "fail" and r.epsilon_bounds == (1.5, 1.5)
    assert r.kinds() == ("sensitivity",)
