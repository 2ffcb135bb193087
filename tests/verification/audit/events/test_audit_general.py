"""The general black-box auditor: any output type, learned events, executors, the pair
search, and audit_sampler against the laws users hold (scipy.stats, tables)."""

import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given
from hypothesis import strategies as hst

from privtools.errors import ParameterError
from verification.audit import (
    Event,
    Value,
    Whole,
    as_outputs,
    audit_mechanism,
    audit_sampler,
    query_patterns,
    search_counterexample,
)


def _binomial_cap(trials: int, level: float, false_alarm: float = 1e-3) -> int:
    return int(st.binom.isf(false_alarm, trials, level))


# ----------------------------------------------------------------- mechanisms (module level:
# picklable for the process executor)
def laplace_float(d, size, rng):
    return float(sum(d)) + rng.laplace(0.0, 2.0, size)      # ε = 0.5 for |Δsum| <= 1


def noisy_hist(d, size, rng):
    return np.asarray(d, float) + rng.laplace(0.0, 2.0, (size, len(d)))


def noisy_hist_wrong(d, size, rng):
    return np.asarray(d, float) + rng.laplace(0.0, 0.5, (size, len(d)))


def rr_tuples(d, size, rng):
    """Randomized response on each of two bits, returned as a list of tuples."""
    keep = rng.random((size, 2)) < 0.75          # ε = log 3 per bit
    bits = np.where(keep, np.asarray(d[:2]), 1 - np.asarray(d[:2]))
    return [tuple(int(v) for v in row) for row in bits]


def rr_strings(d, size, rng):
    keep = rng.random(size) < 0.75
    return np.where(keep == bool(d[0]), "yes", "no").tolist()


# ----------------------------------------------------------------- outputs
@given(hst.lists(hst.integers(-5, 5), min_size=1, max_size=30))
def test_outputs_keys_decode_to_the_outputs(xs):
    for raw in (np.array(xs), np.array(xs, float), [(x, -x) for x in xs], [str(x) for x in xs]):
        out = as_outputs(raw, len(xs))
        back = [out.decode(k) for k in out.keys()]
        expect = [v.item() if isinstance(v, np.generic) else v for v in
                  (raw.tolist() if isinstance(raw, np.ndarray) else raw)]
        assert back == expect


def test_outputs_kinds_and_nonfinite_markers():
    assert as_outputs(np.arange(4), 4).kind == "int"
    assert as_outputs(np.zeros(4, bool), 4).kind == "array"
    f = as_outputs(np.array([np.nan, -0.0, 0.0, np.inf]), 4)
    keys = f.keys()
    assert keys[1] == keys[2]                     # −0.0 and 0.0 are one output
    assert math.isnan(f.decode(keys[0])) and f.decode(keys[3]) == math.inf
    assert as_outputs([("a", 1), ("b", 2)], 2).kind == "objects"
    with pytest.raises(ParameterError, match="expected 3"):
        as_outputs([1, 2], 3)


def test_events_contain_what_they_say():
    x = np.array([0, 1, 2, 3])
    assert Event("ge", "d", threshold=2).contains(x).tolist() == [False, False, True, True]
    assert Event("le", "d", threshold=1, view=Value()).contains(x).tolist() == \
        [True, True, False, False]
    ev = Event("set", "d", values=(1, 3), view=Whole(), keys=np.array([1, 3]))
    assert ev.contains(x).tolist() == [False, True, False, True]
    assert "output in {1, 3}" == ev.describe()
    iv = Event("set", "d", view=Value(), intervals=((0.5, 1.5), (2.5, math.inf)))
    assert iv.contains(x.astype(float)).tolist() == [False, True, False, True]


# ----------------------------------------------------------------- audits of any output
@pytest.mark.parametrize("mech,d,dp,eps", [
    (laplace_float, [0], [1], 0.5),
    (noisy_hist, [1, 1, 1], [2, 1, 1], 0.5),
    (rr_tuples, [0, 0], [1, 1], 2 * math.log(3)),
    (rr_strings, [0], [1], math.log(3)),
], ids=["float", "vector", "tuples", "strings"])
def test_private_mechanisms_pass_and_bound_is_tight(mech, d, dp, eps):
    res = audit_mechanism(mech, d, dp, eps, 200_000, rng=5, learners=("logistic",))
    assert res.verdict == "pass", res.summary()
    assert 0.7 * eps <= res.epsilon_lower <= eps


