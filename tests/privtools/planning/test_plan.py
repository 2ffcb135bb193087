"""Deployment plans (privtools.planning.plan) and their exact verification
(verification.plan_check.verify_plan): the theorem's parameters in bound mode, the certified
smallest τ in exact mode (checked against independent engines), Theorem 3, bad input, and
plans that must fail."""

import dataclasses
import json
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.certified import ends
from privtools.certified import intervals as _intervals
from privtools.errors import ParameterError
from privtools.exact import exact_tail, sum_pmf
from privtools.exact.divergence import renyi_shift
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.planning import (
    SUPPORTED,
    NoiseSum,
    exact_tau,
    plan,
    theorem_params,
    total_noise_tail,
    with_parameters,
)
from verification.plan_check import laplace_wrapped_llr, verify_plan

KINDS = {  # theorem -> plan() arguments
    1: {"privacy": "pure-dp"},
    2: {"privacy": "rdp"},
    3: {"privacy": "pure-dp", "secure": "shuffle"},
    4: {"privacy": "cdp"},
    5: {"privacy": "pure-dp", "trust": "central"},
    6: {"privacy": "pure-dp", "trust": "local"},
}


def _frac(x) -> Fraction:
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _oracle_tail(law, t: int, p: Fraction):
    """P(|N| > t) by an engine independent of planning's: PMF balls summed
    (verification.tails) or the n-fold convolution in Arb (privtools.exact)."""
    if isinstance(law, NoiseSum) and law.n > 1:
        tail = mpmath.mpf(p.numerator) / p.denominator * mpmath.mpf(10) ** -12
        pmf = sum_pmf(law.share, law.n, dps=20, tail=tail, method="convolve")
        return _intervals.ends(exact_tail(pmf, t))
    if isinstance(law, NoiseSum):
        law = law.share
    return _intervals.ends(exact_tail(law, t, dps=20))


# ------------------------------------------------------------------ bound mode
@given(theorem=st.sampled_from([1, 2, 4, 5, 6]),
       eps=st.sampled_from(["0.1", "0.5", "1", "2"]), logn=st.integers(0, 20),
       s=st.sampled_from(["1", "10", "100"]), horizon=st.sampled_from([10, 10**6]))
def test_bound_mode_is_theorem_params(theorem, eps, logn, s, horizon):
    n = 2**logn
    kw = dict(KINDS[theorem])
    if theorem in (2, 4):
        kw["s"] = s
    c = "3" if theorem == 6 else None
    pl = plan(epsilon=eps, n=n, horizon=horizon, tail="bound", c=c, **kw)
    ref = theorem_params(theorem, eps, n, Fraction(1, horizon),
                         s=s if theorem in (2, 4) else 1, c=c)
    assert (pl.theorem, pl.g, pl.tau, pl.m, pl.bits) == (theorem, ref.g, ref.tau, ref.m, ref.bits)
    assert pl.tau_bound == pl.tau and pl.p == pl.failure_probability == Fraction(1, horizon)
    if theorem == 5:
        assert pl.share is None and pl.central_noise == ref.noise == pl.total_noise
    else:
        assert pl.share == ref.share and pl.central_noise is None
    if theorem in (1, 2):
        assert pl.total_noise == ref.noise
    if theorem == 4:
        assert pl.total_noise == DiscreteGaussian(sigma2=Fraction(pl.g**2) / Fraction(eps) ** 2)
        assert pl.exact_total_noise == NoiseSum(pl.share, n)
        assert "nominal" in pl.total_noise_note
    if theorem == 6:
        assert pl.total_noise == NoiseSum(DiscreteLaplace(Fraction(pl.g) / Fraction(eps)), n)
    json.dumps(pl.to_dict())
    assert f"g = {pl.g}" in str(pl)


@pytest.mark.parametrize("eps,n,T", [("1", 16, 10**6), ("0.5", 1024, 1000), ("0.1", 2**20, 10**6)])
def test_theorem3_values(eps, n, T):
    pl = plan(privacy="pure-dp", secure="shuffle", epsilon=eps, n=n, horizon=T)
    e = Fraction(eps)
    ep = e / 2
    g = math.ceil(float(ep) * math.sqrt(n) - 1e-12)
    p_prime = Fraction(1, 2 * T)
    with mpmath.workdps(50):
        tau = int(mpmath.ceil(g / (mpmath.mpf(ep.numerator) / ep.denominator)
                              * mpmath.log(2 / (mpmath.mpf(1) / (2 * T)))))
    assert (pl.theorem, pl.g, pl.tau, pl.m) == (3, g, tau, n * g + 2 * tau + 1)
    assert pl.p_noise == pl.q_hat == p_prime and pl.failure_probability == Fraction(1, T)
    assert pl.epsilon_secure == e / 4 and pl.epsilon_view == ep
    assert pl.total_noise == DiscreteLaplace(Fraction(g) / ep)
    assert pl.share == DiscreteLaplace(Fraction(g) / ep).shares(n)
    t3 = theorem_params(3, eps, n, p_prime)
    assert (t3.g, t3.tau, t3.m) == (pl.g, pl.tau, pl.m)


