"""Discrete noise for distributed differential privacy (000 §4–5, App. E).

Distributions are immutable values; each offers float ``pmf/logpmf/cdf/sf/logcdf/logsf/
mean/var`` (vectorized), ``sample(size, rng)`` (int64), certified ``exact_pmf(k, dps)`` and
``shares(n)`` — the law of one user's share, n i.i.d. copies of which sum to (or, for the
discrete Gaussian, close to) the distribution.

    DiscreteLaplace(scale)          Lap_Z(b), pure DP (Fact 2); shares: PolyaDifference (Fact 1)
    Polya(r, beta | scale=)         negative binomial; the building block of Fact 1
    PolyaDifference(r, beta|scale=) γ⁺ − γ⁻, one user's share in Theorem 1
    Skellam(var, mu=0)              RDP (Theorem 2, Lemma 3); closed under sums
    DiscreteGaussian(sigma, mu=0)   CDP (Theorem 4, Lemma 4)
    NoiseSum(share, n)              n i.i.d. shares where the sum has no closed form

Each law also states the facts the exact engine (:mod:`privtools.exact`) reads: its centre,
log-concavity, characteristic function, Chernoff bounds, closed-form tails and the ratio
bounds of shifted pairs. A new law gets every engine by stating its facts here.

Each law declares its parameters once, in ``Law.parameters`` (:class:`Parameter`: the exact
domain, the statement that defines it, a practical limit and its reason); :data:`LAWS` lists
the five families.
"""

from ._base import IntegerDistribution, SymmetricIntegerDistribution
from ._parameters import Domain, Parameter
from .gaussian import DiscreteGaussian
from .laplace import DiscreteLaplace
from .polya import Polya, PolyaDifference
from .skellam import Skellam
from .sums import NoiseSum

#: The five families of noise laws (000 §4–5), each with its parameter table.
LAWS = (DiscreteLaplace, Polya, PolyaDifference, Skellam, DiscreteGaussian)

__all__ = [
    "IntegerDistribution",
    "SymmetricIntegerDistribution",
    "DiscreteLaplace",
    "Polya",
    "PolyaDifference",
    "Skellam",
    "DiscreteGaussian",
    "NoiseSum",
    "Parameter",
    "Domain",
    "LAWS",
]