@pytest.mark.parametrize("mech,d,dp,claim", [
    (laplace_float, [0], [1], 0.25),
    (noisy_hist_wrong, [1, 1, 1], [2, 1, 1], 0.5),
    (rr_tuples, [0, 0], [1, 1], 1.0),
    (rr_strings, [0], [1], 0.5),
], ids=["float", "vector", "tuples", "strings"])
def test_leaky_mechanisms_fail(mech, d, dp, claim):
    res = audit_mechanism(mech, d, dp, claim, 100_000, rng=6, learners=("logistic",))
    assert res.verdict == "fail" and res.epsilon_lower > claim, res.summary()
    assert res.event is not None and res.event.describe()


@pytest.mark.slow
def test_lower_bound_is_honest_over_seeds_for_vector_outputs():
    """Over 100 seeds, ε_lower exceeds the true ε = 0.5 in at most the 0.999-quantile of
    Bin(100, 0.05) runs at alpha = 0.05."""
    over = sum(audit_mechanism(noisy_hist, [1, 1, 1], [2, 1, 1], 0.5, 20_000, rng=s,
                               alpha=0.05, learners=("logistic",)).epsilon_lower > 0.5
               for s in range(100))
    assert over <= _binomial_cap(100, 0.05)


def test_user_features_are_read_by_the_learned_events():
    res = audit_mechanism(rr_strings, [0], [1], 0.5, 20_000, rng=1,
                          features=lambda outs: [[1.0 if o == "yes" else 0.0] for o in outs])
    assert res.verdict == "fail"


def test_same_seed_same_result_on_every_executor():
    serial = audit_mechanism(noisy_hist, [1, 1], [2, 1], 0.5, 30_000, rng=3,
                             learners=("logistic",))
    again = audit_mechanism(noisy_hist, [1, 1], [2, 1], 0.5, 30_000, rng=3,
                            learners=("logistic",))
    procs = audit_mechanism(noisy_hist, [1, 1], [2, 1], 0.5, 30_000, rng=3,
                            learners=("logistic",), executor="processes")
    assert serial.to_dict() == again.to_dict() == procs.to_dict()
    assert serial.seed == 3


def test_dask_cluster_gives_the_same_verdict():
    distributed = pytest.importorskip("distributed", reason="optional dependency dask")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=None) as client:
        on_dask = audit_mechanism(noisy_hist, [1, 1], [2, 1], 0.5, 30_000, rng=3,
                                  learners=("logistic",), executor=client)
    local = audit_mechanism(noisy_hist, [1, 1], [2, 1], 0.5, 30_000, rng=3,
                            learners=("logistic",))
    # the same audit; only where it ran differs (a caller's client: in this process)
    a, b = on_dask.to_dict(), local.to_dict()
    assert a.pop("user_code")["isolated"] is False and b.pop("user_code")["isolated"] is True
    assert a == b


def test_stop_early_stops_at_a_look_and_keeps_its_level():
    res = audit_mechanism(noisy_hist_wrong, [1, 1], [2, 1], 0.5, 400_000, rng=2,
                          stop_early=True, learners=())
    assert res.verdict == "fail"
    assert res.selection["stopped_at"] < res.n_samples - res.selection["n_train"]


def test_progress_counts_every_draw():
    """Selection draws plus the (Poisson-sized, for pure DP) test draws, all reported."""
    seen = []
    res = audit_mechanism(laplace_float, [0], [1], 0.5, 150_000, rng=0, progress=seen.append)
    c = res.counts
    assert sum(seen) == 2 * res.selection["n_train"] + c["n_favoured"] + c["n_other"]
    seen = []
    res = audit_mechanism(laplace_float, [0], [1], 0.5, 150_000, rng=0, delta=1e-9,
                          progress=seen.append)
    assert sum(seen) == 300_000


def test_bad_input_names_the_parameter():
    with pytest.raises(ParameterError, match="features"):
        audit_mechanism(laplace_float, [0], [1], 1, 1000, features=3)
    with pytest.raises(ParameterError, match="learners"):
        audit_mechanism(laplace_float, [0], [1], 1, 1000, learners=("svm",))
    with pytest.raises(ParameterError, match="n_train"):
        audit_mechanism(laplace_float, [0], [1], 1, 1000, n_train=950)
    with pytest.raises(ParameterError, match="executor"):
        audit_mechanism(laplace_float, [0], [1], 1, 1000, executor=3)
    with pytest.raises(ParameterError, match="rng"):
        audit_mechanism(laplace_float, [0], [1], 1, 1000, rng="x")
    with pytest.raises(ParameterError, match="module level"):
        audit_mechanism(lambda d, size, rng: rng.random(size), [0], [1], 1, 1000,
                        executor="processes")


