"""One neighbour relation for every dataset shape (privtools.neighbours): the pairs the
hypothesis strategies draw, the neighbours the audit's search enumerates and the pairs the
judge accepts are the same relation, on lists, tuples, 1-D and 2-D arrays alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privtools import neighbours as nb
from privtools.accounting import PldAccountant, RdpAccountant
from privtools.errors import ParameterError
from privtools.testing import strategies as pst
from verification.audit import check_pair
from verification.audit import neighbours as judge

SHAPES = {
    "list": st.lists(st.integers(0, 4), min_size=1, max_size=5),
    "tuple": st.lists(st.integers(0, 4), min_size=1, max_size=5).map(tuple),
    "1-D array": hnp.arrays(np.int64, st.integers(1, 5), elements=st.integers(0, 4)),
    "2-D array": hnp.arrays(np.int64, st.tuples(st.integers(1, 4), st.just(2)),
                            elements=st.integers(0, 4)),
}


def test_one_module_declares_the_relations():
    assert judge.RELATIONS is nb.RELATIONS and judge.PAIR_RELATIONS is nb.PAIR_RELATIONS
    assert judge.distance is nb.distance and judge.replace_one is nb.replace_one
    assert set(pst.NEIGHBOURS) <= set(nb.PAIR_RELATIONS)
    assert pst.add_remove_one is pst.add_remove
    assert PldAccountant.neighbouring == RdpAccountant.neighbouring == nb.REPLACE_ONE


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("relation", ["replace-one", "add-remove", "linf", "l1"])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_drawn_pairs_are_neighbours_the_judge_accepts(shape, relation, data):
    d, d2 = data.draw(pst.neighbouring_pairs(SHAPES[shape], relation))
    assert type(d2) is type(d)
    if isinstance(d, np.ndarray):
        assert d2.dtype == d.dtype and d2.shape[1:] == d.shape[1:]
    ok, found = nb.distance(d, d2, relation)
    assert ok, found
    check_pair(d, d2, relation)


@pytest.mark.parametrize("shape", SHAPES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_enumerated_neighbours_are_neighbours(shape, data):
    d = data.draw(SHAPES[shape])
    other = data.draw(SHAPES[shape])
    domain = nb.domain_of([d, other])
    for relation, enumerate_ in (("replace-one", nb.replace_one),
                                 ("add-remove", nb.add_remove)):
        for d2 in enumerate_(d, domain):
            assert type(d2) is type(d)
            assert nb.distance(d, d2, relation)[0]
            assert nb.records(nb.rebuild(d, nb.records(d2))) == nb.records(d2)


@given(d=SHAPES["2-D array"])
def test_a_row_of_a_2d_array_is_one_record(d):
    recs = nb.records(d)
    assert len(recs) == d.shape[0] and all(isinstance(r, tuple) and len(r) == 2 for r in recs)
    assert np.array_equal(nb.rebuild(d, recs), d)


def test_two_changes_are_refused_with_the_distance():
    with pytest.raises(ParameterError, match="2 records differ"):
        check_pair([0, 0, 0], [1, 1, 0], "replace-one")
    with pytest.raises(ParameterError, match="dataframe_rows"):
        nb.records(pytest.importorskip("pandas").DataFrame({"a": [1]}))
