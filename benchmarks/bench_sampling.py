"""Sampling on the deployment path: does a sampler's word count reveal its value, is every
default sampler fixed-budget and certified at the planner's scales, how close the tables run
to the generator's raw word rate, and what the secure generator costs.

Four tables, each measured in one run on this machine:

1. **Timing** — ``verification.timing.audit_words`` on 10^6 single draws (value, 32-bit
   words consumed) for the per-user shares of Theorems 1, 2 and 4 (000) and every kind of
   default path (table, digits, the three rejection samplers), against the exact (CKS20)
   samplers and a plain unary rejection sampler as the controls that must fail.
2. **Every default sampler** — DiscreteLaplace / Skellam / DiscreteGaussian at b or σ in
   1, 10^3, 10^6, 10^9, whole and as shares of 2, 2^10, 2^20 users: the path, its certified
   TV, the cold first call (table built, cache empty), the warm one (a second instance of
   the same law), 1 000 single-draw calls, a word audit on 10^5 single draws and the sd of
   10^5 draws against the law's.
3. **Word rate** — the default tables against the raw word rate of the same generator
   (PCG64 and ChaCha20, 10^7 draws, same run), with the compiled bulk path
   (``privtools/noise/_samplers/kernel.py``) and with numpy.
4. **Secure generator** — integer samplers on ChaCha20 (``privtools.secure_rng()``) against
   seeded PCG64, and against OpenDP's discrete Laplace / Gaussian where installed; one
   ideal-SecAgg batch of 10^6 users on each generator.

    python benchmarks/bench_sampling.py --markdown docs/tables/sampling.md     # ~15 min
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
        ("Lap_Z(10⁶) share of 16, default (rejection)", DiscreteLaplace(10**6).shares(16),
         {}, n),
        ("Lap_Z(10⁹) share of 2²⁰, default (rejection)",
         DiscreteLaplace(10**9).shares(2**20), {}, n),
        ("Lap_Z(10⁴) share of 2, default (rejection)", DiscreteLaplace(10**4).shares(2), {}, n),
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
    from privtools.noise._samplers import kernel as _kernel
    from privtools.planning import plan

    share = plan("pure-dp", epsilon=1, n=1024, horizon=10**4).share
    laws = [("Lap_Z(320)", DiscreteLaplace(320)), ("Sk(0, 10⁵)", Skellam(10**5)),
            ("N_Z(0, 100²)", DiscreteGaussian(sigma=100)),
            ("Theorem 1 share, n = 1024", share),
            ("Lap_Z(1000) share of 1024", DiscreteLaplace(1000).shares(1024))]
    rows = []
    for gen, make in (("PCG64", lambda: np.random.default_rng(1)), ("ChaCha20", secure_rng)):
        rng = make()
        for name, law in laws:
            law.sample(_kernel.BULK, rng)                # table built, kernel compiled
            raw = fast = plain = float("inf")
            for _ in range(5):          # interleaved, so both sides see the same machine
                raw = min(raw, _best(lambda rng=rng: rng.bit_generator.random_raw(n), 1))
                fast = min(fast, _best(lambda law=law, rng=rng: law.sample(n, rng), 1))
            saved, _kernel._KERNEL = _kernel._KERNEL, False
            try:
                for _ in range(2):
                    raw = min(raw, _best(lambda rng=rng: rng.bit_generator.random_raw(n), 1))
                    plain = min(plain, _best(lambda law=law, rng=rng: law.sample(n, rng), 1))
            finally:
                _kernel._KERNEL = saved
            rows.append({"generator": gen, "law": name, "points": law.sampler.points,
                         "raw_words_per_s": n / raw, "table_s": fast, "numpy_s": plain,
                         "ratio": raw / fast, "numpy_ratio": raw / plain,
                         "kernel": _kernel.kernel_name(), "tv": float(law.sampling_tv)})
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
def wide_rows(n: int, singles: int, audit_n: int) -> list[dict]:
    from privtools.noise._samplers import cache as _cache

    rows = []
    for make, label in ((lambda s: DiscreteLaplace(s), "Lap_Z(b)"),
                        (lambda s: Skellam(s * s), "Sk(0, σ²)"),
                        (lambda s: DiscreteGaussian(s), "N_Z(0, σ²)")):
        for s in (1, 10**3, 10**6, 10**9):
            for users in (1, 2, 2**10, 2**20):
                part = "law" if users == 1 else f"share of {users}"
                _log(f"sampler: {label} at {s:g}, {part}")
                law = make(s) if users == 1 else make(s).shares(users)
                cold = float("inf")                 # best of 3 fresh builds
                for _ in range(3):
                    _cache.clear_sampler_cache()
                    fresh = make(s) if users == 1 else make(s).shares(users)
                    t0 = time.perf_counter()
                    sampler = fresh.sampler
                    cold = min(cold, time.perf_counter() - t0)
                law = fresh
                again = make(s) if users == 1 else make(s).shares(users)
                t0 = time.perf_counter()
                _ = again.sampler
                warm = time.perf_counter() - t0
                rng = np.random.default_rng(3)
                law.sample(None, rng)
                single = float("inf")               # best of 3 rounds
                for _ in range(3):
                    t0 = time.perf_counter()
                    for _ in range(singles):
                        law.sample(None, rng)
                    single = min(single, time.perf_counter() - t0)
                x = law.sample(n, rng)
                r = audit_words(lambda g, law=law: law.sample(None, g), audit_n,
                                center=law.center, seed=4)
                tv = law.sampling_tv
                rows.append({"law": label, "scale": s, "part": part,
                             "sampler": sampler.kind, "describe": sampler.describe(),
                             "cold_s": cold, "warm_s": warm, "singles_s": single,
                             "singles": singles, "tv": None if tv is None else float(tv),
                             "audit": r.verdict, "audit_draws": audit_n,
                             "words_mean": r.words["mean"],
                             "sd_ratio": (float(np.std(x) / law.std()) if np.std(x) > 0
                                          else None)})
    return rows


# ------------------------------------------------------------------ report
def _fmt_rows(res: dict) -> list[str]:
    out = ["", "## 2. Every default sampler at the planner's scales", "",
           f"Cold: the first `law.sampler` of a fresh instance with the cache empty (the table "
           f"built; best of 3); warm: a second instance of the same law; single calls: "
           f"`law.sample(None, rng)` (best of 3 rounds of) "
           f"{res['wide'][0]['singles'] if res['wide'] else ''} times; word audit: "
           f"`audit_words` on {res['wide'][0]['audit_draws'] if res['wide'] else ''} single "
           "draws (α = 0.01); sd from 10⁶ draws (10⁴ with `--quick`).", "",
           "| law | σ or b | part | sampler | certified TV | cold (s) | warm (ms) | "
           "single calls (s) | words (mean) | word audit | sd / law sd |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in res["wide"]:
        tv = "not certified" if r["tv"] is None else f"{r['tv']:.2e}"
        out.append(f"| {r['law']} | {r['scale']:.0e} | {r['part']} | {r['sampler']} | {tv} | "
                   f"{r['cold_s']:.3f} | {1e3 * r['warm_s']:.3f} | {r['singles_s']:.3f} | "
                   f"{r['words_mean']:.1f} | **{r['audit']}** | "
                   + ("– (every draw 0)" if r["sd_ratio"] is None else f"{r['sd_ratio']:.4f}")
                   + " |")
    out += ["", "## 3. The tables against the generator's raw word rate", "",
            "10⁷ draws (10⁵ with `--quick`), best of 5, each table's timings interleaved with "
            "the raw generator's (`bit_generator.random_raw`, best of 7); 'compiled' is the "
            "bulk path of "
            "`privtools/noise/_samplers/kernel.py` (numba), 'numpy' the same table without it.", "",
            "| generator | law | table points | raw words/s | compiled (s) | compiled / raw | "
            "numpy (s) | numpy / raw | certified TV |", "|---|---|---|---|---|---|---|---|---|"]
    for r in res["throughput"]:
        out.append(f"| {r['generator']} | {r['law']} | {r['points']} | "
                   f"{r['raw_words_per_s'] / 1e6:.0f} M | {r['table_s']:.4f} | "
                   f"{r['ratio']:.2f} | {r['numpy_s']:.4f} | {r['numpy_ratio']:.2f} | "
                   f"{r['tv']:.2e} |")
    return out


def markdown(res: dict) -> str:
    m = res["meta"]
    out = ["# Sampling on the deployment path: timing, every default sampler, word rate, "
           "secure randomness", "",
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
    out += _fmt_rows(res)
    out += ["", "## 4. What the secure generator costs", "",
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
    res["wide"] = wide_rows(10**4 if q else 10**6, 100 if q else 1000, 400 if q else 10**5)
    res["throughput"] = throughput_rows(10**5 if q else 10**7)
    res["secure"] = secure_rows(10**5 if q else 10**6, 10**4 if q else 10**6)
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
