"""``privtools audit``: black-box audits from the command line.

Three modes:

* ``--mechanism NAME`` audits the server's view of one protocol batch
  (``verification.mechanisms``) against the privacy its plan claims;
* ``--sampler KIND`` audits a shipped noise sampler against its own law (parameters as for
  ``privtools noise``);
* ``--mechanism-file PATH:FUNCTION`` audits the user's own ``FUNCTION(dataset, size, rng)``
  from the Python file ``PATH`` against the (ε, δ) it claims: on one pair (``--d`` and
  ``--d-prime``: :func:`verification.audit.audit_mechanism`) or searching the neighbours of
  ``--d`` / ``--datasets`` for the pair that leaks most
  (:func:`verification.audit.search_counterexample`).

The user's file is run with :func:`runpy.run_path` (never imported as a module of the
project); errors in it — a missing file or function, a syntax error, an exception raised
while it runs or while the mechanism draws — are bad input (exit 2, one line naming
``--mechanism-file``), shown with their traceback only under ``--debug``.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from privtools.cli.laws import build_law, law_options, width_options, with_law_options
from privtools.cli.report import FileJob, _verdict_line, plain, print_file_result  # noqa: F401
from privtools.cli.trace import (
    TRACE_OPTIONS,
    check_trace_options,
    check_trace_values,
    run_plan_trace,
    traced,
)
from privtools.errors import ParameterError

console = Console(stderr=True)


def _progress_bar(total: int, quiet: bool):
    if quiet:
        return None, None
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, transient=True)
    task = bar.add_task("drawing", total=total)
    return bar, (lambda k: bar.advance(task, k))



# Limits that keep an audit within minutes (2 cores): a mechanism audit simulates
# 2·samples batches of n users (2e4 x 1e6 users: ~70 s); dist-cdp's claim is the exact RDP
# curve of the n-fold discrete Gaussian sum (n = 1e5: ~40 s); the integer-only samplers draw
# ~3e6 values/s; a sampler audit's G-test has one bin per integer of the law's bulk. A
# search enumerates len(d) x (domain of at most 16 records) neighbours of every dataset.
MAX_SAMPLES = 10**8
MAX_EXACT_SAMPLES = 10**7
MAX_USER_DRAWS = 2 * 10**10
MAX_CDP_N = 10**5
MAX_SAMPLER_SD = 10**6
MAX_DATASETS = 100
MAX_SEARCH_RECORDS = 10_000
MAX_WORKERS = 1024
MIN_AUDIT_SAMPLES = 200
DEFAULT_SAMPLES = 200_000
DEFAULT_PLAN_DELTA = 1e-6     # --delta of the rdp/cdp plans; a --mechanism-file claim: 0
MIN_BUDGET = 4000
MAX_TIMEOUT = 7 * 24 * 3600   # --timeout / --total-timeout: at most a week
MODE_FLAGS = {"mechanism": "--mechanism", "sampler": "--sampler",
              "mechanism_file": "--mechanism-file"}
MODE_OPTIONS = {
    "mechanism": ("epsilon", "n", "horizon", "s", "delta", "trace"),
    "sampler": law_options() + ("exact",),
    "mechanism_file": ("epsilon", "delta", "d", "d_prime", "datasets", "neighbours", "budget",
                       "features", "learners", "workers", "stop_early", "bits", "timeout",
                       "total_timeout") + TRACE_OPTIONS,
}
SEARCH_OPTIONS = ("datasets", "budget")
EXACT_SAMPLERS = ("laplace", "gaussian")


@with_law_options("sampler: ")
def audit(
    mechanism: str = typer.Option(None, help="protocol view to audit: dist-dp, dist-shuffle, "
                                  "dist-rdp, dist-cdp, central, local"),
    sampler: str = typer.Option(None, help="noise sampler to audit against its own law: "
                                "laplace, polya, polya-difference, skellam, gaussian"),
    mechanism_file: str = typer.Option(
        None, "--mechanism-file", metavar="PATH:FUNCTION",
        help="your own mechanism: FUNCTION(dataset, size, rng) in the Python file PATH, "
        "returning `size` outputs (ints, floats, a (size, k) array, or hashable values); the "
        "file is run with runpy, as `python PATH` would but with __name__ != '__main__'"),
    epsilon: str = typer.Option("1", help="target ε of the plan (--mechanism, default 1); the "
                                "ε your mechanism claims (--mechanism-file, required)"),
    delta: float = typer.Option(None, help="δ of the (ε, δ) claim: of the rdp/cdp plans "
                                "(--mechanism; default 1e-6), or claimed by your mechanism "
                                "(--mechanism-file; default 0)"),
    d: str = typer.Option(None, "--d", metavar="JSON", help="--mechanism-file: a dataset as "
                          "JSON, e.g. '[1, 1, 1]'; with --d-prime the pair audited, without "
                          "it a dataset whose neighbours are searched"),
    d_prime: str = typer.Option(None, "--d-prime", metavar="JSON", help="--mechanism-file: "
                                "the neighbour of --d to audit against (omit it to search)"),
    datasets: str = typer.Option(None, metavar="JSON", help="--mechanism-file search: more "
                                 f"datasets, a JSON list of them (at most {MAX_DATASETS})"),
    neighbours: str = typer.Option("replace-one", help="--mechanism-file: the neighbour "
                                   "relation, replace-one, add-remove or query; a search "
                                   "enumerates its pairs, and a given pair (--d, --d-prime) "
                                   "is refused unless it is neighbouring under it"),
    budget: int = typer.Option(10**6, help="--mechanism-file search: draws spent choosing the "
                               "pair (all pairs and both datasets together)"),
    features: str = typer.Option(None, metavar="PATH:FUNCTION", help="--mechanism-file: "
                                 "FUNCTION(outputs) -> numbers the learned events read "
                                 "(default: the outputs' own coordinates)"),
    learners: str = typer.Option("logistic,boosting", help="--mechanism-file: classifiers "
                                 "that propose events, a comma list of logistic, boosting; "
                                 "or none"),
    workers: int = typer.Option(1, help="--mechanism-file: local processes drawing (1: this "
                                "process; the result does not depend on it)"),
    stop_early: bool = typer.Option(False, "--stop-early", help="--mechanism-file audit: "
                                    "look at the test draws at ¼, ½ and all (α split "
                                    "α/4, α/4, α/2) and stop at the first failing look"),
    bits: bool = typer.Option(False, "--bits", help="--mechanism-file: also try events on "
                              "the IEEE-754 encoding of float outputs (lowest mantissa bits, "
                              "binades, power-of-two lattices): audits the doubles returned, "
                              "not the real-arithmetic algorithm (Mironov 2012)"),
    timeout: float = typer.Option(None, metavar="SECONDS", help="--mechanism-file: the most "
                                  "one call of your code may take (default 60); a call that "
                                  "runs longer is stopped and the audit exits 2 with no "
                                  "verdict"),
    total_timeout: float = typer.Option(None, "--total-timeout", metavar="SECONDS",
                                        help="--mechanism-file: the most the whole audit or "
                                        "search may take (default 3600)"),
    trace: bool = typer.Option(False, "--trace", help="--mechanism-file, one pair: the "
                               "grey-box audit alone — the noise calls traced, the mechanism "
                               "replayed on --d-prime with the same draws, bugs decided "
                               "exactly and the pair's ε certified, no sampling (by default "
                               "the trace runs first and sampling covers what it leaves)"),
    no_trace: bool = typer.Option(False, "--no-trace", help="--mechanism-file: the sampled "
                                  "audit alone (no trace first)"),
    declared: str = typer.Option(None, metavar="SENSITIVITY", help="trace: the most any "
                                 "output may move between --d and --d-prime; a larger shift "
                                 "is a finding whatever the claim"),
    modulus: int = typer.Option(None, help="trace: integer outputs live in Z_m (a modular "
                                "secure sum's view)"),
    arithmetic: str = typer.Option("exact", help="trace: exact (continuous float noise is "
                                   "never certified) or real (accept the real-arithmetic law "
                                   "of continuous noise)"),
    n: int = typer.Option(16, help="users per batch (mechanism mode)"),
    horizon: int = typer.Option(10**6, help="horizon T; the plan uses p = 1/T"),
    s: str = typer.Option("1", help="Skellam / discrete Gaussian scale s >= 1"),
    samples: int = typer.Option(None, help="draws per dataset (--mechanism, and a "
                                "--mechanism-file audit; default 200,000), in total "
                                "(--sampler; default 200,000), or fresh draws per dataset "
                                "confirming a search's pair (default --budget / 2)"),
    alpha: float = typer.Option(0.01, help="false-alarm level of the audit"),
    seed: int = typer.Option(0, help="seed of the audit's numpy Generator (the same seed "
                             "repeats the audit exactly)"),
    exact: bool = typer.Option(False, help="sampler: use the integer-only sampler"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    law_args: dict = None,
):
    """Audit a protocol view (--mechanism), a noise sampler (--sampler) or your own
    mechanism (--mechanism-file) by sampling.

    Exit code 0 on pass, 1 on fail or inconclusive (a sample too small to certify any ε
    above the claim never passes), 2 on bad input (options that the chosen mode ignores are
    refused; --samples is limited to keep an audit within minutes) and when your code fails:
    it runs in a separate process, so an exit, a crash, an exception or a call longer than
    --timeout ends the audit with exit 2 and no verdict; what it prints is captured (never
    mixed into --json) and shown in the report.

    Your own mechanism: `privtools audit --mechanism-file my.py:release --epsilon 1 --d
    '[1,1,1]' --d-prime '[2,1,1]'` audits one pair; without --d-prime it searches the
    --neighbours of --d (and of --datasets) for the pair that leaks most and confirms it on
    fresh draws."""
    from privtools.cli import checks
    from verification.audit import audit_mechanism, audit_sampler

    _check_options(mechanism, sampler, mechanism_file, n, samples, alpha, seed, delta, exact)
    if mechanism_file is not None:
        traced = check_trace_values(trace, no_trace, declared, modulus, arithmetic)
        job = _file_job(spec=mechanism_file, epsilon=epsilon, delta=delta, d=d, d_prime=d_prime,
                        datasets=datasets, neighbours=neighbours, budget=budget, features=features,
                        learners=learners, workers=workers, samples=samples, bits=bits,
                        timeout=timeout, total_timeout=total_timeout, traced=traced, alpha=alpha,
                        seed=seed, stop_early=stop_early)
        _run_file_job(job, as_json)  # exits 0 (pass) or 1
    samples = DEFAULT_SAMPLES if samples is None else samples
    delta = DEFAULT_PLAN_DELTA if delta is None else delta

    with checks.naming():
        if mechanism is not None:
            from verification.mechanisms import protocol_mechanism

            pm = protocol_mechanism(mechanism, epsilon, n, horizon=horizon, s=s, delta=delta)
            if trace:
                run_plan_trace(mechanism, pm, seed, as_json)        # exits 0 or 1
            bar, tick = _progress_bar(2 * samples, as_json)
            if bar:
                bar.start()
            try:
                res = audit_mechanism(pm.mechanism, pm.d, pm.d_prime, pm.epsilon, samples,
                                      rng=seed, delta=pm.delta, alpha=alpha, progress=tick)
            finally:
                if bar:
                    bar.stop()
            p = pm.plan
            info = {"mode": "mechanism", "mechanism": mechanism, "claim": pm.claim,
                    "plan": {"theorem": p.theorem, "n": p.n, "g": p.g, "tau": p.tau,
                             "m": p.m, "bits": p.bits},
                    "audit": res.to_dict()}
            head = (f"{mechanism}: Theorem {p.theorem} (000), n = {p.n}, g = {p.g}, "
                    f"τ = {p.tau}, m = {p.m}; claim {pm.claim}")
        else:
            dist = build_law(sampler, law_args, kind_option="--sampler")
            _check_sampler_width(dist)
            bar, tick = _progress_bar(samples, as_json)
            if bar:
                bar.start()
            try:
                res = audit_sampler(lambda size, rng: dist.sample(size, rng, exact=exact),
                                    dist, samples, rng=seed, alpha=alpha, progress=tick)
            finally:
                if bar:
                    bar.stop()
            info = {"mode": "sampler", "sampler": repr(dist), "exact": exact,
                    "audit": res.to_dict()}
            head = (f"{dist} sampler "
                    f"({'integer-only' if exact else dist.sampler.describe()})")

    if as_json:
        print(json.dumps(plain(info), indent=2, allow_nan=False, default=str))
    else:
        from rich.markup import escape

        out = Console()
        out.print(escape(head))
        if info["mode"] == "mechanism":
            out.print(f"{samples} draws per dataset; events chosen on one half, tested on "
                      "the other (Clopper–Pearson)")
        else:
            for name, t in res.tests.items():
                out.print(f"  {name:8s} p = {t['p_value']:.3g}")
        out.print(_verdict_line(res.verdict, escape(res.summary().split(": ", 1)[1])))
    raise typer.Exit(0 if res.passed else 1)


def _check_options(mechanism, sampler, mechanism_file, n, samples, alpha, seed, delta,
                   exact) -> None:
    """Before any work: one mode, no option of another mode, no option the mechanism
    ignores, values in range, and the work within the limits (ParameterError naming the
    option)."""
    from privtools.cli import checks

    chosen = {"mechanism": mechanism, "sampler": sampler, "mechanism_file": mechanism_file}
    modes = [m for m, v in chosen.items() if v is not None]
    if len(modes) != 1:
        raise ParameterError("give exactly one of --mechanism, --sampler or --mechanism-file")
    mode = modes[0]
    _refuse_other_modes(mode)
    from privtools.planning import DEPLOYMENTS

    views = {d.view: d for d in DEPLOYMENTS}
    dep = None if mechanism is None else views.get(mechanism)
    if mechanism is not None and dep is None:
        raise ParameterError(f"--mechanism must be one of {sorted(views)}, got {mechanism!r}")
    if dep is not None and dep.pure:
        scaled = ", ".join(d.view for d in DEPLOYMENTS if not d.pure)
        checks.refuse(checks.given("s", "delta"), f"applies to the rdp/cdp mechanisms "
                      f"({scaled}) only; {mechanism} is pure ε-DP")
    if sampler is not None and exact and sampler not in EXACT_SAMPLERS:
        raise ParameterError(f"--exact: there is no integer-only sampler for {sampler} "
                             f"(there is for {', '.join(EXACT_SAMPLERS)})")
    checks.int_range("samples", samples, 1, MAX_EXACT_SAMPLES if exact else MAX_SAMPLES,
                     " with --exact" if exact else "")
    checks.real_range("alpha", alpha, 0.0, 1.0)
    if mode == "mechanism_file":  # a claimed δ may be 0 (pure ε-DP)
        checks.real_range("delta", delta, 0.0, 1.0, open_lo=False)
    else:
        checks.real_range("delta", delta, 0.0, 1.0)
    checks.seed("seed", seed)
    if mechanism is not None:
        from privtools.limits import N

        if dep is not None and dep.total == "nominal":
            checks.int_range("n", n, 1, MAX_CDP_N, f" for {mechanism} (its claim is the exact "
                             "RDP curve of the n-fold sum)")
        checks.within("n", n, N)
        samples = DEFAULT_SAMPLES if samples is None else samples
        if 2 * samples * n > MAX_USER_DRAWS:
            raise ParameterError(f"--samples {samples:,} with --n {n:,}: the audit would "
                                 f"simulate {2 * samples * n:.3g} user draws, beyond the limit "
                                 f"{MAX_USER_DRAWS:.0e} (hours of work); use fewer --samples "
                                 "or a smaller --n")


def _refuse_other_modes(mode: str) -> None:
    """Refuse the options given that only other modes read: ``--n applies to --mechanism
    audits only, not to --sampler``."""
    from privtools.cli import checks

    stray = [o for m, opts in MODE_OPTIONS.items() if m != mode for o in opts
             if o not in MODE_OPTIONS[mode]]
    given = checks.given(*dict.fromkeys(stray))
    if not given:
        return
    owners = tuple(m for m in MODE_OPTIONS if given[0] in MODE_OPTIONS[m])
    same = [o for o in given if tuple(m for m in MODE_OPTIONS if o in MODE_OPTIONS[m]) == owners]
    where = " and ".join(MODE_FLAGS[m] for m in owners)
    checks.refuse(same, f"{'applies' if len(same) == 1 else 'apply'} to {where} audits "
                  f"only, not to {MODE_FLAGS[mode]}")


def _check_sampler_width(dist) -> None:
    """The G-test bins every integer of the law's bulk: refuse laws wider than
    MAX_SAMPLER_SD, naming the option(s) that set the width."""
    import math

    from privtools.cli import checks

    sd = math.sqrt(dist.var())
    if not sd <= MAX_SAMPLER_SD:
        law = checks.given(*width_options())
        raise ParameterError(f"{', '.join(checks.opt(n) for n in law)}: the law's standard "
                             f"deviation {sd:.3g} is beyond the limit {MAX_SAMPLER_SD:.0e} of "
                             "a sampler audit (its G-test has one bin per integer of the bulk)")


# ------------------------------------------------------------------ --mechanism-file
_LOADED: dict[str, dict] = {}     # path -> globals of the last run of that file (per process)
_RUN_NAME = "__privtools_audit_user__"


def _run_file(path: str, option: str) -> dict:
    """The globals of the user's file after ``runpy.run_path`` (its directory first on
    ``sys.path`` while it runs, as for ``python PATH``). A syntax error is bad input naming
    ``option``; running the top level is a call of the user's code
    (:func:`privtools.usercode.user_call`): an exit, an exception or a hang there is a
    :class:`~privtools.errors.UserCodeError` naming the file."""
    from privtools.usercode import user_call

    try:
        with open(path, "rb") as fh:
            compile(fh.read(), path, "exec")
    except SyntaxError as exc:
        raise ParameterError(f"{option}: {path} has a syntax error: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise ParameterError(f"{option}: cannot read {path}: {exc}") from exc
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    try:
        with user_call(f"{option} {path} (running its top level)"):
            namespace = runpy.run_path(path, run_name=_RUN_NAME)
    finally:
        if sys.path and sys.path[0] == folder:
            del sys.path[0]
    _LOADED[path] = namespace
    return namespace


class UserFunction:
    """A function from the user's file. It pickles as (path, name), so worker processes run
    the file again to find it; errors are turned into
    :class:`~privtools.errors.UserCodeError` by the guard that wraps it
    (:class:`privtools.usercode.UserCode`)."""

    def __init__(self, fn, path: str, name: str, option: str):
        self.fn, self.path, self.name, self.option = fn, path, name, option

    def __call__(self, *args):
        return self.fn(*args)

    def __reduce__(self):
        return _restore, (self.path, self.name, self.option)

    def __repr__(self) -> str:
        return f"{self.path}:{self.name}"


def _restore(path: str, name: str, option: str) -> UserFunction:
    namespace = _LOADED.get(path) or _run_file(path, option)
    return UserFunction(namespace[name], path, name, option)


def split_spec(option: str, spec: str) -> tuple[str, str]:
    """``PATH:FUNCTION`` → (PATH, FUNCTION), checked for its form only."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name.isidentifier():
        raise ParameterError(f"{option} must be PATH:FUNCTION, e.g. my_mechanism.py:release, "
                             f"got {spec!r}")
    return path, name


