"""Cost of the secure computation S (privtools.protocol.secure): ideal, masked, shuffle.

What is measured
----------------
1. ``IdealSecAgg().run`` on N = 10^6 users (10^5 with ``--quick``), m = 2**62 − 57, every
   message within 1000 of m (their int64 sum would overflow). Baseline in the same run:
   the Python-int loop ``sum(y.tolist()) % m``. Both are checked equal.
2. ``MaskedSecAgg(threshold=n//2 + 1)`` (Bonawitz et al. 2017, double masking, Shamir-shared
   keys) with n = 1000 users (200 with ``--quick``), m = 2**32 + 15 (any m < 2**62 costs
   the same), without dropouts and with 10% of users dropped (the server then
   reconstructs 100 keys and recomputes 100 × 900 masks). Wall time, and time per user.
   The run simulates all users in one process tree and computes each pair's secret once
   (a deployment computes it at both ends); its O(n²) pairwise work is spread over all
   available cores.
3. Per-pair components, measured in the same run on 2000 pairs: X25519 key agreement
   (``cryptography``), HKDF-SHA256, and mask expansion — vectorized (numpy ChaCha20 over
   all seeds + numpy rejection sampling, what the protocol uses) against the per-pair
   baseline (one ``cryptography`` ChaCha20 call per seed + Python-int rejection sampling);
   ``ratio`` = per-pair baseline / vectorized. From these, the deployment cost of one
   user's device: (n − 1) × (key agreement + HKDF + one per-pair ChaCha20 call).
4. Parallel capacity of the machine right now: a CPU-bound loop in 1 process, then in one
   process per core at once; capacity = cores × t_1 / t_all (2.0 on two idle cores, ~1.0
   when the other core is taken — this VM is shared). Masked at n = 300 with
   ``workers=1`` against all cores shows the speed-up the protocol actually got.
5. ``ShuffleSecAgg(k)`` with k = ``required_k(n, m, 40)`` (Balle et al. 2020 bound) on
   n = 10^5 users (10^4 quick), m = 2**32 + 15, against ``IdealSecAgg`` on the same batch.

Target (issue): "1000 users (all ~500k pairwise key agreements and masks) under 30 s on
this 2-core machine". X25519 in OpenSSL costs ~60 µs here, so the 499,500 agreements alone
are ~30 s of CPU: the target needs both cores free; the table prints the measured
parallel capacity beside the time.

How to read the output
----------------------
Times are best of ``--repeats`` (default 1 for the masked runs, 3 for the rest) with
``time.perf_counter``. Key material comes from the OS CSPRNG, so masked runs are not
bit-reproducible; their totals are checked against ``IdealSecAgg``. PASS/MISS is
informational; the script always exits 0.

Usage: ``python benchmarks/bench_secagg.py [--quick] [--json] [--repeats R]``
"""

from __future__ import annotations

import multiprocessing
import os
import platform
import sys
import time

import numpy as np
from _bench import bench_args, best_of, emit, print_table  # sibling module (run from benchmarks/)

from privtools.protocol import _prg
from privtools.protocol.secure import IdealSecAgg, MaskedSecAgg, ShuffleSecAgg

SEED = 20240607
TARGET_S = 30.0
M_MASKED = 2**32 + 15


def _busy(_):
    t0 = time.perf_counter()
    s = 0
    for i in range(3_000_000):
        s += i
    return time.perf_counter() - t0


def parallel_capacity(cores: int) -> float:
    """cores × t_1 / t_all for a CPU-bound loop (see the module docstring)."""
    t1 = min(_busy(0) for _ in range(2))
    ctx = multiprocessing.get_context("fork" if "fork" in
                                      multiprocessing.get_all_start_methods() else None)
    with ctx.Pool(cores) as pool:
        t0 = time.perf_counter()
        pool.map(_busy, range(cores))
        tall = time.perf_counter() - t0
    return cores * t1 / tall


def n_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        return os.cpu_count() or 1


# ------------------------------------------------------------------------ measurements
def measure_ideal(n: int, repeats: int) -> dict:
    m = 2**62 - 57
    y = np.random.default_rng(SEED).integers(m - 1000, m, size=n, dtype=np.int64)
    t_vec, out = best_of(lambda: IdealSecAgg().run(y, m), repeats)
    t_loop, ref = best_of(lambda: sum(y.tolist()) % m, repeats)
    assert out.total == ref
    return {"name": "ideal", "n": n, "m": m, "time_s": t_vec, "baseline": "sum(list) % m",
            "baseline_time_s": t_loop, "ratio": t_loop / t_vec}


