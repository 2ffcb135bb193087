"""Privacy assertions for your own test suite.

    from privtools.testing import assert_private, assert_follows, find_counterexample

    def test_my_mechanism_is_private():
        assert_private(my_mechanism, d=[0, 0, 1], d_prime=[0, 0, 0], epsilon=1.0)

    def test_no_neighbouring_pair_leaks():
        assert_private(my_mechanism, epsilon=1.0, datasets=st.lists(st.integers(0, 3)))

    def test_my_sampler():
        assert_follows(my_sampler, DiscreteLaplace(4))

**Sequential by default.** The assertions draw in rounds and stop as soon as the verdict is
decided (:mod:`verification.audit.sequential`): a gross bug fails after a few hundred draws,
a mechanism near its claim uses the budget ``max_samples``. The false-alarm rate is
``alpha`` (default 0.001) whatever the stopping time, and the default seed makes every run
of a test the same. ``n_samples=N`` runs the fixed-size audit instead. Both raise
:class:`PrivacyAssertionError` on a fail *and* on an inconclusive verdict (too few draws
never passes silently); ``err.result.draws`` says how many draws per dataset were used.

**Counterexamples.** With ``datasets=`` (a hypothesis strategy of datasets, or a list)
instead of a pair, :func:`find_counterexample` screens StatDP's input patterns on your
datasets first (for ``neighbours="linf"`` / ``"l1"``), then lets hypothesis search the
neighbouring pairs (``neighbours=``, see :mod:`privtools.testing.strategies`), steer towards
leaky ones with ``target()`` and *shrink* a flagged pair to a minimal one; the pair (and the
most suspect one, Bonferroni over both) is then confirmed on fresh draws, so the error
reports a minimal pair, its event and ε_lower at confidence 1 − alpha, and one line that
repeats the confirmation (:mod:`verification.audit.search.shrinking`).

**Exact mode.** ``exact=True`` computes instead of sampling, for mechanisms that say what
they release: :class:`NoisyQuery` (an integer query plus a privtools noise law, optionally
mod m) or any object with ``output_law(dataset)`` returning an ``ExactPMF``.

Hypothesis strategies live in :mod:`privtools.testing.strategies`; adapters for OpenDP and
diffprivlib in :mod:`privtools.testing.adapters`; a pytest plugin
(:mod:`privtools.testing.plugin`, registered as ``privtools``) provides the
``privacy_audit`` fixture.
"""

from __future__ import annotations

import copy
import math
import sys
from dataclasses import dataclass

from privtools.errors import ParameterError, require
from privtools.neighbours import as_pairs
from privtools.usercode import describe_function, user_call

__all__ = ["assert_private", "assert_follows", "find_counterexample", "PrivacyAssertionError",
           "ExactResult", "NoisyQuery", "strategies", "adapters",
           "DEFAULT_SEED", "DEFAULT_ALPHA", "DEFAULT_MAX_SAMPLES"]

DEFAULT_SEED = 20260101
DEFAULT_ALPHA = 1e-3
DEFAULT_MAX_SAMPLES = 200_000
_SEARCH_OPTIONS = ("max_examples", "screen_samples", "patterns", "examples")


def __getattr__(name):  # the submodules on first use (strategies needs hypothesis)
    if name == "strategies":
        import privtools.testing.strategies as module
        return module
    if name == "adapters":
        import privtools.testing.adapters as module
        return module
    if name == "MinimalCounterexample":  # the search's one result type, by its earlier name
        from verification.audit import Counterexample
        return Counterexample
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class PrivacyAssertionError(AssertionError):
    """An audit failed or was inconclusive; ``.result`` holds the audit (``.draws``: draws
    per dataset it used) and, after a search, ``.counterexample`` the minimal pair."""

    def __init__(self, message: str, result, counterexample=None):
        super().__init__(message)
        self.result = result
        self.counterexample = counterexample