def locate(option: str, spec: str) -> tuple[str, str, str]:
    """``PATH:FUNCTION`` checked without running anything: (path as given, absolute path,
    function name)."""
    path, name = split_spec(option, spec)
    try:
        p = Path(path).expanduser()
        if not p.exists():
            raise ParameterError(f"{option}: no such file {path!r}")
        if not p.is_file():
            raise ParameterError(f"{option}: {path!r} is not a file")
        return path, str(p.resolve()), name
    except (OSError, ValueError) as exc:   # a name too long, a NUL byte, a loop of links
        raise ParameterError(f"{option}: cannot open {path!r}: {exc}") from None


def load_function(option: str, spec: str, arity: int, call: str):
    """``PATH:FUNCTION`` → the callable FUNCTION of the file PATH (the file is run), checked
    to take ``arity`` positional arguments (``call`` shows how it is called), behind the
    guard of :mod:`privtools.usercode` and named as the user wrote it (``--mechanism-file
    my_dp.py:release``)."""
    import inspect

    from privtools.usercode import UserCode

    path, full, name = locate(option, spec)
    namespace = _run_file(full, option)
    if name not in namespace:
        defined = sorted(k for k, v in namespace.items() if callable(v) and not
                         k.startswith("_") and getattr(v, "__module__", None) == _RUN_NAME)
        listing = f"; it defines {', '.join(defined)}" if defined else ""
        raise ParameterError(f"{option}: {path} defines no {name!r}{listing}")
    fn = namespace[name]
    if not callable(fn):
        raise ParameterError(f"{option}: {name!r} in {path} is not callable (it is of type "
                             f"{type(fn).__name__}); expected a function {call}")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # some builtins have no signature: just try them
        sig = None
    if sig is not None:
        try:
            sig.bind(*range(arity))
        except TypeError:
            raise ParameterError(f"{option}: {name}{sig} in {path} cannot be called as "
                                 f"{call}") from None
    return UserCode(UserFunction(fn, full, name, option), f"{option} {spec}", 0)


