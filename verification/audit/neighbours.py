"""The judge's refusal of a pair it cannot audit (:func:`check_pair`), over the neighbour
relations of :mod:`privtools.neighbours` (re-exported here for the audit's callers)."""

from __future__ import annotations

from privtools.errors import ParameterError
from privtools.neighbours import (
    ADD_REMOVE,
    PAIR_RELATIONS,
    PATTERN_NAMES,
    PATTERN_RELATIONS,
    RELATIONS,
    REPLACE_ONE,
    add_remove,
    as_relation,
    canonical,
    distance,
    domain_of,
    pattern_moves,
    pattern_neighbours,
    query_patterns,
    records,
    replace_one,
)

__all__ = ["RELATIONS", "PATTERN_RELATIONS", "PAIR_RELATIONS", "PATTERN_NAMES", "REPLACE_ONE",
           "ADD_REMOVE", "pattern_moves", "pattern_neighbours", "query_patterns", "replace_one",
           "add_remove", "as_relation", "canonical", "check_pair", "distance", "domain_of",
           "records"]


def check_pair(d, d_prime, relation=None, names: tuple[str, str] = ("d", "d_prime")) -> None:
    """Refuse, before any draw, a pair an audit cannot judge: identical datasets (an audit
    of a dataset against itself can only pass), and — when ``relation`` is given (a name of
    :data:`PAIR_RELATIONS` or a callable ``d -> neighbours of d``) — a pair that is not
    neighbouring under it, with the distance found. ``names``: what the messages call the
    two datasets (the command line passes its options)."""
    a, b = names
    if d is None or d_prime is None:
        raise ParameterError(f"{a} and {b} are both required (the pair of datasets)")
    if canonical(d) == canonical(d_prime):
        raise ParameterError(f"{b} is identical to {a}: an audit of a dataset against itself "
                             "cannot see any leak and would pass whatever the mechanism; "
                             "give a neighbouring dataset")
    if relation is None:
        return
    if callable(relation):
        key = canonical(d_prime)
        if not any(canonical(x) == key for x in relation(d)):
            raise ParameterError(f"{b} is not a neighbour of {a} under the relation given "
                                 f"(relation({a}) does not contain it)")
        return
    ok, found = distance(d, d_prime, relation)
    if not ok:
        raise ParameterError(f"{b} is not a {relation} neighbour of {a}: {found}")
