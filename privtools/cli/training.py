"""``privtools audit-training``: a DP-SGD run as it is coded, audited from the command line.

The step and the sampler are functions in the user's files (``PATH:FUNCTION``, run with
runpy as ``--mechanism-file`` is); the data is a ``.npy`` file of rows; every option is
checked before any user code runs (a bad one exits 2 with one line naming it). Exit code 0
on pass, 1 on fail or inconclusive (:func:`verification.training.audit_training`).
"""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.markup import escape

from privtools.cli import checks
from privtools.cli.audit import load_function, locate, split_spec
from privtools.cli.report import _verdict_line
from privtools.errors import ParameterError

__all__ = ["audit_training_command"]


def _load_array(option: str, path: str, ndim: int):
    import numpy as np

    shown, full, _ = locate(option, path + ":x")
    try:
        arr = np.load(full, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ParameterError(f"{option}: cannot read {shown} as a .npy array: {exc}") from None
    if arr.ndim != ndim:
        raise ParameterError(f"{option}: {shown} holds an array of {arr.ndim} dimensions; "
                             f"expected {ndim}")
    return arr


def audit_training_command(
    step: str = typer.Option(..., help="PATH:FUNCTION of step(params, batch, rng) -> params"),
    sampler: str = typer.Option(..., help="PATH:FUNCTION of sampler(n_batches, rng) -> a "
                                "list of index arrays"),
    data: str = typer.Option(..., help=".npy file of the records, a row each"),
    steps: int = typer.Option(..., help="steps of the run"),
    epsilon: str = typer.Option(..., help="the claimed ε of the whole run"),
    delta: str = typer.Option(..., help="the claimed δ in [0, 1)"),
    params: str = typer.Option(None, help=".npy file of the first parameters (default: "
                               "zeros, one per column of the data)"),
    rate: str = typer.Option(None, help="the Poisson rate the accountant was told: the "
                             "sampler is tested against it and it is the rate certified"),
    canaries: int = typer.Option(1000, help="canaries of the one-run audit (0: none)"),
    canary_runs: int = typer.Option(0, help="runs of the repeated-runs canary audit"),
    seed: int = typer.Option(0, help="the audit's seed"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object"),
):
    """Audit a DP-SGD run: the step traced on neighbouring batches (clipping, normaliser,
    noise), the sampler identified and tested, the run's ε(δ) certified under the scheme it
    runs, and a canary lower bound. Exit 0 on pass, 1 on fail or inconclusive."""
    from verification.audit import PoissonScheme
    from verification.training import audit_training

    checks.int_range("steps", steps, 1, 10**7)
    checks.int_range("canaries", canaries, 0, 10**6)
    checks.int_range("canary_runs", canary_runs, 0, 10**5)
    checks.seed("seed", seed)
    eps = float(checks.number("epsilon", epsilon, nonnegative=True))
    dlt = float(checks.number("delta", delta, nonnegative=True))
    told = None
    if rate is not None:
        q = float(checks.number("rate", rate, positive=True))
        checks.real_range("rate", q, 0, 1)
        told = PoissonScheme(q)
    split_spec("--step", step)
    split_spec("--sampler", sampler)
    for name, text in (("data", data), ("params", params)):
        if text is not None and not text.strip():
            raise ParameterError(f"{checks.opt(name)} must be a path, got an empty value")
    rows = _load_array("--data", data, 2)
    first = None if params is None else _load_array("--params", params, 1)
    with checks.naming({"canaries": "--canaries", "canary_runs": "--canary-runs"}):
        fstep = load_function("--step", step, 3, "step(params, batch, rng)")
        fsampler = load_function("--sampler", sampler, 2, "sampler(n_batches, rng)")
        res = audit_training(fstep, fsampler, rows, steps, eps, dlt, params=first, rng=seed,
                             scheme=told, canaries=canaries, canary_runs=canary_runs)
    if as_json:
        typer.echo(json.dumps(res.to_dict()))
    else:
        out = Console(highlight=False)
        head, *rest = res.describe().split("\n")
        out.print(_verdict_line(res.verdict, escape(head.split(": ", 1)[1])), soft_wrap=True)
        for line in rest:
            out.print("  " + escape(line), soft_wrap=True)
    raise typer.Exit(0 if res.verdict == "pass" else 1)
