"""Run every benchmark the documentation quotes, one after another, and write the performance
tables.

Usage::

    python benchmarks/measure_performance.py [--only NAME ...] [--quick] [--json] [--out DIR]

Each benchmark of the "Measured performance" page (``docs/measured-performance.md``), and
each command whose run time the documentation quotes (``privtools verify-claims --full``,
``privtools demo``, the test suite), runs as its own subprocess from the project root with the
options the documentation names — never
two at once, so that they do not compete for the cores. A benchmark's ``--json`` result is
kept whole, with the ratios it measures against its own baseline in the same run; of a
command only its wall time (and exit status) is kept.

It writes ``DIR/performance.json`` — per benchmark: the command, the parsed result (or the
wall time), the wall time of the whole subprocess, the machine (``_bench.machine()``), the
load average before the run and the date — and ``DIR/performance.md``, a table of the key
figures for people (``DIR`` is ``docs/tables/`` by default). ``bench_sampling.py`` also rewrites
``DIR/sampling.md``, the table the documentation's figures quote. With ``--only`` the named
benchmarks are rerun and merged into the existing files; a benchmark that fails (non-zero
exit status, unreadable output) is reported and its previous entry kept.

The test suite runs first: its check of the documentation's quoted figures then reads the
tables as they stood before this run. Afterwards ``python scripts/quoted_figures.py --write``
puts the new figures into the pages.

``--quick`` runs every benchmark at its small sizes, to test this driver: nothing is
written unless ``--out`` is given, and the entries are marked ``quick`` (the figure check
refuses them). ``--json`` prints the new entries as one JSON object. Progress goes to
stderr. Exit status: 0 all ran, 1 a benchmark failed, 2 bad command-line input (an unknown
name). The whole run takes about 15 minutes on 2 cores (the sampling benchmark and the test
suite about 6 each).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from _bench import machine  # sibling module (run from benchmarks/)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "tables"
COMMAND = "python benchmarks/measure_performance.py"
TIMEOUT_S = 3 * 3600


# ============================================================================ key figures
def _span(values, fmt: str, unit: str = "") -> str:
    """``lo–hi`` of some numbers in a format (one value when both ends agree)."""
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return (lo if lo == hi else f"{lo}–{hi}") + unit


def _time(seconds: float) -> str:
    """A duration in ms below a second (two significant digits), else in s."""
    if seconds < 1:
        return f"{float(f'{seconds * 1e3:.2g}'):g} ms"
    return f"{seconds:.2f} s"


def _sampling(r: dict) -> str:
    tp, every = r["throughput"], r["wide"]
    rate = {g: [x["ratio"] for x in tp if x["generator"] == g] for g in ("PCG64", "ChaCha20")}
    verdicts = [x["verdict"] for x in r["timing"]]
    tvs = [x["tv"] for x in every if x["tv"] is not None]
    return (f"tables at {_span(rate['PCG64'], '.2f')} of PCG64's raw word rate and "
            f"{_span(rate['ChaCha20'], '.2f')} of ChaCha20's; "
            f"{sum(x['audit'] == 'pass' for x in every)} of {len(every)} default samplers "
            f"pass the word audit ({len(tvs)} with a certified TV, ≤ {max(tvs):.1e}), cold "
            f"first call ≤ {max(x['cold_s'] for x in every):.2f} s, 1 000 single draws ≤ "
            f"{max(x['singles_s'] for x in every):.3f} s; word-count audits: "
            f"{verdicts.count('pass')} pass, {verdicts.count('fail')} fail")


def _exact_samplers(r: dict) -> str:
    rows = r["samplers"]
    lap = [x["ours_per_s"] / 1e6 for x in rows if x["sampler"] == "discrete_laplace"]
    gau = [x["ours_per_s"] / 1e6 for x in rows if x["sampler"] == "discrete_gaussian"]
    out = f"discrete Laplace {_span(lap, '.1f')} M/s, discrete Gaussian {_span(gau, '.1f')} M/s"
    ratios = [x["ratio"] for x in rows if x.get("ratio") is not None]
    if ratios:
        out += f"; {_span(ratios, '.0f')}× OpenDP {r.get('opendp_version') or ''}".rstrip()
        bare = [x["ratio_vs_sampling_only"] for x in rows
                if x.get("ratio_vs_sampling_only") is not None]
        if bare:
            out += f" ({_span(bare, '.0f')}× without its list↔Rust round trip)"
    else:
        out += "; OpenDP not installed"
    return out


def _exact_pmf(r: dict) -> str:
    rng, sm, f1, b = r["skellam_range"], r["skellam_sum"], r["fact1"], r["baselines"]
    return (f"Skellam(10^6) ±20σ at 40 digits: {rng['points']:,} values in {rng['time_s']:.2f} s; "
            f"sum_pmf of 1024 shares {sm['time_s']:.2f} s; Fact 1 by convolution "
            f"{f1['time_s']:.2f} s ({f1['ratio_convolve_vs_closed_form']:.0f}× the closed form); "
            f"plain mpmath {b['ratio_mpmath_per_point_vs_ours']:.0f}× ours per point "
            f"({b['mpmath_failures']} of {len(b['mpmath'])} points fail); scipy sf 0 or nan at "
            f"{r['summary']['scipy_sf_zero_or_nan']} of {len(b['points'])} points")


def _divergence(r: dict) -> str:
    full = [x for x in r["rows"] if x["orders"] == 255]
    times = ", ".join(f"{x['seconds']:.2f} s (Δ = {x['delta']})" for x in full)
    return (f"D_α for α = 2…256 at 30 digits: {times}; "
            f"{r['ratio_naive_arb_vs_ours']:.1f}× a naive Arb loop, "
            f"{r['ratio_naive_mpmath_vs_ours_per_order']:.0f}× naive mpmath per order; "
            f"target 5 s {'met' if r['target_met'] else 'missed'}")


def _protocol(r: dict) -> str:
    rows = r["rows"]
    times = ", ".join(f"{x['batch_s'] * 1e3:.0f} ms (Thm {x['theorem']})" for x in rows)
    return (f"batch of {_power(rows[0]['n'])} users: {times}; "
            f"{_span([x['ratio_vs_loop'] for x in rows], '.0f')}× a per-user loop")


def _secagg(r: dict) -> str:
    s, c, i = r["summary"], r["components"], r["ideal"]
    return (f"masked, {s['target_n']} users: {s['masked_time_s']:.1f} s "
            f"({r['masked'][0]['per_user_ms']:.0f} ms per user), {s['masked_drop_time_s']:.1f} s "
            f"with 10% dropouts, parallel capacity {r['capacity']:.2f} of {r['config']['cores']} "
            f"cores; X25519 {c['exchange_us']:.0f} µs per pair; vectorized masks "
            f"{c['prg_ratio']:.0f}× per-pair ChaCha20; ideal sum of {i['n']:,}: "
            f"{i['ratio']:.0f}× the Python-int loop")


def _plan(r: dict) -> str:
    kinds = []
    for privacy, label in (("pure-dp", "pure DP"), ("rdp", "RDP"), ("cdp", "CDP")):
        t = [x["plan_and_verify_seconds"] for x in r["rows"] if x["privacy"] == privacy]
        if t:
            kinds.append(f"{label} ≤ {_time(max(t))}")
    ratios = [x["ratio_vs_bound_plan"] for x in r["rows"] if x["ratio_vs_bound_plan"]]
    return (f"plan + verify at n = 2^20: {', '.join(kinds)}; {_span(ratios, '.0f')}× the "
            f"closed-form plan")


def _audit(r: list) -> str:
    smp = [x for x in r if x["audit"] == "sampler"]
    mech = [x for x in r if x["audit"] == "mechanism"]
    return (f"audit_sampler on {smp[0]['n']:,} draws: "
            f"{_span([x['audit_s'] for x in smp], '.2f')} s "
            f"({_span([x['ratio_vs_draw'] for x in smp], '.1f')}× drawing them, "
            f"{_span([x['ratio_vs_chisquare'] for x in smp], '.0f')}× a chi-square test); "
            f"audit_mechanism: {mech[0]['audit_s']:.2f} s per dataset "
            f"({mech[0]['ratio_vs_draw']:.1f}× drawing)")


def _bandits(r: dict) -> str:
    inst = r["faithful_dist_dp_se_instances"]
    per_round = r["baseline"]["per_round_s"]
    ratios = [per_round * r["T"] / x["warm_s"] for x in inst]
    return (f"faithful Dist-DP-SE, T = 10^6: {_span([x['warm_s'] * 1e3 for x in inst], '.1f')} ms "
            f"warm over {len(inst)} instances, {r['faithful_dist_dp_se']['cold_s']:.2f} s cold; "
            f"per-round loop {per_round * 1e6:.1f} µs; ≥ 500× on "
            f"{sum(x >= 500 for x in ratios)} of {len(inst)} instances "
            f"(median {r['ratio_vs_baseline_T_median_instance']:.0f}×, slowest "
            f"{r['ratio_vs_baseline_T']:.0f}×); {r['faithful_ns_per_user_slowest']:.1f} ns per "
            f"simulated user (compiled loop) against numpy's floor "
            f"{r['numpy_floor_ns_per_user']:.1f} ns")


def _power(n: int) -> str:
    """``10^k`` for a power of ten, else the number."""
    k = len(str(n)) - 1
    return f"10^{k}" if n == 10**k else f"{n:,}"


def _zcdp_ucb(r: dict) -> str:
    return (f"AdaC-UCB, T = {_power(r['T'])}: {r['runs']['adac-ucb']['seconds']:.3f} s, "
            f"{r['ratio']:.0f}× a per-round loop")


def _zcdp_linear(r: dict) -> str:
    return "; ".join(f"{x['algorithm']}, T = {_power(x['horizon'])}: {x['seconds']:.3f} s, "
                     f"{x['ratio']:.0f}× a per-round loop" for x in r["results"])


def _wall(r: dict) -> str:
    return f"wall time {r['wall_s']:.1f} s"


def _pytest(r: dict) -> str:
    return f"{r.get('summary') or 'no summary line'}; wall time {r['wall_s'] / 60:.1f} min"


# ============================================================================ the benchmarks
@dataclass(frozen=True)
class Benchmark:
    """One command whose figures the documentation quotes.

    Attributes
    ----------
    name : str
        The name ``--only`` takes.
    what : str
        What it measures, for the table.
    argv : tuple of str
        The command, run from the project root: ``python`` is this interpreter,
        ``privtools`` its console script, ``{out}`` the output directory and ``{tmp}`` a
        scratch directory.
    quick : tuple of str
        The command with ``--quick``.
    output : str
        ``"json"``: its standard output is one JSON document, kept whole; ``"wall"``: only
        the wall time and exit status are kept (``"pytest"``: and pytest's summary line).
    figures : callable
        The key figures of a result, as one line of text.
    """

    name: str
    what: str
    argv: tuple[str, ...]
    quick: tuple[str, ...]
    output: str
    figures: Callable[[object], str]


def _py(script: str, *args: str) -> tuple[str, ...]:
    return ("python", f"benchmarks/{script}", *args)


BENCHMARKS: tuple[Benchmark, ...] = (
    # first: the suite checks the pages against the tables as they were before this run
    Benchmark("test-suite", "the test suite (Quickstart)",
              ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider"),
              ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "tests/privtools/test_validation.py"),
              "pytest", _pytest),
    Benchmark("sampling", "every default sampler (writes sampling.md)",
              _py("bench_sampling.py", "--markdown", "{out}/sampling.md", "--json"),
              _py("bench_sampling.py", "--quick", "--markdown", "{out}/sampling.md", "--json"),
              "json", _sampling),
    Benchmark("exact-samplers", "integer-only samplers vs OpenDP",
              _py("bench_exact_samplers.py", "--json"),
              _py("bench_exact_samplers.py", "--n", "20000", "--repeat", "1", "--json"),
              "json", _exact_samplers),
    Benchmark("exact-pmf", "certified exact PMFs",
              _py("bench_exact_pmf.py", "--json"), _py("bench_exact_pmf.py", "--quick", "--json"),
              "json", _exact_pmf),
    Benchmark("divergence", "certified Rényi divergences of Skellam",
              _py("bench_divergence.py", "--json"),
              _py("bench_divergence.py", "--quick", "--json"), "json", _divergence),
    Benchmark("verify-claims", "paper 000's claims, full grid",
              ("privtools", "verify-claims", "--full", "--json"),
              ("privtools", "verify-claims", "--json"), "wall", _wall),
    Benchmark("protocol", "one ideal-SecAgg batch",
              _py("bench_protocol.py", "--json"), _py("bench_protocol.py", "--quick", "--json"),
              "json", _protocol),
    Benchmark("secagg", "masked SecAgg (X25519, HKDF, ChaCha20, Shamir)",
              _py("bench_secagg.py", "--json"), _py("bench_secagg.py", "--quick", "--json"),
              "json", _secagg),
    Benchmark("plan", "plan + exact verify_plan",
              _py("bench_plan.py", "--json"), _py("bench_plan.py", "--quick", "--json"),
              "json", _plan),
    Benchmark("audit", "black-box audits",
              _py("bench_audit.py", "--json"), _py("bench_audit.py", "--quick", "--json"),
              "json", _audit),
    Benchmark("bandits", "faithful Dist-DP-SE",
              _py("bench_bandits.py", "--instances", "20", "--json"),
              _py("bench_bandits.py", "--quick", "--instances", "3", "--json"),
              "json", _bandits),
    Benchmark("zcdp-ucb", "AdaC-UCB", _py("bench_zcdp_ucb.py", "--json"),
              _py("bench_zcdp_ucb.py", "--quick", "--json"), "json", _zcdp_ucb),
    Benchmark("zcdp-linear", "AdaC-GOPE and AdaC-OFUL", _py("bench_zcdp_linear.py", "--json"),
              _py("bench_zcdp_linear.py", "--quick", "--json"), "json", _zcdp_linear),
    Benchmark("demo", "the demo (Quickstart)", ("privtools", "demo", "--out", "{tmp}", "--json"),
              ("privtools", "demo", "--quick", "--out", "{tmp}", "--json"), "wall", _wall),
    Benchmark("demo-quick", "the demo at reduced sizes (Quickstart)",
              ("privtools", "demo", "--quick", "--out", "{tmp}", "--json"),
              ("privtools", "demo", "--quick", "--out", "{tmp}", "--json"), "wall", _wall),
)
BY_NAME = {b.name: b for b in BENCHMARKS}


# ============================================================================ running
def _where(out: Path) -> str:
    """The output directory relative to the project root (the commands' working directory)
    when it lies inside it, so that the files a benchmark writes name their command as a
    person types it."""
    try:
        return out.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return str(out)


def shown(argv: Sequence[str], out: Path) -> str:
    """A command as the tables print it (paths relative to the project root)."""
    return " ".join(a.replace("{out}", _where(out)).replace("{tmp}", "DIR") for a in argv)


def resolve(argv: Sequence[str], out: Path, tmp: Path) -> list[str]:
    """The command as it is run from the project root: this interpreter, its console
    scripts, real paths."""
    first = {"python": sys.executable,
             "privtools": str(Path(sys.executable).with_name("privtools"))}.get(argv[0], argv[0])
    return [first] + [a.replace("{out}", _where(out)).replace("{tmp}", str(tmp))
                      for a in argv[1:]]


def parse_output(kind: str, stdout: str):
    """The result a benchmark printed: its JSON document, or pytest's summary line.

    Parameters
    ----------
    kind : str
        ``"json"``, ``"wall"`` or ``"pytest"`` (see :class:`Benchmark`).
    stdout : str
        What the subprocess printed.

    Returns
    -------
    object
        The parsed JSON (``"json"``), ``{"summary": last line}`` (``"pytest"``) or ``{}``.

    Raises
    ------
    ValueError
        When a ``"json"`` benchmark printed no JSON document.
    """
    if kind == "json":
        starts = [i for i, line in enumerate(stdout.splitlines()) if line[:1] in "{["]
        if not starts:
            raise ValueError("no JSON document in the output")
        return json.loads("\n".join(stdout.splitlines()[starts[0]:]))
    if kind == "pytest":
        lines = [ln.strip("= ").strip() for ln in stdout.splitlines() if ln.strip()]
        return {"summary": lines[-1] if lines else None}
    return {}


def run_one(bench: Benchmark, quick: bool, out: Path, log=print) -> dict:
    """Run one benchmark as a subprocess and return its entry of ``performance.json``.

    Parameters
    ----------
    bench : Benchmark
        What to run.
    quick : bool
        Its small sizes.
    out : Path
        The output directory (``{out}`` in its command).
    log : callable
        Where progress lines go.

    Returns
    -------
    dict
        ``command``, ``quick``, ``ok``, ``returncode``, ``wall_s``, ``result``,
        ``figures``, ``machine``, ``load_before``, ``date`` (and ``error`` when not ok).
    """
    argv = bench.quick if quick else bench.argv
    with tempfile.TemporaryDirectory(prefix="privtools-perf-") as tmp:
        cmd = resolve(argv, out, Path(tmp))
        load = [round(x, 2) for x in os.getloadavg()]
        date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                                  timeout=TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired as exc:
            out_ = exc.stdout or ""
            proc = subprocess.CompletedProcess(
                cmd, -1, out_.decode(errors="replace") if isinstance(out_, bytes) else out_,
                f"timed out after {TIMEOUT_S} s")
        wall = time.perf_counter() - t0
    entry = {"command": shown(argv, out), "what": bench.what, "quick": quick,
             "ok": proc.returncode == 0, "returncode": proc.returncode, "wall_s": round(wall, 3),
             "machine": machine(), "load_before": load, "date": date}
    try:
        result = parse_output(bench.output, proc.stdout)
    except ValueError as exc:
        entry["ok"] = False
        if proc.returncode == 0:
            entry["error"] = str(exc)
        result = None
    if bench.output != "json":
        result = {"wall_s": entry["wall_s"], "returncode": proc.returncode, **(result or {})}
    entry["result"] = result
    if entry["ok"]:
        try:
            entry["figures"] = bench.figures(result)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            entry.update(ok=False, error=f"unexpected result: {type(exc).__name__}: {exc}")
    if not entry["ok"]:
        entry.setdefault("error", f"exit status {proc.returncode}")
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        log(f"  FAILED: {entry['error']}\n{tail}")
    return entry


# ============================================================================ the tables
def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def describe_machine(m: dict) -> str:
    """One line naming a machine of :func:`_bench.machine`."""
    return (f"{m['cpu']}, {m['cores']} cores ({m['platform']}; Python {m['python']}, "
            f"numpy {m['numpy']}, scipy {m['scipy']})")


def render_markdown(data: dict) -> str:
    """``performance.md`` from the content of ``performance.json``.

    Parameters
    ----------
    data : dict
        ``{"benchmarks": {name: entry}}`` with entries as :func:`run_one` returns them
        (``command``, ``figures``, ``wall_s``, ``machine``, ``date``; ``what`` and ``quick``
        optional), in the order of :data:`BENCHMARKS` (unknown names last).

    Returns
    -------
    str
        The page: title, a sentence naming the machine and the regenerating command, and
        one table row per benchmark.
    """
    entries = data["benchmarks"]
    order = [b.name for b in BENCHMARKS if b.name in entries]
    order += sorted(n for n in entries if n not in BY_NAME)
    if not order:
        raise ValueError("no benchmark results to render")
    machines = {json.dumps(entries[n]["machine"], sort_keys=True) for n in order}
    dates = sorted(entries[n]["date"][:10] for n in order)
    when = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    newest = max(order, key=lambda n: entries[n]["date"])
    mach = describe_machine(entries[newest]["machine"])
    if len(machines) > 1:
        mach += " (some rows on other machines: see performance.json)"
    lines = ["# Measured performance", "",
             f"Measured on {mach}, {when}, one benchmark at a time. Generated by "
             f"`{COMMAND}`, which also writes `performance.json` (each benchmark's whole "
             "result, its machine, load average and date). Every ratio is against a baseline "
             "the benchmark measures in the same run; absolute times drift on a shared "
             "machine.", "",
             "| benchmark | command | key figures | seconds |", "|---|---|---|---|"]
    for n in order:
        e = entries[n]
        name = n + (" (--quick)" if e.get("quick") else "")
        lines.append(f"| {_cell(name)} | `{_cell(e['command'])}` | {_cell(e['figures'])} | "
                     f"{e['wall_s']:.1f} |")
    return "\n".join(lines) + "\n"


def load(path: Path) -> dict:
    """The existing ``performance.json`` (empty when there is none)."""
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"benchmarks": {}}


def save(data: dict, out: Path) -> None:
    """Write ``performance.json`` and ``performance.md`` to ``out`` (the key figures of
    every entry recomputed from its result)."""
    data["command"] = COMMAND
    for name, entry in data["benchmarks"].items():    # key figures from the current code
        if name in BY_NAME and entry.get("ok") and entry.get("result") is not None:
            entry["figures"] = BY_NAME[name].figures(entry["result"])
    data["updated"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    ordered = {b.name: data["benchmarks"][b.name] for b in BENCHMARKS
               if b.name in data["benchmarks"]}
    ordered.update({n: e for n, e in data["benchmarks"].items() if n not in ordered})
    data["benchmarks"] = ordered
    out.mkdir(parents=True, exist_ok=True)
    (out / "performance.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                          encoding="utf-8")
    (out / "performance.md").write_text(render_markdown(data), encoding="utf-8")


# ============================================================================ command line
def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line; an unknown ``--only`` name exits with status 2.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    argparse.Namespace
        ``only`` (names, in the order of :data:`BENCHMARKS`), ``quick``, ``json``, ``out``
        (``None``: ``docs/tables/``, or nothing written with ``--quick``).
    """
    ap = argparse.ArgumentParser(prog="measure_performance.py",
                                 description=__doc__.strip().split("\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help=f"run only these ({', '.join(BY_NAME)})")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, to test this driver (writes only with --out)")
    ap.add_argument("--json", action="store_true", help="print the new entries as JSON")
    ap.add_argument("--out", type=Path, default=None, metavar="DIR",
                    help="where performance.json/.md go (default: docs/tables/)")
    args = ap.parse_args(argv)
    if args.only:
        unknown = [n for n in args.only if n not in BY_NAME]
        if unknown:
            ap.error(f"unknown benchmark {', '.join(map(repr, unknown))} "
                     f"(known: {', '.join(BY_NAME)})")
        args.only = [b.name for b in BENCHMARKS if b.name in args.only]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and write the tables (see the module docstring).

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 every benchmark ran, 1 one failed; bad input exits with status 2.
    """
    args = parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    names = args.only or [b.name for b in BENCHMARKS]
    write = args.out is not None or not args.quick
    out = args.out if args.out is not None else DOCS
    data = load(out / "performance.json") if write else {"benchmarks": {}}
    new, failed = {}, []
    with tempfile.TemporaryDirectory(prefix="privtools-perf-out-") as scratch:
        run_out = out if write else Path(scratch)
        run_out.mkdir(parents=True, exist_ok=True)
        t_all = time.perf_counter()
        for i, name in enumerate(names, 1):
            bench = BY_NAME[name]
            argv = bench.quick if args.quick else bench.argv
            log(f"[{i}/{len(names)}] {name}: {shown(argv, run_out)}")
            entry = run_one(bench, args.quick, run_out, log)
            new[name] = entry
            if not entry["ok"]:
                failed.append(name)
                continue
            log(f"  {entry['wall_s']:.1f} s: {entry['figures']}")
            if write:
                data["benchmarks"][name] = entry
                save(data, out)
        log(f"done: {len(names) - len(failed)} of {len(names)} ran in "
            f"{time.perf_counter() - t_all:.0f} s" + (f"; FAILED: {', '.join(failed)}"
                                                    if failed else "")
            + (f"; wrote {out / 'performance.json'} and performance.md" if write else ""))
    if args.json:
        print(json.dumps({"command": COMMAND, "benchmarks": new}, indent=1, ensure_ascii=False))
    elif any(e["ok"] for e in new.values()):
        print(render_markdown({"benchmarks": {n: e for n, e in new.items() if e["ok"]}}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