# ------------------------------------------------------------------ exact mode
@settings(max_examples=80)
@given(theorem=st.sampled_from([1, 2, 3, 4, 5, 6]),
       eps=st.sampled_from(["0.1", "0.25", "0.5", "1", "2"]), n=st.integers(1, 24),
       s=st.sampled_from(["1", "3"]), horizon=st.sampled_from([10, 1000, 10**6, 10**12]))
def test_exact_tau_is_certified_and_minimal(theorem, eps, n, s, horizon):
    kw = dict(KINDS[theorem])
    if theorem in (2, 4):
        kw["s"] = s
    pl = plan(epsilon=eps, n=n, horizon=horizon, tail="exact", **kw)
    p = pl.p_noise
    law = pl.exact_total_noise
    # planning's own certificate
    assert _frac(ends(pl.tail_interval)[1]) <= p
    assert pl.tau == 0 or _frac(ends(pl.tail_interval_below)[0]) > p
    # an independent engine agrees: P(|N| > τ) <= p < P(|N| > τ − 1)
    lo, hi = _oracle_tail(law, pl.tau, p)
    assert _frac(hi) <= p
    if pl.tau > 0:
        lo, hi = _oracle_tail(law, pl.tau - 1, p)
        assert _frac(lo) > p
    # same g, same privacy; τ never above the theorem's (Theorem 6's bound needs c)
    if theorem != 6:
        bound = plan(epsilon=eps, n=n, horizon=horizon, tail="bound", **kw)
        assert pl.g == bound.g and pl.share == bound.share
        assert pl.tau <= pl.tau_bound == bound.tau and pl.m <= bound.m
        assert pl.bits_saved >= 0 and pl.bits <= pl.bits_bound
    assert pl.m == n * pl.g + 2 * pl.tau + 1


@pytest.mark.parametrize("law", [Skellam(Fraction(7, 3)), Skellam(10**5),
                                 NoiseSum(DiscreteGaussian(sigma2=Fraction(1, 3)), 5),
                                 NoiseSum(DiscreteGaussian(sigma2=2), 7),
                                 NoiseSum(DiscreteLaplace(Fraction(5, 2)), 3),
                                 DiscreteLaplace(Fraction(9, 2))])
def test_certified_tails_enclose_the_independent_engines(law):
    """Both enclosures contain the true tail; planning's is ~10^-dps wide relative to p."""
    for t in (0, 3, 17, 40):
        lo, hi = ends(total_noise_tail(law, t, dps=25, p=Fraction(1, 10**6)))
        olo, ohi = _oracle_tail(law, t, Fraction(1, 10**6))
        assert lo <= hi and olo <= hi and lo <= ohi
        assert hi - lo <= 1e-30 + 1e-20 * hi


def test_exact_tau_tiny_p_and_errors():
    r = exact_tau(Skellam(50), Fraction(1, 10**30))
    assert r.tau == Skellam(50).tail_quantile(Fraction(1, 10**30))
    with pytest.raises(ParameterError, match="p"):
        exact_tau(Skellam(50), 0)
    with pytest.raises(ParameterError, match="t"):
        total_noise_tail(Skellam(50), -1)
    with pytest.raises(ParameterError, match="share"):
        NoiseSum("Skellam(1)", 3)
    with pytest.raises(ParameterError, match="centred"):
        NoiseSum(Skellam(1, mu=2), 3)


@pytest.mark.parametrize("t", [0, 3, 9])
def test_noise_sum_reads_its_shares_facts(t):
    """Skellam closure: the Fourier tail of 3 summed Sk(0, 1) shares (built from the share's
    characteristic function and Chernoff bound) encloses the same value as Sk(0, 3)'s."""
    a = ends(total_noise_tail(NoiseSum(Skellam(1), 3), t, dps=25))
    b = ends(total_noise_tail(Skellam(3), t, dps=25))
    assert a[0] <= b[1] and b[0] <= a[1]
    assert a[1] - a[0] < a[1] * mpmath.mpf(10) ** -20