def _json_option(name: str, text: str):
    from privtools.cli import checks

    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ParameterError(f"{checks.opt(name)} is not valid JSON ({exc}): "
                             f"{text!r}") from None


def _learners(text: str) -> tuple:
    from verification.audit import LEARNERS

    items = [x.strip() for x in text.split(",") if x.strip()]
    if items == ["none"]:
        return ()
    if not items or any(x not in LEARNERS for x in items):
        raise ParameterError(f"--learners must be a comma list of {', '.join(LEARNERS)}, or "
                             f"none; got {text!r}")
    return tuple(dict.fromkeys(items))


def _search_data(d, datasets, neighbours: str) -> list:
    """The datasets a search starts from: ``--d`` and the entries of ``--datasets``, each a
    JSON list (for ``query``, of numbers) within the size limits."""
    from privtools.cli import checks

    data, names = [], []
    if d is not None:
        data.append(_json_option("d", d))
        names.append("--d")
    if datasets is not None:
        more = _json_option("datasets", datasets)
        if not isinstance(more, list) or not more:
            raise ParameterError(f"--datasets must be a non-empty JSON list of datasets, got "
                                 f"{datasets!r}")
        data += more
        names += [f"--datasets (entry {i})" for i in range(len(more))]
    checks.at_most("datasets", len(data), MAX_DATASETS, "datasets in one search (each "
                   "brings its neighbours; at most 64 pairs are searched)")
    for x, who in zip(data, names):
        if not isinstance(x, list):
            raise ParameterError(f"{who} must be a dataset, a JSON list of records, got "
                                 f"{json.dumps(x)}")
        if len(x) > MAX_SEARCH_RECORDS:
            raise ParameterError(f"{who} has {len(x):,} records, beyond the limit "
                                 f"{MAX_SEARCH_RECORDS:,} of a search (it enumerates every "
                                 "neighbour); audit one pair with --d-prime instead")
        if neighbours == "query" and (not x or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in x)):
            raise ParameterError(f"{who}: --neighbours query needs a non-empty list of "
                                 f"numbers (query answers), got {json.dumps(x)}")
    return data


