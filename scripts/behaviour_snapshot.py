"""What a refactor must leave unchanged, as one JSON document to compare between two commits.

Usage::

    python scripts/behaviour_snapshot.py [--out PATH] [--skip-trace]
    python scripts/behaviour_snapshot.py --compare OLD.json NEW.json

The snapshot holds, with every timing and machine field dropped:

* ``plans`` — :func:`privtools.planning.plan` dictionaries for every supported
  (privacy, trust, secure) key, both tail modes where they apply, and a Poisson-sampled plan;
* ``accounting`` — the PLD and RDP accountants' certified ε on a fixed set of events, as text;
* ``figures`` — every figure the documentation quotes (``scripts/quoted_figures.py --json``);
* ``trace`` — the DP-Sniper/StatDP zoo, the float suite, the glue zoo and the deployment views
  as ``benchmarks/bench_trace.py --quick --json`` gives them (verdicts, certified intervals,
  finding kinds, black-box verdicts at a fixed seed).

``--compare`` prints every path whose value differs and exits 1 if any does (0 otherwise).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_TIMING = ("seconds", "time", "machine")


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items()
                if not any(t in k for t in _TIMING)}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def _plans() -> dict:
    from privtools.planning import plan
    from privtools.planning.plan import SUPPORTED

    out = {}
    for (privacy, trust, secure) in sorted(SUPPORTED):
        for tail in ("bound", "exact"):
            kw = dict(privacy=privacy, trust=trust, secure=secure, tail=tail,
                      epsilon=1, n=256, horizon=10**5)
            if privacy != "pure-dp":
                kw["delta"] = "1e-6"
            if trust == "local" and tail == "bound":
                kw["c"] = 1
            key = f"{privacy}/{trust}/{secure}/{tail}"
            try:
                out[key] = json.loads(json.dumps(plan(**kw).to_dict(), default=str))
            except Exception as e:  # noqa: BLE001 - a refusal is behaviour too
                out[key] = f"{type(e).__name__}: {e}"
    kw = dict(privacy="rdp", epsilon=1, delta="1e-6", n=256, horizon=10**4,
              sampling="poisson", q="0.01", steps=100)
    try:
        out["rdp/poisson"] = json.loads(json.dumps(plan(**kw).to_dict(), default=str))
    except Exception as e:  # noqa: BLE001
        out["rdp/poisson"] = f"{type(e).__name__}: {e}"
    return out


def _accounting() -> dict:
    from fractions import Fraction

    import privtools.accounting as A

    events = {
        "lap_z": A.DiscreteLaplaceEvent(Fraction(1, 2), 1),
        "gauss": A.GaussianEvent(2.0, 1),
        "skellam": A.SkellamEvent(50, 1),
        "poisson-gauss": A.PoissonSampledEvent(A.GaussianEvent(1.0, 1), 0.01),
    }
    out = {}
    for name, ev in events.items():
        for acc_name, acc in (("pld", A.PldAccountant), ("rdp", A.RdpAccountant),
                              ("pld-add-remove", A.PldAccountant)):
            key = f"{name}/{acc_name}"
            try:
                a = acc(neighbouring="add-remove") if acc_name.endswith("remove") else acc()
                a.compose(ev, 10)
                out[key] = str(a.epsilon(1e-6))
            except Exception as e:  # noqa: BLE001
                out[key] = f"{type(e).__name__}: {e}"
    return out


def _run_json(args: list[str]) -> dict:
    r = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"error": r.stderr[-2000:]}


def snapshot(trace: bool = True) -> dict:
    out = {"plans": _plans(), "accounting": _accounting(),
           "figures": [{k: f[k] for k in ("name", "status", "page", "expected")}
                       for f in _run_json(["scripts/quoted_figures.py", "--json"])["figures"]]}
    if trace:
        out["trace"] = _run_json(["benchmarks/bench_trace.py", "--quick", "--json"])
    return _strip(out)


def _diff(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(dict.fromkeys([*a, *b]))
        return [d for k in keys for d in _diff(a.get(k, "<missing>"), b.get(k, "<missing>"),
                                              f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} -> {b!r}"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--skip-trace", action="store_true")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    a = ap.parse_args(argv)
    if a.compare:
        old, new = (json.loads(p.read_text()) for p in a.compare)
        diffs = _diff(old, new)
        print("\n".join(diffs) if diffs else "identical")
        return 1 if diffs else 0
    text = json.dumps(snapshot(not a.skip_trace), indent=1, sort_keys=True, default=str)
    if a.out:
        a.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
