"""The privacy kinds as data: one PrivacyKind per kind, read by the planner, the judge and
the command line."""

from __future__ import annotations

import dataclasses

import pytest

from privtools.errors import ParameterError
from privtools.planning import (
    APPROXIMATE_PLANS,
    DEPLOYMENTS,
    KINDS,
    PRIVACY,
    PrivacyKind,
    plan,
    privacy_kind,
)
from verification.plan_check import CDP_ORDERS, RDP_ORDERS


def test_the_table_holds_the_three_kinds_in_the_papers_order():
    assert PRIVACY == ("pure-dp", "rdp", "cdp") == tuple(KINDS)
    assert all(isinstance(k, PrivacyKind) and k.name == n for n, k in KINDS.items())
    assert APPROXIMATE_PLANS == "rdp and cdp plans"


def test_a_kind_is_a_frozen_value():
    with pytest.raises(dataclasses.FrozenInstanceError):
        KINDS["rdp"].pure = True


def test_only_pure_dp_has_a_finite_epsilon_at_delta_zero_and_no_scale():
    assert [k.name for k in KINDS.values() if k.pure] == ["pure-dp"]
    assert all(k.needs_delta == k.scaled == (not k.pure) for k in KINDS.values())
    assert KINDS["pure-dp"].parameter_label == "ε"
    assert KINDS["rdp"].parameter_label == "ε (Theorem 2's RDP parameter)"
    assert KINDS["cdp"].parameter_label == "ε (Theorem 4's CDP parameter)"


def test_the_judges_default_orders_are_the_kinds():
    assert RDP_ORDERS == KINDS["rdp"].orders and CDP_ORDERS == KINDS["cdp"].orders


def test_every_deployment_and_plan_names_its_kind():
    for dep in DEPLOYMENTS:
        assert dep.kind is KINDS[dep.privacy] and dep.pure == dep.kind.pure
    assert plan(privacy="cdp", epsilon=1, n=16, horizon=1000).kind is KINDS["cdp"]


@pytest.mark.parametrize("name", ["dp", "RDP", None, ["rdp"]])
def test_another_name_is_refused_as_the_planner_refuses_it(name):
    with pytest.raises(ParameterError, match="privacy must be one of pure-dp, rdp, cdp"):
        privacy_kind(name)
    with pytest.raises(ParameterError, match="privacy must be one of pure-dp, rdp, cdp"):
        plan(privacy=name, epsilon=1, n=16, horizon=1000)
