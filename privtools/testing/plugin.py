"""pytest plugin ``privtools``: the ``privacy_audit`` fixture.

Enabled automatically once privtools is installed (entry point ``pytest11``)::

    def test_release(privacy_audit):
        privacy_audit.mechanism(my_mechanism, d, d_prime, epsilon=1.0)
        privacy_audit.sampler(my_sampler, DiscreteLaplace(4))

The fixture's seed is derived from the test's node id, so every test gets its own fixed
stream (deterministic, independent of test order). ``--privacy-samples N`` sets the budget of
the sequential audits (default 200 000 draws per dataset).
"""

from __future__ import annotations

import hashlib

import pytest

from . import assert_follows, assert_private


class PrivacyAudit:
    """Per-test audit helper: ``mechanism(...)`` and ``sampler(...)`` assert like
    :func:`privtools.testing.assert_private` / :func:`assert_follows`."""

    def __init__(self, seed: int, n_samples: int):
        self.seed = seed
        self.n_samples = n_samples

    def mechanism(self, mechanism, d=None, d_prime=None, epsilon=None, delta=0.0, **kw):
        """:func:`privtools.testing.assert_private` with this test's seed and budget."""
        __tracebackhide__ = True
        if "n_samples" not in kw:
            kw.setdefault("max_samples", self.n_samples)
        kw.setdefault("rng", self.seed)
        return assert_private(mechanism, d, d_prime, epsilon, delta, **kw)

    def sampler(self, sampler, reference, **kw):
        """:func:`privtools.testing.assert_follows` with this test's seed and budget."""
        __tracebackhide__ = True
        if "n_samples" not in kw:
            kw.setdefault("max_samples", self.n_samples)
        kw.setdefault("rng", self.seed)
        return assert_follows(sampler, reference, **kw)


def pytest_addoption(parser):
    parser.addoption("--privacy-samples", type=int, default=200_000,
                     help="most draws per dataset of a privacy_audit assertion")


@pytest.fixture
def privacy_audit(request) -> PrivacyAudit:
    digest = hashlib.sha256(request.node.nodeid.encode()).digest()
    return PrivacyAudit(int.from_bytes(digest[:8], "little"),
                        request.config.getoption("--privacy-samples"))
