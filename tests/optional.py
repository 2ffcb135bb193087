"""Optional third-party libraries in tests: skipped when missing, unless CI requires them.

CI installs the ``[conformance]`` extra and sets ``PRIVTOOLS_REQUIRE_CONFORMANCE=1``: a
missing library is then an error, not a skip."""

from __future__ import annotations

import importlib
import os

import pytest

OPTIONAL = "optional dependency"
REQUIRED = os.environ.get("PRIVTOOLS_REQUIRE_CONFORMANCE") == "1"


def need(module: str, name: str):
    """The module ``module`` (the library ``name``), or skip the test when it is missing."""
    if REQUIRED:
        return importlib.import_module(module)
    return pytest.importorskip(module, reason=f"{OPTIONAL}: {name}")