def _file_job(*, spec, epsilon, delta, d, d_prime, datasets, neighbours, budget, features,
              learners, workers, samples, traced, alpha, seed, stop_early=False, bits=False,
              timeout=None, total_timeout=None) -> FileJob:
    """Every option of a --mechanism-file audit checked — the pair against the relation
    when --neighbours is given, the files located, the trace's mode (``traced``: from
    :func:`~privtools.cli.trace.check_trace_values`) — before the user's code runs."""
    from privtools.cli import checks
    from privtools.neighbours import RELATIONS
    from privtools.usercode import DEFAULT_TIMEOUT, DEFAULT_TOTAL_TIMEOUT
    from verification.audit.neighbours import check_pair

    if not checks.given("epsilon"):
        raise ParameterError("--epsilon: give the ε your mechanism claims (--mechanism-file "
                             "has no default claim)")
    eps = checks.number("epsilon", epsilon, nonnegative=True)
    from privtools.limits import EPSILON

    checks.at_most("epsilon", eps, EPSILON.high, "no sample can certify an ε that large (10⁸ "
                   "draws per dataset certify at most ε ≈ 18)")
    job = {"spec": spec, "epsilon": float(eps), "delta": 0.0 if delta is None else delta,
           "search": d_prime is None, "learners": _learners(learners), "workers": workers,
           "bits": bool(bits)}
    checks.int_range("workers", workers, 1, MAX_WORKERS)
    job["timeout"] = DEFAULT_TIMEOUT if timeout is None else \
        checks.real_range("timeout", timeout, 0.0, MAX_TIMEOUT, open_hi=False)
    job["total_timeout"] = DEFAULT_TOTAL_TIMEOUT if total_timeout is None else \
        checks.real_range("total_timeout", total_timeout, 0.0, MAX_TIMEOUT, open_hi=False)
    if neighbours not in RELATIONS:
        raise ParameterError(f"--neighbours must be one of {', '.join(RELATIONS)}, got "
                             f"{neighbours!r}")
    if not job["search"]:
        if d is None:
            raise ParameterError("--d-prime needs --d, the other dataset of the pair")
        checks.refuse(checks.given(*SEARCH_OPTIONS), "applies to a search (--mechanism-file "
                      "without --d-prime) only")
        job["d"], job["d_prime"] = _json_option("d", d), _json_option("d_prime", d_prime)
        for option, value in (("--d", job["d"]), ("--d-prime", job["d_prime"])):
            if not isinstance(value, list):
                raise ParameterError(f"{option} must be a dataset, a JSON list of records, got "
                                     f"{json.dumps(value)}")
        # the pair checked under the relation given; the trace searches a proof for "query"
        job["neighbours"] = neighbours if checks.given("neighbours") else None
        check_pair(job["d"], job["d_prime"], job["neighbours"], ("--d", "--d-prime"))
        job["samples"] = DEFAULT_SAMPLES if samples is None else samples
        checks.int_range("samples", job["samples"], MIN_AUDIT_SAMPLES, MAX_SAMPLES)
    else:
        checks.refuse(checks.given("stop_early"), "applies to the audit of one pair (--d with "
                      "--d-prime) only")
        if d is None and datasets is None:
            raise ParameterError("--mechanism-file needs --d and --d-prime (audit one pair), "
                                 "or --d and/or --datasets (search their neighbours)")
        checks.int_range("budget", budget, MIN_BUDGET, MAX_SAMPLES)
        job["data"] = _search_data(d, datasets, neighbours)
        job["neighbours"], job["budget"] = neighbours, budget
        job["samples"] = budget // 2 if samples is None else samples
        checks.int_range("samples", job["samples"], 100, MAX_SAMPLES)
    files = [("--mechanism-file", spec)] + ([("--features", features)] if features is not None
                                          else [])
    for check in (split_spec, locate):  # both forms, then both files, before running any
        for option, text in files:
            check(option, text)
    job["features_spec"] = features
    job.update(check_trace_options(job["search"], traced))
    return FileJob(alpha=alpha, seed=seed, stop_early=stop_early, **job)


