"""Why each survivor of ``studies/mutation_study.py`` survives.

Keyed by (module, line, cosmic-ray operator); the value is (category, explanation):

* ``equivalent`` — the mutant computes the same results for every valid input;
* ``performance`` — only time, memory, batch sizes or the path taken change;
* ``guess`` — only a float starting point or window of a certified computation changes; the
  certified step still proves the result;
* ``tolerance`` — the change is below float64 or the working precision of the balls;
* ``conservative`` — a certified bound gets looser and stays valid;
* ``message`` — only an error's text changes;
* ``gap`` — a real test gap, open.

Line numbers refer to the sources the study ran on; a survivor without an entry is reported
as not yet explained.
"""

B = "privtools/noise/_base.py"
F = "privtools/noise/_samplers/fixed.py"
X = "privtools/noise/exact_sampling.py"
G = "privtools/noise/gaussian.py"
L = "privtools/noise/laplace.py"
P = "privtools/noise/polya.py"
S = "privtools/noise/skellam.py"
PRG = "privtools/protocol/_prg.py"
SH = "privtools/protocol/_shamir.py"
BA = "privtools/protocol/batch.py"
R = "privtools/protocol/randomizer.py"
SE = "privtools/protocol/secure.py"
V = "privtools/protocol/views.py"
N = "core/NumberReplacer"


def _bin(a: str, b: str) -> str:
    return f"core/ReplaceBinaryOperator_{a}_{b}"


def _cmp(a: str, b: str) -> str:
    return f"core/ReplaceComparisonOperator_{a}_{b}"


_WINDOW = ("only the float guess of the summation window; the certified remainder from "
           "tail_bound decides the enclosure")
_TARGET = ("_tail_window's guess (an e^-10 margin, power-of-two steps) already puts the "
           "certified remainder below the target for every window short enough to sum, so "
           "the widening loop never runs; the enclosure is certified either way")
_SUPPORT = ("only the float starting range of exact_support; the loop widens it until the "
            "certified outside mass is <= mass")
_DEBYE = ("changes the Debye series by < 1e-15 relative for orders >= 300, below its "
          "documented 6e-14 accuracy")