# ---------------------------------------------------------------- claims and names
def _claim(mechanism, epsilon, delta) -> tuple[float, float]:
    """The claim to test: the arguments, or the mechanism's own ``epsilon`` / ``delta``
    (adapters read them from the library object)."""
    if epsilon is None:
        epsilon = getattr(mechanism, "epsilon", None)
        if epsilon is None:
            raise ParameterError("epsilon: give the ε the mechanism claims (or wrap it with "
                                 "privtools.testing.adapters, which reads the claim)")
        if not delta:
            delta = getattr(mechanism, "delta", 0.0) or 0.0
    return epsilon, delta


def _is_strategy(x) -> bool:
    """Whether ``x`` is a hypothesis strategy (without importing hypothesis: when it is not
    loaded, nothing is one)."""
    module = sys.modules.get("hypothesis.strategies")
    return module is not None and isinstance(x, module.SearchStrategy)


def _name(mechanism) -> str:
    from privtools.usercode import UserCode

    if isinstance(mechanism, UserCode):
        mechanism = mechanism.fn
    return getattr(mechanism, "name", None) or getattr(mechanism, "__name__", None) or \
        type(mechanism).__name__


# ---------------------------------------------------------------- exact mode
@dataclass(frozen=True)
class NoisyQuery:
    """``query(dataset) + noise`` (mod ``m`` when given): an integer-valued release whose
    law privtools knows exactly, usable as ``mechanism(dataset, size, rng)`` and by
    ``assert_private(..., exact=True)``. ``noise`` is a privtools law (for a batch of
    Theorem 1 (000), the discrete Laplace that the users' Pólya shares sum to)."""

    query: object
    noise: object
    m: int | None = None

    def __call__(self, dataset, size, rng=None):
        out = int(self.query(dataset)) + self.noise.sample(size, rng)
        return out % self.m if self.m is not None else out

    @property
    def __name__(self) -> str:
        return f"NoisyQuery({getattr(self.query, '__name__', 'query')}, {self.noise})"


@dataclass(frozen=True)
class ExactResult:
    """Outcome of an exact assertion: the certified interval of the pair's ε (δ = 0) or of
    its δ(ε), and the verdict it implies (``"inconclusive"`` only when the interval
    straddles the claim)."""

    passed: bool
    verdict: str
    epsilon: float
    delta: float
    value: tuple            # certified (lower, upper) of ε (δ = 0) or of δ(ε)
    quantity: str           # "epsilon" or "delta"
    draws: int = 0          # an exact assertion draws nothing

    def summary(self) -> str:
        """One readable line: the verdict, the claim and the certified interval."""
        lo, hi = self.value
        claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
        return (f"{self.verdict.upper()} (exact): claim {claim}; certified {self.quantity} "
                f"∈ [{lo:.6g}, {hi:.6g}]")