def _file_work(job: FileJob):
    """The work of a --mechanism-file job, run inside the guard: the user's file(s) run,
    then the audit or search (its worker processes started here, inside the guard)."""
    from concurrent.futures import ProcessPoolExecutor

    from verification.audit import audit_mechanism, search_counterexample

    def work(tick):
        mechanism = load_function("--mechanism-file", job.spec, 3,
                                  "FUNCTION(dataset, size, rng)")
        features = None if job.features_spec is None else load_function(
            "--features", job.features_spec, 1, "FUNCTION(outputs)")
        learners = job.learners
        executor = ProcessPoolExecutor(job.workers) if job.workers > 1 else None
        try:
            if job.search:
                return search_counterexample(
                    mechanism, job.epsilon, job.data, job.neighbours, job.delta, job.budget,
                    job.seed, job.alpha, n_confirm=job.samples, max_datasets=len(job.data),
                    features=features, learners=learners, executor=executor, progress=tick,
                    search_learners=("logistic",) if "logistic" in learners else learners[:1],
                    bits=job.bits)
            if job.trace != "off":
                return traced(mechanism, job, features, executor, tick)
            return audit_mechanism(mechanism, job.d, job.d_prime, job.epsilon, job.samples,
                                   job.seed, job.delta, job.alpha, features=features,
                                   learners=learners, executor=executor,
                                   stop_early=job.stop_early, progress=tick, bits=job.bits)
        finally:
            if executor is not None:
                executor.shutdown(cancel_futures=True)
    return work


