"""Black-box audits: does a sampler follow its law, is a mechanism as private as claimed?

Three questions a user brings with their own code:

* :func:`audit_sampler` — ``sampler(size, rng)`` claims to draw from a law (a privtools
  law, an ExactPMF, a frozen ``scipy.stats`` distribution or a ``{value: probability}``
  table): goodness-of-fit tests combined by Bonferroni (:mod:`.fixed.sampler`).
* :func:`audit_mechanism` — ``mechanism(dataset, size, rng)`` claims (ε, δ)-DP: an event is
  chosen on some draws and tested on fresh ones, giving an honest ε lower confidence bound
  (:mod:`.fixed.mechanism`). Outputs may be integers, floats, vectors or hashable values
  (:mod:`.outputs`); events count exact outcomes, cut one coordinate, threshold a learned
  classifier score or — with ``bits=True`` — read the IEEE-754 bits of float outputs
  (:mod:`.events.select`, :mod:`.events`, :mod:`.events.bits`).
* :func:`audit_mechanism_sequential`, :func:`audit_sampler_sequential` — the same two
  questions answered in rounds that stop as soon as the verdict is decided, with the
  false-alarm rate kept at every stopping time (:mod:`.sequential`).
* :func:`trace_mechanism` — the grey-box audit: the noise calls traced, the mechanism
  replayed on the neighbour with the same draws, its glue-code bugs decided exactly and the
  pair's loss certified without sampling (:mod:`.trace`); :func:`confirm` tests the
  trace's candidate events where the noise steers the control flow, and
  :func:`search_traced` searches datasets for the pair of largest certified loss.
* :func:`audit_sampling` — is the code's batch sampler the scheme its accountant assumes
  (Poisson at rate q, fixed size, a permutation per epoch, k of t steps)? Exact checks and
  Monte Carlo tests at a stated false-alarm rate (:mod:`.fixed.sampling`);
  :func:`identify_scheme` — which scheme does it run? Read from the batches' exact
  structure, with the mean rate's exact interval (:mod:`.fixed.identify`).
* :func:`search_counterexample` — which neighbouring pair leaks most? Successive halving
  over the pairs of a dataset space and a neighbour relation, then one confirmation test
  on fresh draws (:mod:`.search`, :mod:`.neighbours`).

Draws are chunked with their own seeds and may run on local processes or a Dask cluster
with the same result (:mod:`.draws`). The user's code is untrusted input: every entry point
runs it behind the guard of :mod:`privtools.usercode` (a child process, time limits, output
captured into ``result.user_code``, a fresh copy of the dataset per call), so an exit, a
crash or a hang raises :class:`~privtools.errors.UserCodeError` instead of a verdict; and a
pair of identical (or, given a relation, non-neighbouring) datasets is refused before any
draw (:func:`check_pair`). No audit can prove privacy — a pass only says the
sample did not show a violation; the exact half (``privtools.exact.divergence``) proves.
"""

from .events import Binade, BitClass, Column, Event, Lattice, LowBits, Score, Value, Whole
from .events.select import LEARNERS
from .fixed.identify import IdentifiedScheme, identify_scheme
from .fixed.mechanism import MechanismAudit, audit_mechanism
from .fixed.sampler import SamplerAudit, audit_sampler
from .fixed.sampling import (
    AllocationScheme,
    FixedSizeScheme,
    PoissonScheme,
    SamplingAudit,
    ShuffleScheme,
    audit_sampling,
    from_batches,
    reference_sampler,
    scheme_of,
)

# the relations' home is privtools.neighbours; these names stay importable here
from .neighbours import (  # noqa: F401
    PAIR_RELATIONS,
    RELATIONS,
    add_remove,
    check_pair,
    query_patterns,
    replace_one,
)
from .outputs import Outputs, as_outputs
from .search import Counterexample, search_counterexample, shrink_counterexample
from .sequential import SequentialAudit, audit_mechanism_sequential, audit_sampler_sequential
from .stats import clopper_pearson
from .trace.api import Finding, TraceResult, trace_mechanism
from .trace.confirm import confirm
from .trace.search import TracedSearch, search_traced

__all__ = [
    "SamplerAudit",
    "MechanismAudit",
    "SequentialAudit",
    "Counterexample",
    "Event",
    "Whole",
    "Value",
    "Column",
    "Score",
    "LowBits",
    "Binade",
    "Lattice",
    "BitClass",
    "Outputs",
    "as_outputs",
    "LEARNERS",
    "check_pair",
    "audit_sampler",
    "audit_mechanism",
    "audit_mechanism_sequential",
    "audit_sampler_sequential",
    "search_counterexample",
    "shrink_counterexample",
    "clopper_pearson",
    "trace_mechanism",
    "TraceResult",
    "Finding",
    "confirm",
    "search_traced",
    "TracedSearch",
    "audit_sampling",
    "identify_scheme",
    "IdentifiedScheme",
    "scheme_of",
    "SamplingAudit",
    "PoissonScheme",
    "FixedSizeScheme",
    "ShuffleScheme",
    "AllocationScheme",
    "from_batches",
    "reference_sampler",
]
