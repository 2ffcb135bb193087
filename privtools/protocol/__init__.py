"""The distributed protocol P = (R, S, A) of paper 000 (Alg. 2–7). ::

    encode(x, g, rng)                  randomized rounding x̂ = ⌊xg⌋ + Ber(xg − ⌊xg⌋)
    randomize(x, plan, rng, size)      R: users' messages in Z_m (Alg. 2; central Alg. 4;
                                       local Alg. 6)
    randomize_parts(x, plan, rng)      R with its intermediate values (x̂, η, y), any shape
    IdealSecAgg, MaskedSecAgg,         S: the secure computation (modular sum, or a
    ShuffleSecAgg                      shuffled multiset); ``.run(messages, m, rng)``
    modular_sum(values, m, axis)       (Σ values) mod m, exact (the ideal SecAgg's sum)
    add_central_noise(y, plan, rng)    A's noise step: central η added mod m (Alg. 5,
                                       lines 3–4); the identity otherwise
    decode_many(y, plan)               A's wrap correction g·z (Alg. 3, lines 6–8)
    analyze(y, plan, rng)              A: exact estimate of Σ x_i (Alg. 3; central Alg. 5)
    analyze_many(y, plan, rng)         A over many batches (float64)
    run_batch(x, plan, rng, secure)    one batch end to end -> BatchResult
    run_batches(X, plan, rng)          B independent batches, vectorized -> BatchesResult
    server_view(plan, x, size, rng)    the adversarial server's view, for audits
    neighbours(x, user)                worst-case neighbouring dataset (Δ = g)

A plan is any object with ``n, g, tau, m, share, central_noise, trust`` (and optionally
``secure``), e.g. :func:`privtools.planning.plan`.
"""

from privtools.errors import ProtocolError  # noqa: F401 - earlier import path (home: privtools.errors)

from .analyzer import (
    add_central_noise,
    analyze,
    analyze_many,
    decode,
    decode_many,
    modular_sum,
)
from .batch import BatchesResult, BatchResult, exact_sum, run_batch, run_batches
from .randomizer import (
    ProtocolParams,
    check_messages,
    check_rewards,
    encode,
    protocol_params,
    randomize,
    randomize_parts,
)
from .secure import IdealSecAgg, MaskedSecAgg, SecureOutput, ShuffleSecAgg
from .views import neighbours, server_view, view_mechanism

__all__ = [
    "encode",
    "randomize",
    "randomize_parts",
    "add_central_noise",
    "analyze",
    "analyze_many",
    "decode",
    "decode_many",
    "modular_sum",
    "run_batch",
    "run_batches",
    "BatchResult",
    "BatchesResult",
    "exact_sum",
    "server_view",
    "view_mechanism",
    "neighbours",
    "ProtocolParams",
    "protocol_params",
    "check_rewards",
    "check_messages",
    "IdealSecAgg",
    "MaskedSecAgg",
    "ShuffleSecAgg",
    "SecureOutput",
]
