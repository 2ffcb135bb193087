"""Is a mechanism as private as it claims? A black-box audit of one neighbouring pair.

``mechanism(dataset, size, rng)`` claims (ε, δ)-DP and may return any output type of
:mod:`verification.audit.outputs`. The audit draws on ``d`` and ``d_prime``, *chooses* an
event on the first ``n_train`` draws of each (:mod:`verification.audit.events.select`) and *tests*
it on the remaining ``n_samples − n_train`` fresh draws, so the chosen event is independent
of the test data. For the chosen event E, (ε, δ)-DP implies P(E | d) ≤ e^ε P(E | d') + δ:

* for pure DP (δ = 0) each dataset gets a *Poisson* number of test draws with mean
  ``n_samples − n_train``, so that, given the total count K of the event, the favoured
  count is exactly Binomial(K, p/(p+q)); one Clopper–Pearson bound π_lo at level ``alpha``
  gives ε_lower = log(π_lo/(1 − π_lo)) (:func:`verification.audit.stats.
  poisson_ratio_bound`);
* with δ > 0 the two sides get the same number of test draws, paired, and one test of the
  hockey-stick statistic P(E | d) − e^ε P(E | d') − δ decides: a bet on the paired draws
  sized on the selection draws, rejected when its capital reaches 1/α
  (:mod:`verification.audit.stats.hockey`); ε_lower inverts that test.

Either way ε_lower exceeds the true ε with probability at most ``alpha`` (0 is reported
when the bound is not positive).

One event is tested per audit, so no multiple-testing correction is needed however many
candidates the selection looked at. The approach is that of the statistical DP auditors
(Ding, Wang, Wang, Zhang, Kifer, "Detecting violations of differential privacy", CCS 2018;
Bichsel et al., "DP-Sniper", S&P 2021; Jagielski, Ullman, Oprea, NeurIPS 2020), with exact
intervals and events of any probability the test split can resolve.

With ``stop_early=True`` the test split is drawn in three slices — ¼, ¼ and ½ of it — and
read after each at levels α/4, α/4 and α/2 (Bonferroni over the looks); the audit stops at
the first look whose bound already exceeds the claim.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import SELECT, TEST, Draws, root_seed
from ..events import Event
from ..events.select import LEARNERS, Choice, Sample, choose_event
from ..events.support import support_event
from ..neighbours import check_pair
from ..stats import clopper_pearson, hockey, poisson_p_value, poisson_ratio_bound
from ..values import AuditBudget, Claim, check_claim

__all__ = ["MechanismAudit", "audit_mechanism", "check_claim", "default_train"]


@dataclass(frozen=True, kw_only=True)
class MechanismAudit:
    """Outcome of :func:`audit_mechanism`.

    ``epsilon_lower`` holds with confidence 1 − ``alpha``: the mechanism is *not*
    (ε, δ)-DP for any ε < ``epsilon_lower``. ``passed = epsilon_lower <= epsilon`` and the
    verdict is ``"pass"``, ``"fail"`` or ``"inconclusive"`` (the sample size cannot
    certify any ε above the claim, so a pass would mean nothing). ``p_value`` is the
    smallest level at which the claim would be rejected with the chosen event. ``seed``
    repeats the audit exactly (``rng=seed``).
    """

    passed: bool
    verdict: str
    epsilon: float
    delta: float
    epsilon_lower: float
    epsilon_estimate: float
    epsilon_max_detectable: float
    p_value: float
    alpha: float
    n_samples: int
    event: Event | None
    counts: dict = field(default_factory=dict)
    reason: str = ""
    seed: int | None = None
    output_type: str = ""
    selection: dict = field(default_factory=dict)
    user_code: object = None

    @property
    def draws(self) -> int:
        """Draws per dataset the audit took (all of ``n_samples``; see ``stop_early``)."""
        return self.n_samples

    @property
    def details(self) -> dict:
        """The witness event, its counts and the ε estimates."""
        return {"event": self.event.describe() if self.event else None, **self.counts,
                "epsilon_estimate": self.epsilon_estimate,
                "epsilon_max_detectable": self.epsilon_max_detectable}

    def summary(self) -> str:
        """One readable line: verdict, claim, ε lower bound with its confidence, witness."""
        claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
        line = (f"{self.verdict.upper()}: claim {claim}; ε ≥ {self.epsilon_lower:.4g} with "
                f"confidence {1 - self.alpha:g} (p = {self.p_value:.3g})")
        if self.event is not None:
            line += f"; witness: {self.event.describe()}"
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        """The audit as JSON-ready values."""
        return {"passed": self.passed, "verdict": self.verdict, "epsilon": self.epsilon,
                "delta": self.delta, "epsilon_lower": self.epsilon_lower,
                "epsilon_estimate": self.epsilon_estimate,
                "epsilon_max_detectable": self.epsilon_max_detectable,
                "p_value": self.p_value, "alpha": self.alpha, "n_samples": self.n_samples,
                "seed": self.seed, "output_type": self.output_type,
                "event": None if self.event is None else self.event.to_dict(),
                "selection": self.selection, **self.counts, "reason": self.reason,
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


def default_train(n_samples: int, delta: float = 0.0) -> int:
    """Draws per dataset that choose the event: half of a small audit, a tenth (at least
    10⁵) of a large one — the test split, not the selection, sets the final precision.
    With δ > 0 a fifth (at least 10⁴): the hockey-stick test lives on the rare events of
    the far tail, and every test draw counts toward seeing them."""
    if delta > 0:
        return min(n_samples // 2, max(10_000, n_samples // 5))
    return min(n_samples // 2, max(100_000, n_samples // 10))


def _verdict(kp, kq, n_fav, n_other, *, claim: Claim, budget: AuditBudget, event, seed,
             otype, selection, level=None, lams=None) -> MechanismAudit:
    """The verdict on ``claim`` from the test counts: ``kp`` of ``n_fav`` draws on the
    favoured dataset, ``kq`` of ``n_other`` on the other; ``level`` is this look's share of
    the budget's ``alpha``.
    Pure DP reads the Poissonised counts conditionally (one exact binomial interval); with
    δ > 0 the hockey-stick test bets ``lams`` on the paired draws
    (:mod:`verification.audit.stats.hockey`)."""
    eps_claim, delta = claim.epsilon, claim.delta
    n_samples, alpha = budget.n_samples, budget.alpha
    level = alpha if level is None else level
    n_test = max(n_fav, n_other, 1)
    rejected = None
    if delta == 0:
        bound = float(poisson_ratio_bound(kp, kq, level))
        eps_max = float(poisson_ratio_bound(n_fav, 0, level))
        p_raw = poisson_p_value(kp, kq, eps_claim)
        pi_lo = float(clopper_pearson(kp, kp + kq, level, "lower")) if kp + kq else 0.0
        interval = {"share_lower": pi_lo}
    else:
        lams = hockey.bets(0, 0, 1, eps_claim, delta) if lams is None else lams
        cap = hockey.LAMBDA_CAP / (math.exp(eps_claim) + delta)
        bound = hockey.hockey_stick_bound(kp, kq, n_test, lams, eps_claim, delta, level)
        eps_max = hockey.hockey_stick_bound(n_test, 0, n_test, [cap], eps_claim, delta,
                                            level)
        log_k = hockey.log_e_value(kp, kq, n_test, lams, eps_claim, delta)
        p_raw = math.exp(-log_k) if log_k > 0 else 1.0
        rejected = log_k >= math.log(1 / level)
        interval = {"log_e_value": log_k, "bets": [float(x) for x in lams]}
    eps_lower = max(0.0, bound)
    rp, rq = kp / max(n_fav, 1), kq / max(n_other, 1)
    if rq > 0:
        est = float(np.log(max(rp - delta, 1e-300) / rq)) if rp > delta else 0.0
    else:
        est = math.inf if rp > delta else 0.0
    p_value = min(1.0, p_raw * alpha / level)
    counts = {"count_favoured": kp, "count_other": kq, "n_favoured": n_fav,
              "n_other": n_other, "n_test": n_test, **interval}
    common = dict(epsilon=eps_claim, delta=delta, epsilon_lower=eps_lower,
                  epsilon_estimate=est, epsilon_max_detectable=eps_max, p_value=p_value,
                  alpha=alpha, n_samples=n_samples, event=event, counts=counts, seed=seed,
                  output_type=otype, selection=selection)
    if event is None:
        return MechanismAudit(passed=False, verdict="inconclusive",
                              reason="no candidate event: the outputs gave nothing to "
                              "compare", **common)
    if eps_max <= eps_claim:
        return MechanismAudit(passed=False, verdict="inconclusive",
                              reason=(f"{n_test} test draws per dataset can certify at most "
                                      f"ε = {eps_max:.3g} at confidence {1 - alpha:g}; "
                                      "use more samples"), **common)
    # δ > 0: the test at the claim decides (ε_lower is then at least the claim)
    passed = eps_lower <= eps_claim if rejected is None else not rejected
    reason = "" if passed else (f"the event '{event.describe()}' holds in {kp} of {n_fav} "
                                f"draws on one dataset and {kq} of {n_other} on the other")
    return MechanismAudit(passed=passed, verdict="pass" if passed else "fail", reason=reason,
                          **common)


def run_audit(draws: Draws, d, d_prime, claim: Claim, budget: AuditBudget, *,
              features=None, learners=LEARNERS, stop_early=False, samples=None,
              bits=False):
    """The audit of ``claim`` on a :class:`Draws`; ``samples`` may hold selection draws
    already taken.

    The test split has ``n_samples − n_train`` draws per dataset of the ``budget`` — for
    pure DP a Poisson number with that mean (see :mod:`verification.audit.stats`)."""
    eps_claim, delta, alpha = claim.epsilon, claim.delta, budget.alpha
    n_train = budget.n_train
    n_test = budget.n_samples - n_train
    if samples is None:
        A = Sample(*draws.sample(d, n_train, SELECT, 0))
        B = Sample(*draws.sample(d_prime, n_train, SELECT, 1))
    else:
        A, B = samples
    choice: Choice = choose_event(A, B, n_test, alpha, delta, features=features,
                                  learners=learners, seed=draws.seed % (2**32), bits=bits)
    selection = {"n_train": A.outputs.n, "family": choice.family,
                 "projected_epsilon_lower": choice.projected,
                 "families": {k: v for k, v in choice.considered}, "notes": choice.notes}
    otype = A.outputs.describe_type()
    event = choice.event
    if event is None:
        return _verdict(kp=0, kq=0, n_fav=n_test, n_other=n_test, claim=claim, budget=budget,
                        event=None, seed=draws.seed, otype=otype, selection=selection)
    lams = None
    if delta > 0:   # the bets are sized on the selection draws, never on the test's
        ka, kb = int(A.contains(event).sum()), int(B.contains(event).sum())
        kp_sel, kq_sel = (ka, kb) if event.direction == "d" else (kb, ka)
        lams = hockey.bets(kp_sel, kq_sel, A.outputs.n, eps_claim, delta, n_test, alpha)
        selection["bets"] = [float(x) for x in lams]
    events = [event]
    if delta == 0:  # an output one side gives and the other never gave: tested beside it
        extra, seen = support_event(A, B)
        if extra is not None and extra.describe() != event.describe():
            events.append(extra)
            selection["support_event"] = {"event": extra.describe(), "seen": seen}
    # Looks: all of the test split, or ¼, ½, all at α/4, α/4, α/2 with stop_early; each
    # look's level shared by the events tested (Bonferroni)
    looks = ((1.0, alpha),) if not stop_early else \
        ((0.25, alpha / 4), (0.5, alpha / 4), (1.0, alpha / 2))
    k = [[0, 0] for _ in events]      # counts on d and on d′, per event
    n = [0, 0]
    offset = [0, 0]
    done = 0.0
    for j, (frac, level) in enumerate(looks):
        for side, data in ((0, d), (1, d_prime)):
            lam = n_test * (frac - done)
            m = draws.poisson(lam, side, j) if delta == 0 else \
                int(round(n_test * frac)) - n[side]
            for i, ev in enumerate(events):   # the same draws for every event
                k[i][side] += draws.count(data, m, TEST, side, ev, offset[side])
            n[side] += m
            offset[side] += draws.n_chunks(m)
        done = frac
        sel = selection if not stop_early else {
            **selection, "looks": "¼, ½ and all of the test split at α/4, α/4, α/2",
            "stopped_at": n[0]}
        res = _best_verdict(events, k, n, claim=claim, budget=budget, seed=draws.seed,
                            otype=otype, selection=sel, level=level, lams=lams)
        if res.verdict == "fail":
            break
    return res


def _best_verdict(events, k, n, *, claim, budget, seed, otype, selection, level, lams):
    """The verdict of each event on its counts (``k[i]`` on d and d′ of ``n``), each at
    ``level`` over their number (Bonferroni); the one with the largest ε_lower."""
    best = None
    for i, ev in enumerate(events):
        f = 0 if ev.direction == "d" else 1
        got = _verdict(kp=k[i][f], kq=k[i][1 - f], n_fav=n[f], n_other=n[1 - f], claim=claim,
                       budget=budget, event=ev, seed=seed, otype=otype,
                       selection=selection if i == 0 else
                       {**selection, "family": "support (outputs one side never gave)"},
                       level=level / len(events), lams=lams if i == 0 else None)
        if best is None or got.epsilon_lower > best.epsilon_lower:
            best = got
    return best


def audit_mechanism(mechanism: Callable, d, d_prime, epsilon, n_samples: int, rng=None,
                    delta=0.0, alpha: float = 0.01, *, n_train: int | None = None,
                    features: Callable | None = None, learners=LEARNERS,
                    executor=None, stop_early: bool = False,
                    progress: Callable[[int], None] | None = None,
                    bits: bool = False, relation=None, timeout=guard.DEFAULT_TIMEOUT,
                    total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> MechanismAudit:
    """Empirical lower confidence bound on the ε of ``mechanism`` between ``d`` and
    ``d_prime``, and a verdict on the claim (``epsilon``, ``delta``).

    ``mechanism(dataset, size, rng)`` returns ``size`` independent outputs of any type of
    :mod:`verification.audit.outputs`. ``n_samples`` draws per dataset are taken:
    ``n_train`` (default :func:`default_train`) choose the event, the rest test it
    (a Poisson number of them for pure DP; see the module doc), so ``epsilon_lower``
    exceeds the true ε with probability at most ``alpha``. ``features(outputs)`` maps a
    batch of outputs to numbers for the learned events; ``learners`` picks the
    classifiers (``()`` for none).
    ``executor`` spreads the draws (see :mod:`verification.audit.draws`); the result does
    not depend on it. ``progress(k)`` is called after each chunk of ``k`` draws.

    ``bits=True`` also proposes events on the IEEE-754 encoding of float outputs (lowest
    mantissa bits, binades, power-of-two lattices, representation classes; see
    :mod:`verification.audit.events.select`): the float *implementation* is then audited, not only
    the real-arithmetic algorithm it simulates. Most mechanisms that add float noise to
    ``f(d)`` are not ε-DP for any finite ε at that level (Mironov, CCS 2012: e.g. on
    ``f(d) = 1`` every output of magnitude below 1/2 is a multiple of 2^-53, on ``f(d) = 0``
    not), so leave it off to audit the algorithm, turn it on to audit the floats. The
    event is still chosen on selection draws only, so the test keeps its level.
    """
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    delta_f = claim.delta
    n_samples = check_int("n_samples", n_samples, minimum=1)
    if n_samples < 200:
        raise ParameterError(f"n_samples must be >= 200 per dataset, got {n_samples}")
    alpha = check_level("alpha", alpha)
    if n_train is None:
        n_train = default_train(n_samples, delta_f)
    n_train = check_int("n_train", n_train, minimum=100)
    if n_train > n_samples - 100:
        raise ParameterError(f"n_train must leave at least 100 test draws: n_train = "
                             f"{n_train}, n_samples = {n_samples}")
    if features is not None and not callable(features):
        raise ParameterError("features must be callable as features(outputs) -> array")
    if not isinstance(bits, (bool, np.bool_)):
        raise ParameterError(f"bits must be True or False, got {bits!r}")
    learners = check_learners(learners)
    check_pair(d, d_prime, relation)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    features = guard.wrap(features, "features")
    budget = AuditBudget(n_samples=n_samples, n_train=n_train, alpha=alpha)

    def work(tick):
        with Draws(mechanism, seed, executor, tick) as draws:
            return run_audit(draws, d, d_prime, claim, budget, features=features,
                             learners=learners, stop_early=stop_early, bits=bool(bits))
    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     progress=progress, shared=(mechanism, features))


def check_learners(learners) -> tuple:
    if learners is None:
        return ()
    if isinstance(learners, str):
        learners = (learners,)
    learners = tuple(learners)
    for x in learners:
        if x not in LEARNERS:
            raise ParameterError(f"learners must be a subset of {LEARNERS}, got {x!r}")
    return learners
