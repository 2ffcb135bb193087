"""Vectorized simulation of batch successive elimination (000 Alg. 1) and DP-SE.

:func:`simulate` interprets a :class:`~privtools.bandits.se.policies.PolicySpec` on an
:class:`~privtools.bandits.envs.finite.Environment` for ``horizon`` T rounds.

Algorithm 1 (000): batches b = 1, 2, …; l(b) = base**b; every active arm a ∈ Φ(b) is pulled
by l(b) new users, in the order of the active set (arm Φ[0] by users t+1..t+l, then Φ[1],
…). The users' rewards go through the protocol of the policy's plan for n = l(b) (at the
policy's ε, horizon T, p = 1/T as in Theorems 1–6); the analyzer's output R_a(b) gives
μ̂_a(b) = R_a(b)/l(b), UCB/LCB = μ̂ ± β(b), and a is eliminated when UCB_a < max LCB.
When the next batch would pass T, the remaining users are pulled (arms in order, the last
one partially) and the run ends: that batch releases no statistic, so its rewards are not
simulated. Once one arm is left, the remaining rounds all pull it and are not simulated
either. DP-SE (Sajed & Sheffet 2019) runs the same loop with its own schedule and width
and continuous Laplace(1/ε) noise on each batch sum.

Returning users (000 App. H; :mod:`privtools.planning.participation`): a spec with
``participations=k`` or ``pool=U`` (and ``delta``) plans every batch with
``plan(..., delta=, participations=k)`` / ``plan(..., pool=U)``, so each batch's noise is the
plan's calibrated per-batch noise (``plan.epsilon_view``) and the paper widths use that
per-batch ε. With ``pool=U`` the run also draws each released batch's user ids
(:mod:`.returning`, from a child of ``rng``: the reward and noise streams are those of the
same seed without a pool) and reports them in ``RunResult.participation``. Each plan is
certified for a user's batches *of its size*; a user joining batches of several sizes
composes views of different plans, which the per-size certificates do not cover exactly
(docs/returning_users.md).

One batch is one call. For Gaussian and Bernoulli environments under the ideal secure
computation, :mod:`.users` draws every user's reward, rounding and share in one compiled
loop on a stream of the batch's own (keys drawn from ``rng``) and returns each arm's Σ x̂ and
Σ η; the modular sum is (Σ x̂ + Σ η) mod m, then the analyzer runs as below (the same
numbers in numpy where numba is missing). Otherwise the (|Φ(b)|, l(b)) reward matrix is
drawn by ``env.sample_many`` and passed to :func:`privtools.protocol.run_batches` (ideal SecAgg) in
row chunks of at most 2**22 entries; a single arm with more than 2**22 users is streamed
through the same randomizer, modular sum and analyzer in user chunks (the modular sum is
additive). Masked and shuffle secure computations run :func:`privtools.protocol.run_batch`
per arm (small runs). Plans are cached per (policy, n, T) in the process.

Regret: the cumulative *pseudo-regret* Σ_{s<=t} (μ* − μ_{a_s}) with μ the environment's
``means``, exact given the pull sequence (arms pulled in consecutive blocks), evaluated at
the checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng

from ...accounting import PldAccountant, PoissonSampledEvent
from ...accounting.calibration import GRID_STEPS, calibrate_grid
from ...planning import batch_event, plan_view
from ...planning import plan as _make_plan
from ...protocol import (
    add_central_noise,
    decode_many,
    encode,
    modular_sum,
    protocol_params,
    randomize_parts,
    run_batch,
    run_batches,
)
from ...protocol.randomizer import add_mod
from ...protocol.secure import MaskedSecAgg, ShuffleSecAgg
from ..envs.finite import Environment
from ..runs import check_run
from . import users as _users
from .policies import PolicySpec
from .returning import ParticipationRecord, UserLedger, user_stream
from .widths import dpse_batch_size, dpse_width, exact_width, paper_width

__all__ = ["RunResult", "NoiseRecord", "simulate", "batch_plan", "CHUNK_ENTRIES"]

# Rewards held at once per protocol call: at most this many (2**22 float64 = 32 MB).
CHUNK_ENTRIES = 1 << 22


@dataclass(frozen=True, eq=False)
class NoiseRecord:
    """Total noise realized in one released batch: ``noise[i]`` for arm ``arms[i]`` —
    the integer total noise N of the protocol (Σ η_i or the central η; the estimate is
    (Σ x̂ + N)/g when |N| <= τ), or for dp-se the float Laplace noise on the batch sum
    (``g`` None). ``variance``: Var N under the plan (the exact law of the sum of the
    shares; dp-se: 2/ε²)."""

    batch: int
    n: int
    g: int | None
    arms: tuple[int, ...]
    noise: np.ndarray
    variance: float


@dataclass(frozen=True, eq=False)
class RunResult:
    """One run of a policy.

    ``checkpoints`` (int64, increasing, ending at ``horizon``) and ``regret`` (float64,
    cumulative pseudo-regret at each checkpoint); ``pulls`` per arm (int64, summing to
    T); ``batches``: batches whose statistics were released; ``eliminated_at``: arm → the
    round t after which it was eliminated; ``final_arms``: the arms still active at the
    end; ``simulated_users``: rewards that went through the protocol; ``noise_log``: one
    :class:`NoiseRecord` per released batch when ``record_noise=True``, else None;
    ``participation``: the :class:`~.returning.ParticipationRecord` of a run with a user
    pool, else None; ``certified_epsilon``: with client sampling, the certified per-client
    ε(δ) interval of the run (its released batches composed), else None. Equality is
    bit-for-bit on every field.
    """

    policy: PolicySpec
    env_name: str
    horizon: int
    checkpoints: np.ndarray
    regret: np.ndarray
    pulls: np.ndarray
    batches: int
    eliminated_at: dict
    final_arms: tuple[int, ...]
    simulated_users: int
    noise_log: tuple[NoiseRecord, ...] | None = None
    participation: ParticipationRecord | None = None
    certified_epsilon: object | None = None

    @property
    def final_regret(self) -> float:
        """The cumulative regret at the last checkpoint."""
        return float(self.regret[-1])

    def __eq__(self, other):
        if not isinstance(other, RunResult):
            return NotImplemented
        same = (self.policy == other.policy and self.env_name == other.env_name
                and self.horizon == other.horizon and self.batches == other.batches
                and self.eliminated_at == other.eliminated_at
                and self.final_arms == other.final_arms
                and self.simulated_users == other.simulated_users
                and self.participation == other.participation
                and all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in (
                    (self.checkpoints, other.checkpoints), (self.regret, other.regret),
                    (self.pulls, other.pulls))))
        if not same or (self.noise_log is None) != (other.noise_log is None):
            return False
        if self.noise_log is None:
            return True
        return len(self.noise_log) == len(other.noise_log) and all(
            (a.batch, a.n, a.g, a.arms, a.variance) == (b.batch, b.n, b.g, b.arms, b.variance)
            and np.array_equal(a.noise, b.noise)
            for a, b in zip(self.noise_log, other.noise_log))

    __hash__ = None


# ------------------------------------------------------------------------------ plans
@lru_cache(maxsize=1024)
def _cached_plan(items: tuple, epsilon: Fraction, n: int, horizon: int):
    return _make_plan(epsilon=epsilon, n=n, horizon=horizon, **dict(items))


def max_batches(spec: PolicySpec, horizon: int) -> int:
    """The most batches a run of ``horizon`` rounds can release: batch b pulls at least two
    arms base**b times, so Σ_{b<=B} 2·base**b <= T."""
    total, b = 0, 0
    while True:
        nxt = total + 2 * spec.base ** (b + 1)
        if nxt > horizon:
            return max(b, 1)
        total, b = nxt, b + 1


def batch_plan(spec: PolicySpec, n: int, horizon: int):
    """The :class:`~privtools.planning.Plan` of one batch of ``n`` users under ``spec``
    (p = 1/horizon), cached in the process; None for "se" and "dp-se". For returning users
    (``spec.returning``) it is ``plan(..., delta=, participations=k)`` or
    ``plan(..., pool=U)``: ``epsilon_view`` is the calibrated per-batch ε and
    ``certified_epsilon`` the certified per-user ε interval. With client sampling every
    batch is planned at the one per-batch ε of :func:`sampled_view_epsilon`."""
    kw = spec.plan_kwargs()
    if kw is None:
        return None
    if spec.sampling is not None:
        return _cached_plan(_view_items(kw), sampled_view_epsilon(spec, horizon), n, horizon)
    return _cached_plan(tuple(sorted(kw.items())), spec.epsilon_exact, n, horizon)


_RUN_KEYS = ("delta", "participations", "pool", "sampling", "q", "steps")


def _view_items(kw: dict) -> tuple:
    """A plan's keyword arguments less those of the run (one batch's plan at a given ε)."""
    return tuple(sorted((k, v) for k, v in kw.items() if k not in _RUN_KEYS))


def sampled_view_epsilon(spec: PolicySpec, horizon: int) -> Fraction:
    """The largest per-batch ε (on the grid ε·j/2^12, up to 16ε) at which the run's batches
    — sizes base**b for b <= :func:`max_batches`, each sampling every client with
    probability ``spec.sampling`` — compose to a certified (ε, δ) per client. One ε for the
    whole run: batches of different sizes have different views, and calibrating each size
    on its own does not bound their composition."""
    if spec.sampling is None:
        raise ParameterError("sampled_view_epsilon needs a spec with sampling")
    return _sampled_view_epsilon(spec, horizon)


@lru_cache(maxsize=64)
def _sampled_view_epsilon(spec: PolicySpec, horizon: int) -> Fraction:
    """:func:`sampled_view_epsilon` through accounting's calibration
    (:func:`~privtools.accounting.calibration.calibrate_grid`, ``settle=True``: the value
    returned is certified on the accountant's default grid)."""
    items = _view_items(spec.plan_kwargs())
    sizes = [spec.base ** b for b in range(1, max_batches(spec, horizon) + 1)]
    eps, q = spec.epsilon_exact, Fraction(spec.sampling)
    dq = Fraction(spec.delta)
    scale = 2**GRID_STEPS

    def releases(eb: Fraction):
        return [(PoissonSampledEvent(batch_event(plan_view(_cached_plan(items, eb, n,
                                                                         horizon))), q), 1)
                for n in sizes]

    found = calibrate_grid(releases, epsilon=eps, delta=dq, start=scale, top=16 * scale,
                           neighbouring="add-remove", settle=True)
    if found is None:
        raise ParameterError(f"no per-batch epsilon >= epsilon/2^{GRID_STEPS} meets "
                             f"({eps}, {float(dq):.3g}) over the run's {len(sizes)} batches")
    return found[0]


def run_certificate(spec: PolicySpec, plans) -> object | None:
    """Certified per-client ε(δ) interval of a run with client sampling: the composition of
    the Poisson-sampled views of the batches it released (PLD accountant); None otherwise."""
    if spec.sampling is None or not plans:
        return None
    return _run_certificate(Fraction(spec.sampling), Fraction(spec.delta), tuple(plans))


@lru_cache(maxsize=64)
def _run_certificate(rate: Fraction, delta: Fraction, plans: tuple):
    acc = PldAccountant(neighbouring="add-remove")     # Poisson client sampling
    for pl in plans:
        acc.compose(PoissonSampledEvent(batch_event(plan_view(pl)), rate))
    return acc.epsilon(delta).interval


# ------------------------------------------------------------------------------ batches
def _secure_for(spec: PolicySpec, n: int, m: int):

    if spec.secure == "masked":
        return MaskedSecAgg(threshold=max(2, n // 2 + 1), workers=1)
    k = ShuffleSecAgg.required_k(n, m, 40) if n >= 19 else 8
    return ShuffleSecAgg(k)


def _stream_row(env: Environment, arm: int, n: int, P, gen) -> tuple[float, int]:
    """One arm with n > CHUNK_ENTRIES users through R, the modular sum and A (000 Alg. 2–7)
    in user chunks: the modular sum of all messages is the sum of the chunks' sums mod m.
    Returns (estimate z, total noise N)."""
    total, noise = 0, 0
    arms = np.array([arm])
    for s in range(0, n, CHUNK_ENTRIES):
        x = env.sample_many(arms, min(CHUNK_ENTRIES, n - s), gen)
        xhat, eta, msgs = randomize_parts(x, P, gen)
        total = (total + int(modular_sum(msgs, P.m, axis=1)[0])) % P.m
        if eta is not None:
            noise += int(eta.sum())
    released, eta_c = add_central_noise(np.array([total], dtype=np.int64), P, gen)
    z = int(decode_many(released, P)[0])
    if eta_c is not None:
        noise = int(eta_c[0])
    return z / P.g, noise


def _row_sums(env: Environment, arms: np.ndarray, n: int, gen, f, dtype) -> np.ndarray:
    """Σ over each arm's n fresh rewards of ``f`` (applied to (rows, users) chunks of at
    most CHUNK_ENTRIES rewards; ``f`` returns one partial sum per row)."""
    out = np.zeros(arms.size, dtype=dtype)
    if n <= CHUNK_ENTRIES:
        rows = max(1, CHUNK_ENTRIES // n)
        for s in range(0, arms.size, rows):
            out[s:s + rows] = f(env.sample_many(arms[s:s + rows], n, gen))
        return out
    for j in range(arms.size):
        for u in range(0, n, CHUNK_ENTRIES):
            out[j] += f(env.sample_many(arms[j:j + 1], min(CHUNK_ENTRIES, n - u), gen))[0]
    return out


def _protocol_batch(spec: PolicySpec, env: Environment, arms: np.ndarray, n: int, plan,
                    gen) -> tuple[np.ndarray, np.ndarray | None]:
    """(estimates R_a(b) for a in ``arms``, total noise per arm or None)."""
    A = arms.size
    est = np.empty(A, dtype=np.float64)
    if spec.deployment is None:  # a baseline: exact batch sums, or DP-SE's Laplace(1/ε)
        sums = _row_sums(env, arms, n, gen, lambda x: x.sum(axis=1), np.float64)
        if not spec.private:
            return sums, None
        lap = gen.laplace(0.0, 1.0 / float(spec.epsilon_exact), size=A)
        return sums + lap, lap
    noise = np.empty(A, dtype=np.int64)
    fast = _compiled_batch(spec, env, arms, n, plan, gen)
    if fast is not None:
        return fast
    if spec.mode == "aggregate":
        g = protocol_params(plan).g
        S = _row_sums(env, arms, n, gen, lambda x: encode(x, g, gen).sum(axis=1), np.int64)
        return _aggregate(plan, S, gen)
    if spec.secure != "ideal":
        for i, a in enumerate(arms.tolist()):
            x = env.sample(a, n, gen)
            res = run_batch(x, plan, gen, secure=_secure_for(spec, n, plan.m))
            est[i] = float(res.estimate)
            noise[i] = res.noise
        return est, noise
    if n > CHUNK_ENTRIES:
        P = protocol_params(plan)
        for i, a in enumerate(arms.tolist()):
            est[i], noise[i] = _stream_row(env, a, n, P, gen)
        return est, noise
    rows = max(1, CHUNK_ENTRIES // n)
    for s in range(0, A, rows):
        X = env.sample_many(arms[s:s + rows], n, gen)
        res = run_batches(X, plan, gen)
        est[s:s + rows] = res.estimate
        noise[s:s + rows] = res.noise
    return est, noise


def _aggregate(plan, S: np.ndarray, gen) -> tuple[np.ndarray, np.ndarray]:
    """``mode="aggregate"``: each arm's Σ x̂ plus the batch's total noise drawn at once, in
    Z_m, decoded: (estimates, total noise per arm)."""
    P = protocol_params(plan)
    law = plan.central_noise if plan.trust == "central" else plan.total_noise
    N = np.asarray(law.sample(S.size, gen), dtype=np.int64)
    y = add_mod(S, N, P.m)  # Σx̂ in Z_m plus the total noise, reduced (protocol._zm)
    return decode_many(y, plan) / P.g, N


def _share_table(P):
    """The share law's alias table (None: no share; False: a law drawn otherwise)."""
    if P.trust == "central":
        return None
    sampler = P.share.sampler
    return sampler.table if getattr(sampler, "kind", None) == "table" else False


def _compiled_batch(spec: PolicySpec, env: Environment, arms: np.ndarray, n: int, plan,
                    gen) -> tuple[np.ndarray, np.ndarray] | None:
    """One batch of the ideal secure computation with the users drawn by
    :mod:`.users` (rewards, rounding and shares in one loop, on the batch's own stream):
    (estimates, total noise per arm), or None where that path does not apply (another
    environment, secure computation or share law; a precision or a modulus beyond int64; a
    tracing generator — ``verification.audit.trace`` — which must see every share drawn)."""
    if spec.secure != "ideal" or not _users.handles(env) or hasattr(gen, "trace_law"):
        return None        # a tracing generator records each law's draws: the protocol path
    P = protocol_params(plan)
    if P.big or P.g >= 2**53:
        return None
    aggregate = spec.mode == "aggregate"
    table = None if aggregate else _share_table(P)
    if table is False:
        return None
    wide = 0 if table is None else max(abs(table.lo), abs(table.lo + table.n - 1))
    if n * (P.g + wide) >= 2**62 or arms.size * n >= 2**47:    # int64 sums; counters < 2^47
        return None
    S, E = _users.row_sums(_users.batch_keys(gen), env, arms, n, P.g, table)
    if aggregate:
        return _aggregate(plan, S, gen)
    total = S % P.m if E is None else (S + E) % P.m
    released, eta_c = add_central_noise(total, P, gen)
    noise = E if eta_c is None else np.asarray(eta_c, dtype=np.int64)
    return decode_many(released, P).astype(np.float64) / P.g, noise


def _noise_variance(spec: PolicySpec, plan) -> float:
    if plan is None:
        return 2.0 / float(spec.epsilon_exact) ** 2
    return float(plan.exact_total_noise.var())


# ------------------------------------------------------------------------------ simulate
def simulate(spec: PolicySpec, env: Environment, horizon: int, rng=None, *,
             checkpoints=None, record_noise: bool = False) -> RunResult:
    """Run ``spec`` on ``env`` for ``horizon`` T rounds (000 Alg. 1; module docstring).

    Arguments are checked before any work: ``spec`` a PolicySpec, ``env`` an Environment
    with K >= 2 arms, T >= K an integer, ``checkpoints`` integers in [1, T] (default:
    :func:`~privtools.bandits.runs.default_checkpoints`; T is always included), ``rng`` a
    Generator, seed or None. The same ``rng`` seed gives a bit-identical result.
    Returning users (module docstring): with ``spec.pool`` the user ids of each released
    batch are drawn from a child stream of ``rng`` and summarized in
    ``RunResult.participation``.
    """
    if not isinstance(spec, PolicySpec):
        raise ParameterError(f"spec must be a PolicySpec (see privtools.bandits.policy), got "
                             f"{type(spec).__name__}")
    K, T, cps = check_run(env, horizon, checkpoints)
    if not isinstance(record_noise, bool):
        raise ParameterError("record_noise must be a bool")
    gen = as_rng(rng)
    p = float(spec.p)
    eps = None if spec.epsilon is None else float(spec.epsilon_exact)
    ledger = UserLedger(spec.pool, user_stream(gen)) if spec.pool is not None else None

    active = np.arange(K)
    t, b = 0, 0
    blk_arm: list[np.ndarray] = []    # pull sequence as consecutive blocks
    blk_len: list[np.ndarray] = []
    eliminated: dict[int, int] = {}
    log: list[NoiseRecord] = []
    simulated = released = 0
    plans: list = []
    while t < T:
        if active.size == 1:
            blk_arm.append(active.copy())
            blk_len.append(np.array([T - t], dtype=np.int64))
            t = T
            break
        b += 1
        A = active.size
        n = dpse_batch_size(A, b, p, eps) if spec.own_schedule else spec.base ** b
        if t + A * n > T:  # last, partial batch: pull the remaining users, release nothing
            arms, lens = _last_batch(active, n, T - t)
            blk_arm.append(arms.copy())
            blk_len.append(lens)
            t = T
            break
        plan = batch_plan(spec, n, T)
        if plan is not None:
            plans.append(plan)
        if ledger is not None:
            ledger.draw(A, n, plan.participations)
        R, N = _protocol_batch(spec, env, active, n, plan, gen)
        simulated += A * n
        released += 1
        mu_hat = R / n
        beta = _width(spec, plan, n, A, b, p, eps)
        if record_noise and N is not None:
            N = np.array(N)
            N.setflags(write=False)
            log.append(NoiseRecord(b, n, None if plan is None else plan.g,
                                   tuple(active.tolist()), N, _noise_variance(spec, plan)))
        blk_arm.append(active.copy())
        blk_len.append(np.full(A, n, dtype=np.int64))
        t += A * n
        keep = mu_hat + beta >= np.max(mu_hat - beta)
        for a in active[~keep].tolist():
            eliminated[int(a)] = t
        active = active[keep]

    regret, pulls = _regret(env, K, cps, blk_arm, blk_len)
    return RunResult(
        policy=spec, env_name=env.name, horizon=T, checkpoints=cps, regret=regret,
        pulls=pulls, batches=released, eliminated_at=eliminated,
        final_arms=tuple(int(a) for a in active.tolist()), simulated_users=simulated,
        noise_log=tuple(log) if record_noise else None,
        participation=None if ledger is None else ledger.record(),
        certified_epsilon=run_certificate(spec, plans))


def _last_batch(active: np.ndarray, n: int, rem: int) -> tuple[np.ndarray, np.ndarray]:
    """The last, partial batch: the arms pulled by the ``rem`` remaining users and how many
    times each."""
    full, part = divmod(rem, n)
    arms = active[:full + (1 if part else 0)]
    lens = np.full(arms.size, n, dtype=np.int64)
    if part:
        lens[-1] = part
    return arms, lens


def _width(spec: PolicySpec, plan, n: int, A: int, b: int, p: float, eps) -> float:
    """The elimination width of batch ``b`` (the policy's own, the exact or the paper's)."""
    if spec.own_schedule:
        return dpse_width(n, A, b, p, eps)
    if spec.widths == "exact":
        law = None if plan is None else plan.exact_total_noise
        return exact_width(law, 1 if plan is None else plan.g, n, A, b, spec.p)
    # returning users: the noise is calibrated to the plan's per-batch ε
    e_b = float(plan.epsilon_view) if spec.returning else eps
    return paper_width(spec.name, e_b, n, A, b, p, float(spec.s_exact))


def _regret(env: Environment, K: int, cps: np.ndarray, blk_arm: list, blk_len: list):
    """(regret at the checkpoints, pulls per arm) of the pull blocks, both read-only
    (``cps`` is made read-only too)."""
    arms_seq = np.concatenate(blk_arm)
    lens = np.concatenate(blk_len)
    gaps = env.best_mean - np.asarray(env.means, dtype=np.float64)
    g_seq = gaps[arms_seq]
    ends = np.cumsum(lens)
    starts = ends - lens
    before = np.concatenate(([0.0], np.cumsum(lens * g_seq)[:-1]))
    i = np.searchsorted(ends, cps, side="left")
    regret = before[i] + (cps - starts[i]) * g_seq[i]
    pulls = np.bincount(arms_seq, weights=lens, minlength=K).astype(np.int64)
    for a in (cps, regret, pulls):
        a.setflags(write=False)
    return regret, pulls