EXPLANATIONS: dict[tuple[str, int, str], tuple[str, str]] = {
    # ------------------------------------------------------------------ _base.py
    (B, 291, N): ("equivalent", "the ratio array has one element: [-1] and [0] are the same"),
    (B, 292, N): ("equivalent", "the ratio bounds read here are below 1 (the sums start beyond "
                                "the centre of a log-concave law, or in Pólya's far tail), "
                                "so lr < 0 and lr < 1 agree"),
    (B, 384, _cmp("Gt", "GtE")): ("message", "mass = 0 still raises ParameterError, from the "
                                             "quantile search, with another text"),
    (B, 388, _bin("Div", "Mul")): ("guess", _SUPPORT),
    (B, 388, N): ("guess", _SUPPORT),
    (B, 449, _bin("Sub", "Add")): ("guess", "only the float starting guess of tail_quantile; "
                                            "certified_threshold proves the result"),
    (B, 457, N): ("performance", "the step of the certified threshold search; the smallest "
                                 "proved t is the same"),
    (B, 472, "core/AddNot"): ("guess", "only the float reference that sets the target width "
                                       "of the certified tail interval"),
    (B, 472, N): ("guess", "only the float reference that sets the target width of the "
                           "certified tail interval"),
    (B, 478, N): ("equivalent", "unreachable: the float log PMF at c + t + 1 is finite for "
                                "every law (log space with an Arb fallback)"),
    (B, 479, "core/ReplaceUnaryOperator_USub_UAdd"): ("guess", _TARGET),
    (B, 479, _bin("Add", "Sub")): ("guess", _TARGET),
    (B, 489, N): ("guess", _TARGET),
    (B, 505, N): ("guess", _WINDOW),
    (B, 507, N): ("guess", _WINDOW),
    (B, 510, N): ("guess", _WINDOW),
    (B, 514, _bin("Add", "Sub")): ("guess", _WINDOW),
    (B, 515, N): ("guess", _WINDOW),
    (B, 537, N): ("guess", _SUPPORT),
    # ----------------------------------------------------------------- _fixed.py
    (F, 59, N): ("conservative", "the table's TV certificate includes whatever mass the "
                                 "table leaves outside its range"),
    (F, 148, N): ("equivalent", "err takes the larger one-sided deviation, and the widening "
                                "of either end alone covers |w − p·2^64| (checked on 4000 "
                                "random laws); the TV bound stays certified"),
    (F, 165, N): ("equivalent", "floor(lo·2^64) <= ceil(hi·2^64), so the other two terms are "
                                "never both negative"),
    (F, 339, N): ("equivalent", "CKS20 Alg. 3 is exact for any proposal scale t (e^{-|y|/t} "
                                "times the acceptance is ∝ e^{-y²/(2σ²)}); t sets only the "
                                "efficiency, and the TV certificate is computed for the t used"),
    (F, 350, N): ("conservative", "a larger TV bound (2η/(A − η) instead of 1.5η/(A − η)) "
                                  "is still an upper bound"),
    (F, 357, _bin("Mul", "Div")): ("conservative", "A >= P(|Y| <= k)·min a(y) over |y| <= k "
                                                   "holds for every k; k = ⌊2σ⌋ only makes "
                                                   "the lower bound tight"),
    (F, 357, _bin("Mul", "Add")): ("conservative", "A >= P(|Y| <= k)·min a(y) over |y| <= k "
                                                   "holds for every k; k = ⌊2σ⌋ only makes "
                                                   "the lower bound tight"),
    (F, 434, N): ("performance", "one more unused word per round: the same law, and the word "
                                 "count per round is still independent of the value"),
    (F, 458, _bin("FloorDiv", "Div")): ("conservative", "the climb then also visits non-integer "
                                                        "points of the same concave function; "
                                                        "M can only grow, and any M above the "
                                                        "maximum is a valid constant"),
    (F, 469, N): ("equivalent", "after the climb G(x) >= G(x − 1) already holds; the check at "
                                "nb = 0 could fail only for balls overlapping at 96 bits"),
    (F, 479, N): ("performance", "words the fast comparison no longer accepts are resolved "
                                 "exactly in Arb: the same law and word count"),
    # ---------------------------------------------------------- exact_sampling.py
    (X, 160, "core/ReplaceUnaryOperator_Delete_Invert"): (
        "equivalent", "A_2 = [U_2 = 1] instead of [U_2 = 0]: both Bernoulli(1/2)"),
    (X, 260, _cmp("LtE", "Lt")): ("equivalent", "t = 2^63 − 1 takes the big-integer path: "
                                                "the same uniform law"),
    (X, 262, N): ("performance", "one more bit per candidate: still exactly uniform "
                                 "(acceptance > 1/4 instead of > 1/2)"),
    (X, 306, _cmp("LtE", "Gt")): ("performance", "values that fit int64 take the Python-int "
                                                 "path: the same values"),
    (X, 340, "core/AddNot"): ("performance", "every candidate takes the Python-int path: the "
                                             "same values"),
    (X, 372, N): ("performance", "the first batch size"),
    # ---------------------------------------------------------------- gaussian.py
    (G, 86, N): ("tolerance", "the remainder bound starts one term earlier: the ball widens "
                              "by a term below 2^-prec"),
    (G, 93, N): ("tolerance", "halves a remainder already below 2^-(prec+64) of the sum"),
    (G, 114, _bin("Div", "FloorDiv")): ("tolerance", "a smaller ratio bound only in the float "
                                                     "tail sum's stopping rule; the dropped "
                                                     "remainder stays below 1e-18 relative"),
    (G, 121, _cmp("Gt", "GtE")): ("equivalent", "at σ² = 10^4 the Arb sum equals σ² far below "
                                                "float resolution (gap < e^{-2π²σ²}·4π²σ²)"),
    (G, 126, N): ("tolerance", "one term more or less of a sum cut where terms are below "
                               "2^-200"),
    (G, 167, N): ("conservative", "the ratio e^{-(d+1)/(2σ²)} >= e^{-(2d+1)/(2σ²)}: a larger, "
                                  "still valid, tail bound"),
    (G, 178, N): ("equivalent", "for 1 <= σ² < 2 the direct sum replaces Poisson summation: "
                                "both are certified enclosures of the same value"),
    (G, 188, _bin("Mul", "Add")): ("tolerance", "a longer direct sum: the enclosure only "
                                                "tightens"),
    (G, 190, _bin("Add", "Sub")): ("tolerance", "drops the terms x = xmax − 1, xmax, each "
                                                "below 2^-(prec+64) of the sum"),
    (G, 192, N): ("tolerance", "halves a remainder already below 2^-(prec+64) of the sum"),
    (G, 245, N): ("performance", "the candidate batch size of the float sampler"),
    # ----------------------------------------------------------------- laplace.py
    (L, 159, N): ("equivalent", "the bisection stops at adjacent floats long before 200 steps; "
                                "any λ in (0, 1/b) gives a valid Chernoff bound"),
    # ------------------------------------------------------------------- polya.py
    (P, 267, N): ("equivalent", "at t = 0 the sum over the empty range 0..−1 is 0 as well"),
    (P, 343, N): ("tolerance", "r = 1 takes the recurrence and r = 2 the pointwise closed "
                               "form; both within the documented accuracy"),
    (P, 366, N): ("performance", "the chunk size of the vectorized tail sum"),
    (P, 446, "core/AddNot"): ("equivalent", "the convolution replaces the series (or the "
                                            "converse): both certified enclosures of p(k)"),
    (P, 473, N): ("tolerance", "an underestimated remainder of a series cut at 2^-(prec+8) of "
                               "its sum: the extra truncation stays inside the ball's radius "
                               "(the series is used only while it has < 200000 terms)"),
    (P, 505, N): ("conservative", "nb(k + cut) >= nb(k + cut + 1): a larger, still valid, "
                                  "truncation radius"),
    # ----------------------------------------------------------------- skellam.py
    (S, 58, N): ("tolerance", _DEBYE),
    (S, 60, N): ("tolerance", _DEBYE),
    (S, 186, _bin("Add", "Sub")): ("conservative", "sqrt((ν − 2)² + x²) <= sqrt((ν + 2)² + x²) "
                                                   "for ν >= 0: a larger upper bound on the "
                                                   "Bessel ratio"),
    # ------------------------------------------------------------------ protocol
    (PRG, 215, N): ("equivalent", "placeholder of rows whose words were all rejected; the "
                                  "fallback loop overwrites it before use"),
    (SH, 108, N): ("performance", "the number of words drawn per round"),
    (BA, 99, N): ("equivalent", "numpy reads any negative size in reshape as 'infer'"),
    (BA, 110, N): ("equivalent", "also visits all-zero bins, which add 0"),
    (R, 150, "core/ReplaceFalseWithTrue"): ("performance", "an extra copy"),
    (R, 264, _cmp("GtE", "Gt")): ("performance", "the sparse and dense paths give the same "
                                                 "messages"),
    (R, 285, _cmp("Gt", "GtE")): ("equivalent", "uint64 draws equal to 2^63 − 1 are kept as "
                                                "Python ints: the same values"),
    (R, 287, "core/ReplaceFalseWithTrue"): ("performance", "an extra copy"),
    (SE, 60, N): ("performance", "the size from which pairs are spread over processes"),
    (SE, 79, N): ("equivalent", "for m >= 2 the ceiling is >= 1 anyway"),
    (SE, 262, "core/ReplaceUnaryOperator_USub_UAdd"): ("performance", "each owner row is a "
                                                                      "work unit of its own: "
                                                                      "the same masks"),
    (SE, 398, N): ("equivalent", "numpy reads any negative size in reshape as 'infer'"),
    (SE, 403, _cmp("Lt", "LtE")): ("equivalent", "i is a survivor, never in D: D < i and "
                                                 "D <= i select the same users"),
    (V, 45, N): ("performance", "the chunk size of the vectorized draws"),
    (V, 143, N): ("message", "an empty dataset still raises ParameterError, from the user "
                             "index check"),
}
