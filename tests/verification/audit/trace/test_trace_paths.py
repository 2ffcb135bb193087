"""The paths (``verification.audit.trace.paths``) tested as a verifier.

* Generated programs that branch on integer noise of finite support — comparisons of two
  noisy values, a noisy argmax of two, thresholds, ``choice`` with weights — whose exact
  output law on d and d' is enumerated independently: ``holds`` ⇒ ε ≤ claim, ``fail`` ⇒
  ε > claim, and wherever the paths decide, their certified interval holds the exact ε.
* The integrator against closed forms: races of exponentials, Gumbel argmax (the softmax
  of the exponential mechanism), a Laplace sparse vector's first comparison, a Gaussian
  difference.
* The worst pairs of the literature's leaky variants against their known ε.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from privtools.certified import ends
from verification import zoo
from verification.audit import trace_mechanism
from verification.audit.trace.paths.laws import AtomLaw
from verification.audit.trace.paths.measure import probability
from verification.audit.trace.record.affine import Lin
from verification.audit.trace.record.branches import Condition

F = Fraction


# ------------------------------------------------------------------ generated programs
_NOISE = st.one_of(
    st.tuples(st.just("integers"), st.integers(-2, 0), st.integers(0, 2)),
    st.tuples(st.just("binomial"), st.integers(1, 3), st.just(0)),
    st.tuples(st.just("choice"), st.integers(2, 3), st.integers(1, 4)),
)


def _expr(draws: int):
    leaves = st.one_of(
        st.tuples(st.just("data"), st.sampled_from(["len", "sum", "max"])),
        st.tuples(st.just("const"), st.integers(-2, 3)),
        st.tuples(st.just("noise"), st.integers(0, draws - 1)),
    )

    def grow(inner):
        return st.one_of(
            st.tuples(st.just("add"), inner, inner),
            st.tuples(st.just("gt"), inner, inner),
            st.tuples(st.just("argmax"), inner, inner),
            st.tuples(st.just("max"), inner, inner),
            st.tuples(st.just("if"), inner, st.integers(-1, 2), inner, inner),
        )
    return st.recursive(leaves, grow, max_leaves=5)


@st.composite
def programs(draw):
    noise = draw(st.lists(_NOISE, min_size=1, max_size=3))
    outs = draw(st.lists(_expr(len(noise)), min_size=1, max_size=2))
    d = draw(st.lists(st.integers(0, 2), min_size=1, max_size=3))
    dp = list(d)
    if draw(st.booleans()) or len(d) == 1:
        dp.append(draw(st.integers(0, 2)))
    else:
        i = draw(st.integers(0, len(d) - 1))
        dp[i] = draw(st.integers(0, 2).filter(lambda v, old=d[i]: v != old))
    eps = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return noise, tuple(outs), d, dp, eps


def _feature(name, data):
    return {"len": len(data), "sum": sum(data), "max": max(data)}[name]


def _eval(e, data, z):
    op = e[0]
    if op == "data":
        return _feature(e[1], data)
    if op == "const":
        return e[1]
    if op == "noise":
        return z[e[1]]
    if op == "add":
        return _eval(e[1], data, z) + _eval(e[2], data, z)
    if op == "gt":
        return np.greater(_eval(e[1], data, z), _eval(e[2], data, z)).astype(np.int64)
    if op == "argmax":
        return np.argmax(np.stack([np.asarray(_eval(e[1], data, z)),
                                   np.asarray(_eval(e[2], data, z))]))
    if op == "max":
        return np.maximum(_eval(e[1], data, z), _eval(e[2], data, z))
    if op == "if":
        if _eval(e[1], data, z) > e[2]:
            return _eval(e[3], data, z)
        return _eval(e[4], data, z)
    raise AssertionError(op)


def _weights(n, w):
    raw = np.array([w + k for k in range(n)], dtype=float)
    return raw / raw.sum()


def _mechanism(noise, outs):
    def mechanism(data, size, rng):
        z = []
        for kind, a, b in noise:
            if kind == "integers":
                z.append(rng.integers(a, b + 1))
            elif kind == "binomial":
                z.append(rng.binomial(a, 0.5))
            else:
                z.append(rng.choice(a, p=_weights(a, b)))
        return [tuple(_eval(e, data, z) for e in outs)]
    return mechanism


def _support(kind, a, b):
    if kind == "integers":
        return [(v, F(1, b - a + 1)) for v in range(a, b + 1)]
    if kind == "binomial":
        return [(k, F(math.comb(a, k), 2**a)) for k in range(a + 1)]
    raw = [F(float(x)) for x in _weights(a, b)]      # the weights' binary values
    return [(k, x / sum(raw)) for k, x in enumerate(raw)]


def _law(noise, outs, data) -> dict:
    law: dict = {}
    for combo in itertools.product(*(_support(*n) for n in noise)):
        z = [int(v) for v, _ in combo]
        p = math.prod((q for _, q in combo), start=F(1))
        o = tuple(int(np.asarray(_eval(e, data, z)).item()) for e in outs)
        law[o] = law.get(o, 0) + p
    return law


def exact_epsilon(noise, outs, d, dp):
    P, Q = _law(noise, outs, d), _law(noise, outs, dp)
    if set(P) != set(Q):
        return math.inf
    return max(abs(mpmath.log(mpmath.mpf(P[o].numerator) / P[o].denominator /
                              (mpmath.mpf(Q[o].numerator) / Q[o].denominator))) for o in P)


def _check(noise, outs, d, dp, eps):
    r = trace_mechanism(_mechanism(noise, outs), d, dp, eps, rng=0)
    true = exact_epsilon(noise, outs, d, dp)
    if r.verdict == "holds":
        assert true <= eps * (1 + 2.0**-40), (true, r.describe())
    elif r.verdict == "fail":
        assert true > eps, (true, r.describe())
    if r.paths is not None and r.paths.refused is None:
        lo, hi = ends(r.epsilon_interval)
        tol = mpmath.mpf(10) ** -12
        assert lo <= true * (1 + tol) and (true == mpmath.inf or hi >= true * (1 - tol)), \
            (true, r.describe())
    return r, true


@settings(max_examples=2 * settings.default.max_examples, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_paths_agree_with_the_enumerated_law(prog):
    _check(*prog)


# (noise, outputs, d, d', claim, exact ε, verdict): programs that pin a rule of the paths
_REGRESSIONS = {
    # a noisy comparison of two draws, one shifted by the data: decided exactly
    "compare-two-draws": (
        [("integers", -1, 1), ("integers", -1, 1)],
        (("gt", ("add", ("noise", 0), ("data", "len")), ("noise", 1)),),
        [1, 1], [1], 1.0, mpmath.log(3), "fail"),
    # a threshold on a count with too little noise: the tails' ratio is infinite
    "threshold-narrow-noise": (
        [("integers", 0, 1)],
        (("if", ("add", ("noise", 0), ("data", "len")), 2, ("const", 1), ("const", 0)),),
        [1, 1], [1], 2.0, math.inf, "fail"),
    # the exponential mechanism by choice: the weights are the data's only way out
    "choice-of-data-free-weights": (
        [("choice", 3, 1)], (("add", ("noise", 0), ("const", 0)),),
        [1], [1, 2], 0.5, 0.0, "holds"),
}


@pytest.mark.parametrize("name", sorted(_REGRESSIONS))
def test_regression_programs(name):
    noise, outs, d, dp, eps, true, verdict = _REGRESSIONS[name]
    r, exact = _check(noise, outs, d, dp, eps)
    assert abs(exact - true) <= 1e-12 if true != math.inf else exact == math.inf
    assert r.verdict == verdict, r.describe()


# ------------------------------------------------------------------ the integrator
def _lap(b):
    return AtomLaw("laplace", F(b))


def _ge(form_c, coefs):
    return Condition(Lin(F(form_c), {k: F(v) for k, v in coefs.items()}), False)


def _close(ball, value, rel=1e-15):
    lo, hi = float(ball.lower()), float(ball.upper())
    return lo - rel * abs(value) <= value <= hi + rel * abs(value) and hi - lo < 1e-20 + \
        rel * abs(value)


@pytest.mark.parametrize("a, b", [(1, 1), (2, 3), (F(1, 3), 5)])
def test_a_race_of_exponentials(a, b):
    """P(X ≥ Y) for X ~ Exp(mean a), Y ~ Exp(mean b) is a/(a + b)."""
    laws = {(0, 0): AtomLaw("exponential", F(a), lo=F(0)),
            (1, 0): AtomLaw("exponential", F(b), lo=F(0))}
    p = probability([_ge(0, {(0, 0): 1, (1, 0): -1})], laws)
    assert _close(p, float(F(a) / (F(a) + F(b))), 1e-13)


def test_gumbel_argmax_is_the_softmax():
    """argmax_i (q_i + Gumbel(β)) = i with probability e^(q_i/β) / Σ e^(q_j/β): the
    exponential mechanism (McSherry and Talwar 2007) as noisy max."""
    q, beta = [0, 1, F(5, 2)], F(2)
    laws = {(0, i): AtomLaw("gumbel", beta) for i in range(3)}
    weights = [math.exp(float(x / beta)) for x in q]
    for i in range(3):
        conds = [_ge(q[i] - q[j], {(0, i): 1, (0, j): -1}) for j in range(3) if j != i]
        assert _close(probability(conds, laws), weights[i] / sum(weights), 1e-13)


def test_a_gaussian_difference():
    """P(X − Y ≥ c) for X, Y ~ N(0, σ²) is Φ(−c / (σ√2))."""
    sigma, c = F(3, 2), F(1, 2)
    laws = {(0, 0): AtomLaw("normal", sigma), (1, 0): AtomLaw("normal", sigma)}
    p = probability([_ge(-c, {(0, 0): 1, (1, 0): -1})], laws)
    want = stats.norm.sf(float(c) / (float(sigma) * math.sqrt(2)))
    assert _close(p, want, 1e-13)


def test_the_first_answer_of_a_laplace_sparse_vector():
    """P(q + ν ≥ T + ρ) for ν ~ Lap(b1), ρ ~ Lap(b2): the Laplace difference's tail,
    ``1 − (b1² e^{-t/b1} − b2² e^{-t/b2}) / (2(b1² − b2²))`` at t = T − q ≥ 0."""
    b1, b2, t = F(4), F(2), F(3, 2)
    laws = {(0, 0): _lap(b2), (1, 0): _lap(b1)}
    p = probability([_ge(-t, {(1, 0): 1, (0, 0): -1})], laws)
    bb1, bb2, tt = float(b1), float(b2), float(t)
    want = (bb1**2 * math.exp(-tt / bb1) - bb2**2 * math.exp(-tt / bb2)) / (
        2 * (bb1**2 - bb2**2))
    assert _close(p, want, 1e-13)


def test_probabilities_of_every_path_sum_to_one():
    """The 2^3 sign patterns of three noisy answers against one threshold partition the
    space: their certified probabilities sum to a ball holding 1."""
    laws = {(0, 0): _lap(2), **{(1, i): _lap(4) for i in range(3)}}
    total = None
    for signs in itertools.product((0, 1), repeat=3):
        conds = []
        for i, s in enumerate(signs):
            form = Lin(F(i - 1), {(1, i): F(1), (0, 0): F(-1)})
            conds.append(Condition(form, False) if s else Condition(-form, True))
        p = probability(conds, laws)
        total = p if total is None else total + p
    assert _close(total, 1.0, 1e-13)


# ------------------------------------------------------------------ the literature's truths
@pytest.mark.parametrize("name, d, dp, true", [
    ("ReportNoisyMax3", (1, 1, 1, 1, 1), (2, 2, 2, 2, 2), 0.25),
    ("ReportNoisyMax4", (1, 1, 1, 1, 1), (2, 1, 1, 1, 1), math.inf),
    ("SVT5", (1,) * 10, (0,) + (1,) * 9, math.inf),
])
def test_leaky_variants_certify_their_true_epsilon(name, d, dp, true):
    m = zoo.get(name)
    r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=0, arithmetic="real")
    assert r.verdict == "fail", r.describe()
    lo, _ = ends(r.epsilon_interval)
    if true == math.inf:
        assert lo == mpmath.inf
    else:
        assert abs(lo - true) <= 1e-6 * true
    f = next(f for f in r.findings if f.kind == "path-loss")
    assert f.exact and ("probability" in f.detail or "density" in f.detail)


def test_a_program_that_computes_otherwise_when_tracked_is_refused():
    """The paths check each path at a point with a plain run: a mechanism that looks at
    the type of its draws computes something else when they are tracked."""
    def sneaky(d, size, rng):
        z = rng.laplace(0.0, 1.0)
        x = z if isinstance(z, float) else 2 * z
        return sum(d) + (x if x > 0 else x)
    r = trace_mechanism(sneaky, [1, 1], [1], 10.0, rng=0, arithmetic="real")
    assert r.verdict != "holds"


# ------------------------------------------------------------------ proofs for every pair
def _sparse_vector(rho_b, nu_b, threshold):
    """Lyu–Su–Li's Algorithm 1 with c = 1, written as a loop, with free noise scales."""
    def mechanism(data, size, rng):
        out = np.full(size, len(data))
        for r in range(size):
            t = threshold + rng.laplace(0.0, rho_b)
            for i, q in enumerate(data):
                if q + rng.laplace(0.0, nu_b) >= t:
                    out[r] = i
                    break
        return out
    return mechanism


