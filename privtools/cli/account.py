"""``privtools account``: the certified (ε, δ) of a sampled Gaussian training run (DP-SGD and
its relatives), or the smallest certified σ for a target — the PLD accountant from the shell.

    privtools account --sigma 1 --q 0.01 --steps 10000 --delta 1e-5
    privtools account --q 0.01 --steps 10000 --delta 1e-5 --epsilon 3      # calibrate σ
    privtools account --sigma 1 --batch 256 --population 60000 --steps 2000 --delta 1e-5
    privtools account --sigma 1 --allocation 1000 --steps 10000 --delta 1e-5  # balls in bins
    privtools account --sigma 1 --q 0.01 --max-batch 200 --population 10000 --steps 10000 \
        --delta 1e-5                                            # Poisson batches capped at 200

Poisson sampling (capped with ``--max-batch``: ``TruncatedPoissonSampledEvent``, a certified
coupling term) and random allocation are accounted under add/remove, fixed-size batches
and unsampled runs under replace-one (``PldAccountant(neighbouring=...)``; the output's
"neighbouring" row). Every input is checked against the accountant's stated work limits
(``privtools.accounting.pld.accountant``: LOSS_LIMIT, LOSS_FLOOR, RATE_FLOOR) and the house's
ε and δ limits (:mod:`privtools.limits`) before any work: beyond them, one line ``error:
...`` naming the option, exit 2.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from privtools import limits
from privtools.errors import ParameterError

from . import checks

MAX_STEPS = 10**7
#: the α at which ``--fdp`` reads the certified trade-off band
FDP_ALPHAS = (1e-6, 1e-5, 1e-4, 1e-3, 0.003, 0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6,
              0.7, 0.8, 0.9, 0.95, 0.99, 1.0)
_SHOWN = (1e-4, 1e-2, 0.1, 0.5)       # the α shown in the table


def _fdp(acc) -> dict:
    """The certified trade-off band at FDP_ALPHAS and the μ-GDP interval."""
    from privtools.certified.intervals import ends

    betas = []
    for a in FDP_ALPHAS:
        lo, hi = ends(acc.tradeoff(a).interval)
        betas.append([float(lo), float(hi)])
    try:
        mlo, mhi = ends(acc.gdp_mu().interval)
    except ParameterError:          # a capped run: no μ-GDP curve absorbs its coupling term
        return {"alpha": list(FDP_ALPHAS), "beta": betas, "gdp_mu": None}
    return {"alpha": list(FDP_ALPHAS), "beta": betas, "gdp_mu": [float(mlo), float(mhi)]}


def _fdp_rows(f: dict | None) -> list[tuple[str, str]]:
    if f is None:
        return []
    if f["gdp_mu"] is None:
        rows = [("μ-GDP", "not read: capped batches carry a total-variation term")]
    else:
        lo, hi = f["gdp_mu"]
        rows = [("μ-GDP", f"μ ∈ [{lo:.6g}, {hi:.6g}]" + (
            " (no μ certified: the certified δ never reaches 0)" if hi == float("inf")
            else ""))]
    for a, (b0, b1) in zip(f["alpha"], f["beta"]):
        if a in _SHOWN:
            rows.append((f"β(α = {a:g})", f"[{b0:.6g}, {b1:.6g}] (lower end: the f-DP "
                                          "guarantee)"))
    if "plot" in f:
        rows.append(("plot", f["plot"]))
    return rows


def _batches(q, batch, population, max_batch):
    """The Poisson rate (or None), with --batch/--population/--max-batch checked."""
    if max_batch is not None:
        if q is None or population is None:
            raise ParameterError("--max-batch caps Poisson batches: it needs --q and "
                                 "--population")
        checks.int_range("population", population, 1, 10**12)
        checks.int_range("max_batch", max_batch, 1, 10**12)
    elif (batch is None) != (population is None):
        raise ParameterError("--batch and --population go together")
    rate = None
    if q is not None:
        rate = checks.number("q", q, positive=True)
        if rate > 1:
            raise ParameterError(f"--q must be in (0, 1], got {q}")
    if batch is not None:
        checks.int_range("population", population, 1, 10**12)
        checks.int_range("batch", batch, 1, population)
    return rate


def account(
    sigma: str = typer.Option(None, help="noise multiplier σ (Gaussian noise σ·sensitivity); "
                              "omit it with --epsilon to calibrate"),
    q: str = typer.Option(None, help="Poisson sampling rate in (0, 1] (add/remove)"),
    batch: int = typer.Option(None, help="fixed batch size, drawn without replacement "
                              "(replace-one; needs --population)"),
    population: int = typer.Option(None, help="records the batches are drawn from (with "
                                   "--max-batch: the most records a dataset holds)"),
    max_batch: int = typer.Option(None, help="with --q and --population: Poisson batches "
                                  "capped at MAX_BATCH records (a certified coupling term)"),
    allocation: int = typer.Option(None, help="random allocation: each record in exactly one "
                                   "of every ALLOCATION steps (balls in bins); --steps must "
                                   "be a multiple of it"),
    allocations: int = typer.Option(None, help="with --allocation: each record in "
                                    "ALLOCATIONS of every ALLOCATION steps (k-of-t)"),
    replacement: bool = typer.Option(False, "--replacement", help="with --batch: the batch "
                                     "is drawn with replacement (replace-one)"),
    shuffle: bool = typer.Option(False, "--shuffle", help="with --batch: each epoch a "
                                 "permutation cut into batches (POPULATION/BATCH steps; no "
                                 "amplification is certified: one release per epoch)"),
    steps: int = typer.Option(..., help="number of noisy steps composed"),
    delta: str = typer.Option(..., help="target δ in (0, 1)"),
    epsilon: str = typer.Option(None, help="with --sigma: also δ(ε); without: the smallest "
                                "certified σ meeting (ε, δ)"),
    sensitivity: str = typer.Option("1", help="L2 sensitivity (clipping norm) Δ"),
    fdp: bool = typer.Option(False, "--fdp", help="also the certified trade-off band β(α) "
                             "(f-DP) at FDP_ALPHAS and the certified μ-GDP interval"),
    plot: str = typer.Option(None, help="with --fdp: write the band's plot to this PNG"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object"),
):
    """Certified ε(δ) of ``steps`` Gaussian steps with Poisson (--q), fixed-size
    (--batch/--population; --replacement, --shuffle) or random-allocation (--allocation,
    --allocations) batches, or without sampling;
    or, without --sigma, the smallest σ whose run is certified (--epsilon, --delta)-DP. The
    interval's upper end is what a deployment may claim (privtools.accounting.PldAccountant).
    """
    from privtools.accounting import (
        GaussianEvent,
        PldAccountant,
        PoissonSampledEvent,
        RandomAllocationEvent,
        SampledWithoutReplacementEvent,
        SampledWithReplacementEvent,
        ShuffledBatchesEvent,
        TruncatedPoissonSampledEvent,
        calibrate,
    )
    from privtools.certified.intervals import ends

    checks.int_range("steps", steps, 1, MAX_STEPS)
    if plot is not None:
        if not plot.strip():
            raise ParameterError(f"--plot must be the path of a PNG file to write, got {plot!r}")
        if not fdp:
            raise ParameterError("--plot draws the trade-off band: it needs --fdp")
    dq = checks.number("delta", delta, positive=True)
    if not dq < 1:
        raise ParameterError(f"--delta must be in (0, 1), got {delta}")
    checks.within("delta", dq, limits.DELTA)          # the house's table (privtools.limits)
    sens = checks.number("sensitivity", sensitivity, positive=True)
    schemes = [name for name, v in (("--q", q), ("--batch", batch),
                                     ("--allocation", allocation)) if v is not None]
    if len(schemes) > 1:
        raise ParameterError(f"{' and '.join(schemes)} exclude each other: one sampling scheme "
                             "(--q Poisson, --batch/--population fixed size, --allocation)")
    if allocation is not None:
        checks.int_range("allocation", allocation, 1, MAX_STEPS)
        if steps % allocation:
            raise ParameterError(f"--steps {steps} must be a multiple of --allocation "
                                 f"{allocation} (whole epochs)")
    if allocations is not None:
        if allocation is None:
            raise ParameterError("--allocations needs --allocation (k of every t steps)")
        checks.int_range("allocations", allocations, 1, allocation)
    if (replacement or shuffle) and batch is None:
        raise ParameterError(f"--{'replacement' if replacement else 'shuffle'} needs "
                             "--batch and --population")
    if replacement and shuffle:
        raise ParameterError("--replacement and --shuffle exclude each other")
    rate = _batches(q, batch, population, max_batch)
    epoch = population // batch if shuffle else None
    if shuffle and steps % epoch:
        raise ParameterError(f"--steps {steps} must be a multiple of the epoch, --population "
                             f"// --batch = {epoch} steps (with --shuffle)")
    eq = None if epsilon is None else checks.within(
        "epsilon", checks.number("epsilon", epsilon, positive=True), limits.EPSILON)
    if sigma is None and eq is None:
        raise ParameterError("give --sigma (account a run) or --epsilon (calibrate σ)")
    s_val = None if sigma is None else checks.number("sigma", sigma, positive=True)

    count = (steps // allocation if allocation is not None else
             steps // epoch if shuffle else steps)

    def make(s):
        g = GaussianEvent(sigma=s, sensitivity=sens)
        if allocation is not None:
            return RandomAllocationEvent(g, allocation, allocations or 1)
        if replacement:
            return SampledWithReplacementEvent(g, batch, population)
        if shuffle:
            return ShuffledBatchesEvent(g, epoch)
        if rate is not None and max_batch is not None:
            return TruncatedPoissonSampledEvent(g, rate, max_batch, population)
        if rate is not None:
            return PoissonSampledEvent(g, rate)
        if batch is not None:
            return SampledWithoutReplacementEvent(g, batch, population)
        return g

    sampling = ("capped poisson" if max_batch is not None else
                "poisson" if rate is not None else
                "with replacement" if replacement else
                "shuffled batches" if shuffle else
                "without replacement" if batch is not None else
                "random allocation" if allocation is not None else "none")
    t0 = time.perf_counter()
    out: dict = {"sampling": sampling, "q": None if rate is None else str(rate),
                 "batch": batch, "population": population, "max_batch": max_batch,
                 "allocation": allocation, "allocations": allocations or (
                     1 if allocation is not None else None),
                 "steps": steps,
                 "sensitivity": str(sens), "delta": float(dq)}
    # the relation each sampling scheme is accounted under (Poisson and random allocation:
    # add/remove; fixed-size batches and no sampling: replace-one)
    relation = "add-remove" if rate is not None or allocation is not None else "replace-one"
    out["neighbouring"] = relation
    with checks.naming():
        if s_val is None:
            s_val = calibrate(make, count=count, epsilon=eq, delta=dq, neighbouring=relation)
            out["calibrated_sigma"] = s_val
        # every limit of the accountant (privtools.accounting.pld.accountant: LOSS_LIMIT,
        # LOSS_FLOOR, RATE_FLOOR) is checked here, before any work
        acc = PldAccountant(neighbouring=relation).compose(make(s_val), count)
    r = acc.epsilon(dq)
    lo, hi = ends(r.interval)
    out.update(sigma=str(s_val), epsilon=r.epsilon, epsilon_interval=[float(lo), float(hi)],
               relative_width=r.relative_width)
    if eq is not None and sigma is not None:
        d = acc.delta(eq)
        dlo, dhi = ends(d.interval)
        out.update(at_epsilon=float(eq), delta_at_epsilon=d.delta,
                   delta_interval=[float(dlo), float(dhi)])
    if fdp:
        out["fdp"] = _fdp(acc)
        if plot is not None:
            from privtools.demo.report import tradeoff_plot
            tradeoff_plot(out["fdp"], Path(plot), title=f"{sampling}, σ = {s_val}, "
                          f"{steps:,} steps")
            out["fdp"]["plot"] = plot
    out["seconds"] = round(time.perf_counter() - t0, 3)
    if as_json:
        print(json.dumps(out, indent=2))
        return
    con = Console(width=None if sys.stdout.isatty() else 120)
    t = Table(title="certified accounting (PldAccountant)")
    t.add_column("")
    t.add_column("value")
    rows = [("sampling", sampling + (f", q = {rate}" if rate is not None else "")
             + (f", {batch} of {population}" if batch is not None else "")
             + (f", at most {max_batch} of {population}" if max_batch is not None else "")
             + (f", {allocations or 1} of every {allocation} steps"
                if allocation is not None else "")),
            ("neighbouring", relation),
            ("steps", f"{steps:,}"), ("σ", str(s_val)
                                      + (" (calibrated)" if "calibrated_sigma" in out else "")),
            (f"ε(δ = {float(dq):.3g})", f"{r.epsilon:.8g} (certified upper end)"),
            ("interval", f"[{float(lo):.8g}, {float(hi):.8g}], relative width "
                         f"{r.relative_width:.1e}")]
    if "delta_at_epsilon" in out:
        rows.append((f"δ(ε = {float(eq):g})", f"{out['delta_at_epsilon']:.4g}"))
    rows += _fdp_rows(out.get("fdp"))
    rows.append(("time", f"{out['seconds']:.1f} s"))
    for k, v in rows:
        t.add_row(k, v)
    con.print(t)
