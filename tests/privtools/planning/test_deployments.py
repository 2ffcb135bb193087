"""Paper 000's deployments declared once (privtools.planning.deployments): every name a user
or a module uses selects the same value, and no other module switches on a theorem number
or a deployment's name."""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.bandits.se.policies import AGGREGATE_OK, POLICIES, SCALED, policy
from privtools.errors import ParameterError
from privtools.planning import (
    DEPLOYMENTS,
    POLICY_ALIASES,
    SUPPORTED,
    by_key,
    by_policy,
    by_theorem,
    by_view,
    deployment,
    plan,
    theorem_params,
)
from verification.mechanisms import MECHANISMS

ROOT = Path(__file__).resolve().parents[3]


def test_each_name_names_one_deployment():
    for attr in ("theorem", "view", "key"):
        values = [getattr(d, attr) for d in DEPLOYMENTS]
        assert len(set(values)) == len(values), attr
    assert sorted(d.theorem for d in DEPLOYMENTS) == [1, 2, 3, 4, 5, 6]
    for d in DEPLOYMENTS:
        assert by_theorem(d.theorem) is d
        assert by_key(*d.key) is d
        assert by_view(d.view) is d
        assert deployment(d.theorem) is d and deployment(d.view) is d
        secure = "shuffle" if d.secure == "shuffle" else "secagg"
        assert by_policy(d.policy, secure) is d


def test_planner_views_and_policies_read_the_table():
    assert SUPPORTED == {d.key: d.theorem for d in DEPLOYMENTS}
    assert MECHANISMS == {d.view: dict(zip(("privacy", "trust", "secure"), d.key))
                          for d in DEPLOYMENTS}
    assert set(POLICIES) == {d.policy for d in DEPLOYMENTS} | {"se", "dp-se"}
    assert set(SCALED) == {d.policy for d in DEPLOYMENTS if d.scaled}
    assert set(AGGREGATE_OK) - {"se", "dp-se"} == {d.policy for d in DEPLOYMENTS
                                                   if d.total == "closed" and d.secure == "secagg"}


@pytest.mark.parametrize("d", DEPLOYMENTS, ids=lambda d: d.view)
def test_a_plan_instantiates_its_deployment(d):
    kw = dict(zip(("privacy", "trust", "secure"), d.key))
    if d.scaled:
        kw["s"] = 2
    kw["tail"] = "exact" if d.needs_c else "bound"
    p = plan(epsilon=1, n=50, horizon=10**4, **kw)
    assert p.theorem == d.theorem and p.deployment is d
    assert p.epsilon_view == Fraction(1) * d.view_fraction
    assert (p.central_noise is not None) == (d.site == "analyzer")
    assert (p.share is None) == (d.site == "analyzer")
    assert (p.q_hat is not None) == (d.secure_fraction is not None)
    assert p.total_noise_note == d.total_note
    if not d.needs_c:
        assert p.tail_method == d.tau_text
    spec = policy(d.policy, epsilon=1, s=2 if d.scaled else 1,
                  secure="shuffle" if d.secure == "shuffle" else "ideal")
    assert spec.deployment is d
    assert plan(epsilon=1, n=50, horizon=10**4, **spec.plan_kwargs()).theorem == d.theorem


@settings(max_examples=40, deadline=None)
@given(eps=st.fractions(min_value=Fraction(1, 20), max_value=5).filter(lambda q: q > 0),
       n=st.integers(1, 10**6), theorem=st.sampled_from([1, 2, 3, 4, 5]))
def test_g_and_tau_are_the_theorems_formulas(eps, n, theorem):
    """g = ⌈s ε_view √n⌉ exactly (checked by its defining inequalities) and m = ng + 2τ + 1."""
    d = by_theorem(theorem)
    s = 3 if d.scaled else 1
    prm = theorem_params(theorem, eps, n, Fraction(1, 1000), s=s)
    target = (s * eps * d.view_fraction) ** 2 * n
    assert (prm.g - 1) ** 2 < target <= prm.g ** 2
    assert prm.m == n * prm.g + 2 * prm.tau + 1


def test_the_cdp_collision_is_resolved_with_an_alias():
    assert POLICY_ALIASES == {"cdp-se": "central-dp-se"}
    old = policy("cdp-se", epsilon=1)
    assert old == policy("central-dp-se", epsilon=1) and old.name == "central-dp-se"
    assert old.deployment.trust == "central"
    # "cdp" is concentrated DP everywhere it is spelled
    for d in DEPLOYMENTS:
        if "cdp" in d.view or "cdp" in d.policy:
            assert d.privacy == "cdp"


def test_unknown_names_are_refused_naming_the_parameter():
    with pytest.raises(ParameterError, match="theorem"):
        by_theorem(7)
    with pytest.raises(ParameterError, match="mechanism"):
        by_view("dist-xx")
    with pytest.raises(ParameterError, match="unsupported combination"):
        by_key("rdp", "central", "secagg")
    with pytest.raises(ParameterError, match="no deployment"):
        deployment("nope")
    assert by_policy("se") is None and by_policy("dp-se") is None


# ------------------------------------------------------------------ a repository check
_NAMES = ({d.view for d in DEPLOYMENTS} | {d.policy for d in DEPLOYMENTS}
          | set(POLICY_ALIASES) | {"se", "dp-se"})
# the explained switches left outside deployments.py: (file, name compared)
_ALLOWED = {("privtools/bandits/se/widths.py", "se")}  # the non-private SE has no noise width


def _switches(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        names = {x.id if isinstance(x, ast.Name) else x.attr for x in sides
                 if isinstance(x, (ast.Name, ast.Attribute))}
        consts = [c.value for x in sides for c in ast.walk(x) if isinstance(c, ast.Constant)]
        if "theorem" in names and any(isinstance(c, int) for c in consts):
            yield node.lineno, "theorem"
        if "trust" in names:  # reading the plan's trust field ("central", "local")
            continue
        for c in consts:
            if isinstance(c, str) and c in _NAMES:
                yield node.lineno, c


def test_no_module_switches_on_a_theorem_or_a_deployment_name():
    found = []
    for package in ("privtools", "verification"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "privtools/planning/deployments.py":
                continue
            found += [(rel, line, what) for line, what in _switches(path)
                      if (rel, what) not in _ALLOWED]
    assert not found, f"switches on a deployment outside deployments.py: {found}"