def _exact(mechanism, d, d_prime, eps: float, delta: float) -> ExactResult:
    from privtools.certified import decide_le, ends, interval, rounding
    from privtools.exact import divergence as dv

    quantity = "epsilon" if delta == 0 else "delta"
    if isinstance(mechanism, NoisyQuery):
        with user_call(f"query {describe_function(mechanism.query)}"):
            shift = int(mechanism.query(copy.deepcopy(d_prime))) - \
                int(mechanism.query(copy.deepcopy(d)))

        def on(m):
            if delta == 0:
                return dv.renyi_shift(mechanism.noise, abs(shift), math.inf, m=m)
            return dv.hockey_stick_shift(mechanism.noise, shift, eps, m=m)
        iv = on(None)
        if mechanism.m is not None:
            # the mod-m view is a post-processing of the release on Z: its divergence is
            # at most the one on Z (cheap, often closed form); wrap only when that is needed
            if decide_le(iv, eps if delta == 0 else delta) is True:
                quantity += " on Z (an upper bound for the mod-m view)"
            else:
                iv = on(mechanism.m)
    elif hasattr(mechanism, "output_law"):
        with user_call(f"output_law of {_name(mechanism)}"):
            P = mechanism.output_law(copy.deepcopy(d))
            Q = mechanism.output_law(copy.deepcopy(d_prime))
        if delta == 0:
            iv = dv.llr(P, Q)
        else:
            pq, qp = dv.hockey_stick(P, Q, eps), dv.hockey_stick(Q, P, eps)
            (pa, pb), (qa, qb) = ends(pq), ends(qp)
            iv = interval(max(pa, qa), max(pb, qb))
    else:
        raise ParameterError("exact=True needs a NoisyQuery or a mechanism with "
                             "output_law(dataset) -> ExactPMF")
    decided = decide_le(iv, eps if delta == 0 else delta)     # exact, on the certified ends
    verdict = "inconclusive" if decided is None else ("pass" if decided else "fail")
    a, b = ends(iv)     # shown as floats rounded outward (display only, never compared)
    value = (float(rounding.add_down(a, 0, prec=53)), float(rounding.add_up(b, 0, prec=53)))
    return ExactResult(verdict == "pass", verdict, eps, delta, value, quantity)


# ---------------------------------------------------------------- the assertions
def assert_private(mechanism, d=None, d_prime=None, epsilon=None, delta=0.0, datasets=None,
                   neighbours=None, exact=False, *, mode: str | None = None,
                   max_samples: int | None = None, n_samples: int | None = None,
                   alpha: float = DEFAULT_ALPHA, rng=DEFAULT_SEED, **audit_options):
    """Assert that ``mechanism(dataset, size, rng)`` shows no violation of (ε, δ)-DP.

    On one pair ``d``, ``d_prime``: the sequential audit (at most ``max_samples`` draws per
    dataset, default 200 000), or the fixed-size audit of ``n_samples`` draws when given.
    With ``datasets=`` instead: :func:`find_counterexample` over the ``neighbours`` pairs of
    those datasets (default ``"replace-one"``). With ``exact=True``: the certified ε
    (δ = 0) or δ(ε) of the pair.
    ``epsilon`` (and ``delta``) default to the mechanism's own claim when it carries one
    (:mod:`privtools.testing.adapters`). ``audit_options`` go to the audit (``features``,
    ``learners``, ``bits``, ``executor``), and ``max_examples`` / ``screen_samples`` to the
    search (see :func:`find_counterexample`). Returns the audit on success.

    ``mode="trace"``: the grey-box audit (:func:`verification.audit.trace_mechanism`) —
    deterministic, so it cannot flake: it passes only when the trace *holds* (a certificate
    for the pair), and fails on a finding or when it cannot decide (inconclusive is never a
    pass). With ``datasets=`` it searches the pairs for the largest certified loss
    (:func:`verification.audit.search_traced`). ``audit_options`` then go to the trace
    (``declared``, ``modulus``, ``arithmetic``, ``rtol``, ``timeout``, ``total_timeout``;
    ``max_examples`` for the search).

    A pair is checked before any draw: identical datasets are refused, and with
    ``neighbours`` given explicitly (a relation name or a callable ``d -> neighbours``) a
    pair that is not neighbouring under it. The mechanism is the user's code and runs
    behind the guard of :mod:`privtools.usercode` (``timeout=``, ``total_timeout=`` in
    ``audit_options``): if it exits, crashes, raises or hangs,
    :class:`~privtools.errors.UserCodeError` is raised — never a pass.
    """
    __tracebackhide__ = True
    relation = None if neighbours is None or _is_strategy(neighbours) else neighbours
    neighbours = "replace-one" if neighbours is None else neighbours
    eps, delta = _claim(mechanism, epsilon, delta)
    if mode not in (None, "audit", "trace"):
        raise ParameterError(f"mode must be None, 'audit' or 'trace', got {mode!r}")
    if mode == "trace":
        if exact or n_samples is not None or max_samples is not None:
            raise ParameterError("mode='trace' samples nothing: exact, n_samples and "
                                 "max_samples do not apply")
        return _trace(mechanism=mechanism, d=d, d_prime=d_prime, eps=eps, delta=delta,
                      datasets=datasets, neighbours=neighbours, relation=relation, rng=rng,
                      options=audit_options)
    search_opts = {k: audit_options.pop(k) for k in _SEARCH_OPTIONS if k in audit_options}
    search = datasets is not None or _is_strategy(neighbours)
    if search_opts and not search:
        raise ParameterError(f"{', '.join(search_opts)} only applies to the search over "
                             "datasets=")
    if search:
        if d is not None or d_prime is not None:
            raise ParameterError("give either the pair d, d_prime or datasets=, not both")
        if exact:
            raise ParameterError("exact=True checks one pair: give d and d_prime")
        cx = _search(mechanism, eps, datasets, neighbours, delta, alpha, rng, max_samples,
                     audit_options, **search_opts)
        if not cx.passed:
            raise PrivacyAssertionError("privacy search " + cx.summary(), cx.audit, cx)
        return cx
    if d is None or d_prime is None:
        raise ParameterError("give the neighbouring pair d and d_prime, or datasets= to "
                             "search for one")
    from verification.audit import check_pair

    check_pair(d, d_prime, relation)
    if exact:
        res = _exact(mechanism, d, d_prime, *_check_claim(eps, delta))
        if not res.passed:
            raise PrivacyAssertionError("exact privacy check " + res.summary(), res)
        return res
    if n_samples is not None:
        if max_samples is not None:
            raise ParameterError("give n_samples (fixed-size audit) or max_samples "
                                 "(sequential), not both")
        from verification.audit import audit_mechanism

        res = audit_mechanism(mechanism, d, d_prime, eps, n_samples, rng=rng, delta=delta,
                              alpha=alpha, **audit_options)
    else:
        from verification.audit import audit_mechanism_sequential

        res = audit_mechanism_sequential(
            mechanism, d, d_prime, eps, DEFAULT_MAX_SAMPLES if max_samples is None else
            max_samples, rng=rng, delta=delta, alpha=alpha, **audit_options)
    if not res.passed:
        line = _reproduce(mechanism, d, d_prime, eps, delta, res.seed,
                          n_samples=n_samples, max_samples=max_samples)
        raise PrivacyAssertionError(f"privacy audit {res.summary()}\nreproduce: {line}", res)
    return res


