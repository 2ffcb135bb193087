"""``privtools audit --mechanism-file … --trace``: the grey-box audit from the command line.

A ``--mechanism-file`` audit of one pair runs the trace first
(:func:`verification.audit.trace_mechanism`): when it decides — an exact finding, or a
certified interval above or at most the claim — that is the verdict, with no sampling. When
it cannot (randomness it cannot replay, noise that steers the control flow, continuous
noise under the default exact arithmetic), the sampled audit runs as before; where the trace
proposed candidate events they are tested first on a tenth of the draws at α/2
(:func:`verification.audit.confirm`) and the audit runs at α/2, so the false-alarm rate of
the whole is still α. ``--trace`` runs the trace alone; ``--no-trace`` the sampled audit
alone.
"""

from __future__ import annotations

import json

from privtools.errors import ParameterError

__all__ = ["TRACE_OPTIONS", "check_trace_values", "check_trace_options", "traced",
           "print_trace", "run_plan_trace"]

TRACE_OPTIONS = ("trace", "no_trace", "declared", "modulus", "arithmetic")
ARITHMETIC = ("exact", "real")


def check_trace_values(trace: bool, no_trace: bool, declared, modulus,
                       arithmetic: str) -> dict:
    """The trace's option values, checked before any file is read."""
    from privtools.cli import checks

    if trace and no_trace:
        raise ParameterError("--trace and --no-trace: give one of them (--trace runs the "
                             "trace alone, --no-trace the sampled audit alone)")
    out = {"declared": None if declared is None else float(
        checks.number("declared", declared, nonnegative=True))}
    if modulus is not None:
        checks.int_range("modulus", modulus, 2, 2**62)
    if arithmetic not in ARITHMETIC:
        raise ParameterError(f"--arithmetic must be one of {', '.join(ARITHMETIC)}, got "
                             f"{arithmetic!r}")
    out.update(modulus=modulus, arithmetic=arithmetic, trace=trace, no_trace=no_trace)
    return out


def check_trace_options(search: bool, values: dict) -> dict:
    """The trace's fields of a --mechanism-file job — its mode ("first", "only", "off") and
    options — from the values of :func:`check_trace_values`; ``search``: the job searches."""
    from privtools.cli import checks

    if values["trace"] and search:
        raise ParameterError("--trace traces one pair: give --d and --d-prime")
    mode = "only" if values["trace"] else ("off" if values["no_trace"] or search else "first")
    if mode == "off":
        checks.refuse(checks.given("declared", "modulus", "arithmetic"),
                      "applies to the trace (one pair, without --no-trace) only")
    return {"trace": mode, "declared": values["declared"], "modulus": values["modulus"],
            "arithmetic": values["arithmetic"]}


def traced(mechanism, job, features, executor, tick):
    """The pair's audit of ``job`` (a :class:`~privtools.cli.report.FileJob`) with the trace
    first: ``(trace, confirmation, audit)``; the later two are None when the trace decided
    (or ran alone)."""
    from verification.audit import audit_mechanism, confirm, trace_mechanism

    seed = job.seed
    tr = trace_mechanism(mechanism, job.d, job.d_prime, job.epsilon, job.delta, rng=seed,
                         declared=job.declared, modulus=job.modulus,
                         arithmetic=job.arithmetic,
                         relation="query" if job.neighbours == "query" else None)
    if job.trace == "only" or tr.verdict in ("fail", "holds"):
        return tr, None, None
    level = job.alpha
    conf = None
    if tr.candidates:
        level = job.alpha / 2
        conf = confirm(mechanism, job.d, job.d_prime, job.epsilon, tr.candidates,
                       n_samples=max(1000, job.samples // 10), rng=seed, delta=job.delta,
                       alpha=level)
        if conf.verdict == "fail":
            return tr, conf, None
    res = audit_mechanism(mechanism, job.d, job.d_prime, job.epsilon, job.samples, seed,
                          job.delta, level, features=features, learners=job.learners,
                          executor=executor, progress=tick, bits=job.bits)
    return tr, conf, res


def verdict_of(tr, conf, res) -> str:
    """The final word: the trace's when it decided, else the sampled one's."""
    if res is None and conf is None:
        return tr.verdict
    if conf is not None and conf.verdict == "fail":
        return "fail"
    return res.verdict


def to_dict(job, tr, conf, res, report) -> dict:
    """JSON of a traced --mechanism-file audit: the sampled audit's fields at the top when
    it ran (as without the trace), the trace under ``"trace"``."""
    verdict = verdict_of(tr, conf, res)
    info = {"mode": "mechanism-file", "mechanism_file": job.spec,
            "kind": "trace" if res is None and conf is None else "audit"}
    if res is not None:
        info.update(res.to_dict())
    elif conf is not None:
        info.update(conf.to_dict())
    else:
        info.update({"epsilon": tr.epsilon, "delta": tr.delta, "seed": tr.seed,
                     "epsilon_interval": tr.to_dict()["epsilon_interval"]})
    info.update({"verdict": verdict, "passed": verdict in ("pass", "holds"),
                 "trace": tr.to_dict(), "user_code": None if report is None else
                 report.to_dict()})
    if conf is not None:
        info["confirmation"] = conf.to_dict()
    return info


def print_trace(tr, conf, res, job, seed: int, alpha: float, report, printer) -> None:
    """The trace's report, then the sampled part's (``printer``: the audit's printer)."""
    from rich.console import Console
    from rich.markup import escape

    from privtools.cli.report import _verdict_line

    out = Console()
    lines = tr.describe().splitlines()
    head = lines[0].split(" ", 1)
    out.print(escape(f"{job.spec}: d = {json.dumps(job.d)}, d' = "
                     f"{json.dumps(job.d_prime)}"), soft_wrap=True)
    out.print(_verdict_line(tr.verdict, escape(head[1] if len(head) > 1 else "")),
              soft_wrap=True)
    for line in lines[1:]:
        out.print(escape(line), soft_wrap=True)
    if conf is not None:
        out.print(escape(f"the trace's {len(tr.candidates)} candidate event(s) tested on "
                         f"fresh draws at α/{len(tr.candidates)}·½:"))
        out.print(_verdict_line(conf.verdict, escape(conf.summary().split(": ", 1)[1])),
                  soft_wrap=True)
    if res is not None:
        out.print(escape("the sampled audit of what the trace left undecided:"))
        printer(job, res, seed, alpha, report)
    elif report is not None:
        for line in report.lines():
            out.print(escape(line), soft_wrap=True)


def run_plan_trace(name: str, pm, seed: int, as_json: bool) -> None:
    """``privtools audit --mechanism NAME --trace``: the protocol's batch view traced
    against its plan (:func:`verification.audit.trace_plan`); exits 0 when it holds."""
    import typer
    from rich.console import Console
    from rich.markup import escape

    from privtools.cli.report import _verdict_line, plain
    from verification.audit.trace import trace_plan

    res = trace_plan(pm.plan, rng=seed)
    if as_json:
        print(json.dumps(plain({"mode": "mechanism", "mechanism": name, "kind": "trace",
                                **res.to_dict()}), indent=2, allow_nan=False, default=str))
    else:
        out = Console()
        lines = res.describe().splitlines()
        out.print(_verdict_line(res.verdict, escape(lines[0].split(": ", 1)[1])),
                  soft_wrap=True)
        for line in lines[1:]:
            out.print(escape(line), soft_wrap=True)
    raise typer.Exit(0 if res.verdict == "holds" else 1)
