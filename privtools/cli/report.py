"""``privtools audit --mechanism-file``: what was asked (:class:`FileJob`, one frozen value
that :func:`privtools.cli.audit.audit` checks before any user code runs and that the audit
or search, the trace and the printers read) and how its results are printed — the sampled
audit or search, the trace, and the plain JSON values every mode writes."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from rich.console import Console

__all__ = ["FileJob", "print_file_result", "plain"]


@dataclass(frozen=True, kw_only=True)
class FileJob:
    """One --mechanism-file audit (``search`` False: the pair ``d``, ``d_prime``) or search
    (``search`` True: the neighbours, under ``neighbours``, of the datasets ``data``, with
    ``budget`` draws choosing the pair), checked.

    ``spec``: PATH:FUNCTION of the mechanism; ``features_spec``: of the features, or None.
    ``epsilon``, ``delta``: the claim. ``samples``: draws per dataset of the audit (or
    fresh draws confirming a search's pair). ``alpha``, ``seed``, ``stop_early``,
    ``learners``, ``workers``, ``bits``: as their options. ``timeout``,
    ``total_timeout``: seconds, defaults resolved. ``trace``: "first" (the trace, then
    sampling for what it leaves), "only" or "off"; ``declared``, ``modulus``,
    ``arithmetic``: the trace's options."""

    spec: str
    epsilon: float
    delta: float
    search: bool
    samples: int
    alpha: float
    seed: int
    stop_early: bool = False
    learners: tuple = ()
    workers: int = 1
    bits: bool = False
    timeout: float | None = None
    total_timeout: float | None = None
    features_spec: str | None = None
    d: list | None = None
    d_prime: list | None = None
    data: list | None = None
    neighbours: str | None = None
    budget: int | None = None
    trace: str = "off"
    declared: float | None = None
    modulus: int | None = None
    arithmetic: str | None = None



def _verdict_line(verdict: str, text: str) -> str:
    colour = {"pass": "green", "holds": "green", "fail": "red"}.get(verdict, "yellow")
    return f"[bold {colour}]{verdict.upper()}[/bold {colour}] {text}"


def print_file_result(job, res, seed: int, alpha: float, report=None) -> None:
    """Print the sampled audit or search of ``job`` (a :class:`FileJob`)."""
    from rich.markup import escape

    out = Console()
    audit = res.audit if job.search else res
    claim = f"ε = {job.epsilon:g}" + (f", δ = {job.delta:g}" if job.delta else "")
    c = audit.counts
    tested = _tested(c)
    kind = audit.output_type + (" (with events on their float bits)" if job.bits else "")
    if job.search:
        out.print(escape(f"{job.spec}: search over {res.pairs} {job.neighbours} pairs "
                         f"of {len(job.data)} dataset(s); claim {claim}"))
        out.print(escape(f"{res.search_draws:,} draws chose the pair and the event; {tested} "
                         f"fresh draws tested it; outputs: {kind}"))
    else:
        out.print(escape(f"{job.spec}: d = {_short(job.d)}, d' = "
                         f"{_short(job.d_prime)}; claim {claim}"))
        out.print(escape(f"{audit.n_samples:,} draws per dataset: "
                         f"{audit.selection.get('n_train', 0):,} chose the event, {tested} "
                         f"fresh draws tested it; outputs: {kind}"))
    p_value = f"p = {audit.p_value:.3g}" if audit.p_value > 0 else "p < 1e-300"
    text = (f"ε ≥ {res.epsilon_lower:.4g} with confidence {1 - alpha:g} (claim {claim}; "
            f"{p_value})")
    out.print(_verdict_line(res.verdict, escape(text)))
    if job.search:
        out.print(escape(f"pair: d = {_short(res.d)}, d' = {_short(res.d_prime)}"))
    event = audit.event
    if event is not None:
        fav, other = ("d", "d'") if event.direction == "d" else ("d'", "d")
        counts = ""
        if {"count_favoured", "count_other"} <= c.keys():
            counts = (f": in {c['count_favoured']:,} of "
                      f"{c.get('n_favoured', c.get('n_test', 0)):,} test draws on {fav}, "
                      f"{c['count_other']:,} of {c.get('n_other', c.get('n_test', 0)):,} on "
                      f"{other}")
        out.print(escape(f"witness: {event.describe()}{counts}"), soft_wrap=True)
    if audit.reason and audit.verdict != "fail":
        out.print(escape(audit.reason), soft_wrap=True)
    out.print(escape(f"seed {seed}: the same options with --seed {seed} repeat this exactly"))
    for line in ([] if report is None else report.lines()):
        out.print(escape(line), soft_wrap=True)


def _tested(c: dict) -> str:
    """How many test draws there were per dataset (the test split may be Poissonised)."""
    a, b = c.get("n_favoured"), c.get("n_other")
    if a is not None and b is not None and a != b:
        return f"{a:,} and {b:,}"
    n = a if a is not None else c.get("n_test", 0)
    return f"{n:,} per dataset"


def _short(x, width: int = 80) -> str:
    text = json.dumps(plain(x))
    return text if len(text) <= width else text[:width - 1] + "…"


def plain(x):
    """``x`` as plain JSON values: numpy scalars and arrays unwrapped, tuples as lists,
    non-finite floats as the strings "inf", "-inf", "nan", keys as strings."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return plain(x.tolist())
    if isinstance(x, np.generic):
        return plain(x.item())
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, (bytes, bytearray)):
        return x.hex()
    return x
