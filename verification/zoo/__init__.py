"""The zoo: the benchmark mechanisms of the DP-testing literature, re-implemented from their
papers' pseudocode, each with its claim, its true privacy and the input pairs the benchmark
searches — ground truth for the auditor.

Convention (the auditor's input contract): a mechanism is a plain function
``mechanism(dataset, size, rng)`` returning ``size`` independent releases on ``dataset`` (a
1-D sequence of query answers or counts; one value for Laplace, the geometric and RAPPOR),
vectorised over ``size`` and drawn from the ``numpy.random.Generator`` ``rng`` only. Outputs:
``(size,)`` int64 (indices, geometric) or float64 (Laplace, noisy maxima); ``(size, k)``
float64 (histograms, prefix sums, parallel Laplace), int8 SVT answers (1 = ⊤, 0 = ⊥, -1 =
not answered), float64 SVT releases (value at ⊤, ``-inf`` at ⊥, ``nan`` not answered), bool
RAPPOR bits. Parameters are bound with :func:`functools.partial` (so mechanisms pickle).

``true_epsilon`` is the supremum of the privacy loss over *all* inputs related by
``relation`` (of the lengths in ``datasets``), not only over ``pairs``; ``math.inf`` when no
finite ε holds. "query": every answer moves by at most 1; "histogram": one count moves by at
most 1; "value": any two inputs of the benchmark's domain (RAPPOR: integers in [-10, 10]).

DP-Sniper suite (Bichsel, Steffen, Bogunovic, Vechev, IEEE S&P 2021), claimed ε = 0.1, with
its published 90 % lower bounds; k = number of queries:

==================  =======  ===========  =========  ========================================
name                private  true ε       DP-Sniper  source
==================  =======  ===========  =========  ========================================
Laplace             yes      0.1          0.0968     Laplace mechanism (Dwork et al. 2006)
TruncatedGeometric  no       ln(9/8)      0.1156     Balcer–Vadhan 2018, Alg. 4.8 (GeoSample)
NoisyHist1          yes      0.1          0.0978     Ding et al. 2018, Alg. 9
NoisyHist2          no       10 = 1/ε     4.602      Ding et al. 2018, Alg. 10
ReportNoisyMax1     yes      0.1          0.0923     Ding et al. 2018, Alg. 5
ReportNoisyMax2     yes      0.1          0.0975     Ding et al. 2018, Alg. 6
ReportNoisyMax3     no       0.25 = kε/2  0.2478     Ding et al. 2018, Alg. 7 (k = 5)
ReportNoisyMax4     no       ∞            0.3463     Ding et al. 2018, Alg. 8
SVT1                yes      0.1          0.0858     Lyu–Su–Li 2017, Alg. 1 (c = 1, T = 0.5)
SVT2                yes      0.1          0.0859     Lyu–Su–Li 2017, Alg. 2 (c = 1, T = 1)
SVT3                no       0.5 = kε/2c  0.1716     Lyu–Su–Li 2017, Alg. 3 (c = 1, T = 1)
SVT4                no       0.175        0.1687     Lyu–Su–Li 2017, Alg. 4: (1+6c)/4·ε
SVT5                no       ∞            1.761      Lyu–Su–Li 2017, Alg. 5 (T = 1)
SVT6                no       0.5 = kε/2   0.2720     Lyu–Su–Li 2017, Alg. 6 (T = 1)
Rappor              no       0.4001       0.2930     Erlingsson et al. 2014, steps 1–3
OneTimeRappor       no       0.8007       0.5978     Erlingsson et al. 2014, steps 1–2
LaplaceParallel     yes      0.1          0.0350     20 × Laplace at ε = 0.005
SVT34Parallel       no       0.575        0.2610     Alg. 3 ‖ Alg. 4 (c = 2, T = 1)
PrefixSum           no       1.0 = kε     0.5040     Wang et al. PLDI 2019 (query relation)
NumericalSVT        yes      0.1          0.0343     Lyu–Su–Li Alg. 7, ε/3 each (c = 2, T = 1)
==================  =======  ===========  =========  ========================================

StatDP suite (Ding, Wang, Wang, Zhang, Kifer, CCS 2018), names ``"<base>@<ε>"`` for
ε ∈ {0.2, 0.7, 1.5}, query lengths 5 and 10 (true ε at k = 10):

=============  ==========================================  ========  =====================
base           mechanism                                   true ε    private at 0.2/0.7/1.5
=============  ==========================================  ========  =====================
NoisyMax-v1a   argmax, Lap(2/ε)  (Ding Alg. 5)             ε         yes / yes / yes
NoisyMax-v1b   max value, Lap(2/ε)  (Alg. 7)               5ε        no / no / no
NoisyMax-v2a   argmax, Exp(2/ε)  (Alg. 6)                  ε         yes / yes / yes
NoisyMax-v2b   max value, Exp(2/ε)  (Alg. 8)               ∞         no / no / no
Histogram      Lap(1/ε) per bin  (Alg. 9)                  ε         yes / yes / yes
Histogram-eps  Lap(ε) per bin  (Alg. 10)                   1/ε       no / no / yes
SVT            Lyu–Su–Li Alg. 1, N = 1, T = 0.5            ε         yes / yes / yes
iSVT1          Lyu–Su–Li Alg. 5, T = 1                     ∞         no / no / no
iSVT2          Lyu–Su–Li Alg. 6, T = 1                     5ε        no / no / no
iSVT3          Lyu–Su–Li Alg. 4, N = 1, T = 1              7ε/4      no / no / no
iSVT4          Lyu–Su–Li Alg. 3, N = 1, T = 1              5ε        no / no / no
=============  ==========================================  ========  =====================

StatDP's own harness reduces outputs before testing (SVT transcripts to a count of ⊥ or a
Hamming distance, histograms to bin 0); the zoo releases the full outputs of the papers'
algorithms, and ``true_epsilon`` is theirs.

The input pairs are StatDP's patterns (:func:`query_patterns`) on the all-ones vector, plus
its X-shape pair, in both orders; single-entry relations use only "one below/one above".

Float suite (:mod:`verification.zoo.floats`; Mironov, CCS 2012), one query answer of
sensitivity 1, claimed ε = 1/2 (δ = 1e-5 for the Gaussians), the exposing pair the answers
0 and 1 (``witness``). Their truth is that of the *double-precision* implementation; audit
them with ``bits=True`` (:func:`verification.audit.audit_mechanism`):

=======================  =========  ==================================================
name                     true ε     why
=======================  =========  ==================================================
FloatLaplaceInversion    ∞          textbook inverse-CDF Laplace (Mironov §3): 1 ⊕ Y is
                                    a multiple of 2^-53, Y often is not
FloatLaplaceLogUniform   ∞          ±b·ln U, the same lattice
FloatLaplaceExpDiff      ∞          −b ln U1 + b ln U2; the sampler alone shows it too
FloatLaplaceFullUniform  ∞          Mironov's U* (every double reachable), no snapping
FloatGaussBoxMuller      ∞ at δ     Box–Muller, σ = √(2 ln(1.25/δ))/ε
FloatGaussPolar          ∞ at δ     Marsaglia's polar method
FloatGaussZiggurat       ∞ at δ     numpy's ziggurat ``standard_normal``
LaplaceNoiseTruncated    ε + ln 2   noise cast to an integer, claimed as discrete Laplace
LaplaceOutputRounded     ε          output rounded to ℤ (post-processing): a control
Snapping                 ≤ claim    Mironov's snapping mechanism (§5.2): the control
=======================  =========  ==================================================

Curator mechanisms (:mod:`verification.zoo.curator`, :func:`curator_suite`; after Wang et
al., "Curator attack", CCS 2024): a correct Laplace release that, with probability
p ∈ {10⁻³, 10⁻⁴, 10⁻⁵}, releases the data itself — no finite ε at δ = 0, exactly (ε, p)-DP —
and a control whose output does not depend on the data. They are not registered in
:data:`ZOO` (the benchmarks iterate the literature's suites).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from privtools.errors import ParameterError
from verification.audit.neighbours import PATTERN_RELATIONS, pattern_moves, query_patterns

from .curator import CuratorMechanism, curator_suite
from .floats import (
    classical_gaussian_sigma,
    gaussian_box_muller,
    gaussian_polar,
    gaussian_ziggurat,
    laplace_exp_difference,
    laplace_full_uniform,
    laplace_inversion,
    laplace_log_uniform,
    laplace_noise_truncated,
    laplace_output_rounded,
    snapping,
    snapping_epsilon,
)
from .noisy_max import (
    noisy_max_index_exponential,
    noisy_max_index_laplace,
    noisy_max_value_exponential,
    noisy_max_value_laplace,
)
from .rappor import one_time_rappor, rappor, rappor_epsilon
from .simple import (
    laplace,
    laplace_parallel,
    noisy_hist1,
    noisy_hist2,
    prefix_sum,
    truncated_geometric,
    truncated_geometric_epsilon,
)
from .svt import (
    numerical_svt,
    svt1,
    svt2,
    svt3,
    svt4,
    svt5,
    svt6,
    svt34_parallel,
    svt_true_epsilon,
)

__all__ = ["ZooMechanism", "ZOO", "dpsniper_suite", "statdp_suite", "float_suite", "get",
           "RELATIONS", "STATDP_EPSILONS", "CuratorMechanism", "curator_suite"]

RELATIONS = PATTERN_RELATIONS
STATDP_EPSILONS = (0.2, 0.7, 1.5)


@dataclass(frozen=True, kw_only=True)
class ZooMechanism:
    """One benchmark mechanism with its claim and ground truth (see the module docstring)."""

    name: str                   # "SVT3", "NoisyMax-v1a@0.7"
    mechanism: Callable         # mechanism(dataset, size, rng)
    epsilon: float              # the claimed ε
    private: bool               # does the ε-DP claim hold under `relation`
    true_epsilon: float | None  # supremum ε under `relation`; math.inf if none; None unknown
    source: str                 # paper + algorithm / section
    datasets: tuple             # base datasets (tuples) for the pair search
    relation: str               # "query", "histogram" or "value"
    pairs: tuple                # candidate (d, d_prime) pairs, both orders
    dpsniper: float | None      # DP-Sniper's published 90 % lower bound on ε
    statdp: float | None = None  # StatDP's bound as DP-Sniper's paper reports it
    suite: str = "dpsniper"     # or "statdp", "floats"
    note: str = ""
    delta: float = 0.0          # the claimed δ (Gaussians of the float suite)
    witness: tuple | None = None  # (d, d_prime): the pair that exposes the truth


# ----------------------------------------------------------------------------- patterns

def _benchmark_inputs(lengths: tuple[int, ...], single: bool) -> tuple[tuple, tuple]:
    """(datasets, pairs) of StatDP's generator for the given query lengths: the all-ones
    base with every pattern but X-shape, plus the X-shape base with its one partner (only
    "one below/one above" if ``single``); pairs in both orders, duplicates dropped."""
    datasets, pairs = [], []
    for n in lengths:
        ones = (1,) * n
        datasets.append(ones)
        if single:
            pairs += [(ones, other) for other in query_patterns(ones, "histogram")]
            continue
        shifts = pattern_moves(n)
        pairs += [(ones, tuple(1 + s for s in shift))
                  for name, shift in shifts.items() if name != "x-shape"]
        x_base = (1,) * (n // 2) + (0,) * (n - n // 2)
        datasets.append(x_base)
        pairs.append((x_base, tuple(x + s for x, s in zip(x_base, shifts["x-shape"]))))
    both = pairs + [(b, a) for a, b in pairs]
    return tuple(datasets), tuple(dict.fromkeys(both))


# ----------------------------------------------------------------------------- registry

def _entry(name, mechanism, epsilon, true_epsilon, source, lengths, relation, *,
           dpsniper=None, statdp=None, suite="dpsniper", note="") -> ZooMechanism:
    single = relation != "query" or max(lengths) == 1
    datasets, pairs = _benchmark_inputs(lengths, single)
    private = true_epsilon is not None and true_epsilon <= epsilon + 1e-12
    return ZooMechanism(name=name, mechanism=mechanism, epsilon=epsilon, private=private,
                        true_epsilon=true_epsilon, source=source, datasets=datasets,
                        relation=relation, pairs=pairs, dpsniper=dpsniper, statdp=statdp,
                        suite=suite, note=note)


_LSL = "Lyu, Su, Li, PVLDB 2017, Algorithm "
_DING = "Ding, Wang, Wang, Zhang, Kifer, CCS 2018, Algorithm "
_RAPPOR = "Erlingsson, Pihur, Korolova, CCS 2014, Section 3, steps "
_RAPPOR_DOMAIN = range(-10, 11)


def _rappor_truth(**kw) -> tuple[float, str]:
    worst = max(rappor_epsilon(a, b, **kw) for a in _RAPPOR_DOMAIN for b in _RAPPOR_DOMAIN)
    per_pair = ", ".join(f"{rappor_epsilon(1, w, **kw):.4f} on (1, {w})" for w in (0, 2))
    return worst, (f"exact from the per-bit laws: {per_pair}; {worst:.4f} is the worst pair "
                   f"of the benchmark's integer domain [-10, 10] (filters 8 bits apart)")


def _dpsniper_suite() -> list[ZooMechanism]:
    e = 0.1
    svt = partial(svt_true_epsilon, epsilon=e, k=10)
    geo = truncated_geometric_epsilon(epsilon=e, n=5)
    rap, rap_note = _rappor_truth(f=0.75, p=0.45, q=0.55)
    otr, otr_note = _rappor_truth(f=0.95, p=None, q=None)
    lap_eps = dict(epsilon=e)
    t1 = dict(epsilon=e, threshold=1.0)
    return [
        _entry("Laplace", partial(laplace, **lap_eps), e, e,
               "Laplace mechanism (Dwork, McSherry, Nissim, Smith 2006)", (1,), "query",
               dpsniper=0.0968),
        _entry("TruncatedGeometric", partial(truncated_geometric, epsilon=e, n=5), e, geo,
               "Balcer, Vadhan 2018, Algorithm 4.8 (GeoSample); Ghosh, Roughgarden, "
               "Sundararajan 2009", (1,), "query", dpsniper=0.1156,
               note="GeoSample(ε=0.1, n=5) clamps (does not renormalise) two-sided geometric "
                    "noise, but with the rounded ratio α = 2^k/(2^k+1) = 8/9 (k = ⌈ln 20⌉ = 3), "
                    f"so its exact privacy is ln(9/8) = {geo:.6f} (Balcer–Vadhan Thm 4.7, "
                    "tight), above the claimed 0.1; counts in [0, 5]"),
        _entry("NoisyHist1", partial(noisy_hist1, **lap_eps), e, e, _DING + "9", (5,),
               "histogram", dpsniper=0.0978),
        _entry("NoisyHist2", partial(noisy_hist2, **lap_eps), e, 1 / e, _DING + "10", (5,),
               "histogram", dpsniper=4.602, statdp=9.72,
               note="Lap(ε) instead of Lap(1/ε): exactly (1/ε)-DP"),
        _entry("ReportNoisyMax1", partial(noisy_max_index_laplace, **lap_eps), e, e,
               _DING + "5", (5,), "query", dpsniper=0.0923,
               note="ε is a supremum, approached as one answer sinks below the others"),
        _entry("ReportNoisyMax2", partial(noisy_max_index_exponential, **lap_eps), e, e,
               _DING + "6", (5,), "query", dpsniper=0.0975),
        _entry("ReportNoisyMax3", partial(noisy_max_value_laplace, **lap_eps), e, 5 * e / 2,
               _DING + "7", (5,), "query", dpsniper=0.2478,
               note="exactly k·ε/2 for k answers (finite, not ∞): all k density factors of "
                    "the maximum move by e^(ε/2) below every answer"),
        _entry("ReportNoisyMax4", partial(noisy_max_value_exponential, **lap_eps), e,
               math.inf, _DING + "8", (5,), "query", dpsniper=0.3463,
               note="output ≥ max answer always: disjoint supports"),
        _entry("SVT1", partial(svt1, epsilon=e, c=1, threshold=0.5), e, svt("SVT1"),
               _LSL + "1", (10,), "query", dpsniper=0.0858),
        _entry("SVT2", partial(svt2, c=1, **t1), e, svt("SVT2"), _LSL + "2", (10,), "query",
               dpsniper=0.0859, note="with c = 1 the same law as SVT1 (threshold 1)"),
        _entry("SVT3", partial(svt3, c=1, **t1), e, svt("SVT3", c=1), _LSL + "3", (10,),
               "query", dpsniper=0.1716,
               note="exactly k·ε/(2c) = 0.5 for k = 10 (the paper's ∞ needs k → ∞)"),
        _entry("SVT4", partial(svt4, c=1, **t1), e, svt("SVT4", c=1), _LSL + "4", (10,),
               "query", dpsniper=0.1687, note="(1+6c)/4·ε (Lyu–Su–Li), a tight supremum"),
        _entry("SVT5", partial(svt5, **t1), e, svt("SVT5"), _LSL + "5", (10,), "query",
               dpsniper=1.761, note="no query noise: (0, 1) vs (1, 0) has an impossible output"),
        _entry("SVT6", partial(svt6, **t1), e, svt("SVT6"), _LSL + "6", (10,), "query",
               dpsniper=0.2720,
               note="exactly k·ε/2 = 0.5 for k = 10 as a supremum (the paper's ∞ is k → ∞)"),
        _entry("Rappor", partial(rappor, f=0.75, p=0.45, q=0.55, n_hashes=4, filter_size=20),
               e, rap, _RAPPOR + "1-3 (h = 4, m = 20, f = 0.75, p = 0.45, q = 0.55)", (1,),
               "value", dpsniper=0.2930, note=rap_note),
        _entry("OneTimeRappor", partial(one_time_rappor, f=0.95, n_hashes=4, filter_size=20),
               e, otr, _RAPPOR + "1-2 (h = 4, m = 20, f = 0.95)", (1,), "value",
               dpsniper=0.5978, note=otr_note),
        _entry("LaplaceParallel", partial(laplace_parallel, epsilon=0.005, copies=20), e,
               20 * 0.005, "20 independent Laplace mechanisms at ε = 0.005 (composition)",
               (1,), "query", dpsniper=0.0350),
        _entry("SVT34Parallel", partial(svt34_parallel, epsilon=e, c=2, threshold=1.0), e,
               svt("SVT34Parallel", c=2), _LSL + "3 and 4 side by side (c = 2, T = 1)",
               (10,), "query", dpsniper=0.2610,
               note="k·ε/(2c) + (1+6c)/4·ε = 0.25 + 0.325; DP-Sniper runs it at c = 2"),
        _entry("PrefixSum", partial(prefix_sum, **lap_eps), e, 10 * e,
               "PrefixSum, Wang, Ding, Wang, Kifer, Zhang, PLDI 2019", (10,), "query",
               dpsniper=0.5040,
               note="ε-DP when one answer moves (histogram relation); the benchmark moves all "
                    "k answers, under which it is exactly k·ε = 1.0"),
        _entry("NumericalSVT", partial(numerical_svt, epsilon=e, c=2, threshold=1.0), e,
               svt("NumericalSVT", c=2), _LSL + "7 with ε1 = ε2 = ε3 = ε/3 (NumericalSVT, "
               "Wang et al. PLDI 2019)", (10,), "query", dpsniper=0.0343,
               note="DP-Sniper runs it at c = 2, T = 1; ε is a supremum"),
    ]


def _statdp_suite() -> list[ZooMechanism]:
    out = []
    for e in STATDP_EPSILONS:
        t1 = dict(epsilon=e, threshold=1.0)
        svt = partial(svt_true_epsilon, epsilon=e, k=10)
        rows = [
            ("NoisyMax-v1a", partial(noisy_max_index_laplace, epsilon=e), e, _DING + "5",
             "query", ""),
            ("NoisyMax-v1b", partial(noisy_max_value_laplace, epsilon=e), 10 * e / 2,
             _DING + "7", "query", "k·ε/2: 2.5ε at k = 5, 5ε at k = 10"),
            ("NoisyMax-v2a", partial(noisy_max_index_exponential, epsilon=e), e, _DING + "6",
             "query", ""),
            ("NoisyMax-v2b", partial(noisy_max_value_exponential, epsilon=e), math.inf,
             _DING + "8", "query", ""),
            ("Histogram", partial(noisy_hist1, epsilon=e), e, _DING + "9", "histogram",
             "StatDP's harness reports only bin 0; the zoo releases every bin"),
            ("Histogram-eps", partial(noisy_hist2, epsilon=e), 1 / e, _DING + "10",
             "histogram", "Lap(ε) noise: (1/ε)-DP, so private once ε ≥ 1"),
            ("SVT", partial(svt1, epsilon=e, c=1, threshold=0.5), svt("SVT1"),
             _LSL + "1 (StatDP's SVT, N = 1, T = 0.5)", "query", ""),
            ("iSVT1", partial(svt5, **t1), svt("SVT5"), _LSL + "5 (StatDP's iSVT1, T = 1)",
             "query", ""),
            ("iSVT2", partial(svt6, **t1), svt("SVT6"), _LSL + "6 (StatDP's iSVT2, T = 1)",
             "query", "k·ε/2 (2.5ε at k = 5)"),
            ("iSVT3", partial(svt4, c=1, **t1), svt("SVT4", c=1),
             _LSL + "4 (StatDP's iSVT3, N = 1, T = 1)", "query", "(1+6c)/4·ε"),
            ("iSVT4", partial(svt3, c=1, **t1), svt("SVT3", c=1),
             _LSL + "3 (StatDP's iSVT4, N = 1, T = 1)", "query", "k·ε/(2c) (2.5ε at k = 5)"),
        ]
        for base, mech, truth, source, relation, note in rows:
            out.append(_entry(f"{base}@{e}", mech, e, truth, source, (5, 10), relation,
                              suite="statdp", note=note))
    return out


_MIRONOV = "Mironov, CCS 2012"


def _float_entry(name, mechanism, epsilon, true_epsilon, source, note, *, delta=0.0,
                 relation="query") -> ZooMechanism:
    d, dp = (0,), (1,)
    private = true_epsilon is not None and true_epsilon <= epsilon + 1e-12
    return ZooMechanism(name=name, mechanism=mechanism, epsilon=epsilon, private=private,
                        true_epsilon=true_epsilon, source=source, datasets=(d, dp),
                        relation=relation, pairs=((d, dp), (dp, d)), dpsniper=None, suite="floats",
                        note=note, delta=delta, witness=(d, dp))


def _float_suite() -> list[ZooMechanism]:
    e, dl = 0.5, 1e-5
    sigma = classical_gaussian_sigma(e, dl)
    lam, big = 2.0, 1024.0
    lattice = ("on f(d) = 1 every output is a multiple of 2^-53 (|1 ⊕ Y| < 1/2 is an exact "
               "sum of Y with |Y| > 1/2); on f(d) = 0 an output of magnitude below 1/2 "
               "usually is not: an event of positive probability on 0 and none on 1")
    gauss = (f"σ = √(2 ln(1.25/δ))/ε = {sigma:.4f} (Dwork–Roth Thm A.1); {lattice}, with "
             f"P ≈ P(|σZ| < 1/2) ≈ 0.04 ≫ δ, so no finite ε holds at δ = {dl:g}")
    gsrc = "Jin, McMurtry, Rubinstein, Ohrimenko, S&P 2022 (float Gaussian samplers); "
    return [
        _float_entry("FloatLaplaceInversion", partial(laplace_inversion, epsilon=e), e,
                     math.inf, _MIRONOV + ", Sections 3-4 (textbook inverse-CDF Laplace)",
                     "Y = −b·sgn(r)·ln(1 − 2|r|), r = U − 1/2, U 53-bit (numpy's own "
                     f"Generator.laplace computes the same); {lattice}; also Mironov's "
                     "sparse-support attack"),
        _float_entry("FloatLaplaceLogUniform", partial(laplace_log_uniform, epsilon=e), e,
                     math.inf, _MIRONOV + " (log-of-uniform Laplace ±b·ln U)",
                     f"Y = S·b·ln U, U 53-bit on (0, 1]; {lattice}"),
        _float_entry("FloatLaplaceExpDiff", partial(laplace_exp_difference, epsilon=e), e,
                     math.inf, _MIRONOV + " (Laplace as −b ln U1 + b ln U2)",
                     f"the difference cancels: small Y lie on the lattice of the larger "
                     f"exponential, so the sampler alone fails the bit test; {lattice}"),
        _float_entry("FloatLaplaceFullUniform", partial(laplace_full_uniform, epsilon=e), e,
                     math.inf, _MIRONOV + ", Section 5.2 noise without the snapping",
                     f"U* reaches every double in (0, 1) with its exact probability, so the "
                     f"sampler is as good as doubles allow; the addition still leaks: "
                     f"{lattice}"),
        _float_entry("FloatGaussBoxMuller", partial(gaussian_box_muller, epsilon=e, delta=dl),
                     e, math.inf, gsrc + "Box, Muller 1958", gauss, delta=dl),
        _float_entry("FloatGaussPolar", partial(gaussian_polar, epsilon=e, delta=dl), e,
                     math.inf, gsrc + "Marsaglia, Bray 1964 (polar method)", gauss, delta=dl),
        _float_entry("FloatGaussZiggurat", partial(gaussian_ziggurat, epsilon=e, delta=dl), e,
                     math.inf, gsrc + "Marsaglia, Tsang 2000 (numpy's ziggurat)", gauss,
                     delta=dl),
        _float_entry("LaplaceNoiseTruncated", partial(laplace_noise_truncated, epsilon=e,
                                                      bound=8.0), e, e + math.log(2),
                     "Laplace noise cast to an integer, claimed as the geometric mechanism "
                     "(Ghosh, Roughgarden, Sundararajan 2009)",
                     "trunc(Y) = 0 on (−1, 1): twice the discrete Laplace's mass at 0, so "
                     "P(0 | 0)/P(0 | 1) = 2e^ε and the loss is exactly ε + ln 2 on integer "
                     "counts (clamped to [−8, 8]); leaks in real arithmetic too",
                     relation="histogram"),
        _float_entry("LaplaceOutputRounded", partial(laplace_output_rounded, epsilon=e,
                                                     bound=8.0), e, e,
                     "Laplace mechanism with its output rounded to ℤ (post-processing)",
                     "a control: rounding f ⊕ Y to the integers is post-processing and "
                     "erases the low bits; ε up to a relative float error below 1e-8 in the "
                     "masses of the 17 outputs (counts and outputs clamped to [−8, 8])",
                     relation="histogram"),
        _float_entry("Snapping", partial(snapping, scale=lam, bound=big),
                     snapping_epsilon(lam, big), snapping_epsilon(lam, big),
                     _MIRONOV + ", Section 5.2, Theorem 1 (the snapping mechanism)",
                     f"the control: λ = {lam:g}, Λ = {lam:g}, B = {big:g}; outputs are "
                     "multiples of Λ in [−B, B]; true ε at most the theorem's "
                     "1/λ + 2^-49·B/λ (an upper bound, with numpy's log in place of a "
                     "correctly rounded one)"),
    ]


ZOO: dict[str, ZooMechanism] = {m.name: m for m in
                                _dpsniper_suite() + _statdp_suite() + _float_suite()}


def dpsniper_suite() -> list[ZooMechanism]:
    """DP-Sniper's 20 benchmark mechanisms, in its order."""
    return [m for m in ZOO.values() if m.suite == "dpsniper"]


def statdp_suite() -> list[ZooMechanism]:
    """StatDP's grid: 11 mechanisms × claimed ε ∈ {0.2, 0.7, 1.5}."""
    return [m for m in ZOO.values() if m.suite == "statdp"]


def float_suite() -> list[ZooMechanism]:
    """The float-attack suite (:mod:`verification.zoo.floats`): ten mechanisms, the last
    two controls."""
    return [m for m in ZOO.values() if m.suite == "floats"]


def get(name: str) -> ZooMechanism:
    """The zoo entry called ``name``; ParameterError naming ``name`` and the known names."""
    try:
        return ZOO[name]
    except (KeyError, TypeError):
        raise ParameterError(f"name {name!r} is not in the zoo; known names: "
                             f"{', '.join(ZOO)}") from None