def _trace(mechanism, d, d_prime, eps, delta, datasets, neighbours, relation, rng, options):
    """``assert_private(mode="trace")``: one pair traced, or the pairs searched."""
    __tracebackhide__ = True
    from verification.audit import check_pair, search_traced, trace_mechanism

    if datasets is not None or _is_strategy(neighbours):
        if d is not None or d_prime is not None:
            raise ParameterError("give either the pair d, d_prime or datasets=, not both")
        require("hypothesis", "testing", "the traced search")
        from . import strategies

        pairs = strategies.neighbouring_pairs(datasets, neighbours)
        found = search_traced(mechanism, eps, pairs, delta, rng=rng, **options)
        if found.verdict != "holds":
            raise PrivacyAssertionError("traced search " + found.summary() + (
                "" if found.trace is None else "\n" + found.trace.describe() +
                "\nreproduce: " + found.reproduce(_name(mechanism))), found.trace, found)
        return found
    if d is None or d_prime is None:
        raise ParameterError("give the neighbouring pair d and d_prime, or datasets= to "
                             "search for one")
    check_pair(d, d_prime, relation)
    proof_for = relation if relation in ("query", "linf") else None
    res = trace_mechanism(mechanism, d, d_prime, eps, delta, rng=rng, relation=proof_for,
                          **options)
    if res.verdict != "holds":
        line = (f"trace_mechanism({_name(mechanism)}, {d!r}, {d_prime!r}, {eps!r}"
                + (f", delta={delta!r}" if delta else "") + f", rng={res.seed}"
                + "".join(f", {k}={v!r}" for k, v in options.items() if v is not None)
                + (f", relation={proof_for!r}" if proof_for else "") + ")")
        raise PrivacyAssertionError("privacy trace " + res.describe() +
                                    f"\nreproduce: {line}", res)
    return res


