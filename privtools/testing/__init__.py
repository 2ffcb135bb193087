"""Privacy assertions for your own test suite.

    from privtools.testing import assert_private, assert_follows

    def test_my_mechanism_is_private():
        assert_private(my_mechanism, d=[0, 0, 1], d_prime=[0, 0, 0], epsilon=1.0)

    def test_my_sampler():
        assert_follows(my_sampler, DiscreteLaplace(4))

Both wrap the black-box audits of :mod:`verification.audit` with a fixed default seed, so a
test is deterministic; they raise ``AssertionError`` carrying the audit's summary on a fail
*and* on an inconclusive verdict (too few draws never passes silently). The false-alarm
rate is ``alpha`` per assertion (default 0.001).

Hypothesis strategies for privacy parameters live in :mod:`privtools.testing.strategies`
(requires ``hypothesis``); a pytest plugin (:mod:`privtools.testing.plugin`, registered as
``privtools``) provides the ``privacy_audit`` fixture.
"""

from __future__ import annotations

__all__ = ["assert_private", "assert_follows", "PrivacyAssertionError"]

DEFAULT_SEED = 20260101
DEFAULT_ALPHA = 1e-3


class PrivacyAssertionError(AssertionError):
    """An audit failed or was inconclusive; ``.result`` holds the audit."""

    def __init__(self, message: str, result):
        super().__init__(message)
        self.result = result


def assert_private(mechanism, d, d_prime, epsilon, delta=0.0, *, n_samples: int = 200_000,
                   alpha: float = DEFAULT_ALPHA, rng=DEFAULT_SEED, both_directions: bool = True):
    """Assert that ``mechanism(dataset, size, rng)`` shows no violation of (ε, δ)-DP between
    the neighbouring datasets ``d`` and ``d_prime``.

    Runs :func:`verification.audit.audit_mechanism`; the event search already looks in
    both directions. Returns the audit on success.
    """
    from verification.audit import audit_mechanism

    res = audit_mechanism(mechanism, d, d_prime, epsilon, n_samples, rng=rng, delta=delta,
                          alpha=alpha)
    if not res.passed:
        raise PrivacyAssertionError("privacy audit " + res.summary(), res)
    return res


def assert_follows(sampler, reference, *, n_samples: int = 200_000,
                   alpha: float = DEFAULT_ALPHA, rng=DEFAULT_SEED):
    """Assert that ``sampler(size, rng)`` shows no departure from ``reference`` (a
    privtools distribution or an ``ExactPMF``). Returns the audit on success."""
    from verification.audit import audit_sampler

    res = audit_sampler(sampler, reference, n_samples, rng=rng, alpha=alpha)
    if not res.passed:
        raise PrivacyAssertionError("sampler audit " + res.summary(), res)
    return res
