"""A sampled confirmation of the trace's candidate events.

Where the noise steers the control flow the trace proposes events (:class:`TraceResult.
candidates`, chosen from trace runs only). :func:`confirm` tests each of them on fresh
draws of the mechanism at level α/K (Bonferroni over the K candidates): no selection split
is spent, so a candidate the trace chose well is confirmed with few draws, and the reported
ε lower bound exceeds the true ε with probability at most α.
"""

from __future__ import annotations

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import TEST, Draws, root_seed
from ..fixed.mechanism import MechanismAudit, _verdict
from ..neighbours import check_pair
from ..values import AuditBudget, check_claim

__all__ = ["confirm"]


def confirm(mechanism, d, d_prime, epsilon, candidates, n_samples: int = 10_000, rng=None,
            delta=0.0, alpha: float = 0.01, *, executor=None, timeout=guard.DEFAULT_TIMEOUT,
            total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> MechanismAudit:
    """Test ``candidates`` (events, e.g. a trace's) on ``n_samples`` fresh draws per
    dataset; the best-supported one gives the verdict, each tested at ``alpha/K``.

    Pure DP draws a Poisson number of outputs per dataset (mean ``n_samples``) and reads the
    counts conditionally, as :func:`~verification.audit.audit_mechanism` does; δ > 0 uses
    two Clopper–Pearson bounds. Returns a
    :class:`~verification.audit.MechanismAudit` whose ``selection`` says the event came from
    the trace."""
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    dlt = claim.delta
    candidates = tuple(candidates)
    if not candidates:
        raise ParameterError("candidates must hold at least one event (the trace proposed "
                             "none: run audit_mechanism instead)")
    n_samples = check_int("n_samples", n_samples, minimum=100)
    alpha = check_level("alpha", alpha)
    check_pair(d, d_prime)
    seed = root_seed(rng)
    wrapped = guard.wrap(mechanism, "mechanism")
    k = len(candidates)
    level = alpha / k
    budget = AuditBudget(n_samples=n_samples, n_train=0, alpha=alpha)

    def work(tick):
        best = None
        with Draws(wrapped, seed, executor, tick) as draws:
            for i, ev in enumerate(candidates):
                sides = ((d, 0), (d_prime, 1)) if ev.direction == "d" else \
                    ((d_prime, 1), (d, 0))
                counts, ns = [], []
                for data, side in sides:
                    m = draws.poisson(n_samples, side, i) if dlt == 0 else n_samples
                    counts.append(draws.count(data, m, TEST, side, ev, offset=i * (
                        draws.n_chunks(4 * n_samples) + 1)))
                    ns.append(m)
                sel = {"family": "trace candidates", "n_candidates": k,
                       "level": level, "n_train": 0}
                res = _verdict(kp=counts[0], kq=counts[1], n_fav=ns[0], n_other=ns[1], claim=claim,
                               budget=budget, event=ev, seed=seed, otype="traced", selection=sel,
                               level=level)
                if best is None or res.epsilon_lower > best.epsilon_lower:
                    best = res
        return best
    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     shared=(wrapped,))