def _noisy_max(b):
    def mechanism(data, size, rng):
        return np.argmax(np.add(data, rng.laplace(0.0, b, (size, len(data)))), axis=1)
    return mechanism


@pytest.mark.parametrize("name", ["SVT1", "SVT2", "NumericalSVT", "ReportNoisyMax1",
                                  "ReportNoisyMax2"])
def test_the_private_variants_are_proved_for_every_pair(name):
    m = zoo.get(name)
    k = 5 if name.startswith("Report") else 4
    d = (1,) * k
    dp = (2,) + (1,) * (k - 1)
    r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=0, arithmetic="real",
                        relation="query")
    assert r.verdict == "holds" and r.proof is not None, r.describe()
    assert r.proof.cost <= F(m.epsilon) and r.proof.paths >= k
    assert r.to_dict()["proof"]["cost_float"] <= m.epsilon


def test_a_leaky_variant_gets_no_proof_but_its_alignment_bound():
    """Algorithm 3's cheapest alignment costs k·ε/2 — its true ε — above the claim."""
    r = trace_mechanism(zoo.get("SVT3").mechanism, (1, 1, 1, 1), (2, 1, 1, 1), 0.1, rng=0,
                        arithmetic="real", relation="query")
    assert r.proof is None
    note = next(x for x in r.decided if "alignment" in x)
    assert "proves ε ≤ 0.2 only" in note


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["svt", "max"]), b1=st.sampled_from([1, 2, 4]),
       b2=st.sampled_from([1, 2, 4, 8]), threshold=st.integers(0, 2),
       d=st.lists(st.integers(0, 2), min_size=2, max_size=3),
       moves=st.lists(st.lists(st.integers(-1, 1), min_size=3, max_size=3), min_size=1,
                      max_size=4))
def test_a_proof_bounds_every_pairs_certified_loss(kind, b1, b2, threshold, d, moves):
    """Two independent computations agree: the alignment's cost c (asked with a claim it
    surely meets) bounds the paths' certified loss of every pair of the query relation,
    and traced at the claim c no pair fails."""
    mech = _sparse_vector(b1, b2, threshold) if kind == "svt" else _noisy_max(b1)
    pairs = [tuple(x + m for x, m in zip(d, mv)) for mv in moves]
    pairs = [p for p in pairs if p != tuple(d)]
    if not pairs:
        return
    r = trace_mechanism(mech, tuple(d), pairs[0], 100.0, rng=0, arithmetic="real",
                        relation="query")
    assert r.proof is not None, r.describe()        # Laplace noise: a shift always exists
    cost = r.proof.cost
    for dp in pairs:
        q = trace_mechanism(mech, tuple(d), dp, float(cost), rng=0, arithmetic="real")
        assert q.epsilon_interval is not None, q.describe()
        lo, _ = ends(q.epsilon_interval)
        assert lo <= float(cost) * (1 + 1e-12), (dp, float(cost), q.describe())
        assert q.verdict != "fail", q.describe()