def measure_components(pairs: int, m: int, repeats: int) -> dict:
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    a = [X25519PrivateKey.generate() for _ in range(50)]
    b = [X25519PrivateKey.generate().public_key() for _ in range(pairs // 50)]
    session = os.urandom(32)
    t_ex, secrets = best_of(lambda: [k.exchange(p) for k in a for p in b], repeats)
    count = len(secrets)
    t_kdf, seeds = best_of(lambda: [_prg.derive_seed(s, _prg.pair_info(session, 1, 2))
                                    for s in secrets], repeats)
    sampler = _prg.MaskSampler.for_modulus(m)
    t_vec, masks = best_of(lambda: _prg.masks_from_seeds(seeds, sampler), repeats)
    t_loop, ref = best_of(lambda: [sampler.mask_reference(s) for s in seeds], repeats)
    assert [int(v) for v in masks] == ref
    return {"pairs": count, "exchange_us": t_ex / count * 1e6, "hkdf_us": t_kdf / count * 1e6,
            "prg_vectorized_us": t_vec / count * 1e6, "prg_per_pair_us": t_loop / count * 1e6,
            "prg_ratio": t_loop / t_vec}


def measure_masked(n: int, dropout_frac: float, repeats: int, workers=None) -> dict:
    rng = np.random.default_rng(SEED + n)
    y = rng.integers(0, M_MASKED, size=n)
    drop = list(range(0, n, round(1 / dropout_frac))) if dropout_frac else []
    agg = MaskedSecAgg(threshold=n // 2 + 1, workers=workers)
    t, out = best_of(lambda: agg.run(y, M_MASKED, rng, dropouts=drop), repeats)
    assert out.total == IdealSecAgg().run(y, M_MASKED, dropouts=drop).total
    pairs = n * (n - 1) // 2 - len(drop) * (len(drop) - 1) // 2
    return {"name": "masked", "n": n, "dropped": len(drop), "threshold": agg.threshold,
            "workers": workers if workers is not None else "auto", "time_s": t,
            "per_user_ms": t / n * 1e3, "pair_agreements": pairs + len(drop) * (n - len(drop)),
            "bytes_sent": out.bytes_sent}


def measure_shuffle(n: int, repeats: int) -> dict:
    m = M_MASKED
    k = ShuffleSecAgg.required_k(n, m, 40)
    y = np.random.default_rng(SEED).integers(0, m, size=n)
    agg = ShuffleSecAgg(k)
    t, out = best_of(lambda: agg.run(y, m, SEED), repeats)
    t_ideal, ref = best_of(lambda: IdealSecAgg().run(y, m), repeats)
    assert out.total == ref.total
    return {"name": "shuffle", "n": n, "m": m, "k": k, "sigma": 40, "time_s": t,
            "ideal_time_s": t_ideal, "ratio_vs_ideal": t / t_ideal}


# ------------------------------------------------------------------------ output
def report_text(r: dict) -> None:
    cfg = r["config"]
    print(f"Secure computation S (privtools.protocol.secure); python {cfg['python']}, numpy "
          f"{cfg['numpy']}, {cfg['cores']} cores, load average at start {cfg['load_start']}")
    print(f"parallel capacity now: {r['capacity']:.2f} of {cfg['cores']} cores\n")
    i = r["ideal"]
    print_table(["protocol", "n", "time", "baseline", "baseline time", "ratio"],
                [["ideal", f"{i['n']:,}", f"{i['time_s'] * 1e3:.1f} ms", i["baseline"],
                  f"{i['baseline_time_s'] * 1e3:.1f} ms", f"{i['ratio']:.1f}x"]], "lrrlrr")
    c = r["components"]
    print(f"\nPer pair ({c['pairs']} pairs): X25519 {c['exchange_us']:.1f} us, HKDF "
          f"{c['hkdf_us']:.1f} us, mask expansion {c['prg_vectorized_us']:.2f} us vectorized "
          f"vs {c['prg_per_pair_us']:.1f} us per-pair loop ({c['prg_ratio']:.1f}x)")
    rows = []
    for mrow in r["masked"]:
        rows.append([str(mrow["n"]), str(mrow["dropped"]), str(mrow["threshold"]),
                     str(mrow["workers"]), f"{mrow['pair_agreements']:,}",
                     f"{mrow['time_s']:.2f} s", f"{mrow['per_user_ms']:.1f} ms",
                     f"{mrow['bytes_sent'] / 1e6:.1f} MB"])
    print("\nMasked SecAgg (in-process simulation, each pair computed once):")
    print_table(["n", "dropped", "t", "workers", "agreements", "time", "per user", "uploaded"],
                rows, "rrrrrrrr")
    s = r["summary"]
    print(f"\nparallel speed-up at n = {s['speedup_n']}: {s['speedup']:.2f}x with "
          f"{cfg['cores']} workers (capacity {r['capacity']:.2f})")
    print(f"deployment cost of one user's device at n = {s['target_n']}: "
          f"{s['device_ms']:.0f} ms ((n-1) x (X25519 + HKDF + per-pair ChaCha20))")
    sh = r["shuffle"]
    print(f"\nShuffle (split-and-mix), n = {sh['n']:,}, k = {sh['k']} (sigma = 40): "
          f"{sh['time_s'] * 1e3:.1f} ms, {sh['ratio_vs_ideal']:.1f}x the ideal sum "
          f"({sh['ideal_time_s'] * 1e3:.2f} ms)")
    verdict = ("PASS" if s["target_met"] else "MISS") if s["target_n"] == 1000 else \
        "not measured (--quick)"
    print(f"\ntarget: {s['target_n']} users under {TARGET_S:.0f} s: {verdict} "
          f"(no dropouts {s['masked_time_s']:.1f} s, 10% dropouts "
          f"{s['masked_drop_time_s']:.1f} s; load average at end {cfg['load_end']}); "
          f"total {s['wall_time_s']:.0f} s")


def main(argv=None) -> int:
    args = bench_args(__doc__, argv, repeats=None,
                      quick_help="n = 200 masked users, 10^5 ideal, 10^4 shuffle (under ~30 s)")
    rep = args.repeats or 3
    rep_masked = args.repeats or 1
    n_ideal = 10**5 if args.quick else 10**6
    n_masked = 200 if args.quick else 1000
    n_speed = 100 if args.quick else 300
    n_shuffle = 10**4 if args.quick else 10**5
    cores = n_cores()

    t0 = time.perf_counter()
    load_start = tuple(round(x, 2) for x in os.getloadavg())
    capacity = parallel_capacity(cores)
    ideal = measure_ideal(n_ideal, rep)
    comps = measure_components(2000, M_MASKED, rep)
    masked = [measure_masked(n_masked, 0.0, rep_masked),
              measure_masked(n_masked, 0.1, rep_masked)]
    serial = measure_masked(n_speed, 0.0, rep_masked, workers=1)
    parallel = measure_masked(n_speed, 0.0, rep_masked, workers=cores)
    masked += [serial, parallel]
    shuffle = measure_shuffle(n_shuffle, rep)
    wall = time.perf_counter() - t0
    device_s = (n_masked - 1) * (comps["exchange_us"] + comps["hkdf_us"]
                                 + comps["prg_per_pair_us"]) * 1e-6
    result = {
        "benchmark": "secagg",
        "config": {"quick": args.quick, "python": platform.python_version(),
                   "numpy": np.__version__, "machine": platform.machine(), "cores": cores,
                   "load_start": load_start,
                   "load_end": tuple(round(x, 2) for x in os.getloadavg())},
        "capacity": capacity,
        "ideal": ideal,
        "components": comps,
        "masked": masked,
        "shuffle": shuffle,
        "summary": {
            "target_n": n_masked,
            "masked_time_s": masked[0]["time_s"],
            "masked_drop_time_s": masked[1]["time_s"],
            "target_met": (max(masked[0]["time_s"], masked[1]["time_s"]) < TARGET_S
                           if n_masked == 1000 else None),
            "speedup_n": n_speed,
            "speedup": serial["time_s"] / parallel["time_s"],
            "device_ms": device_s * 1e3,
            "wall_time_s": wall,
        },
    }
    return emit(result, args.json, report_text, default=str)


if __name__ == "__main__":
    sys.exit(main())
