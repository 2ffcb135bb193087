"""The float-attack zoo audited at the bit level: verdicts, ε lower bounds, false alarms.

Three tables:

1. **mechanisms** — every entry of the float suite (:func:`verification.zoo.float_suite`)
   audited on its exposing pair (query answers 0 and 1) by
   :func:`verification.audit.audit_mechanism` at confidence 99 % with ``--draws`` draws
   per dataset, once with the bit-level events (``bits=True``: the double-precision
   implementation) and once without (the real-arithmetic algorithm it simulates);
2. **samplers** — the noise samplers behind the suite (and numpy's own) against their
   ``scipy.stats`` law by :func:`verification.audit.audit_sampler` with ``bits=True``, at
   ``--draws`` draws: which float artefacts the sampler alone already shows;
3. **false alarms** — the controls that are private (Snapping, LaplaceOutputRounded, and the
   private integer-output mechanisms of DP-Sniper's suite) audited with ``bits=True`` over
   ``--seeds`` seeds at ``--control-draws`` draws per dataset: a fail is a false alarm, at
   most 1 in 100 expected at 99 % confidence;
4. **DP-Sniper's float mechanisms** — the private mechanisms of DP-Sniper's suite that
   release floats, on their first benchmark pair at ``--control-draws`` draws, with and
   without ``bits``: private in real arithmetic, and what their doubles do.

Usage::

    python benchmarks/bench_float_zoo.py [--quick] [--json] [--markdown PATH] [--seeds N]
        [--draws N] [--control-draws N] [--seed S]

``--quick`` runs 10⁵ draws and 5 seeds (a smoke run of a few seconds).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import scipy.stats as st  # noqa: E402

from verification import zoo  # noqa: E402
from verification.audit import audit_mechanism, audit_sampler  # noqa: E402
from verification.zoo import floats as F  # noqa: E402

ALPHA = 0.01
INTEGER_CONTROLS = ("ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2")
DPSNIPER_FLOATS = ("Laplace", "NoisyHist1", "LaplaceParallel", "NumericalSVT")


# ----------------------------------------------------------------------------- samplers
def _numpy_laplace(n, rng):
    return rng.laplace(0.0, 2.0, n)


def _numpy_normal(n, rng):
    return rng.normal(0.0, 3.0, n)


class Noise:
    """``sampler(size, rng)`` from a zoo noise function at a fixed scale (picklable)."""

    def __init__(self, fn, scale, **kw):
        self.fn, self.scale, self.kw = fn, scale, kw

    def __call__(self, n, rng):
        return self.fn(rng, self.scale, n, **self.kw)


def samplers():
    lap, gau = st.laplace(scale=2.0), st.norm(scale=3.0)
    return [
        ("numpy Generator.laplace (inversion, 53-bit)", _numpy_laplace, lap),
        ("inversion, 53-bit uniform", Noise(F.laplace_inversion_noise, 2.0), lap),
        ("inversion, 32-bit uniform", Noise(F.laplace_inversion_noise, 2.0, resolution=32),
         lap),
        ("±b·ln U", Noise(F.laplace_log_uniform_noise, 2.0), lap),
        ("−b ln U1 + b ln U2", Noise(F.laplace_exp_difference_noise, 2.0), lap),
        ("±b·ln U* (full resolution)", Noise(F.laplace_full_uniform_noise, 2.0), lap),
        ("numpy Generator.normal (ziggurat)", _numpy_normal, gau),
        ("Box–Muller", Noise(F.gaussian_box_muller_noise, 3.0), gau),
        ("Marsaglia polar", Noise(F.gaussian_polar_noise, 3.0), gau),
        ("ziggurat σ·standard_normal", Noise(F.gaussian_ziggurat_noise, 3.0), gau),
    ]


# ----------------------------------------------------------------------------- runs
def run_mechanism(entry, args) -> dict:
    d, dp = entry.witness
    out = {"name": entry.name, "claimed": entry.epsilon, "delta": entry.delta,
           "true_epsilon": entry.true_epsilon, "private": entry.private}
    for bits in (True, False):
        t0 = time.perf_counter()
        res = audit_mechanism(entry.mechanism, list(d), list(dp), entry.epsilon, args.draws,
                              rng=args.seed, delta=entry.delta, alpha=ALPHA, bits=bits,
                              learners=())
        key = "bits" if bits else "reals"
        out[key] = {"verdict": res.verdict, "epsilon_lower": res.epsilon_lower,
                    "family": res.selection.get("family"),
                    "event": res.event.describe() if res.event else None,
                    "counts": [res.counts.get("count_favoured"), res.counts.get("n_favoured"),
                               res.counts.get("count_other"), res.counts.get("n_other")],
                    "seconds": time.perf_counter() - t0}
    return out


def run_sampler(name, fn, law, args) -> dict:
    t0 = time.perf_counter()
    res = audit_sampler(fn, law, args.draws, rng=args.seed, alpha=ALPHA, bits=True)
    bits = res.tests["bits"]
    worst = bits.get("lattice", {}).get("worst", [{}])[0]
    return {"name": name, "law": res.reference, "verdict": res.verdict, "p_value": res.p_value,
            "bits_p": bits["p_value"], "lattice_p": bits.get("lattice", {}).get("p_value"),
            "low_bits_p": bits.get("low_bits", {}).get("p_value"), "worst": worst,
            "rejected_by": res.reason, "seconds": time.perf_counter() - t0}


def control_entries():
    out = [m for m in zoo.float_suite() if m.private]
    for name in INTEGER_CONTROLS:
        out.append(zoo.get(name))
    return out


def run_control(entry, args) -> dict:
    d, dp = entry.witness or entry.pairs[0]
    t0 = time.perf_counter()
    fails, lowers = 0, []
    for s in range(args.seeds):
        res = audit_mechanism(entry.mechanism, list(d), list(dp), entry.epsilon,
                              args.control_draws, rng=args.seed + 1 + s, delta=entry.delta,
                              alpha=ALPHA, bits=True, learners=())
        fails += res.verdict == "fail"
        lowers.append(res.epsilon_lower)
    return {"name": entry.name, "claimed": entry.epsilon, "pair": [list(d), list(dp)],
            "seeds": args.seeds, "false_alarms": fails, "max_epsilon_lower": max(lowers),
            "median_epsilon_lower": float(np.median(lowers)),
            "seconds": time.perf_counter() - t0}


def run_dpsniper_float(entry, args) -> dict:
    d, dp = entry.pairs[0]
    out = {"name": entry.name, "claimed": entry.epsilon, "pair": [list(d), list(dp)]}
    for bits in (True, False):
        t0 = time.perf_counter()
        res = audit_mechanism(entry.mechanism, list(d), list(dp), entry.epsilon,
                              args.control_draws, rng=args.seed, alpha=ALPHA, bits=bits,
                              learners=())
        out["bits" if bits else "reals"] = {
            "verdict": res.verdict, "epsilon_lower": res.epsilon_lower,
            "event": res.event.describe() if res.event else None,
            "seconds": time.perf_counter() - t0}
    return out


# ----------------------------------------------------------------------------- report
def _pair_row(head: list[str], bits: dict, witness: str, reals: dict,
              tail: list[str]) -> str:
    """One Markdown row: ``head``, the bit-level audit (verdict, ε_lower, ``witness``), the
    real-arithmetic audit (verdict, ε_lower), ``tail``."""
    cells = [*head, bits["verdict"], f"{bits['epsilon_lower']:.3f}", witness,
             reals["verdict"], f"{reals['epsilon_lower']:.3f}", *tail]
    return "| " + " | ".join(cells) + " |"


def _truth(r) -> str:
    t = r["true_epsilon"]
    if math.isinf(t):
        return "∞" + (f" at δ = {r['delta']:g}" if r["delta"] else "")
    if r["name"] == "Snapping":
        return f"≤ {t:.13g}"
    return f"{t:.4g}"


def _short(text, limit=150) -> str:
    text = (text or "—").replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def markdown(result, args) -> str:
    m = result["machine"]
    cmd = "python benchmarks/bench_float_zoo.py" + (" --quick" if args.quick else "") + \
        f" --seeds {args.seeds} --draws {args.draws} --control-draws {args.control_draws}" + \
        f" --seed {args.seed} --markdown docs/tables/float_attacks.md"
    lines = [
        "# Float attacks audited at the bit level",
        "",
        f"Generated by `{cmd}` in {result['seconds'] / 60:.1f} min on {m['cores']} cores "
        f"({m['cpu']}), Python {m['python']}, numpy {m['numpy']}, scipy {m['scipy']}; run "
        "serially. Do not edit by hand.",
        "",
        f"Budget: {args.draws:.0e} draws per dataset for each mechanism and sampler audit "
        f"(selection share included), {args.control_draws:.0e} per dataset for each of the "
        f"{args.seeds} seeds of the false-alarm counts; every verdict at confidence 99 % "
        "(α = 0.01).",
        "",
        "The mechanisms are `verification.zoo.float_suite()` (`verification/zoo/floats.py`): "
        "one query answer of sensitivity 1 plus float noise, claimed ε = 0.5 (δ = 1e-5 for "
        "the Gaussians), audited on the answers 0 and 1. *bits* is "
        "`audit_mechanism(..., bits=True)`, which adds events on the IEEE-754 encoding of "
        "the outputs (lowest mantissa bits, binades, power-of-two lattices, representation "
        "classes); *reals* is the same audit without them, which sees only what real "
        "arithmetic would.",
        "",
        "## Mechanisms",
        "",
        "| mechanism | claimed ε | true ε | bits: verdict | ε_lower | witness family | "
        "reals: verdict | ε_lower | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["mechanisms"]:
        b, re_ = r["bits"], r["reals"]
        lines.append(_pair_row([r["name"], f"{r['claimed']:.4g}", _truth(r)], b, b["family"],
                               re_, [f"{b['seconds'] + re_['seconds']:.0f}"]))
    lines += ["", "Witnesses of the bit-level audits (the chosen event, and its counts on "
              "the favoured and the other dataset):", ""]
    for r in result["mechanisms"]:
        b = r["bits"]
        kp, np_, kq, nq = b["counts"]
        lines.append(f"* **{r['name']}** — {_short(b['event'])} ({kp} of {np_} vs {kq} of "
                     f"{nq})")
    lines += [
        "",
        "## Samplers alone",
        "",
        "`audit_sampler(sampler, law, n, bits=True)`: the Kolmogorov–Smirnov, tail and "
        "moments tests plus the bit test (within every binade the mantissa bits above the "
        "parity bit of a law with a density, rounded to the doubles, are uniform), "
        "Bonferroni-combined.",
        "",
        "| sampler | law | verdict | combined p | bit test p | lattice p | low-bits p | "
        "worst binade |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in result["samplers"]:
        w = r["worst"] or {}
        worst = (f"{w.get('binade')}: {w.get('observed')} of {w.get('draws')} draws with ≥ "
                 f"{w.get('zero_bits_above_parity_at_least')} zero bits above the parity bit "
                 f"(expected {w.get('expected', 0):.1f})") if w else "—"
        lines.append(f"| {r['name']} | {r['law']} | {r['verdict']} | {r['p_value']:.3g} | "
                     f"{r['bits_p']:.3g} | {r['lattice_p']:.3g} | {r['low_bits_p']:.3g} | "
                     f"{worst} |")
    lines += [
        "",
        "## False alarms of the controls",
        "",
        f"Each private control audited with `bits=True` on {args.seeds} seeds; a fail is a "
        "false alarm (expected at most 1 in 100 at 99 % confidence). The integer-output "
        "mechanisms get no bit-level events (their outputs are not floats) and are here to "
        "show the audit unchanged on them.",
        "",
        "| control | claimed ε | pair | false alarms | median ε_lower | max ε_lower | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["controls"]:
        lines.append(f"| {r['name']} | {r['claimed']:.4g} | {r['pair'][0]} vs {r['pair'][1]} "
                     f"| {r['false_alarms']}/{r['seeds']} | {r['median_epsilon_lower']:.3f} | "
                     f"{r['max_epsilon_lower']:.3f} | {r['seconds']:.0f} |")
    total = sum(r["false_alarms"] for r in result["controls"])
    runs = sum(r["seeds"] for r in result["controls"])
    lines += ["", f"In all: {total} false alarms in {runs} audits of private mechanisms.", ""]
    lines += [
        "## DP-Sniper's private float mechanisms, at the bit level",
        "",
        f"Private in real arithmetic (ε = 0.1), on their first benchmark pair, "
        f"{args.control_draws:.0e} draws per dataset. With `bits=True` the doubles they "
        "release leak like the float suite above: these fails are true (their float "
        "implementations are not ε-DP), which is why the bit-level events are opt-in.",
        "",
        "| mechanism | pair | bits: verdict | ε_lower | witness | reals: verdict | "
        "ε_lower |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["dpsniper"]:
        b = r["bits"]
        lines.append(_pair_row([r["name"], f"{r['pair'][0]} vs {r['pair'][1]}"], b,
                               _short(b["event"], 90), r["reals"], []))
    lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10^5 draws, 5 seeds")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    ap.add_argument("--markdown", default=None, help="also write the report to this file")
    ap.add_argument("--seeds", type=int, default=100, help="seeds per control")
    ap.add_argument("--draws", type=float, default=1e6,
                    help="draws per dataset of each mechanism and sampler audit")
    ap.add_argument("--control-draws", type=float, default=5e5,
                    help="draws per dataset of each false-alarm audit")
    ap.add_argument("--seed", type=int, default=2012)
    args = ap.parse_args(argv)
    if args.quick:
        args.draws, args.control_draws, args.seeds = 1e5, 2e4, min(args.seeds, 5)
    if args.seeds < 1:
        ap.error("--seeds must be >= 1")
    args.draws, args.control_draws = int(args.draws), int(args.control_draws)
    if args.draws > 10**6:
        ap.error("--draws must be at most 10^6 per dataset")
    t0 = time.perf_counter()
    result = {"mechanisms": [], "samplers": [], "controls": [], "dpsniper": []}
    for entry in zoo.float_suite():
        r = run_mechanism(entry, args)
        result["mechanisms"].append(r)
        print(f"{r['name']:>24}: bits {r['bits']['verdict']:<5} ε_lower = "
              f"{r['bits']['epsilon_lower']:.3f}; reals {r['reals']['verdict']:<5} "
              f"ε_lower = {r['reals']['epsilon_lower']:.3f}", file=sys.stderr, flush=True)
    for name, fn, law in samplers():
        r = run_sampler(name, fn, law, args)
        result["samplers"].append(r)
        print(f"{name:>44}: {r['verdict']:<5} bits p = {r['bits_p']:.3g}", file=sys.stderr,
              flush=True)
    for entry in control_entries():
        r = run_control(entry, args)
        result["controls"].append(r)
        print(f"{r['name']:>24}: {r['false_alarms']}/{r['seeds']} false alarms "
              f"({r['seconds']:.0f} s)", file=sys.stderr, flush=True)
    for name in DPSNIPER_FLOATS:
        r = run_dpsniper_float(zoo.get(name), args)
        result["dpsniper"].append(r)
        print(f"{name:>24}: bits {r['bits']['verdict']:<5} ε_lower = "
              f"{r['bits']['epsilon_lower']:.3f}", file=sys.stderr, flush=True)
    result["seconds"] = time.perf_counter() - t0
    result["machine"] = {"cores": os.cpu_count(), "cpu": platform.processor() or
                         platform.machine(), "python": platform.python_version(),
                         "numpy": np.__version__, "scipy": __import__("scipy").__version__}
    result["args"] = vars(args)
    if args.json:
        json.dump(result, sys.stdout, default=str)
        sys.stdout.write("\n")
    else:
        text = markdown(result, args)
        print(text)
        if args.markdown:
            with open(args.markdown, "w") as fh:
                fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