def test_exact_mode_saves_where_the_bound_is_loose():
    """Proposition 1 is loose for Skellam: about a third of τ goes; Fact 2 is nearly tight."""
    rdp = plan(privacy="rdp", epsilon="1", n=2**20, horizon=10**6, tail="exact")
    assert rdp.tau < 0.7 * rdp.tau_bound
    pure = plan(epsilon="1", n=16, horizon=10**6, tail="exact")
    assert pure.tau_bound - pure.tau == 4


def test_local_model_needs_c_only_for_the_bound():
    with pytest.raises(ParameterError, match="c"):
        plan(trust="local", epsilon="1", n=16, horizon=100)
    pl = plan(trust="local", epsilon="1", n=16, horizon=100, tail="exact")
    assert pl.tau_bound is None and pl.bits_saved is None and pl.c is None
    with pytest.raises(ParameterError, match="c"):
        plan(epsilon="1", n=16, horizon=100, c=2)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs,name", [
    ({"epsilon": 0}, "epsilon"), ({"epsilon": "-1"}, "epsilon"),
    ({"epsilon": float("nan")}, "epsilon"), ({"epsilon": None}, "epsilon"),
    ({"n": 0}, "n"), ({"n": 2.0}, "n"), ({"horizon": 0}, "horizon"),
    ({"horizon": float("nan")}, "horizon"), ({"horizon": 1}, "horizon"),
    ({"s": "0.5", "privacy": "rdp"}, "s"), ({"s": float("nan"), "privacy": "cdp"}, "s"),
    ({"s": 2}, "s"), ({"p": 1}, "p"), ({"p": 0}, "p"), ({"privacy": "zcdp"}, "privacy"),
    ({"trust": "none"}, "trust"), ({"secure": "mpc"}, "secure"), ({"tail": "guess"}, "tail"),
    ({"c": -1, "trust": "local"}, "c"), ({"dps": 2}, "dps"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    args = {"privacy": "pure-dp", "epsilon": "1", "n": 16, "horizon": 1000} | kwargs
    with pytest.raises(ParameterError, match=name):
        plan(**args)


@pytest.mark.parametrize("privacy,trust,secure", [
    ("rdp", "local", "secagg"), ("cdp", "central", "secagg"), ("rdp", "distributed", "shuffle"),
    ("pure-dp", "central", "shuffle"), ("pure-dp", "local", "shuffle"),
])
def test_unsupported_combinations_list_the_supported_ones(privacy, trust, secure):
    with pytest.raises(ParameterError, match="supported") as info:
        plan(privacy=privacy, trust=trust, secure=secure, epsilon="1", n=16, horizon=1000)
    for theorem in SUPPORTED.values():
        assert f"Theorem {theorem}" in str(info.value)


# ------------------------------------------------------------------ verification
@pytest.mark.parametrize("theorem", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("tail", ["bound", "exact"])
def test_verify_plan_passes_correct_plans(theorem, tail):
    c = "20" if theorem == 6 and tail == "bound" else None
    pl = plan(epsilon="0.5", n=16, horizon=10**4, tail=tail, c=c, **KINDS[theorem])
    chk = verify_plan(pl)
    assert chk.passed, chk.reasons
    assert chk.reasons == () and chk.bits == pl.bits
    assert _frac(ends(chk.failure)[1]) <= pl.failure_probability
    d = chk.to_dict()
    json.dumps(d)
    assert d["passed"] and {f["name"] for f in d["findings"]} >= {"failure probability"}
    if pl.privacy == "pure-dp":
        assert _frac(_intervals.ends(chk.epsilon)[1]) <= pl.epsilon
    else:
        assert chk.dp_epsilon <= chk.dp_epsilon_target + 1e-9


@pytest.mark.parametrize("theorem", [1, 2, 3, 4, 5, 6])
def test_verify_plan_fails_when_g_is_too_large_for_the_noise(theorem):
    pl = plan(epsilon="1", n=16, horizon=10**4, tail="exact", **KINDS[theorem])
    broken = dataclasses.replace(pl, g=2 * pl.g)
    chk = verify_plan(broken)
    assert not chk.passed
    assert any(r.startswith("privacy") and "fails" in r for r in chk.reasons)


@pytest.mark.parametrize("theorem", [1, 2, 3, 4, 5, 6])
def test_verify_plan_fails_when_tau_is_too_small(theorem):
    pl = plan(epsilon="1", n=16, horizon=10**4, tail="exact", **KINDS[theorem])
    chk = verify_plan(dataclasses.replace(pl, tau=pl.tau - 1, m=pl.m - 2))
    assert [r.split(":")[0] for r in chk.reasons] == ["failure probability"]
    assert _frac(ends(chk.failure)[0]) > pl.failure_probability


def test_lemma5_with_c_1_is_caught():
    """Theorem 6 with c = 1 in Lemma 5's τ: the exact tail of the 16 users' noise exceeds p."""
    chk = verify_plan(plan(trust="local", epsilon="1", n=16, horizon=10**6, c=1))
    assert not chk.passed and "failure probability" in chk.reasons[0]


def test_short_modulus_counts_the_wrap():
    pl = plan(epsilon="1", n=16, horizon=10**4, tail="exact")
    ok = verify_plan(pl)
    short = verify_plan(with_parameters(pl, m=pl.m - 10))
    assert short.plan.user_parameters == ("m",)
    assert ends(short.failure)[0] > ends(ok.failure)[1]
    assert not short.passed
    # a generous τ absorbs a slightly short modulus
    roomy = with_parameters(pl, tau=pl.tau + 40, m=pl.n * pl.g + 2 * pl.tau + 81 - 10)
    assert verify_plan(roomy).passed
    assert with_parameters(pl) is pl
    with pytest.raises(ParameterError, match="g"):
        with_parameters(pl, g=0)


@pytest.mark.parametrize("b,g,m", [(4, 4, 175), (Fraction(5, 2), 3, 41), (10, 7, 60)])
def test_wrapped_laplace_llr_closed_form_matches_tabulation(b, g, m):
    closed = laplace_wrapped_llr(b, g, m)
    tab = renyi_shift(DiscreteLaplace(b), g, math.inf, dps=25, m=m)
    lo, hi = _intervals.ends(closed)
    tlo, thi = _intervals.ends(tab)
    assert tlo <= hi and lo <= thi
    assert hi < Fraction(g) / Fraction(b) + 1e-30  # at most the unwrapped LLR g/b
    glo, ghi = _intervals.ends(laplace_wrapped_llr(b, g, m, gap=True))
    assert 0 < glo <= ghi
    with mpmath.workdps(60):
        direct = mpmath.mpf(g) / (mpmath.mpf(Fraction(b).numerator) / Fraction(b).denominator)
        assert abs(direct - (glo + ghi) / 2 - (lo + hi) / 2) < 1e-25


@pytest.mark.parametrize("privacy", ["pure-dp", "rdp", "cdp"])
def test_n_2_20_plans_verify(privacy):
    """(Its time is measured in benchmarks/bench_plan.py, not asserted here.)"""
    pl = plan(privacy=privacy, epsilon="1", n=2**20, horizon=10**6, tail="exact")
    chk = verify_plan(pl)
    assert chk.passed, chk.reasons


def test_verify_plan_bad_input():
    pl = plan(epsilon="1", n=16, horizon=100)
    with pytest.raises(ParameterError, match="plan"):
        verify_plan(theorem_params(1, "1", 16, "0.01"))
    with pytest.raises(ParameterError, match="delta"):
        verify_plan(pl, delta=0)
    with pytest.raises(ParameterError, match="orders"):
        verify_plan(pl, orders=[1])


@pytest.mark.parametrize("p", ["1e-3", "1e-12"])
def test_one_quantile_for_laws_sums_and_pmfs(p):
    """exact_quantile is one concept whatever it reads: the Fourier engine on a NoiseSum of
    3 Sk(0, 1/3) shares, the PMF window on Sk(0, 1) and the certified table of the summed
    PMF all give the same certified τ (Skellam closure)."""
    from privtools.exact import exact_quantile, sum_pmf

    q = Fraction(p)
    via_sum = exact_quantile(NoiseSum(Skellam(Fraction(1, 3)), 3), q)
    via_law = exact_quantile(Skellam(1), q)
    via_pmf = exact_quantile(sum_pmf(Skellam(Fraction(1, 3)), 3, dps=30, method="convolve"), q)
    assert via_sum == via_law == via_pmf == exact_tau(Skellam(1), q).tau


def test_an_uncertified_privacy_check_is_inconclusive_not_a_pass(monkeypatch):
    import verification.plan_check as pc
    from privtools.errors import CertificationError

    def refuse(*args, **kwargs):
        raise CertificationError("table too large")

    monkeypatch.setattr(pc, "_rdp", refuse)
    chk = pc.verify_plan(plan(privacy="rdp", epsilon=1, n=16, horizon=1000))
    assert not chk.passed
    assert [f.status for f in chk.findings if f.name.startswith("privacy")] == ["inconclusive"]
    assert any("table too large" in r for r in chk.reasons)