def _reproduce(mechanism, d, d_prime, eps, delta, seed, **sizes) -> str:
    """One line of Python that repeats an audit."""
    more = "".join(f", {k}={v!r}" for k, v in sizes.items() if v is not None)
    return (f"assert_private({_name(mechanism)}, d={d!r}, d_prime={d_prime!r}, "
            f"epsilon={eps!r}" + (f", delta={delta!r}" if delta else "") +
            f"{more}, rng={seed})")


def _check_claim(eps, delta) -> tuple[float, float]:
    from verification.audit.values import check_claim

    claim = check_claim(eps, delta)
    return claim.epsilon, claim.delta


def assert_follows(sampler, reference, *, max_samples: int | None = None,
                   n_samples: int | None = None, alpha: float = DEFAULT_ALPHA,
                   rng=DEFAULT_SEED):
    """Assert that ``sampler(size, rng)`` shows no departure from ``reference`` (a privtools
    law, an ``ExactPMF``, a frozen scipy law or a table): the sequential likelihood-ratio
    test by default (at most ``max_samples`` draws), the fixed-size Bonferroni audit of
    ``n_samples`` draws when given. Returns the audit on success."""
    __tracebackhide__ = True
    if n_samples is not None:
        if max_samples is not None:
            raise ParameterError("give n_samples (fixed-size audit) or max_samples "
                                 "(sequential), not both")
        from verification.audit import audit_sampler

        res = audit_sampler(sampler, reference, n_samples, rng=rng, alpha=alpha)
    else:
        from verification.audit import audit_sampler_sequential

        res = audit_sampler_sequential(sampler, reference, DEFAULT_MAX_SAMPLES
                                       if max_samples is None else max_samples, rng=rng,
                                       alpha=alpha)
    if not res.passed:
        raise PrivacyAssertionError("sampler audit " + res.summary(), res)
    return res


# ---------------------------------------------------------------- counterexamples
def _search(mechanism, eps, datasets, neighbours, delta, alpha, rng, max_samples,
            audit_options, *, screen_samples: int = 20_000, max_examples: int = 100,
            patterns: bool = True, examples=()):
    """The search of :func:`find_counterexample`: StatDP's patterns on ``datasets`` and
    hypothesis's pairs through the audit engine's shrinking search
    (``verification.audit.shrink_counterexample``); a
    :class:`~verification.audit.Counterexample` that passes or fails, with the line that
    repeats a failure's confirmation."""
    import dataclasses

    require("hypothesis", "testing", "the counterexample search")
    from verification.audit import shrink_counterexample

    from . import strategies

    if not isinstance(patterns, bool):
        raise ParameterError(f"patterns must be True or False, got {patterns!r}")
    pairs = None if datasets is None and not _is_strategy(neighbours) else \
        strategies.neighbouring_pairs(datasets, neighbours)
    stated = as_pairs(examples, "examples")
    relation = neighbours if isinstance(neighbours, str) else None
    cx = shrink_counterexample(
        mechanism, eps, pairs, delta, alpha=alpha, rng=rng,
        max_samples=DEFAULT_MAX_SAMPLES if max_samples is None else max_samples,
        screen_samples=screen_samples, max_examples=max_examples, candidates=stated,
        patterns=(datasets, relation) if patterns and datasets is not None and relation
        else None, **audit_options)
    if cx.passed:
        return cx
    a = cx.audit
    more = "".join(f", {k}={audit_options[k]!r}" for k in ("learners", "bits")
                   if k in audit_options)
    line = ("from verification.audit.search.candidates import confirm_pair; "
            f"confirm_pair({_name(mechanism)}, d={cx.d!r}, d_prime={cx.d_prime!r}, "
            f"epsilon={eps!r}, n_samples={a.n_samples}, n_train={a.selection['n_train']}, "
            f"rng={a.seed}" + (f", delta={delta!r}" if delta else "") +
            f", alpha={a.alpha!r}{more})")
    return dataclasses.replace(cx, reproduce=line)