def _run_file_job(job: FileJob, as_json: bool):
    """Run the audit or search of a --mechanism-file job behind the guard of the user's
    code (:func:`privtools.usercode.guarded`), print it, exit 0 (pass) or 1. The user's
    code exiting, crashing, raising or hanging raises UserCodeError (exit 2), never a
    verdict; what it printed is captured, kept out of --json's stream, and reported."""
    from privtools.cli import checks
    from privtools.usercode import guarded

    search, alpha = job.search, job.alpha
    total = job.budget + 2 * job.samples if search else 2 * job.samples
    names = {"mechanism": "--mechanism-file", "features": "--features",
             "n_samples": "--samples", "n_confirm": "--samples", "datasets": "--datasets",
             "neighbours": "--neighbours", "budget": "--budget", "learners": "--learners",
             "timeout": "--timeout", "total_timeout": "--total-timeout"}
    bar, tick = _progress_bar(total, as_json)
    if bar:  # the confirmation of a pure-DP claim draws a Poisson number: grow if needed
        task = bar.task_ids[0]

        def tick(k: int) -> None:
            bar.advance(task, k)
            t = bar.tasks[0]
            if t.total is not None and t.completed > t.total:
                bar.update(task, total=t.completed)
    try:
        with checks.naming(names):
            res, report = guarded(_file_work(job),
                                  timeout=job.timeout, total_timeout=job.total_timeout,
                                  progress=tick, on_start=bar.start if bar else None,
                                  what="the search" if search else "the audit")
    finally:
        if bar:
            bar.stop()
    if isinstance(res, tuple):                       # traced: (trace, confirmation, audit)
        from privtools.cli import trace as _trace

        if as_json:
            print(json.dumps(plain(_trace.to_dict(job, *res, report)), indent=2,
                             allow_nan=False, default=str))
        else:
            level = alpha / 2 if res[1] is not None else alpha
            _trace.print_trace(*res, job, job.seed, level, report, print_file_result)
        raise typer.Exit(0 if _trace.verdict_of(*res) in ("pass", "holds") else 1)
    if as_json:
        info = {"mode": "mechanism-file", "mechanism_file": job.spec,
                "kind": "search" if search else "audit", **res.to_dict(),
                "user_code": None if report is None else report.to_dict()}
        print(json.dumps(plain(info), indent=2, allow_nan=False, default=str))
    else:
        print_file_result(job, res, job.seed, alpha, report)
    raise typer.Exit(0 if res.passed else 1)
