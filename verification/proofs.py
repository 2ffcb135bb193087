"""Symbolic (sympy) proofs of the closed-form facts the exact-PMF engine relies on.

The exact-PMF code never samples. It evaluates the law of the *aggregate* noise
in closed form and gets whole ranges of PMF values from three-term recurrences.
That only works if a few identities hold exactly. This module proves them with
sympy, so the proofs do not rest on floating-point spot checks. Each check
returns a :class:`SymbolicCheck`. ``holds`` is ``True`` only when sympy reduces
the residual to exactly ``0``. A failed identity never raises: it gives
``holds=False`` with the residual in ``detail``.

Checks and why the exact-PMF code needs them:

``polya_pgf``
    Pólya(r, β) (negative binomial, PMF Γ(x+r)/(x! Γ(r)) β^x (1−β)^r) has PGF
    ((1−β)/(1−βz))^r. It is proved twice. (a) sympy sums the series in closed
    form (the binomial series). (b) The ratio recurrence of the PMF turns into the
    ODE (1−βz)G' = rβG with G(0) = (1−β)^r, and the claimed PGF satisfies that
    ODE and initial value. Every later PGF argument for Pólya shares starts from
    this.
``fact1_infinite_divisibility``
    Fact 1 of paper 000 (infinite divisibility of the discrete Laplace). The
    product of the 2n share PGFs of Pólya(1/n, e^{−1/b}) (γ⁺ at z, γ⁻ at 1/z)
    equals the closed-form Laurent series Σ_x c β^{|x|} z^x of Lap_Z(b) on the
    annulus β < |z| < 1/β, for symbolic n and b. The exact-PMF engine depends on
    this: it replaces the n-fold convolution of Pólya-difference shares with the
    discrete-Laplace closed form (e^{1/b}−1)/(e^{1/b}+1)·e^{−|x|/b}.
``skellam_closure``
    The Skellam Sk(μ, σ²) PMF e^{−σ²} I_{x−μ}(σ²) has PGF
    z^μ exp(σ²(z+1/z)/2 − σ²). This uses the Bessel generating function
    exp((x/2)(t+1/t)) = Σ_k I_k(x) t^k. The identity is known, and here it is also
    proved: the Cauchy product gives the coefficient of t^k, and sympy sums that
    to besseli(k, x). Its first coefficients are then checked with sympy
    ``series``. It follows that Sk(μ1,σ1²) + Sk(μ2,σ2²) ~ Sk(μ1+μ2, σ1²+σ2²). The
    engine relies on this for the closed form of summed Skellam shares (000 §5,
    Thm 2).
``fact2_tail``
    Fact 2 of paper 000. For Y ~ Lap_Z(Δ/ε) and integer k ≥ 0,
    P(Y > k) = P(Y < −k) = e^{−εk/Δ}/(e^{ε/Δ}+1). The PMF also sums to 1. The
    proof is a symbolic geometric summation with symbolic k. The engine uses this
    as the exact tail of the central/aggregate discrete Laplace, which sets the
    modulus m through τ (Thm 1).
``polya_difference_recurrence``
    Let D = γ⁺ − γ⁻ with γ± i.i.d. Pólya(r, β). Its PMF satisfies
    β(n+1−r) p_{n+1} = (1+β²) n p_n − β(n−1+r) p_{n−1}. The proof has three parts.
    The Laurent PGF satisfies a first-order ODE. The coefficient of z^{n+1} is
    extracted symbolically. The recurrence is then checked to 40 digits against
    the closed form via 2F1. The engine needs this to evaluate single-share
    Pólya-difference PMFs over a whole range in O(range) from two seeds.
``skellam_bessel_recurrence``
    I_{n−1}(x) − I_{n+1}(x) = (2n/x) I_n(x), proved termwise from the power
    series for symbolic n and x. It is cross-checked with sympy ``series`` on a
    grid of integer n. The engine needs it for backward (Miller) recurrence
    evaluation of Skellam PMF ranges.

Every check function takes optional keyword overrides. They exist only so tests
can feed a deliberately wrong statement down the same code path and confirm that
the checker reports ``holds=False``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

__all__ = [
    "PROOFS",
    "SymbolicCheck",
    "all_checks",
    "fact1_infinite_divisibility",
    "fact2_tail",
    "polya_difference_recurrence",
    "polya_pgf",
    "skellam_bessel_recurrence",
    "skellam_closure",
]


@dataclass(frozen=True)
class SymbolicCheck:
    """Outcome of one symbolic proof."""

    name: str
    source: str
    statement: str
    holds: bool
    detail: str


# --------------------------------------------------------------------------- helpers


def _guarded(name: str, source: str, statement: str):
    """Turn an unexpected sympy failure into ``holds=False`` instead of raising."""

    def deco(fn: Callable[..., SymbolicCheck]) -> Callable[..., SymbolicCheck]:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs) -> SymbolicCheck:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # a failed proof must give holds=False, not raise
                return SymbolicCheck(
                    name, source, statement, False, f"sympy failed: {type(exc).__name__}: {exc}"
                )

        return wrapper

    return deco


def _residual(expr: sp.Expr) -> sp.Expr:
    """Simplify ``expr``. The result is exactly ``0`` when sympy proves it vanishes."""
    res = sp.simplify(expr)
    if res != 0:
        res = sp.simplify(sp.powsimp(sp.expand(res)))
    return res


def _is_zero(expr: sp.Expr) -> tuple[bool, sp.Expr]:
    res = _residual(expr)
    return res == 0, res


def _convergent_branch(expr: sp.Expr) -> tuple[sp.Expr, list[sp.Basic]]:
    """Take the closed-form branch of a sympy ``summation`` result.

    ``summation`` of an infinite series gives ``Piecewise((closed, cond), (Sum, True))``,
    possibly times a constant. Each Piecewise is replaced by its first branch (the
    closed form) and the convergence conditions are returned. Callers then
    discharge the conditions or state them as the domain of validity. If no closed
    form was found, the unevaluated ``Sum`` is left in place, so the residual is
    nonzero and the check fails.
    """
    conds: list[sp.Basic] = []

    def pick(pw: sp.Piecewise) -> sp.Expr:
        closed, cond = pw.args[0]
        if closed.has(sp.Sum):
            return pw
        conds.append(cond)
        return closed

    out = expr.replace(lambda e: isinstance(e, sp.Piecewise), pick)
    return out, conds


def _exp_lt_one(value: sp.Expr) -> bool:
    """Prove ``value < 1`` for value = exp(t) by proving t < 0 (exp is increasing)."""
    t = sp.expand_log(sp.log(value), force=True)
    return bool(t.is_negative)


# Shared symbols. The assumptions are the ones the paper uses.
_z = sp.Symbol("z", positive=True)  # real points of the annulus; see docstrings
_beta = sp.Symbol("beta", positive=True)  # 0 < beta < 1
_r = sp.Symbol("r", positive=True)
_x = sp.Symbol("x", integer=True, nonnegative=True)
_k = sp.Symbol("k", integer=True, nonnegative=True)


def _polya_pmf(r: sp.Expr, beta: sp.Expr, x: sp.Expr) -> sp.Expr:
    """Pólya(r, β) PMF from paper 000 (just before Fact 1)."""
    return sp.gamma(x + r) / (sp.factorial(x) * sp.gamma(r)) * beta**x * (1 - beta) ** r


def _polya_pgf_by_summation(r: sp.Expr, beta: sp.Expr, w: sp.Expr) -> tuple[sp.Expr, list]:
    """Σ_x PMF(x) w^x summed in closed form by sympy (the binomial series)."""
    s = sp.summation(_polya_pmf(r, beta, _x) * w**_x, (_x, 0, sp.oo))
    return _convergent_branch(s)


# --------------------------------------------------------------------------- 1. Pólya PGF

_S1 = (
    "polya_pgf",
    "Pólya distribution, paper 000 (definition before Fact 1)",
    "If X ~ Polya(r, beta), P(X=x) = Gamma(x+r)/(x! Gamma(r)) beta^x (1-beta)^r, "
    "then E[z^X] = ((1-beta)/(1-beta z))^r for |z| < 1/beta.",
)


@_guarded(*_S1)
def polya_pgf(*, exponent: sp.Expr | None = None) -> SymbolicCheck:
    """Prove the Pólya PGF. ``exponent`` overrides the claimed exponent r (tests only)."""
    r, beta, z, x = _r, _beta, _z, _x
    e = r if exponent is None else exponent
    claimed = ((1 - beta) / (1 - beta * z)) ** e
    # Splitting the power base is valid for real 0 <= z < 1/beta and 0 < beta < 1,
    # where every base is positive. Both sides are analytic on |z| < 1/beta, so by
    # the identity theorem equality on that real segment gives equality everywhere.
    claimed_split = sp.expand_power_base(claimed, force=True)

    # (a) Direct summation (binomial series). Compare on the real domain
    # 0 < beta < 1, 0 <= z < 1/beta, parametrised by the positive quantities
    # a = 1 - beta and u = 1 - beta z. The powers then have positive bases and
    # sympy splits them with no branch assumptions.
    summed, conds = _polya_pgf_by_summation(r, beta, z)
    a, u = sp.symbols("a u", positive=True)
    on_domain = {beta: 1 - a, z: (1 - u) / (1 - a)}
    ok_a, res_a = _is_zero(sp.gammasimp(summed.subs(on_domain)) - claimed.subs(on_domain))

    # (b) ODE proof. The PMF ratio p(x+1)/p(x) = beta (x+r)/(x+1) means the
    # coefficients satisfy (x+1) p_{x+1} - beta x p_x - beta r p_x = 0. That is the
    # z^x coefficient of (1 - beta z) G' - beta r G, so every G = Σ p_x z^x solves
    # the ODE (1 - beta z) G' = beta r G. With G(0) = p_0 the solution analytic at
    # 0 is unique (its coefficients follow from p_0 by the recurrence).
    p = _polya_pmf(r, beta, x)
    ratio_res = sp.gammasimp(p.subs(x, x + 1) / p - beta * (x + r) / (x + 1))
    ode_res = sp.simplify((1 - beta * z) * sp.diff(claimed_split, z) - beta * r * claimed_split)
    init_res = sp.simplify(claimed_split.subs(z, 0) - p.subs(x, 0))
    ok_b = ratio_res == 0 and ode_res == 0 and init_res == 0

    holds = bool(ok_a and ok_b)
    detail = (
        f"(a) sympy summation: sum_x pmf(x) z^x = {summed} (valid for {conds}); "
        f"residual vs claim = {res_a}. "
        f"(b) ODE: ratio residual p(x+1)/p(x) - beta(x+r)/(x+1) = {ratio_res}; "
        f"(1-beta z)H' - beta r H = {ode_res}; H(0) - p(0) = {init_res}."
    )
    return SymbolicCheck(*_S1, holds, detail)


# --------------------------------------------------------------------------- 2. Fact 1

_S2 = (
    "fact1",
    "Fact 1 (000)",
    "With 2n i.i.d. gamma_i^± ~ Polya(1/n, e^{-1/b}), sum_i (gamma_i^+ - gamma_i^-) ~ Lap_Z(b), "
    "i.e. P(x) = (e^{1/b}-1)/(e^{1/b}+1) e^{-|x|/b}.",
)


@_guarded(*_S2)
def fact1_infinite_divisibility(*, share_r: Callable[[sp.Expr], sp.Expr] | None = None):
    """Prove Fact 1 through PGFs for symbolic n, b.

    ``share_r`` maps n to the share shape parameter (default 1/n). It is only
    overridden in tests.
    """
    n = sp.Symbol("n", integer=True, positive=True)
    b = sp.Symbol("b", positive=True)
    beta, z = _beta, _z
    r = (1 / n) if share_r is None else share_r(n)

    # Share PGF, taken from the summation of check 1 (not typed in by hand).
    g_share, conds = _polya_pgf_by_summation(r, beta, z)
    g_share = sp.gammasimp(g_share)
    # gamma^- enters with z -> 1/z (the PGF of -gamma is G(1/z)).
    g_diff = g_share * g_share.subs(z, 1 / z)
    # n i.i.d. differences: G_diff^n. n is an integer, so (uv)^n = u^n v^n and
    # (u^a)^n = u^{an} hold with no branch issues.
    total = sp.expand_power_base(sp.Pow(g_diff, n))
    total = sp.powdenest(total).subs(beta, sp.exp(-1 / b))

    # Lap_Z(b) Laurent series, summed in closed form on beta < z < 1/beta:
    # sum_{x>=0} (beta z)^x + sum_{x>=1} (beta/z)^x, with beta as a plain symbol.
    c = (sp.exp(1 / b) - 1) / (sp.exp(1 / b) + 1)
    pos, cpos = _convergent_branch(sp.summation((beta * z) ** _x, (_x, 0, sp.oo)))
    neg, cneg = _convergent_branch(sp.summation((beta / z) ** _x, (_x, 1, sp.oo)))
    laurent = (c * (pos + neg)).subs(beta, sp.exp(-1 / b))

    ok, res = _is_zero(total - laurent)
    detail = (
        f"share PGF (sympy summation, valid for {conds}) = {g_share}; "
        f"prod of n share PGFs = {total}; Lap_Z(b) Laurent series (annulus {cpos + cneg}, "
        f"beta=e^(-1/b)) = {laurent}; simplify(difference) = {res}. "
        "If the difference is 0: Laurent coefficients on an annulus are unique, so the laws "
        "are equal."
    )
    return SymbolicCheck(*_S2, ok, detail)


# --------------------------------------------------------------------------- 3. Skellam closure

_S3 = (
    "skellam_closure",
    "Skellam, paper 000 §5 / Thm 2 (closure under sums)",
    "Sk(mu, s2) with PMF e^{-s2} I_{x-mu}(s2) has PGF z^mu exp(s2 (z+1/z)/2 - s2); hence "
    "Sk(mu1, s1) + Sk(mu2, s2) ~ Sk(mu1+mu2, s1+s2).",
)


def _skellam_pgf(mu: sp.Expr, v: sp.Expr, z: sp.Expr) -> sp.Expr:
    return z**mu * sp.exp(v * (z + 1 / z) / 2 - v)


@_guarded(*_S3)
def skellam_closure(
    *, sum_variance: Callable[[sp.Expr, sp.Expr], sp.Expr] | None = None, n_coeffs: int = 4
) -> SymbolicCheck:
    """Prove the Skellam PGF and closure under independent sums.

    ``sum_variance`` overrides the claimed variance of the sum (default v1 + v2).
    It is only overridden in tests.
    """
    x = sp.Symbol("x", positive=True)
    t = sp.Symbol("t", positive=True)
    m = sp.Symbol("m", integer=True, nonnegative=True)
    k = _k
    z = _z
    parts: list[str] = []

    # (i) Bessel generating function exp((x/2)(t+1/t)) = sum_k I_k(x) t^k.
    # Cauchy product of exp(xt/2) exp(x/(2t)): the coefficient of t^k (k >= 0) is
    # sum_m (x/2)^{2m+k} / (m! (m+k)!). sympy sums this to besseli(k, x). k < 0
    # follows from the t <-> 1/t symmetry and I_{-k} = I_k.
    coeff_sum = sp.summation(
        (x / 2) ** (2 * m + k) / (sp.factorial(m) * sp.factorial(m + k)), (m, 0, sp.oo)
    )
    gf_ok, gf_res = _is_zero(coeff_sum - sp.besseli(k, x))
    parts.append(
        f"coef of t^k = sum_m (x/2)^(2m+k)/(m!(m+k)!) = {coeff_sum}; minus besseli(k,x) = {gf_res}"
    )
    # First coefficients through sympy series in x (a truncated Laurent polynomial in t).
    order = 2 * n_coeffs + 4
    ser = sp.expand(sp.series(sp.exp((x / 2) * (t + 1 / t)), x, 0, order).removeO())
    series_ok = True
    for kk in range(-n_coeffs + 1, n_coeffs):
        ck = ser.coeff(t, kk)
        bk = sp.series(sp.besseli(kk, x), x, 0, order).removeO()
        if sp.expand(ck - bk) != 0:
            series_ok = False
            parts.append(f"series coefficient t^{kk} mismatch: {sp.expand(ck - bk)}")
    parts.append(
        f"series check of t^k coefficients, |k| < {n_coeffs}, to O(x^{order}): "
        f"{'ok' if series_ok else 'FAILED'}"
    )

    # (ii) Skellam PGF: sum_x e^{-v} I_{x-mu}(v) z^x = z^mu e^{-v} sum_k I_k(v) z^k
    # = z^mu e^{-v} exp(v (z+1/z)/2). This is the GF of (i) with x=v and t=z.
    mu1, mu2 = sp.symbols("mu1 mu2", integer=True)
    v, v1, v2 = sp.symbols("v v1 v2", positive=True)
    mu = sp.Symbol("mu", integer=True)
    gf = sp.exp((x / 2) * (t + 1 / t))
    pgf_from_gf = z**mu * sp.exp(-v) * gf.subs({x: v, t: z})
    pgf_ok, pgf_res = _is_zero(pgf_from_gf - _skellam_pgf(mu, v, z))
    parts.append(f"PGF from Bessel GF minus claimed PGF = {pgf_res}")
    # Consistency: Sk(0, v) = N1 - N2 with N_i ~ Poisson(v/2). The Poisson PGF is
    # summed by sympy.
    lam = sp.Symbol("lambda", positive=True)
    pois, _ = _convergent_branch(
        sp.summation(sp.exp(-lam) * lam**_x / sp.factorial(_x) * z**_x, (_x, 0, sp.oo))
    )
    pois_diff = (pois * pois.subs(z, 1 / z)).subs(lam, v / 2)
    pois_ok, pois_res = _is_zero(pois_diff - _skellam_pgf(0, v, z))
    parts.append(f"Poisson(v/2) - Poisson(v/2) PGF minus Sk(0,v) PGF = {pois_res}")

    # (iii) Closure: product of the PGFs equals the PGF of the claimed sum law.
    sv = (v1 + v2) if sum_variance is None else sum_variance(v1, v2)
    prod = _skellam_pgf(mu1, v1, z) * _skellam_pgf(mu2, v2, z)
    claimed = _skellam_pgf(mu1 + mu2, sv, z)
    cl_ok, cl_res = _is_zero(sp.powsimp(prod / claimed) - 1)
    parts.append(f"PGF(Sk(mu1,v1))*PGF(Sk(mu2,v2))/PGF(Sk(mu1+mu2,{sv})) - 1 = {cl_res}")

    holds = bool(gf_ok and series_ok and pgf_ok and pois_ok and cl_ok)
    return SymbolicCheck(*_S3, holds, "; ".join(parts))


# --------------------------------------------------------------------------- 4. Fact 2

_S4 = (
    "fact2",
    "Fact 2 (000)",
    "For Y ~ Lap_Z(Delta/eps) and integer k >= 0: P(Y > k) = P(Y < -k) = "
    "e^{-eps k/Delta}/(e^{eps/Delta}+1); and sum_x P(Y=x) = 1.",
)


@_guarded(*_S4)
def fact2_tail(*, denominator: Callable[[sp.Expr], sp.Expr] | None = None) -> SymbolicCheck:
    """Prove the discrete-Laplace tail (Fact 2) and normalisation, symbolic k.

    ``denominator`` maps e^{eps/Delta} to the claimed denominator (default u + 1).
    It is only overridden in tests.
    """
    eps, delta = sp.symbols("epsilon Delta", positive=True)
    k, x = _k, _x
    q = sp.Symbol("q", positive=True)  # q = e^{-eps/Delta}, written as a plain symbol
    qv = sp.exp(-eps / delta)
    c = (sp.exp(eps / delta) - 1) / (sp.exp(eps / delta) + 1)
    u = sp.exp(eps / delta)
    denom = (u + 1) if denominator is None else denominator(u)
    claim = sp.exp(-eps * k / delta) / denom

    # e^{-eps x/Delta} = q^x. sympy sums the geometric series in q and gives a
    # convergence condition, which is discharged below for q = e^{-eps/Delta}.
    upper, c_up = _convergent_branch(sp.summation(q**x, (x, k + 1, sp.oo)))
    # Lower tail: P(Y < -k) = sum_{y <= -k-1} c q^{-y}; substituting y = -x gives
    # x >= k+1 and the same series.
    y = sp.Symbol("y", integer=True)
    lower, c_lo = _convergent_branch(sp.summation(q ** (-y), (y, -sp.oo, -k - 1)))
    total, c_tot = _convergent_branch(sp.summation(q**x, (x, 1, sp.oo)))
    conds = c_up + c_lo + c_tot
    conds_ok = all(
        cond.subs(q, qv) == sp.true or (cond == (q < 1) and _exp_lt_one(qv)) for cond in conds
    )

    up_ok, up_res = _is_zero((c * upper).subs(q, qv) - claim)
    lo_ok, lo_res = _is_zero((c * lower).subs(q, qv) - claim)
    norm_ok, norm_res = _is_zero((c * (1 + 2 * total)).subs(q, qv) - 1)
    holds = bool(conds_ok and up_ok and lo_ok and norm_ok)
    detail = (
        f"P(Y>k) = c*{upper} with q=e^(-eps/Delta); minus claim = {up_res}. "
        f"P(Y<-k) minus claim = {lo_res}. sum of PMF - 1 = {norm_res}. "
        f"convergence conditions {conds} discharged (q = e^(-eps/Delta) < 1): {conds_ok}."
    )
    return SymbolicCheck(*_S4, holds, detail)


# --------------------------------------------------------------------------- 5. Pólya difference

_S5 = (
    "polya_difference_recurrence",
    "Pólya-difference shares eta_i = gamma^+ - gamma^- (000 Thm 1 / Fact 1)",
    "If D = gamma^+ - gamma^-, gamma^± iid Polya(r, beta), then for all integers n: "
    "beta(n+1-r) p_{n+1} = (1+beta^2) n p_n - beta(n-1+r) p_{n-1}.",
)


def _polya_diff_pmf_hyper(k: int, r: sp.Expr, beta: sp.Expr, digits: int) -> sp.Float:
    """p_k = (1-β)^{2r} β^k (r)_k/k! 2F1(r, k+r; k+1; β²) for k >= 0, with p_{-k} = p_k."""
    k = abs(k)
    expr = (
        (1 - beta) ** (2 * r)
        * beta**k
        * sp.rf(r, k)
        / sp.factorial(k)
        * sp.hyper([r, k + r], [k + 1], beta**2)
    )
    return sp.N(expr, digits)


_R_NUM = sp.Rational(1, 3)
_BETA_NUM = sp.Rational(1, 2)


@_guarded(*_S5)
def polya_difference_recurrence(
    *,
    mid_coefficient: Callable[[sp.Expr], sp.Expr] | None = None,
    r_num: sp.Rational = _R_NUM,
    beta_num: sp.Rational = _BETA_NUM,
    n_max: int = 5,
    digits: int = 50,
    tol: float = 1e-35,
) -> SymbolicCheck:
    """Prove the three-term recurrence for the Pólya-difference PMF.

    ``mid_coefficient`` maps beta to the claimed coefficient of n p_n (default
    1 + beta^2). It is only overridden in tests.
    """
    r, beta, z = _r, _beta, _z
    C = sp.Symbol("C", positive=True)
    mid = (1 + beta**2) if mid_coefficient is None else mid_coefficient(beta)
    parts: list[str] = []

    # (a) ODE for the Laurent PGF on beta < |z| < 1/beta (checked on real z there).
    # Principal powers written as exp(-r log(.)). On the annulus both 1 - beta z and
    # 1 - beta/z have positive real part, so this is the analytic branch, and G'/G
    # is rational.
    G = C * sp.exp(-r * sp.log(1 - beta * z) - r * sp.log(1 - beta / z))
    ode = z * (z - beta) * (1 - beta * z) * sp.diff(G, z) - r * beta * (z**2 - 1) * G
    ode_ok, ode_res = _is_zero(ode / G)
    parts.append(
        "G(z) = PGF(gamma^+)(z) * PGF(gamma^-)(1/z), C = (1-b)^(2r) (check polya_pgf); "
        f"z(z-b)(1-bz)G' - r b (z^2-1) G, divided by G, simplifies to {ode_res}"
    )

    # (b) Coefficient extraction. Write L = z(z-b)(1-bz) d/dz - r b (z^2-1). Then
    # L[z^k] = z^k P_k(z), where P_k(z) = a0(k) + a1(k) z + a2(k) z^2. G = sum_k p_k z^k
    # converges absolutely on the annulus, so L[G] = 0 may be differentiated
    # termwise. Its z^{n+1} coefficient is
    #   a0(n+1) p_{n+1} + a1(n) p_n + a2(n-1) p_{n-1} = 0,
    # and Laurent coefficients are unique.
    kk = sp.Symbol("k", integer=True)
    n = sp.Symbol("n", integer=True)
    p = sp.Function("p")
    Pk = sp.expand(
        sp.simplify(
            (z * (z - beta) * (1 - beta * z) * sp.diff(z**kk, z) - r * beta * (z**2 - 1) * z**kk)
            / z**kk
        )
    )
    a = [Pk.coeff(z, j) for j in range(3)]
    extracted = (
        a[0].subs(kk, n + 1) * p(n + 1) + a[1].subs(kk, n) * p(n) + a[2].subs(kk, n - 1) * p(n - 1)
    )
    claimed_res = beta * (n + 1 - r) * p(n + 1) - mid * n * p(n) + beta * (n - 1 + r) * p(n - 1)
    rec_ok, rec_res = _is_zero(sp.expand(extracted + claimed_res))
    parts.append(
        f"coefficient of z^(n+1) in L[G]: {sp.collect(sp.expand(extracted), p(n))} "
        f"= -(claimed residual); sum with claimed residual = {rec_res}"
    )

    # (c) The 2F1 closed form comes from the convolution. The term ratio identity
    # pmf(j+k) pmf(j) = (1-b)^{2r} b^k (r)_k/k! * (r)_j (k+r)_j/((k+1)_j j!) b^{2j}
    # is checked symbolically.
    j = sp.Symbol("j", integer=True, nonnegative=True)
    conv_term = _polya_pmf(r, beta, j + _k) * _polya_pmf(r, beta, j)
    hyp_term = (
        (1 - beta) ** (2 * r)
        * beta**_k
        * sp.rf(r, _k)
        / sp.factorial(_k)
        * sp.rf(r, j)
        * sp.rf(_k + r, j)
        / (sp.rf(_k + 1, j) * sp.factorial(j))
        * beta ** (2 * j)
    )
    term_res = sp.simplify(sp.gammasimp((conv_term / hyp_term).rewrite(sp.gamma)) - 1)
    term_ok = term_res == 0
    parts.append(f"convolution term / 2F1 term - 1 = {term_res}")

    # (d) Numerical confirmation (not a proof) at r=1/3, beta=1/2 to `digits` digits.
    mid_num = mid.subs(beta, beta_num)
    pv = {kq: _polya_diff_pmf_hyper(kq, r_num, beta_num, digits) for kq in range(-1, n_max + 2)}
    worst = sp.Float(0, digits)
    for nn in range(0, n_max + 1):
        resid = (
            beta_num * (nn + 1 - r_num) * pv[nn + 1]
            - mid_num * nn * pv[nn]
            + beta_num * (nn - 1 + r_num) * pv[nn - 1]
        )
        worst = max(worst, abs(sp.N(resid, digits)))
    num_ok = bool(worst < tol)
    parts.append(
        f"numeric (r={r_num}, beta={beta_num}, n=0..{n_max}, {digits} digits, "
        f"p_k via sympy hyper): max |residual| = {sp.N(worst, 5)} (< {tol}: {num_ok})"
    )

    holds = bool(ode_ok and rec_ok and term_ok and num_ok)
    return SymbolicCheck(*_S5, holds, "; ".join(parts))


# --------------------------------------------------------------------------- 6. Bessel recurrence

_S6 = (
    "skellam_bessel_recurrence",
    "Bessel recurrence used for Skellam PMFs (000 §5, Sk PMF e^{-s2} I_{x-mu}(s2))",
    "I_{n-1}(x) - I_{n+1}(x) = (2n/x) I_n(x).",
)


@_guarded(*_S6)
def skellam_bessel_recurrence(
    *, factor: Callable[[sp.Expr, sp.Expr], sp.Expr] | None = None, n_grid: int = 5
) -> SymbolicCheck:
    """Prove the modified-Bessel three-term recurrence for symbolic n and x.

    ``factor`` maps (n, x) to the claimed coefficient of I_n (default 2n/x). It is
    only overridden in tests.
    """
    x = sp.Symbol("x", positive=True)
    nu = sp.Symbol("n", real=True)  # symbolic real order
    m = sp.Symbol("m", integer=True, positive=True)
    m0 = sp.Symbol("m", integer=True, nonnegative=True)
    f = (2 * nu / x) if factor is None else factor(nu, x)
    parts: list[str] = []

    # sympy's simplify / besselsimp / expand_func do not reduce the identity directly.
    direct = sp.besselsimp(sp.besseli(nu - 1, x) - sp.besseli(nu + 1, x) - f * sp.besseli(nu, x))
    parts.append(f"direct besselsimp residual (not used as proof): {direct}")

    # Series definition I_v(x) = sum_m (x/2)^{2m+v} / (m! Gamma(m+v+1)); sympy
    # confirms it sums to besseli(v, x) for symbolic v.
    def term(v, mm):
        return (x / 2) ** (2 * mm + v) / (sp.factorial(mm) * sp.gamma(mm + v + 1))

    ser_sum = sp.summation(term(nu, m0), (m0, 0, sp.oo))
    def_ok, def_res = _is_zero(ser_sum - sp.besseli(nu, x))
    parts.append(f"sum_m (x/2)^(2m+n)/(m! Gamma(m+n+1)) - besseli(n,x) = {def_res}")

    # Termwise: group by the power (x/2)^{2m+n-1}. I_{n-1} gives term(n-1, m),
    # I_{n+1} gives term(n+1, m-1), and f*I_n gives f*term(n, m). For m >= 1 the
    # combination must vanish identically. At m = 0 the I_{n+1} term is absent
    # (1/Gamma(0) = 0).
    # Normalise by the common factor (x/2)^{2m+n-1} / (m! Gamma(m+n+1)). This is a
    # multiplication, not a division by a possibly-zero term, so the result is a
    # rational function of n, m. Where it vanishes identically, continuity of the
    # entire function 1/Gamma in n extends the identity to every order n.
    gen = term(nu - 1, m) - term(nu + 1, m - 1) - f * term(nu, m)
    norm = sp.factorial(m) * sp.gamma(m + nu + 1) / (x / 2) ** (2 * m + nu - 1)
    gen_res = sp.simplify(sp.gammasimp(sp.expand(gen * norm)))
    base = term(nu - 1, 0) - f * term(nu, 0)
    norm0 = sp.gamma(nu + 1) / (x / 2) ** (nu - 1)
    base_res = sp.simplify(sp.gammasimp(sp.expand(base * norm0)))
    sym_ok = gen_res == 0 and base_res == 0
    parts.append(
        f"termwise (symbolic n, x): general m>=1 normalised residual = {gen_res}, "
        f"m=0 normalised residual = {base_res}"
    )

    # Cross-check on an integer grid with sympy's own besseli series in x.
    order = 12
    grid_ok = True
    for nn in range(0, n_grid):
        ff = f.subs(nu, nn)
        e = sp.besseli(nn - 1, x) - sp.besseli(nn + 1, x) - ff * sp.besseli(nn, x)
        s = sp.expand(sp.series(e, x, 0, order).removeO())
        if s != 0:
            grid_ok = False
            parts.append(f"n={nn}: series residual {s}")
    parts.append(
        f"integer grid n=0..{n_grid - 1} via sympy series to O(x^{order}): "
        f"{'ok' if grid_ok else 'FAILED'}"
    )

    holds = bool(def_ok and sym_ok and grid_ok)
    return SymbolicCheck(*_S6, holds, "; ".join(parts))


# --------------------------------------------------------------------------- all


#: Every proof of this module, in the order of the module docstring. Code in ``privtools``
#: links to a proof by its function name (``privtools.proven.proven``); the link test resolves
#: those names here.
PROOFS: tuple[Callable[..., SymbolicCheck], ...] = (
    polya_pgf,
    fact1_infinite_divisibility,
    skellam_closure,
    fact2_tail,
    polya_difference_recurrence,
    skellam_bessel_recurrence,
)


def all_checks() -> list[SymbolicCheck]:
    """Run every symbolic check (:data:`PROOFS`), in the order given in the module docstring."""
    return [proof() for proof in PROOFS]
