"""Shared test configuration.

Hypothesis profiles:

* ``ci`` (the default): derandomized — a fixed example sequence — so every run is the same;
* ``thorough``: fresh random examples, 20x as many, for a deeper search by hand
  (``python -m pytest --hypothesis-profile thorough``).

Statistical tests use fixed seeds and state their false-alarm rate where they are defined.

Skips: a missing optional dependency is the only reason a test may skip, and its reason must
say so (``pytest.importorskip(name, reason="optional dependency: …")``); any other skip is
reported as a failure, so a broken import can never hide as a skip.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    derandomize=False,
    deadline=None,
    max_examples=500,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")

OPTIONAL = "optional dependency"


def pytest_collection_modifyitems(config, items):
    """Long-running tests (marked ``slow``) first, in their order, then the rest: the
    parallel run (pytest-xdist's work stealing) then ends on short tests on every core rather
    than on one long test on one. No result depends on the order."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if OPTIONAL not in reason:
            report.outcome = "failed"
            report.longrepr = (f"skipped for a reason other than a missing optional dependency: "
                               f"{reason!r} (tests/conftest.py)")
