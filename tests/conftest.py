"""Shared test configuration.

Hypothesis runs derandomized (a fixed example sequence) so CI is deterministic; statistical
tests use fixed seeds and state their false-alarm rate where they are defined.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")
