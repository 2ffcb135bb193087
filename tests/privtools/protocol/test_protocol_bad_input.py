"""Bad input to the protocol: every refusal names the parameter, before any work."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from privtools.errors import ParameterError
from privtools.protocol import (
    analyze,
    analyze_many,
    check_messages,
    encode,
    protocol_params,
    randomize,
    run_batch,
    run_batches,
    server_view,
)

from .test_protocol import make_plan


# --------------------------------------------------------------- (g) bad input
@pytest.mark.parametrize("bad", [
    [np.nan] + [0.0] * 15, [1.5] + [0.0] * 15, [-0.1] + [0.0] * 15, [np.inf] + [0.0] * 15,
])
def test_bad_rewards_are_rejected(bad):
    plan = make_plan(1)
    for call in (lambda: randomize(bad, plan, 0), lambda: run_batch(bad, plan, 0),
                 lambda: server_view(plan, bad, 3, 0), lambda: encode(bad, 4, 0),
                 lambda: run_batches([bad], plan, 0)):
        with pytest.raises(ParameterError, match="rewards"):
            call()


def test_bad_shapes_and_types_are_rejected():
    plan = make_plan(1)
    with pytest.raises(ParameterError, match="n = 16"):
        randomize(np.zeros(15), plan, 0)
    with pytest.raises(ParameterError, match="rewards"):
        randomize(np.zeros((2, 16)), plan, 0)
    with pytest.raises(ParameterError, match="rewards"):
        randomize(np.array([True] * 16), plan, 0)
    with pytest.raises(ParameterError, match="rewards"):
        randomize(np.array([Fraction(1, 2)] * 16, dtype=object), plan, 0)
    with pytest.raises(ParameterError, match="size"):
        randomize(np.zeros(16), plan, 0, size=-1)
    with pytest.raises(ParameterError, match="g"):
        encode([0.5], 0, 0)


def test_inconsistent_plans_are_rejected():
    good = make_plan(1)
    with pytest.raises(ParameterError, match="plan.m"):
        protocol_params(SimpleNamespace(**{**vars(good), "m": good.m - 1}))
    with pytest.raises(ParameterError, match="trust"):
        protocol_params(SimpleNamespace(**{**vars(good), "trust": "none"}))
    with pytest.raises(ParameterError, match="secure"):
        protocol_params(SimpleNamespace(**{**vars(good), "secure": "mpc"}))
    with pytest.raises(ParameterError, match="share"):
        protocol_params(SimpleNamespace(**{**vars(good), "share": None}))
    with pytest.raises(ParameterError, match="central_noise"):
        protocol_params(SimpleNamespace(**{**vars(good), "central_noise": good.share}))
    with pytest.raises(ParameterError, match="share"):
        protocol_params(SimpleNamespace(**{**vars(make_plan(5)), "share": good.share}))
    with pytest.raises(ParameterError, match="plan.g"):
        protocol_params(SimpleNamespace(**{**vars(good), "g": 2.0}))
    with pytest.raises(ParameterError, match="central_noise"):
        protocol_params(SimpleNamespace(n=1, g=1, tau=0, m=2, share=None, trust="central"))
    with pytest.raises(ParameterError, match="plan.m"):
        run_batch(np.zeros(16), SimpleNamespace(**{**vars(good), "m": 5}), 0)


def test_analyzer_rejects_values_outside_Zm():
    plan = make_plan(1)
    for y in (plan.m, -1, 1.5, True, "3"):
        with pytest.raises(ParameterError, match="y"):
            analyze(y, plan)
    with pytest.raises(ParameterError, match=r"y\[2\]"):
        analyze(np.array([0, 1, plan.m, 2]), plan)  # a message outside Z_m in a multiset
    with pytest.raises(ParameterError, match="y"):
        analyze(np.zeros((2, 2), dtype=np.int64), plan)
    with pytest.raises(ParameterError, match="y"):
        analyze_many(np.array([0, plan.m]), plan)
    with pytest.raises(ParameterError, match="y"):
        analyze_many(np.array([0.5]), plan)
    with pytest.raises(ParameterError, match="messages"):
        check_messages([0, -3], plan.m)
    with pytest.raises(ParameterError, match="messages"):
        check_messages(np.array([1, 2.5], dtype=object), plan.m)


def test_analyzer_sums_a_multiset():
    """Alg. 3 lines 3–4 (secure shuffling): a multiset is summed mod m first."""
    plan = make_plan(1, secure="shuffle")
    msgs = np.array([plan.m - 1, 5, 7], dtype=np.int64)
    assert analyze(msgs, plan) == analyze((plan.m - 1 + 12) % plan.m, plan)


def test_secure_total_outside_Zm_is_rejected():
    plan = make_plan(1)

    class Broken:
        def run(self, messages, m, rng=None, *, dropouts=()):
            return SimpleNamespace(total=m)

    with pytest.raises(ParameterError, match="Z_"):
        run_batch(np.zeros(16), plan, 0, secure=Broken())