# ----------------------------------------------------------------- the pair search
def leaks_on_three(d, size, rng):
    """A sum with Laplace noise, except that a record equal to 3 is released in the clear."""
    out = float(sum(d)) + rng.laplace(0.0, 4.0, size)
    return np.where(3 in list(d), out + 100.0 * (rng.random(size) < 0.5), out)


def test_search_finds_the_leaking_record_and_confirms_on_fresh_draws():
    cx = search_counterexample(leaks_on_three, 0.25, [[0, 1], [1, 2], [0, 3]],
                               neighbours="replace-one", budget=200_000, rng=11)
    assert cx.verdict == "fail" and cx.epsilon_lower > 0.25
    assert (3 in list(cx.d)) != (3 in list(cx.d_prime))
    assert cx.comparisons == 1 and cx.pairs >= 6
    again = search_counterexample(leaks_on_three, 0.25, [[0, 1], [1, 2], [0, 3]],
                                  neighbours="replace-one", budget=200_000, rng=cx.seed)
    assert again.to_dict() == cx.to_dict()


def test_search_takes_strategies_and_callables():
    strat = hst.lists(hst.integers(0, 3), min_size=2, max_size=2)
    cx = search_counterexample(leaks_on_three, 0.25, strat, neighbours="add-remove",
                               budget=100_000, rng=4, max_datasets=5)
    assert cx.pairs >= 2 and cx.verdict in ("fail", "pass", "inconclusive")
    cx = search_counterexample(noisy_hist_wrong, 0.5, [[1, 1, 1]], neighbours=query_patterns,
                               budget=100_000, rng=4, learners=("logistic",))
    assert cx.verdict == "fail"
    assert np.max(np.abs(np.asarray(cx.d) - np.asarray(cx.d_prime))) <= 1


def test_query_patterns_are_neighbours():
    for d in ([1, 1, 1, 1, 1], [0.0, 2.5, -1.0]):
        pats = query_patterns(d)
        assert len(pats) >= 4
        for p in pats:
            assert 0 < np.max(np.abs(np.asarray(p) - np.asarray(d))) <= 1


def test_search_bad_input():
    with pytest.raises(ParameterError, match="neighbours"):
        search_counterexample(laplace_float, 1, [[0]], neighbours="swap")
    with pytest.raises(ParameterError, match="no pair"):
        search_counterexample(laplace_float, 1, [[0]], neighbours=lambda d: [d])
    with pytest.raises(ParameterError, match="budget"):
        search_counterexample(laplace_float, 1, [[0]], budget=10)
    with pytest.raises(ParameterError, match="datasets"):
        search_counterexample(laplace_float, 1, 5)


# ----------------------------------------------------------------- audit_sampler on user laws
def test_sampler_audit_reads_scipy_laws_and_tables():
    geo = st.geom(0.3)
    assert audit_sampler(lambda n, rng: rng.geometric(0.3, n), geo, 20_000, rng=1).passed
    assert not audit_sampler(lambda n, rng: rng.geometric(0.35, n), geo, 20_000,
                             rng=1).passed
    lap = st.laplace(scale=2.0)
    assert audit_sampler(lambda n, rng: rng.laplace(0, 2.0, n), lap, 20_000, rng=1).passed
    res = audit_sampler(lambda n, rng: rng.normal(0, 2.0 * math.sqrt(2), n), lap, 20_000,
                        rng=1)
    assert res.verdict == "fail" and "tails" in res.tests
    table = {"a": 0.5, "b": 0.3, "c": 0.2}
    good = audit_sampler(lambda n, rng: rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
                         table, 5_000, rng=2)
    assert good.passed
    bad = audit_sampler(lambda n, rng: rng.choice(["a", "b", "d"], n), table, 5_000, rng=2)
    assert bad.verdict == "fail" and "outside" in bad.reason
    ints = audit_sampler(lambda n, rng: rng.integers(0, 4, n), {i: 0.25 for i in range(4)},
                         5_000, rng=3)
    assert ints.passed
    with pytest.raises(ParameterError, match="sum to"):
        audit_sampler(lambda n, rng: rng.integers(0, 4, n), {0: 0.5}, 5_000)
