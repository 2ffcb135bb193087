"""A real-data bandit instance from MovieLens-100K rating histograms.

Each arm is one of the K most-rated movies of MovieLens-100K (Harper & Konstan, ACM TiiS
2015); pulling it returns the rating of a random rater, rescaled to ``(rating - 1) / 4`` in
``{0, 0.25, 0.5, 0.75, 1}`` and drawn from that movie's empirical rating distribution.

Paper 002 builds its real-data instance from MSLR-WEB10K (K-means clusters of relevance
labels 0..4, K = 50); this module gives an instance of the same kind (discrete rewards on
five levels, empirical arm laws) from a public data set whose ratings ship inside the
``recbole`` 1.2.1 wheel.

Only a derived table ships with privtools: per-movie counts of each star rating for the 20
most-rated movies (``privtools/data/movielens100k_top_counts.csv``, see the README beside
it). :func:`derive_top_counts` recomputes it from the ratings file
(``scripts/derive_movielens.py`` does so from the wheel).
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from importlib import resources

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng

from .finite import EmpiricalEnv

TABLE_FILE = "movielens100k_top_counts.csv"
#: sha256 of ``recbole/dataset_example/ml-100k/ml-100k.inter`` in recbole-1.2.1-py3-none-any.whl
INTER_SHA256 = "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff"
#: sha256 of the recbole 1.2.1 wheel the table was derived from
WHEEL_SHA256 = "9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407"
#: sha256 of the shipped table ``privtools/data/movielens100k_top_counts.csv``
TABLE_SHA256 = "097bc9b1520d5c5e24112179e44dd5ffc943c7708b5cbd15f0d5c1353eebf5b0"
INTER_MEMBER = "recbole/dataset_example/ml-100k/ml-100k.inter"
#: number of movies in the shipped table
MAX_K = 20
COLUMNS = ("rank", "item_id", "n_ratings", "stars_1", "stars_2", "stars_3", "stars_4",
           "stars_5")
#: reward of a rating of 1..5 stars: (rating - 1) / 4
REWARD_VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


@dataclass(frozen=True)
class MovieCounts:
    """Rating histogram of one movie: ``stars[j]`` raters gave ``j + 1`` stars."""

    rank: int
    item_id: int
    stars: tuple[int, int, int, int, int]

    @property
    def n_ratings(self) -> int:
        return sum(self.stars)

    @property
    def probs(self) -> np.ndarray:
        """Empirical law of the reward ``(rating - 1) / 4`` on :data:`REWARD_VALUES`."""
        s = np.asarray(self.stars, dtype=np.float64)
        return s / s.sum()

    @property
    def mean_reward(self) -> float:
        return float(self.probs @ REWARD_VALUES)


def derive_top_counts(inter_text: str, k: int = MAX_K) -> list[MovieCounts]:
    """The ``k`` most-rated movies of a RecBole ``.inter`` file (tab-separated
    ``user_id, item_id, rating, timestamp`` with one header line), with their star counts.

    Movies are ordered by number of ratings, ties broken by increasing item id. Only item
    ids and counts leave this function."""
    reader = csv.reader(io.StringIO(inter_text), delimiter="\t")
    header = next(reader)
    names = [h.split(":")[0] for h in header]
    i_item, i_rating = names.index("item_id"), names.index("rating")
    counts: dict[int, list[int]] = {}
    for row in reader:
        if not row:
            continue
        rating = float(row[i_rating])
        if rating not in (1.0, 2.0, 3.0, 4.0, 5.0):
            raise ParameterError(f"inter_text: rating {row[i_rating]!r} is not an integer in 1..5")
        counts.setdefault(int(row[i_item]), [0] * 5)[int(rating) - 1] += 1
    order = sorted(counts.items(), key=lambda kv: (-sum(kv[1]), kv[0]))[:k]
    return [MovieCounts(r + 1, item, tuple(c)) for r, (item, c) in enumerate(order)]


def format_table(movies: list[MovieCounts]) -> str:
    """CSV text of a table of :class:`MovieCounts` (the shipped file's exact format)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for m in movies:
        w.writerow((m.rank, m.item_id, m.n_ratings, *m.stars))
    return out.getvalue()


def parse_table(text: str) -> list[MovieCounts]:
    """Parse :func:`format_table` output, checking the header and each row's total."""
    rows = list(csv.reader(io.StringIO(text)))
    if tuple(rows[0]) != COLUMNS:
        raise ParameterError(f"text: unexpected header {rows[0]}")
    movies = []
    for row in rows[1:]:
        rank, item, n, *stars = (int(x) for x in row)
        if sum(stars) != n or min(stars) < 0:
            raise ParameterError(f"text: inconsistent counts for item {item}")
        movies.append(MovieCounts(rank, item, tuple(stars)))
    return movies


def table_text() -> str:
    """Text of the shipped table (read from package data; no network)."""
    return resources.files("privtools.data").joinpath(TABLE_FILE).read_text(encoding="utf-8")


def table_sha256() -> str:
    return hashlib.sha256(table_text().encode("utf-8")).hexdigest()


def load_top_counts(k: int = 10) -> list[MovieCounts]:
    """The ``k <= 20`` most-rated MovieLens-100K movies with their star counts."""
    if not 1 <= k <= MAX_K:
        raise ParameterError(f"k must be in 1..{MAX_K}; got {k}")
    return parse_table(table_text())[:k]


def movielens_arms(k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """``(values, probs)``: reward levels (5,) and per-arm probabilities (k, 5)."""
    movies = load_top_counts(k)
    return REWARD_VALUES.copy(), np.stack([m.probs for m in movies])


def movielens_instance(K: int = 10, rng=None):
    """``EmpiricalEnv`` over the ``K`` most-rated MovieLens-100K movies: an arm returns
    ``(rating - 1) / 4`` of a random rating of its movie. With ``rng`` the arms are put in a
    random order (one instance per order): batch elimination pulls arms in index order, so
    a fixed order would favour any policy whose first long batch happens to start on the
    best movie. ``rng=None`` keeps the order of the table (most-rated first)."""
    values, probs = movielens_arms(K)
    name = f"movielens100k-top{K}"
    if rng is not None:
        probs = probs[as_rng(rng).permutation(K)]
    return EmpiricalEnv(tuple(values.tolist()), tuple(map(tuple, probs.tolist())), name=name)
