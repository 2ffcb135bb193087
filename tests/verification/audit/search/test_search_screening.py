"""Small budgets screen every pair: a budget too small to race all the pairs of a space first
draws every dataset a little and scores every pair by its unions of cells, so a space with
a few bad pairs among hundreds is searched where they are — and the budget still holds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.audit import search_counterexample
from verification.audit.neighbours import as_relation
from verification.audit.search import _pairs
from verification.audit.search.halving import MIN_DRAWS, MIN_SCREEN, affordable_pairs, screening

BAD = (0, 0, 0, 0, 1)


def one_bad_dataset(d, size, rng):
    """A count with Laplace noise of scale 10 (ε = 0.1 per record), except on one dataset of
    the space, ``BAD``, where the noise is 50 times smaller: the pairs that hold it (a few
    of the space's 216) are the bad ones."""
    scale = 0.2 if tuple(d) == BAD else 10.0
    return float(sum(d)) + rng.laplace(0.0, scale, size)


def space():
    """Binary datasets of 3 to 5 records: dozens of add-remove pairs."""
    out = []
    for n in (3, 4, 5):
        for i in range(2 ** n):
            out.append([(i >> j) & 1 for j in range(n)])
    return out


@settings(max_examples=300, deadline=None)
@given(budget=st.integers(4 * MIN_DRAWS, 10**7), k=st.integers(1, 400),
       datasets=st.integers(2, 200))
def test_screening_fits_the_budget(budget, k, datasets):
    """The screen draws every dataset it keeps at least MIN_SCREEN times, and with the race
    of the pairs it keeps never spends more than the budget."""
    pairs = [((i % datasets,), (datasets + i,)) for i in range(k)]   # distinct pairs
    kept, screen = screening(budget, pairs, rate=lambda arm: 0.0)
    if screen is None:
        assert affordable_pairs(budget, k) >= k and kept == pairs
        return
    shown = {x for p in kept for x in p}
    assert kept[0] == pairs[0] and 1 <= screen.keep <= len(kept)
    assert MIN_SCREEN <= screen.draws <= MIN_DRAWS
    assert screen.draws * len(shown) <= budget
    # what is left races the pairs kept within it (the halving's own promise)
    assert affordable_pairs(budget - screen.draws * len(shown), screen.keep) == screen.keep


def test_one_record_pairs_are_kept_first():
    data = space()
    pairs, found, stated = _pairs(data, as_relation("replace-one", data), 12, 0)
    assert found > 12 and stated == 0 and len(pairs) == 12
    pairs, _, _ = _pairs(data, as_relation("query", data), 40, 0)
    moves = [np.abs(np.subtract(a, b)) for a, b in pairs if len(a) == len(b)]
    single = [int(np.count_nonzero(m)) == 1 for m in moves]
    # the pairs that move one record come before any that moves several
    assert single == sorted(single, reverse=True) and any(single)


@pytest.mark.parametrize("budget", [10**5, 10**6])
def test_the_few_bad_pairs_of_a_space_are_found(budget):
    """One bad dataset among binary datasets of 3–5 records: a few bad add-remove pairs
    among 216, which neither 10^5 nor 10^6 draws can race all."""
    data = space()
    cx = search_counterexample(one_bad_dataset, 1.0, data, neighbours="add-remove",
                               budget=budget, n_confirm=20_000, rng=0, learners=(),
                               search_learners=(), max_datasets=len(data), max_pairs=300)
    assert cx.pairs_found > affordable_pairs(budget, cx.pairs_found)
    assert cx.verdict == "fail" and cx.search_draws <= budget
    assert BAD in (tuple(cx.d), tuple(cx.d_prime))
    # every pair of the space was screened
    assert len(cx.ranking) == cx.pairs == cx.pairs_found


@given(values=st.lists(st.integers(0, 5), min_size=1, max_size=40),
       cut=st.integers(0, 6))
@settings(max_examples=100, deadline=None)
def test_two_candidates_that_agree_on_every_selection_draw_are_one(values, cut):
    """The confirmation tests the chosen event and the best union of cells side by side at
    half the level each; when they hold the same selection draws (here "output >= cut" and
    the set of the values ≥ cut that were seen) only one is tested, at the whole level."""
    from verification.audit.events import Event, Whole
    from verification.audit.events.select import Sample
    from verification.audit.outputs import as_outputs
    from verification.audit.search.candidates import _same

    def sample(v):
        arr = np.asarray(v, dtype=np.int64)
        return Sample(as_outputs(arr, len(arr)), [arr], [len(arr)])

    A, B = sample(values), sample(values[::-1] + [cut])
    seen = tuple(sorted({v for v in values + [cut] if v >= cut}))
    ge = Event("ge", "d", threshold=cut)
    cells = Event("set", "d", values=seen, view=Whole(), keys=np.asarray(seen, dtype=np.int64))
    assert _same(ge, cells, A, B)
    other = Event("set", "d", values=seen[1:], view=Whole(),
                  keys=np.asarray(seen[1:], dtype=np.int64))
    assert not _same(ge, other, A, B)        # B holds cut, which ``other`` leaves out
    assert not _same(ge, Event("ge", "d_prime", threshold=cut), A, B)
