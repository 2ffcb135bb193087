"""Finding kinds are declared once, with their effect on the verdict, and nothing else is one."""

from __future__ import annotations

import pytest

from verification.audit import Finding
from verification.audit.trace import KINDS
from verification.audit.trace.result import FINDING_KINDS, kind
from verification.zoo.glue import glue_suite


def test_every_kind_is_declared_once_with_its_meaning():
    assert KINDS == tuple(FINDING_KINDS) and len(set(KINDS)) == len(KINDS)
    assert all(k.meaning and k.name == name for name, k in FINDING_KINDS.items())
    # the kinds whose findings stop the interval, and the one decided by sampling
    assert [k.name for k in FINDING_KINDS.values() if k.stops_interval] == [
        "data-dependent-parameter"]
    assert [k.name for k in FINDING_KINDS.values() if not k.exact] == [
        "noise-dependent-control-flow"]


def test_an_undeclared_kind_is_refused():
    with pytest.raises(ValueError, match="unknown finding kind 'sensitivty'"):
        Finding("sensitivty", "output[0]", "a typo")
    with pytest.raises(ValueError, match="unknown finding kind"):
        kind("unnoised")


def test_the_glue_zoo_expects_only_declared_kinds():
    expected = {k for m in glue_suite() for k in m.kinds}
    assert expected <= set(KINDS) and len(expected) >= 4