def find_counterexample(mechanism, epsilon=None, datasets=None, neighbours="replace-one", *,
                        delta=0.0, alpha: float = DEFAULT_ALPHA, rng=DEFAULT_SEED,
                        max_samples: int | None = None, max_examples: int = 100,
                        screen_samples: int = 20_000, patterns: bool = True, examples=(),
                        **audit_options):
    """Search neighbouring pairs of ``datasets`` for one where ``mechanism`` breaks its
    claim; returns the confirmed :class:`~verification.audit.Counterexample` (a minimal
    pair: ``method="shrinking"``) or None. The search is
    :func:`verification.audit.shrink_counterexample` (its module doc has the details).

    Pairs are ranked by a held-out *score*: an event chosen on half of a pair's draws, and
    the ε lower bound its counts on the other half project for the confirmation; a pair is
    *flagged* when a cautious reading of it exceeds the claim. Scored first: the
    ``examples`` (d, d_prime) pairs you state, each with ``screen_samples`` draws per
    dataset; then — with ``patterns=True`` and ``neighbours="linf"`` or ``"l1"`` — StatDP's
    input patterns (Ding et al., CCS 2018: one answer up or down, one up and the rest down,
    half up and half down, all up, all down, X-shape; one entry only under ``"l1"``) on two
    datasets hypothesis draws from ``datasets`` (the longest, and one about half as long),
    raced by successive halving on ``2 · max_samples`` draws. A flagged pattern is shrunk
    by trying it on shorter datasets of yours. Otherwise hypothesis draws pairs
    (``neighbours``: "replace-one", "add-remove", "linf", "l1" or a strategy of pairs, which
    then needs no ``datasets``), scores each, maximises the score with ``target()`` and
    shrinks the first flagged pair to a minimal one.

    Confirmed, in this order: the minimal flagged pair, the race's two finalists and the
    pair of largest score — at most two of them, each by a fixed-size audit of
    ``max_samples`` fresh draws per dataset (default 200 000; a fifth choose its event), at
    level ``alpha / 2`` when there are two (Bonferroni): only a confirmed pair is returned,
    so the false-alarm rate of the whole search is at most ``alpha`` however many pairs
    were screened. ``max_examples`` bounds the pairs screened, patterns and shrinking
    included (a pair beyond it counts as not flagged): a search draws at most
    ``2 · max_examples · screen_samples`` (screens) ``+ 2 · max_samples`` (the pattern
    race, or a screen per pattern if that is more) ``+ 4 · max_samples`` (confirmations),
    all datasets together, whatever the seed. The result's ``reproduce`` is one line of Python
    that repeats the failing confirmation exactly
    (``verification.audit.search.candidates.confirm_pair``). The mechanism runs behind the guard
    of :mod:`privtools.usercode` (one for the whole search; ``timeout=``,
    ``total_timeout=`` in ``audit_options``).
    """
    __tracebackhide__ = True
    if datasets is None and not _is_strategy(neighbours):
        raise ParameterError("datasets: give a hypothesis strategy of datasets or a list "
                             "(or neighbours= as a strategy of pairs)")
    eps, delta = _claim(mechanism, epsilon, delta)
    cx = _search(mechanism, eps, datasets, neighbours, delta, alpha, rng, max_samples,
                 audit_options, screen_samples=screen_samples, max_examples=max_examples,
                 patterns=patterns, examples=examples)
    return None if cx.passed else cx
