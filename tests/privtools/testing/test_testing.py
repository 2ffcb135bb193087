"""privtools.testing: the assertions, the hypothesis strategies and the pytest fixture."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.noise import DiscreteLaplace
from privtools.testing import (
    NoisyQuery,
    PrivacyAssertionError,
    assert_follows,
    assert_private,
    find_counterexample,
)
from privtools.testing import strategies as pst
from verification.audit.sequential import _inverted_lower, _log_ratios, _resolutions
from verification.audit.stats.hockey import kelly_fraction as _kelly


def _laplace_sum(scale):
    lap = DiscreteLaplace(scale)
    return lambda d, size, rng: int(sum(d)) + lap.sample(size, rng)


def test_assert_private_passes_and_fails():
    # Lap_Z(4) on a sensitivity-1 sum is exactly (1/4)-DP; default alpha = 1e-3 is the
    # false-alarm rate of the first assertion (seed fixed, so deterministic).
    res = assert_private(_laplace_sum(4), [0, 1], [0, 0], epsilon=0.25, n_samples=100_000)
    assert res.passed
    with pytest.raises(PrivacyAssertionError, match="FAIL") as exc:
        assert_private(_laplace_sum(1), [0, 1], [0, 0], epsilon=0.25, n_samples=100_000)
    assert exc.value.result.epsilon_lower > 0.5
    with pytest.raises(PrivacyAssertionError, match="INCONCLUSIVE"):
        assert_private(_laplace_sum(4), [0, 1], [0, 0], epsilon=20, n_samples=500)


def test_assert_follows():
    lap = DiscreteLaplace(4)
    assert assert_follows(lap.sample, lap, n_samples=50_000).passed
    with pytest.raises(PrivacyAssertionError, match="sampler audit FAIL"):
        assert_follows(DiscreteLaplace(8).sample, lap, n_samples=50_000)


@settings(max_examples=15)
@given(plan=pst.plans())
def test_plans_strategy_gives_consistent_plans(plan):
    assert plan.m >= plan.n * plan.g + 2 * plan.tau + 1 and plan.g >= 1


@given(eps=pst.epsilons(), n=pst.batch_sizes(), p=pst.probabilities(), law=pst.noise_laws())
def test_parameter_strategies_stay_in_range(eps, n, p, law):
    assert 0 < eps <= 2 and n >= 1 and 0 < p < 1 and law.var() > 0


@given(pair=pst.neighbouring_rewards(5))
def test_neighbouring_rewards_differ_in_one_user(pair):
    x, y = pair
    assert ((x != y).sum() == 1) and np.all((0 <= x) & (x <= 1)) and np.all((0 <= y) & (y <= 1))


def test_privacy_audit_fixture(privacy_audit):
    assert privacy_audit.n_samples == 200_000
    privacy_audit.mechanism(_laplace_sum(4), [1], [0], epsilon=0.25, n_samples=50_000)
    with pytest.raises(PrivacyAssertionError):
        privacy_audit.sampler(DiscreteLaplace(2).sample, DiscreteLaplace(4), n_samples=20_000)


# ---------------------------------------------------------------- sequential assertions

def _float_laplace(scale):
    return lambda d, size, rng: float(sum(d)) + rng.laplace(0.0, scale, size)


def test_sequential_is_the_default_and_stops_early_on_a_gross_bug():
    with pytest.raises(PrivacyAssertionError, match="FAIL") as exc:
        assert_private(_laplace_sum(2), [0, 1], [0, 0], epsilon=0.25)   # scale halved
    res = exc.value.result
    assert res.draws <= 4096 and res.e_value >= 1 / res.alpha
    assert 0.25 <= res.epsilon_lower <= 0.5      # the claim is rejected; the truth is 0.5
    ok = assert_private(_laplace_sum(4), [0, 1], [0, 0], epsilon=0.25, max_samples=20_000)
    assert ok.verdict == "pass" and ok.draws == 20_000
    # a fixed-size audit when n_samples is given; draws is then n_samples
    assert assert_private(_laplace_sum(4), [1], [0], 0.25, n_samples=20_000).draws == 20_000
    with pytest.raises(PrivacyAssertionError, match="INCONCLUSIVE") as exc:
        assert_private(_laplace_sum(4), [1], [0], epsilon=20, max_samples=2000)
    assert exc.value.result.draws == 2000


def test_sequential_sampler_assertion():
    lap = DiscreteLaplace(4)
    assert assert_follows(lap.sample, lap, max_samples=50_000).draws == 50_000
    with pytest.raises(PrivacyAssertionError, match="sampler audit FAIL") as exc:
        assert_follows(DiscreteLaplace(8).sample, lap)
    assert exc.value.result.draws <= 8192


@given(p=st.floats(0, 1), q=st.floats(0, 1), eps=st.floats(0, 5), delta=st.floats(0, 0.5))
def test_every_bet_is_fair_or_worse_under_the_claim(p, q, eps, delta):
    # the e-process is a supermartingale: E[1 + λZ] <= 1 whenever p <= e^ε q + δ, for the
    # λ the audit would pick from ANY estimate (here: every estimate on a grid)
    q_true = q
    p_true = min(p, math.exp(eps) * q_true + delta)
    cap = 0.9 / (math.exp(eps) + delta)
    z = [1 - delta, -math.exp(eps) - delta, 1 - math.exp(eps) - delta, -delta]
    w = [p_true * (1 - q_true), (1 - p_true) * q_true, p_true * q_true,
         (1 - p_true) * (1 - q_true)]
    for p_hat in (0.0, 0.3, 0.9):
        for q_hat in (0.0, 0.01, 0.5):
            lam = _kelly(p_hat, q_hat, eps, delta, cap)
            assert 0 <= lam <= cap
            assert sum(wi * (1 + lam * zi) for wi, zi in zip(w, z)) <= 1 + 1e-12
            assert min(1 + lam * zi for zi in z) >= 0.1 - 1e-12


@given(mass=st.lists(st.integers(0, 50), min_size=2, max_size=40),
       counts=st.lists(st.integers(0, 10**6), min_size=40, max_size=40))
def test_every_sampler_bet_is_fair_under_the_claim(mass, counts):
    # the sampler e-process is a martingale under the claimed law: for every weight,
    # Σ p₀ · q_w/p₀ = 1 whatever the earlier counts were (≤ 1 if some fell where p₀ = 0,
    # which already crossed), and q_w > 0 wherever p₀ > 0
    p0 = np.asarray(mass, dtype=float)
    if p0.sum() == 0:
        p0[0] = 1.0
    p0 /= p0.sum()
    seen = np.asarray(counts[:p0.size], dtype=float)
    ratios = np.exp(_log_ratios(p0, seen))
    assert np.isinf(ratios[:, p0 == 0]).all()
    assert (ratios[:, p0 > 0] > 0).all()
    total = (ratios[:, p0 > 0] * p0[p0 > 0]).sum(axis=1)
    assert (total <= 1 + 1e-12).all()     # counts where p0 = 0 only make the bet worse
    if not seen[p0 == 0].any():
        np.testing.assert_allclose(total, 1.0, rtol=1e-12)


def test_sampler_groups_cover_the_fine_bins_in_order():
    p0 = DiscreteLaplace(4).pmf(np.arange(-60, 61))
    p0 = p0 / p0.sum()
    coarse, fine = _resolutions(p0)
    assert (np.diff(coarse) >= 0).all() and set(coarse) == set(range(coarse.max() + 1))
    assert 8 <= coarse.max() + 1 <= 16
    assert (fine == np.arange(p0.size)).all()
    assert len(_resolutions(np.full(8, 1 / 8))) == 1     # few bins: one resolution


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), eps=st.floats(0.05, 2.0),
       delta=st.sampled_from([0.0, 1e-3, 0.05]), lift=st.floats(0.2, 3.0))
def test_inverted_lower_bound_only_claims_rejected_values(seed, eps, delta, lift):
    # every ε' in [0, ε_lower] must have a process (λ' rescaled as documented) that
    # reached the threshold: checked directly on a fine grid, including inside the steps
    g = np.random.default_rng(seed)
    n = 3000
    q = 0.2
    p = min(1.0, math.exp(eps + lift) * q)
    x, y = (g.random(n) < p).astype(float), (g.random(n) < q).astype(float)
    cap = 0.9 / (math.exp(eps) + delta)
    lam = np.full(n, _kelly(p, q, eps, delta, cap))
    threshold = math.log(1e3)

    def reached(t):
        scale = 1.0 if t <= eps else (math.exp(eps) + delta) / (math.exp(t) + delta)
        path = np.cumsum(np.log1p(lam * scale * (x - math.exp(t) * y - delta)))
        return path.max() >= threshold

    crossed = reached(eps)
    low = _inverted_lower(lam, x, y, eps, delta, threshold, crossed)
    if crossed:
        assert low >= eps
    for t in np.linspace(0.0, low, 60) if low > 0 else ():   # ε ≥ 0 needs no evidence
        assert reached(float(t)), (t, low)


# ---------------------------------------------------------------- counterexamples
def _leaky_mean(d, size, rng):
    # bug: noise for a mean of values in [0, 10] calibrated as if one record moved it by 1/n
    n = max(len(d), 1)
    return float(np.clip(d, 0, 10).sum()) / n + rng.laplace(0.0, 1.0 / n, size)


def test_find_counterexample_shrinks_to_a_minimal_pair_and_repeats():
    records = st.lists(st.integers(0, 10), max_size=20)
    cx = find_counterexample(_leaky_mean, 1.0, records)
    # ε of the pair ([0], [v]) is v: the smallest violating pair is one record, 0 vs 2
    assert cx is not None and len(cx.d) == len(cx.d_prime) == 1
    assert sorted([cx.d[0], cx.d_prime[0]]) == [0, 2]
    assert cx.epsilon_lower > 1 and cx.event is not None and cx.draws <= 200_000
    assert "confirm_pair(_leaky_mean, d=" in cx.reproduce
    # the line repeats the confirmation exactly: the same audit, the same bound
    scope = {"_leaky_mean": _leaky_mean}
    head, call = cx.reproduce.split("; ")
    exec(head, scope)
    rep = eval(call, scope)
    assert rep.verdict == "fail" and rep.epsilon_lower == cx.epsilon_lower
    assert rep.alpha == cx.alpha_per_comparison
    again = find_counterexample(_leaky_mean, 1.0, records)
    assert (again.d, again.d_prime, again.epsilon_lower) == (cx.d, cx.d_prime,
                                                             cx.epsilon_lower)
    with pytest.raises(PrivacyAssertionError, match="minimal pair") as exc:
        assert_private(_leaky_mean, epsilon=1.0, datasets=records)
    assert exc.value.counterexample.d_prime == cx.d_prime


def test_no_counterexample_for_a_private_mechanism():
    private = _float_laplace(10.0)     # sum of records in [0, 10], scale 10: ε = 1
    datasets = st.lists(st.integers(0, 10), min_size=1, max_size=5)
    assert find_counterexample(private, 1.0, datasets, max_examples=20,
                               screen_samples=5000) is None


def test_search_over_a_strategy_of_pairs_and_its_options():
    # neighbours= as a strategy of pairs needs no datasets; the search options reach the
    # search through assert_private, and only there
    def leaky(d, size, rng):            # Lap(1) on a value that moves by up to 3
        return float(d[0]) + rng.laplace(0.0, 1.0, size)
    pairs = st.integers(0, 3).map(lambda v: ((0,), (v,))).filter(lambda p: p[0] != p[1])
    with pytest.raises(PrivacyAssertionError, match="privacy search") as exc:
        assert_private(leaky, epsilon=1.0, neighbours=pairs, max_examples=10,
                       screen_samples=5000)
    cx = exc.value.counterexample
    assert (cx.d, cx.d_prime) == ((0,), (2,)) and cx.epsilon_lower >= 1.0   # shrunk: 1 is ε = 1
    with pytest.raises(ParameterError, match="max_examples"):
        assert_private(leaky, (0,), (1,), 1.0, max_examples=10)


@given(pair=pst.replace_one(st.lists(st.integers(0, 5), max_size=6)))
def test_replace_one_pairs_differ_in_one_record(pair):
    d, e = pair
    assert len(d) == len(e) >= 1 and sum(a != b for a, b in zip(d, e)) == 1


@given(pair=pst.add_remove_one(st.lists(st.integers(0, 5), max_size=6)))
def test_add_remove_pairs_drop_one_record(pair):
    d, e = pair
    assert len(e) == len(d) - 1 and all(e.count(v) <= d.count(v) for v in e)


@given(pair=pst.bounded_change(st.lists(st.integers(-9, 9), min_size=1, max_size=4), l1=2))
def test_bounded_change_respects_the_sensitivity(pair):
    v, w = pair
    assert 0 < sum(abs(a - b) for a, b in zip(v, w)) <= 2


@settings(max_examples=20)
@given(data=st.data())
def test_dataframe_rows(data):
    import pandas as pd

    frames = st.lists(st.integers(0, 3), min_size=1, max_size=4).map(
        lambda xs: pd.DataFrame({"x": xs}))
    df, other = data.draw(pst.dataframe_rows(frames, "add-remove"))
    assert len(other) == len(df) - 1
    df, other = data.draw(pst.dataframe_rows(frames))
    assert len(other) == len(df) and (df["x"].values != other["x"].values).sum() == 1


# ---------------------------------------------------------------- exact mode
def test_exact_mode_certifies_the_pair():
    release = NoisyQuery(sum, DiscreteLaplace(4))
    res = assert_private(release, [0, 1], [0, 0], epsilon=0.25, exact=True)
    assert res.draws == 0 and res.value[0] <= 0.25 <= res.value[1] and res.verdict == "pass"
    with pytest.raises(PrivacyAssertionError, match="FAIL"):
        assert_private(release, [0, 1], [0, 0], epsilon=0.2, exact=True)
    # a batch of Theorem 1 (000): 1024 users' Pólya shares sum to Lap_Z, released mod m
    batch = NoisyQuery(sum, DiscreteLaplace(Fraction(1024)), m=2**20)
    assert assert_private(batch, [1] + [0] * 1023, [0] * 1024, epsilon=Fraction(1, 1024),
                          exact=True).passed
    out = release([3], 1000, np.random.default_rng(0))
    assert out.shape == (1000,) and abs(float(np.median(out)) - 3) <= 2


def test_exact_mode_reads_output_laws():
    import mpmath
    from flint import arb

    from privtools.exact import ExactPMF

    class Coin:          # randomised response on one bit, e^ε = 3
        def output_law(self, d):
            p = arb(3) / 4 if d[0] else arb(1) / 4
            return ExactPMF(0, (1 - p, p), mpmath.mpf(0), 30)

    res = assert_private(Coin(), [1], [0], epsilon=math.log(3) + 1e-9, exact=True)
    assert res.passed
    # δ(ε) of the pair: 3/4 − e^ε/4 (the larger of both directions), certified
    delta = 0.75 - math.exp(0.5) / 4
    res = assert_private(Coin(), [1], [0], epsilon=0.5, delta=delta + 1e-12, exact=True)
    assert res.value[0] <= delta <= res.value[1] and res.quantity == "delta"
    with pytest.raises(PrivacyAssertionError, match="FAIL"):
        assert_private(Coin(), [1], [0], epsilon=0.5, delta=delta - 1e-9, exact=True)


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="epsilon"):
        assert_private(_laplace_sum(4), [1], [0])
    with pytest.raises(ParameterError, match="datasets"):
        assert_private(_laplace_sum(4), [1], [0], 1.0, datasets=[[0]])
    with pytest.raises(ParameterError, match="d_prime"):
        assert_private(_laplace_sum(4), [1], epsilon=1.0)
    with pytest.raises(ParameterError, match="max_samples"):
        assert_private(_laplace_sum(4), [1], [0], 1.0, n_samples=1000, max_samples=1000)
    with pytest.raises(ParameterError, match="exact=True"):
        assert_private(_laplace_sum(4), [1], [0], 1.0, exact=True)
    with pytest.raises(ParameterError, match="neighbours"):
        find_counterexample(_laplace_sum(4), 1.0, [[0]], neighbours="swap")


def test_a_failing_assertion_shows_its_message_and_reproducing_line_not_library_source(
        tmp_path):
    import subprocess
    import sys

    (tmp_path / "test_user.py").write_text(
        "from privtools.testing import assert_private\n\n"
        "def leaky(d, size, rng):\n"
        "    return float(sum(d)) + rng.laplace(0, 0.1, size)\n\n"
        "def test_leaky():\n"
        "    assert_private(leaky, d=[0, 1], d_prime=[0, 2], epsilon=1.0)\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path / "test_user.py")], capture_output=True, text=True,
                         cwd=tmp_path, timeout=300).stdout
    failure = out[out.index("test_leaky ___"):out.index("short test summary")]
    assert "privacy audit FAIL" in failure and "reproduce: assert_private(leaky" in failure
    assert "def assert_private" not in failure and "privtools/testing" not in failure
    assert len(failure.splitlines()) < 15
