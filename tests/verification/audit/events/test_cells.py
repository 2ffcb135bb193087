"""The cells' partitions: the joint outcome of the few-valued coordinates is one cell per
distinct row of those coordinates (an integer code per draw, the same partition as the rows'
exact bytes), and the quick refusal of many outcomes changes no answer."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from verification.audit.events.cells import _discrete_part, _outcomes_partition
from verification.audit.outputs import as_outputs


def _same_partition(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two labellings of the same items make the same partition."""
    pairs = set(zip(x.tolist(), y.tolist()))
    return len(pairs) == len(set(x.tolist())) == len(set(y.tolist()))


@given(rows=st.integers(4, 300), data=st.data())
@settings(max_examples=80, deadline=None)
def test_the_joint_outcome_of_few_valued_coordinates_is_its_rows(rows, data):
    few = data.draw(hnp.arrays(np.float64, (2 * rows, 3),
                               elements=st.sampled_from([0.0, 1.0, -1.0, np.nan])))
    many = data.draw(hnp.arrays(np.float64, (2 * rows, 1),
                                elements=st.floats(-1e6, 1e6, allow_nan=False)).map(
        lambda a: a + np.arange(a.shape[0])[:, None] * 1e-3))   # many distinct values
    m = np.concatenate([few, many], axis=1)
    ca, cb = m[:rows], m[rows:]
    got = _discrete_part(ca, cb, rows // 2)
    head = np.concatenate([ca[:rows // 2], cb[:rows // 2]])
    if np.unique(head[:, 3]).size <= 4:
        return                                  # then the last column is few-valued too
    assert got is not None
    sub = np.nan_to_num(np.concatenate([ca[:, :3], cb[:, :3]]), nan=np.inf)
    keys = np.ascontiguousarray(sub).view(np.dtype((np.void, 24))).ravel()
    _, want = np.unique(keys, return_inverse=True)
    assert got.m == np.unique(keys).size
    assert _same_partition(np.concatenate([got.ia, got.ib]), want)


@given(n=st.integers(50, 3000), k=st.integers(1, 200), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_many_outcomes_are_refused_as_before(n, k, seed):
    gen = np.random.default_rng(seed)
    a = as_outputs(gen.integers(0, k, n), n)
    b = as_outputs(gen.integers(0, k, n), n)
    h = n // 2
    got = _outcomes_partition(a, b, h)
    seen = np.unique(np.concatenate([a.keys()[:h], b.keys()[:h]])).size
    assert (got is None) == (seen > 64)
