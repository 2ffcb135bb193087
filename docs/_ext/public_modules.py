"""The public modules of privtools and verification: the names outside code imports. The docs
extension gives each an API page and checks its docstrings; ``tests/repo/test_public_face.py``
checks its ``__all__``. Plain Python (no Sphinx), so the test suite reads it without the docs
extra."""

#: The modules outside code imports; each has an API page of its own.
PUBLIC_MODULES = (
    "privtools",
    "privtools.certified",
    "privtools.noise",
    "privtools.exact",
    "privtools.planning",
    "privtools.accounting",
    "privtools.protocol",
    "privtools.bandits",
    "privtools.bandits.envs",
    "privtools.bandits.se",
    "privtools.bandits.zcdp",
    "privtools.bandits.experiments",
    "privtools.testing",
    "privtools.testing.strategies",
    "privtools.testing.adapters",
    "privtools.randomness",
    "privtools.validation",
    "privtools.limits",
    "privtools.neighbours",
    "privtools.errors",
    "privtools.demo",
    "verification",
    "verification.audit",
    "verification.audit.trace",
    "verification.zoo",
    "verification.training",
    "verification.bugs",
    "verification.claims",
    "verification.gof",
    "verification.mechanisms",
    "verification.plan_check",
    "verification.proofs",
    "verification.tails",
    "verification.timing",
    "verification.verdicts",
)
