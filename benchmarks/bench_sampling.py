"""Sampling on the deployment path: does a sampler's word count reveal its value, what the
secure generator costs, and whether every law is samplable fast.

Three tables, each measured in one run on this machine:

1. **Timing** — ``verification.timing.audit_words`` on single draws (value, 32-bit words
   consumed) for the per-user shares of Theorems 1, 2 and 4 (000), the default paths for
   narrow and wide laws, the exact (CKS20) samplers and a plain unary rejection sampler as
   the control; throughput of the default table sampler against the alias-urn table it
   replaced (scipy's UNU.RAN ``DiscreteAliasUrn``, measured in the same run).
2. **Secure generator** — integer samplers on ChaCha20 (``privtools.secure_rng()``) against
   seeded PCG64, and against OpenDP's discrete Laplace / Gaussian where installed; one
   ideal-SecAgg batch of 10^6 users on each generator.
3. **Wide laws** — DiscreteGaussian / DiscreteLaplace / Skellam at σ or scale 10^3, 10^6,
   10^9 and their shares of 1024: 10^6 draws and 1 000 single-draw calls on the default
   path, with the sampler chosen and its certified TV bound.

    python benchmarks/bench_sampling.py --markdown docs/tables/sampling.md     # ~10 min
    python benchmarks/bench_sampling.py --quick                         # ~1 min

``--json`` prints the results as one JSON object instead of the Markdown (``--json PATH``
writes them to PATH and prints the Markdown).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np
from _bench import emit, machine  # sibling module (scripts run from benchmarks/)

from privtools import secure_rng
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from verification.timing import audit_words, unary_rejection_gaussian


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _best(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


# ------------------------------------------------------------------ 1. timing
def timing_rows(n: int, n_exact: int) -> list[dict]:
    from privtools.planning import plan

    rows = []
    cases = []
    for privacy, theorem in (("pure-dp", "Theorem 1"), ("rdp", "Theorem 2"),
                             ("cdp", "Theorem 4")):
        p = plan(privacy, epsilon=1, n=1024, horizon=10**4)
        cases.append((f"{theorem} share (ε = 1, n = 1024, T = 10⁴)", p.share, {}, n))
    cases += [
        ("N_Z(0, 30²), default (table)", DiscreteGaussian(sigma=30), {}, n),
        ("Lap_Z(10⁶), default (digits)", DiscreteLaplace(10**6), {}, n),
        ("N_Z(0, 10¹²), default (rejection)", DiscreteGaussian(10**6), {}, n),
        ("Sk(0, 10¹²), default (rejection)", Skellam(10**12), {}, n),
        ("Lap_Z(10⁶) share of 16, default (float)", DiscreteLaplace(10**6).shares(16), {}, n),
        ("N_Z(0, 30²), exact=True (CKS20)", DiscreteGaussian(sigma=30), {"exact": True}, n_exact),
        ("Lap_Z(30), exact=True (CKS20)", DiscreteLaplace(30), {"exact": True}, n_exact),
    ]
    for name, law, kw, m in cases:
        _log(f"timing: {name}")
        r = audit_words(lambda rng, law=law, kw=kw: law.sample(None, rng, **kw), m,
                        center=law.center, name=name, seed=1)
        rows.append(_row(r, law.sampler.describe() if not kw else "CKS20 exact sampler"))
    _log("timing: control")
    r = audit_words(lambda rng: unary_rejection_gaussian(30, rng), n_exact,
                    name="control: unary rejection N_Z(0, 30²)", seed=1)
    rows.append(_row(r, "sign + one coin per unit of |y|, one-word acceptance"))
    return rows


def _row(r, sampler: str) -> dict:
    return {"name": r.name, "sampler": sampler, "verdict": r.verdict, "draws": r.n_draws,
            "words": r.words, "p_independence": r.tests["independence_g"]["p_value"],
            "p_spearman": r.tests["spearman"]["p_value"], "seconds": round(r.seconds, 2)}


def throughput_rows(n: int) -> list[dict]:
    from scipy.stats.sampling import DiscreteAliasUrn

    rows = []
    for law in (DiscreteGaussian(sigma=30), DiscreteLaplace(100), Skellam(400)):
        rng = np.random.default_rng(0)
        law.sample(10, rng)
        ours = _best(lambda law=law, rng=rng: law.sample(n, rng))
        lo, hi = law.sampler.lo, law.sampler.hi
        urn = DiscreteAliasUrn(law.pmf(np.arange(lo, hi + 1)), random_state=rng)
        theirs = _best(lambda urn=urn, rng=rng: urn.rvs(n, random_state=rng))
        rows.append({"law": str(law), "table_s": ours, "urn_s": theirs,
                     "ratio": theirs / ours, "tv": float(law.sampling_tv)})
    return rows


# ------------------------------------------------------------------ 2. secure generator
def secure_rows(n: int, users: int) -> list[dict]:
    rows = []
    laws = [("Lap_Z(100) exact", DiscreteLaplace(100), True),
            ("N_Z(0, 100²) exact", DiscreteGaussian(sigma=100), True),
            ("Lap_Z(100) default", DiscreteLaplace(100), False),
            ("N_Z(0, 100²) default", DiscreteGaussian(sigma=100), False)]
    for name, law, exact in laws:
        law.sample(10, 0)
        pcg = _best(lambda law=law, exact=exact: law.sample(n, np.random.default_rng(1),
                                                          exact=exact))
        sec = _best(lambda law=law, exact=exact: law.sample(n, secure_rng(), exact=exact))
        rows.append({"sampler": name, "draws": n, "pcg64_s": pcg, "chacha20_s": sec,
                     "throughput_vs_pcg64": pcg / sec})
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        space = dp.atom_domain(T=int), dp.absolute_distance(T=int)
        for name, meas in (("OpenDP discrete Laplace (100)", dp.m.make_laplace(*space, 100.0)),
                           ("OpenDP discrete Gaussian (100)",
                            dp.m.make_gaussian(*space, 100.0))):
            k = max(1000, n // 100)
            t = _best(lambda meas=meas, k=k: [meas(0) for _ in range(k)], 1) * n / k
            rows.append({"sampler": name, "draws": n, "pcg64_s": None, "chacha20_s": t,
                         "throughput_vs_pcg64": None, "note": f"{k} calls, scaled to {n}"})
    except Exception as exc:  # noqa: BLE001 - the comparison is optional
        rows.append({"sampler": "OpenDP", "note": f"not measured: {exc}"})
    from privtools.planning import plan
    from privtools.protocol import run_batch

    p = plan("cdp", epsilon=1, n=users, horizon=10**4)
    x = np.random.default_rng(0).random(users)
    pcg = _best(lambda: run_batch(x, p, rng=np.random.default_rng(2)), 2)
    sec = _best(lambda: run_batch(x, p, rng=secure_rng()), 2)
    rows.append({"sampler": f"ideal-SecAgg batch, {users} users (CDP plan)", "draws": users,
                 "pcg64_s": pcg, "chacha20_s": sec, "throughput_vs_pcg64": pcg / sec})
    return rows


# ------------------------------------------------------------------ 3. wide laws
def wide_rows(n: int, singles: int) -> list[dict]:
    rows = []
    for s in (10**3, 10**6, 10**9):
        for make, label in ((lambda s: DiscreteGaussian(s), "N_Z(0, σ²)"),
                            (lambda s: DiscreteLaplace(s), "Lap_Z(b)"),
                            (lambda s: Skellam(s * s), "Sk(0, σ²)")):
            whole = make(s)
            for law, part in ((whole, "law"), (whole.shares(1024), "share of 1024")):
                _log(f"wide: {label} at {s:g}, {part}")
                rng = np.random.default_rng(3)
                t0 = time.perf_counter()
                x = law.sample(n, rng)
                first = time.perf_counter() - t0
                t1 = time.perf_counter()
                for _ in range(singles):
                    law.sample(None, rng)
                single = time.perf_counter() - t1
                tv = law.sampling_tv
                rows.append({"law": label, "scale": s, "part": part,
                             "sampler": law.sampler.kind, "draws_s": first,
                             "singles_s": single, "singles": singles,
                             "tv": None if tv is None else float(tv),
                             "sd_ratio": float(np.std(x) / law.std())})
    return rows


# ------------------------------------------------------------------ report
def markdown(res: dict) -> str:
    m = res["meta"]
    out = ["# Sampling on the deployment path: timing, secure randomness, wide laws", "",
           f"Machine: {m['machine']}; Python {m['python']}, numpy {m['numpy']}. "
           f"Command: `{m['command']}`.", "",
           "## 1. Does the word count reveal the value?", "",
           "Single draws from a word-counting ChaCha20 generator; G-test of independence "
           "(value deciles × word counts) and Spearman's ρ, each at α/2 = 0.005 "
           "(`verification.timing.audit_words`). Words are 32-bit.", "",
           "| sampler | path | draws | words min–max (mean) | p (G) | p (Spearman) | verdict |",
           "|---|---|---|---|---|---|---|"]
    for r in res["timing"]:
        w = r["words"]
        out.append(f"| {r['name']} | {r['sampler']} | {r['draws']} | {w['min']}–{w['max']} "
                   f"({w['mean']:.1f}) | {r['p_independence']:.3g} | {r['p_spearman']:.3g} | "
                   f"**{r['verdict']}** |")
    out += ["", "Throughput of the default table (one word per draw, certified TV) against "
            "the float alias urn it replaced (scipy UNU.RAN), same draws, same run:", "",
            "| law | table (s) | UNU.RAN urn (s) | table throughput / urn | certified TV |",
            "|---|---|---|---|---|"]
    for r in res["throughput"]:
        out.append(f"| {r['law']} | {r['table_s']:.4f} | {r['urn_s']:.4f} | "
                   f"{r['ratio']:.2f} | {r['tv']:.2e} |")
    out += ["", "## 2. What the secure generator costs", "",
            "| sampler | draws | PCG64 (s) | ChaCha20 (s) | throughput vs PCG64 |",
            "|---|---|---|---|---|"]
    for r in res["secure"]:
        if r.get("chacha20_s") is None:
            out.append(f"| {r['sampler']} | – | – | – | {r.get('note', '')} |")
            continue
        pcg = "–" if r["pcg64_s"] is None else f"{r['pcg64_s']:.4f}"
        ratio = "–" if r["throughput_vs_pcg64"] is None else f"{r['throughput_vs_pcg64']:.2f}"
        note = f" ({r['note']})" if r.get("note") else ""
        out.append(f"| {r['sampler']}{note} | {r['draws']} | {pcg} | {r['chacha20_s']:.4f} | "
                   f"{ratio} |")
    out += ["", "## 3. Wide laws on the default path", "",
            "| law | σ or b | part | sampler | 10⁶ draws (s, first call) | "
            f"{res['wide'][0]['singles'] if res['wide'] else ''} single calls (s) | "
            "certified TV | sd / law sd |", "|---|---|---|---|---|---|---|---|"]
    for r in res["wide"]:
        tv = "not certified" if r["tv"] is None else f"{r['tv']:.2e}"
        out.append(f"| {r['law']} | {r['scale']:.0e} | {r['part']} | {r['sampler']} | "
                   f"{r['draws_s']:.3f} | {r['singles_s']:.3f} | {tv} | {r['sd_ratio']:.4f} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    ap.add_argument("--json", metavar="PATH", nargs="?", const="-",
                    help="print the results as one JSON object instead of the Markdown "
                         "(with PATH: write them there)")
    ap.add_argument("--markdown", metavar="PATH", help="write the tables as Markdown")
    args = ap.parse_args(argv)
    q = args.quick
    n_timing, n_exact = (4000, 2000) if q else (10**6, 10**5)
    mach = machine()
    res = {"meta": {"machine": f"{platform.machine()}, {mach['cpu']}, {mach['cores']} cores",
                    "python": platform.python_version(), "numpy": np.__version__,
                    "command": "python benchmarks/bench_sampling.py" + (" --quick" if q else "")
                    + (f" --markdown {args.markdown}" if args.markdown else "")}}
    res["timing"] = timing_rows(n_timing, n_exact)
    res["throughput"] = throughput_rows(10**5 if q else 10**6)
    res["secure"] = secure_rows(10**5 if q else 10**6, 10**4 if q else 10**6)
    res["wide"] = wide_rows(10**4 if q else 10**6, 100 if q else 1000)
    text = markdown(res)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json not in (None, "-"):
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1, default=str)
    return emit(res, args.json == "-", lambda _: print(text), default=str)


if __name__ == "__main__":
    sys.exit(main())
