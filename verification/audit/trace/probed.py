"""What the probes alone say when the tracked forms cannot be used: findings and candidate
events for a sampled confirmation — never a certificate.

:func:`untracked_findings` reads the probes' linear model (:mod:`.record.model`) of a pair
whose forms were refused (:mod:`.certify.forms`): coefficients that differ between d and d',
outputs no draw moves that differ under coupling (once fresh runs show them constant),
outputs that move non-additively with the noise. :func:`candidate_events` proposes
output events from coupled trace runs only, so a sampled test of them on fresh draws keeps
its level.
"""

from __future__ import annotations

import math

import numpy as np

from ..events import Column, Event, Value
from .certify.releases import coefs as _coefs
from .certify.releases import scaled
from .record.leaves import same_leaf
from .result import DATA_DEPENDENT, UNNOISED

__all__ = ["untracked_findings", "candidate_events", "text"]

_COUPLED = 32               # coupled runs that propose candidate events
_CANDIDATES = 8             # candidate events handed to a sampled confirmation


def text(v) -> str:
    """A value in a finding's words (arrays abbreviated)."""
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=8, separator=", ", threshold=8)
    return repr(v)


def untracked_findings(t, rec, rp, draws, fm, dep, dep_p) -> None:
    """The findings of the trace ``t`` on a pair whose forms ``fm`` were refused, from the
    probes ``dep`` (on d) and ``dep_p`` (on d'); candidate events where the noise steers."""
    for j, (ra, rb, _) in fm.scaled.items():
        scaled(t, rec.tree.paths[j], ra, rb, draws)
    steered = dep.steered + dep_p.steered
    if steered:
        t.steered.append(steered[0])
    for note in (dep.raised + dep_p.raised)[:1]:
        t.undecided.append(note)
    paths = rec.tree.paths
    # a leaf that changes from fresh run to fresh run but that no probe moves
    # additively depends on the noise in a way the probes did not resolve
    nonlinear = dep.nonlinear | dep_p.nonlinear | (t.varying - set(dep.moved))
    moved = dep.moved_leaves() | dep_p.moved_leaves() | nonlinear
    for j in sorted(set(dep.moved) & set(dep_p.moved)):
        if dep.moved[j] != dep_p.moved[j]:
            # the probes' coefficients are not established: no loss attached
            t.add(DATA_DEPENDENT, f"output{paths[j]}",
                  f"the noise reaching it is scaled by {_coefs(dep.moved[j], draws)} on "
                  f"d but {_coefs(dep_p.moved[j], draws)} on d' (the code scales the "
                  "noise by a factor computed from the data)")
    _unnoised(t, rec, rp, moved)
    if nonlinear:
        _nonlinear(t, paths, nonlinear)
    if t.steered:
        t.candidates = candidate_events(t, rec)


def _unnoised(t, rec, rp, moved) -> None:
    """Outputs no probe moves that differ under coupling: unnoised (infinite loss) once
    fresh runs show them constant, undecided where the noise steers them."""
    paths = rec.tree.paths
    ya, yb = rec.tree.values, rp.tree.values
    apart = [j for j in range(len(paths)) if j not in moved and not same_leaf(ya[j], yb[j])]
    still = apart and not t.steered and not (set(apart) & t.varying) and \
        t._constant(rec, leaves=apart)
    for j in apart:
        if not still:
            t.undecided.append(f"output{paths[j]} differs under coupling but changes "
                               "with the noise through the control flow")
            continue
        t.add(UNNOISED, f"output{paths[j]}",
              f"{text(ya[j])} on d, {text(yb[j])} on d' under identical randomness, "
              "and no draw moves it", loss=math.inf)


def _nonlinear(t, paths, nonlinear) -> None:
    """Outputs that move non-additively with the noise: undecided, and the noise steers."""
    first = f"output{paths[min(nonlinear)]}"
    t.undecided.append(f"{len(nonlinear)} output(s) move non-additively with the "
                       f"noise (e.g. {first})")
    t.steered.append(f"{first} and {len(nonlinear) - 1} other output(s) move "
                     "non-additively with the noise (comparisons, an argmax, rounding or "
                     "clipping of noisy values)" if len(nonlinear) > 1 else
                     f"{first} moves non-additively with the noise (a comparison, an "
                     "argmax, rounding or clipping of a noisy value)")


def _coupled_runs(t, rec) -> tuple[dict, dict]:
    """Votes for value events and coupled float pairs, over :data:`_COUPLED` coupled runs."""
    votes: dict[tuple, int] = {}
    pairs: dict[int, list] = {}
    for r in range(_COUPLED):
        run = t.runner.record(t.d, t.seed + 1000 + r)
        other = t.runner.replay(t.dp, run.calls)
        if other.tree is None or not other.tree.structure == run.tree.structure:
            continue
        for j, (a, b) in enumerate(zip(run.tree.values, other.tree.values)):
            if same_leaf(a, b):
                continue
            if isinstance(a, float) and isinstance(b, float) and \
                    math.isfinite(a) and math.isfinite(b):
                pairs.setdefault(j, []).append((a, b))
                continue
            for v, side in ((a, "d"), (b, "d_prime")):
                try:
                    hash(v)
                except TypeError:
                    continue
                votes[(j, side, v)] = votes.get((j, side, v), 0) + 1
    return votes, pairs


def candidate_events(t, rec) -> tuple:
    """Events on the outputs that differ between d and d' under coupling, over fresh
    seeds: a value set for integer and categorical outputs, a threshold between the
    coupled values for float ones. Chosen from trace runs only, so a sampled test of
    them on fresh draws keeps its level (:func:`verification.audit.trace.confirm.confirm`)."""
    tree = rec.tree
    if not tree.structure or tree.structure[0][1] != "array":
        return ()
    shape = tree.structure[0][2]
    if len(shape) not in (1, 2) or shape[0] != 1:
        return ()
    scalar = len(shape) == 1
    votes, pairs = _coupled_runs(t, rec)
    for j, ab in pairs.items():         # float outputs: tails in the favoured direction
        up = sum(a > b for a, b in ab) * 2 >= len(ab)
        pooled = np.array([x for p in ab for x in p])
        for q in (0.05, 0.5, 0.95):
            thr = float(np.quantile(pooled, 1 - q if up else q))
            votes[(j, "ge" if up else "le", thr)] = len(ab)
    out = []
    for (j, how, v), _ in sorted(votes.items(), key=lambda kv: -kv[1]):
        view = Value() if scalar else Column(j)
        if how in ("ge", "le"):
            out.append(Event(how, "d", threshold=v, view=view))
        else:
            out.append(Event("set", how, values=(v,), view=view, keys=np.asarray([v])))
        if len(out) == _CANDIDATES:
            break
    return tuple(out)
