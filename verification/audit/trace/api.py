"""``trace_mechanism``: a grey-box audit of one neighbouring pair, decided without sampling.

The mechanism ``mechanism(dataset, size, rng)`` is run with ``size = 1`` on a recording
generator (:mod:`.recorder`), then replayed on ``d'`` with the same draws (:mod:`.runs`):

1. **Traceable?** A replay on ``d`` must reproduce the recorded output; if it does not, the
   mechanism draws randomness that does not come through ``rng`` (a fresh generator, the
   global state, a library's own) and nothing is decided: ``untraceable``.
2. **The calls.** A calibration parameter (scale, σ, p, n, size) that differs between ``d``
   and ``d'`` — or a noise scaled in the mechanism's own code by a factor that differs — is
   ``data-dependent-parameter``. Calls, parameters or structure that change between fresh
   runs on the same dataset, or when one draw is moved, show control flow steered by the
   noise: ``noise-dependent-control-flow`` (what the trace could not decide is said, and
   the outputs that differ under coupling are handed on as candidate events).
3. **The outputs.** An output part (a key set, a length, a value) that differs between ``d``
   and ``d'`` under identical randomness and that no draw moves — or a combination of
   outputs whose shared noise cancels — is an ``unnoised-output``: infinite privacy loss.
4. **The releases.** Outputs moved additively by draws are releases of those draws' laws;
   the shift between ``d`` and ``d'`` is measured exactly (:mod:`.model`) and its loss is the
   law's shift privacy-loss distribution, composed (:mod:`.certify`): a certified ε(δ)
   interval for the pair's view. Above the claim — or above a declared per-release
   sensitivity — is ``sensitivity``, with no sampling.

Verdicts: ``"fail"`` (an exact finding of infinite loss, a shift beyond a declared
sensitivity, or the certified interval above the claim), ``"holds"`` (every output decided,
the interval at or below the claim: a certificate for this pair) and ``"inconclusive"``
otherwise — never a pass by default. Continuous noise
(``laplace``, ``normal``) is certified for the real-arithmetic law; its float implementation
is not (Mironov, CCS 2012), so such a pair holds only with ``arithmetic="real"``.

What the trace sees is what the probes exercised: a branch on the noise that no probe,
fresh run or replay takes is not seen. The certificate is for this pair only.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from privtools.certified import ends, fraction_bounds, interval
from privtools.errors import ParameterError
from privtools.validation import check_int, to_fraction

from .. import guard
from ..draws import root_seed
from ..neighbours import check_pair
from ..values import check_claim
from . import certify, paths
from .certify import qtext as _q
from .certify.releases import form_model_of, portable, scaled, tracked_leaves, two_gaussians
from .paths import align
from .probed import candidate_events, untracked_findings
from .probed import text as _text
from .record.leaves import same_leaf, same_tree
from .record.model import MAX_PROBED, draws_of, probe
from .record.recorder import same_value
from .record.runs import Runner
from .result import (
    DATA_DEPENDENT,
    KINDS,
    PATH_LOSS,
    SENSITIVITY,
    STEERED,
    UNNOISED,
    UNTRACEABLE,
    Finding,
    TraceResult,
    kind,
    round_down,
    round_up,
)

__all__ = ["Finding", "TraceResult", "trace_mechanism", "KINDS", "ARITHMETIC", "RTOL"]

ARITHMETIC = ("exact", "real")
#: Default relative slack of the verdict: a parameter computed in floating point (a scale
#: 1/ε) moves the exact loss by a few ulps, which is rounding of the calibration, not a bug.
RTOL = 2.0 ** -40
_FRESH = 4                  # fresh runs per dataset that test the control flow
_REPLAYS = 4                # replays on d, each on its own bit-generator key
_CONSTANT = 32              # fresh runs per dataset before an output is called unnoised
_PRIMITIVES = 10_000        # calls kept in the result


# ====================================================================== checks
def _check_declared(declared):
    if declared is None:
        return None
    if isinstance(declared, dict):
        out = {}
        for k, v in declared.items():
            if not isinstance(k, str):
                raise ParameterError(f"declared must map output paths (str) to sensitivities, "
                                     f"got the key {k!r}")
            out[k] = _nonneg_fraction("declared", v)
        return out
    return _nonneg_fraction("declared", declared)


def _nonneg_fraction(name, v) -> Fraction:
    q = to_fraction(name, v)
    if q < 0:
        raise ParameterError(f"{name} must be >= 0, got {v!r}")
    return q


def _check_modulus(modulus):
    if modulus is None:
        return None
    return check_int("modulus", modulus, minimum=2)


# ====================================================================== the work
class _Trace:
    """The state of one trace while it runs (see :func:`trace_mechanism`)."""

    def __init__(self, runner, d, dp, eps, delta, declared, modulus, arithmetic, seed,
                 rtol=RTOL, use_paths=True, relation=None, path_cache=None):
        self.rtol = rtol
        self.runner, self.d, self.dp = runner, d, dp
        self.eps, self.delta = eps, delta
        self.declared, self.modulus, self.arithmetic, self.seed = (declared, modulus,
                                                                   arithmetic, seed)
        self.findings: list[Finding] = []
        self.decided: list[str] = []
        self.undecided: list[str] = []
        self.steered: list[str] = []
        self.candidates: tuple = ()
        self.rescaled: set[int] = set()        # calls whose calibration differs
        self.fresh_dp = None                   # a fresh run on d' (its structure)
        self.declared_broken = False           # a shift beyond the declared sensitivity
        self.varying: set[int] = set()
        self.fixed: list[int] = []             # outputs no draw reaches, equal on d and d'
        self.tracked_ok = False                # the releases come from tracked forms
        self.gaussian_dp = False               # a data-dependent σ, certified at δ > 0
        self.coupled_dp = None                 # the coupled replay on d'
        self.bounded: tuple = ()               # nodes: the interval is an upper bound only
        self.untracked: str | None = None      # why the forms could not be used
        self.path_report = None                # what the paths decided (.paths)
        self.superseded = False                # the paths' interval replaced the releases
        self.use_paths = use_paths
        self.relation = relation               # a proof is searched for this relation
        self.path_cache = path_cache
        self.proof = None

    def add(self, name, where, detail, loss=None, exact=None):
        """Record a finding once per (kind, where); ``exact`` defaults to its kind's."""
        if not any(f.kind == name and f.where == where for f in self.findings):
            self.findings.append(Finding(name, where, detail, loss,
                                         kind(name).exact if exact is None else exact))

    # ------------------------------------------------------------------ steps
    def _unreplayable(self, rec) -> str | None:
        """Why the recorded draws on d cannot be replayed (None: they can)."""
        why = rec.untraced[0] if rec.untraced else None
        for key in range(_REPLAYS):       # replays on bit generators keyed apart
            again = self.runner.replay(self.d, rec.calls, tolerate=False, key=key)
            if why is None and (again.diverged or not same_tree(again.tree, rec.tree)):
                why = again.diverged or "a replay of the recorded draws on d gave another output"
        if why is None and not rec.calls:  # nothing drawn through rng, yet the output varies?
            other = self.runner.record(self.d, self.seed + 1)
            if not same_tree(other.tree, rec.tree):
                why = "no draw came through rng, yet two runs on d gave different outputs"
        return why

    def run(self):
        rec = self.runner.record(self.d, self.seed)
        why = self._unreplayable(rec)
        if why is not None:
            self.add(UNTRACEABLE, "the mechanism's randomness",
                     f"{why}: the mechanism draws randomness that does not come through the "
                     "rng it is given (a fresh default_rng(), numpy's global state, a "
                     "library's own generator, or a method the trace does not record)",
                     exact=False)
            self.undecided.append("everything: the draws cannot be replayed")
            return self.result(rec, None)
        self.decided.append(f"traceable: {len(rec.calls)} noise call(s), replayed exactly")
        self._fresh_runs(rec)
        if not rec.calls and (self.varying or self.steered):
            self.add(UNTRACEABLE, "the mechanism's randomness",
                     "no draw came through rng, yet fresh runs on d differ: the mechanism "
                     "draws randomness of its own", exact=False)
            self.steered.clear()
            self.undecided.append("everything: the draws cannot be replayed")
            return self.result(rec, None)
        rp = self.runner.replay(self.dp, rec.calls)
        if rp.tree is None:
            self.runner.record(self.dp, self.seed)        # surfaces the mechanism's error
            self.undecided.append(f"the coupled replay on d' failed ({rp.error})")
            return self.result(rec, None)
        self._compare_calls(rec, rp)
        if rp.diverged is not None:
            other = self.fresh_dp
            if other is not None and other.tree.structure != rec.tree.structure:
                self._structure(rec, other)       # the structure follows the data alone
            return self.result(rec, None)
        if rec.tree.structure != rp.tree.structure:
            self._structure(rec, rp)
            return self.result(rec, None)
        releases, bound_only = self._leaves(rec, rp)
        return self.result(rec, releases, bound_only=bound_only)

    def _fresh_runs(self, rec):
        """Fresh runs on each dataset: do the calls or the structure follow the noise?"""
        bases = {0: rec, 1: None}
        self.fresh_dp = None
        for r in range(1, _FRESH + 1):
            for side, data in ((0, self.d), (1, self.dp)):
                run = self.runner.record(data, self.seed + r)
                base = bases[side]
                if base is None:
                    bases[side] = self.fresh_dp = run
                    continue
                name = "d" if side == 0 else "d'"
                if [c.signature() for c in run.calls] != [c.signature() for c in base.calls]:
                    self.steered.append(f"fresh runs on {name} make different noise calls")
                elif any(not _same_params(a, b) for a, b in zip(run.calls, base.calls)):
                    self.steered.append(f"a noise parameter on {name} changes from run to run "
                                        "(it depends on earlier draws)")
                if run.tree.structure != base.tree.structure:
                    self.steered.append(f"the output's structure on {name} changes from run "
                                        "to run")
                elif side == 0:
                    for j, (a, b) in enumerate(zip(run.tree.values, base.tree.values)):
                        if not same_leaf(a, b):
                            self.varying.add(j)

    def _compare_calls(self, rec, rp):
        for a, b in zip(rec.calls, rp.calls):
            for name, va in a.params.items():
                vb = b.params.get(name)
                if name == "size" or not same_value(va, vb):
                    if name == "size" and a.shape == b.shape:
                        continue
                    # no loss yet: _rescaled_loss makes it infinite where the draw is
                    # released additively (the output may post-process it otherwise)
                    self.add(DATA_DEPENDENT, f"{a.method} (call {a.index})",
                             f"the parameter {name} is {_text(va)} on d but {_text(vb)} on d' "
                             "(the noise is calibrated from the data)")
                    self.rescaled.add(a.index)
        if rp.diverged is not None:
            if any(f.kind == DATA_DEPENDENT for f in self.findings):
                pass                            # the differing call is already a finding
            elif self.steered:
                self.undecided.append(f"the calls on d' differ ({rp.diverged}), and the noise "
                                      "steers the calls: not decided")
            else:
                self.add(DATA_DEPENDENT, "the sequence of noise calls",
                         f"{rp.diverged} (the noise drawn depends on the data)")
        elif not any(f.kind == DATA_DEPENDENT for f in self.findings):
            self.decided.append("the noise calls and their parameters are the same on d and "
                                "d'")

    def _structure(self, rec, rp):
        a = dict((s[0], s) for s in rec.tree.structure)
        b = dict((s[0], s) for s in rp.tree.structure)
        where = next((p for p in list(a) + list(b) if a.get(p) != b.get(p)), "output")
        detail = (f"the output's structure differs under identical randomness: "
                  f"{_struct(a.get(where))} on d, {_struct(b.get(where))} on d'")
        if self.steered or not self._constant(rec, structure=True):
            self.undecided.append(detail + " — but the noise steers the structure: not "
                                  "decided; see the candidate events")
            self.candidates = candidate_events(self, rec)
            return
        self.add(UNNOISED, f"output{where}", detail + " (no draw moves it)",
                 loss=math.inf)

    def _constant(self, rec, structure: bool = False, leaves=()) -> bool:
        """Before an infinite loss is claimed: the structure (or ``leaves``) stays the same
        over :data:`_CONSTANT` more fresh runs on each dataset. Randomness that escaped the
        trace (a library's own generator) shows here; with no draw through rng it makes
        the mechanism untraceable."""
        for side, data in ((0, self.d), (1, self.dp)):
            first = None
            for r in range(_CONSTANT):
                run = self.runner.record(data, self.seed + 500 + 1000 * side + r)
                first = run if first is None else first
                same = (run.tree.structure == first.tree.structure) if structure else (
                    run.tree.structure == first.tree.structure and all(
                        same_leaf(run.tree.values[j], first.tree.values[j]) for j in leaves))
                if not same:
                    if not rec.calls:
                        name = "d" if side == 0 else "d'"
                        self.add(UNTRACEABLE, "the mechanism's randomness",
                                 f"no draw came through rng, yet fresh runs on {name} "
                                 "differ: the mechanism draws randomness of its own",
                                 exact=False)
                    return False
        return True

    def _leaves(self, rec, rp):
        """Probes, the linear model and the releases (see :mod:`.model`)."""
        draws = draws_of(rec.calls)
        if len(draws) > MAX_PROBED:
            self.undecided.append(f"{len(draws)} draws: more than the {MAX_PROBED} the trace "
                                  "probes one by one")
            return None, False
        dep = probe(self.runner, self.d, rec, draws, modulus=self.modulus)
        dep_p = probe(self.runner, self.dp, rp, draws, modulus=self.modulus)
        fm = form_model_of(self, rec, rp, draws, dep, dep_p)
        self.coupled_dp = rp
        if fm.ok:
            return tracked_leaves(self, rec, draws, fm)
        g = two_gaussians(self, rec, draws, fm)
        if g is not None:
            for j, (ra, rb, _) in fm.scaled.items():
                scaled(self, rec.tree.paths[j], ra, rb, draws)
            self.tracked_ok = True
            return [g], False
        self.untracked = fm.why[0]
        untracked_findings(self, rec, rp, draws, fm, dep, dep_p)
        return None, False      # untracked: findings only, never a certificate



    def _declared(self, paths, rhs):
        if self.declared is None:
            return
        for j, dlt in rhs.items():
            cap = (self.declared if not isinstance(self.declared, dict)
                   else self.declared.get(paths[j]))
            if cap is not None and abs(dlt) > cap:
                self.add(SENSITIVITY, f"output{paths[j]}",
                         f"moves by {_q(abs(dlt))} between d and d', more than the declared "
                         f"sensitivity {_q(cap)}")
                self.declared_broken = True

    # ------------------------------------------------------------------ the verdict
    def result(self, rec, releases, bound_only=False) -> TraceResult:
        if self.untracked is not None:
            self.undecided.append(f"not certified: {self.untracked}")
        if self.steered:
            self.add(STEERED, "the control flow", self.steered[0] +
                     "; the trace decides what does not depend on it and hands the rest to "
                     "a sampled audit")
        infinite = any(f.loss == math.inf and f.exact for f in self.findings)
        iv, continuous = self._interval(releases, infinite, bound_only)
        verdict = "inconclusive"
        if infinite or self.declared_broken:   # exact: the code breaks what it declares
            verdict = "fail"
        elif iv is not None:
            verdict = self._decide(rec, iv, continuous)
        if verdict == "inconclusive" and self._paths_apply(rec) and not self._settled(iv):
            verdict, iv = self._paths(rec, iv)
        if self.relation is not None and verdict != "fail" and self._paths_apply(rec):
            verdict, iv = self._prove(rec, verdict, iv)
        if verdict == "inconclusive" and self.bounded and iv is not None and \
                ends(iv)[1] > self.eps_exact:
            self._bounded_only(rec, iv)
        calls_text = tuple(c.describe() for c in rec.calls[:50])
        return TraceResult(
            verdict=verdict,
            findings=tuple(self.findings),
            interval_ends=None if iv is None else ends(iv),
            epsilon=float(self.eps),
            delta=float(self.delta),
            releases=() if self.superseded else tuple(portable(r) for r in releases or ()),
            calls=calls_text,
            decided=tuple(self.decided),
            undecided=tuple(dict.fromkeys(self.undecided)),
            candidates=self.candidates,
            arithmetic=self.arithmetic,
            primitives=tuple(
                (c.method, c.family, c.shape, c.params) for c in rec.calls[:_PRIMITIVES]
            ),
            runs=self.runner.count,
            seed=self.seed,
            paths=self.path_report,
            proof=self.proof,
        )

    # ------------------------------------------------------------------ the paths
    def _paths_apply(self, rec) -> bool:
        """Whether the paths may decide what the releases did not: the draws replay, no
        modulus, and something steered or rescaled the noise."""
        return (self.modulus is None and bool(rec.calls) and self.use_paths and
                not any(f.kind == UNTRACEABLE for f in self.findings))

    def _settled(self, iv) -> bool:
        """Whether the releases' interval already settles the claim (within it, or above
        it) and only the arithmetic keeps the verdict open: the paths would add nothing."""
        if iv is None or self.steered or self.bounded:
            return False
        lo, hi = ends(iv)
        return hi <= self.eps_exact or lo > self.eps_exact

    def _paths(self, rec, iv):
        """Every path on d and d' (:mod:`.paths`): the verdict and interval they certify,
        superseding the findings they decide (steered control flow, a data-dependent
        parameter)."""
        rep = paths.decide(self.runner, self.d, self.dp, rec.calls, self.delta,
                           cache=self.path_cache)
        self.path_report = rep
        if rep.refused is not None:
            self.undecided.append(f"the paths decide nothing: {rep.refused}")
            return "inconclusive", iv
        rest = [f for f in self.findings if f.kind not in (STEERED, DATA_DEPENDENT)]
        verdict = "inconclusive"
        if rep.lo > self.eps_exact:
            verdict = "fail"
            rest.append(Finding(PATH_LOSS, f"the output {rep.worst}",
                                f"{rep.measure} {_ends(rep.p_d)} on d but {_ends(rep.p_dp)} "
                                f"on d'" + (f" (on the path {rep.condition})" if rep.condition
                                            else ""), round_down(rep.lo)))
        elif rep.hi <= self.eps_exact and not rest:
            if rep.continuous and self.arithmetic == "exact":
                self.undecided.append(
                    "the paths integrate continuous laws: certified for the real-arithmetic "
                    "law, not its float implementation (Mironov 2012); pass "
                    "arithmetic='real' to accept that model")
            else:
                verdict = "holds"
        else:
            self.undecided.append(
                f"the paths certify ε in [{round_down(rep.lo):.6g}, {round_up(rep.hi):.6g}], "
                f"which straddles the claim {self.eps:g}")
        self.findings = rest
        # the linear model's notes and releases are superseded by the paths' interval
        self.undecided = [x for x in self.undecided if x.startswith("the paths")]
        self.decided = [x for x in self.decided if "post-processing" not in x and
                        "tracked exactly" not in x]
        self.superseded = True
        if verdict != "inconclusive":
            self.candidates = ()
        return verdict, interval(rep.lo, rep.hi)

    def _prove(self, rec, verdict, iv):
        """A randomness alignment for every pair of the relation (:mod:`.paths.align`):
        the proof, and a holds for this pair when it proves the claim."""
        sens = self.declared if isinstance(self.declared, Fraction) else 1
        got = align.prove(self.runner, self.d, rec.calls, self.eps, relation=self.relation,
                          sensitivity=sens)
        if isinstance(got, str):
            self.undecided.append(f"no proof for every pair: {got}")
            return verdict, iv
        if not got.proves_claim:
            self.decided.append(f"every pair: {got.describe()}")
            return verdict, iv
        self.proof = got
        self.decided.append(f"every pair: {got.describe()}")
        continuous = any(c.family in ("location", "scale") for c in rec.calls)
        if continuous and self.arithmetic == "exact":
            return verdict, iv
        if verdict == "inconclusive" and not self.findings:
            self.undecided = []
            self.candidates = ()
            verdict = "holds"
            if iv is None:
                iv = interval(mpmath.mpf(0), fraction_bounds(got.cost, 64)[1])
        return verdict, iv

    def _interval(self, releases, infinite, bound_only):
        """The pair's certified interval (None where it is not decided) and whether a
        release is continuous; the findings the interval settles."""
        if infinite:
            return mpmath.mpi(mpmath.inf, mpmath.inf), False
        if releases is None or not self.tracked_ok or self.undecided or self.steered or \
                not (self.gaussian_dp or not any(kind(f.kind).stops_interval
                                                 for f in self.findings)):
            return None, False
        iv = certify.compose(releases, self.delta, bound_only=bound_only)
        lo, hi = ends(iv)
        if self.gaussian_dp:
            self._gaussian_findings(lo, hi)
        elif lo > self.eps_exact:
            self._sensitivity(releases)
        return iv, any(r.continuous for r in releases)

    def _decide(self, rec, iv, continuous) -> str:
        """The verdict a decided interval gives: fail above the claim, holds within it when
        nothing else stands against it, inconclusive otherwise (saying why)."""
        lo, hi = ends(iv)
        if lo > self.eps_exact:
            return "fail"
        if hi > self.eps_exact or self.findings:
            return "inconclusive"
        if self.fixed and not self._constant(rec, leaves=self.fixed):
            self.undecided.append(
                "outputs that no traced draw reaches change from run to run: the "
                "mechanism draws randomness the trace does not see")
            return "inconclusive"
        if continuous and self.arithmetic == "exact":
            self.undecided.append(
                "the noise is drawn in floating point (a continuous law, or numpy's "
                "float-based geometric/binomial/… samplers, whose supports are "
                "bounded by the float uniform): the interval is certified for the "
                "real-arithmetic law, not its float implementation (Mironov 2012); "
                "pass arithmetic='real' to accept that model, or audit the floats "
                "with the sampled audit (bits=True)")
            return "inconclusive"
        return "holds"

    def _bounded_only(self, rec, iv) -> None:
        """Nodes bound the loss from above only, above the claim: a sampled audit decides."""
        ops = ", ".join(n.describe() for n in self.bounded[:3])
        self.add(STEERED, "the outputs",
                 f"the outputs are non-additive functions of noisy values ({ops}): the "
                 f"trace bounds the pair's loss by {round_up(ends(iv)[1]):.6g} from "
                 "above only and hands the rest to a sampled audit")
        if not self.candidates:
            self.candidates = candidate_events(self, rec)

    @property
    def eps_exact(self):
        """The claim with its slack: ε·(1 + rtol), exactly."""
        return fraction_bounds(Fraction(self.eps) * (1 + Fraction(self.rtol)), 256)[0]

    def _gaussian_findings(self, lo, hi):
        """A data-dependent σ certified at δ > 0: within the claim it is no finding; above
        it, the data-dependent-parameter finding carries the certified loss."""
        dp = [f for f in self.findings if f.kind == DATA_DEPENDENT]
        rest = [f for f in self.findings if f.kind != DATA_DEPENDENT]
        if hi <= self.eps_exact:
            self.findings = rest
        elif lo > self.eps_exact:
            self.findings = rest + [Finding(f.kind, f.where, f.detail + "; the two "
                                            "Gaussians' ε(δ) is certified", round_down(lo))
                                    for f in dp]

    def _sensitivity(self, releases):
        alone = []
        for r in releases[:16]:
            lo, _ = ends(certify.alone(r, self.delta))
            if lo > self.eps_exact:
                alone.append((r, lo))
        for r, lo in alone:
            implied = ""
            if r.scale is not None and self.delta == 0 and r.exact:
                implied = (f", more than the sensitivity ε·b = {_q(Fraction(self.eps) * r.scale)}"
                           f" its scale b = {_q(r.scale)} allows for ε = {self.eps:g}")
            self.add(SENSITIVITY, r.where,
                     f"the release is shifted by {_q(abs(r.shift))}{implied}; alone it "
                     f"costs ε ≥ {round_down(lo):.6g}", loss=round_down(lo))
        if not alone:
            lo, _ = ends(certify.compose(releases, self.delta))
            self.add(SENSITIVITY, f"the pair's view ({len(releases)} releases)",
                     f"no release alone exceeds ε = {self.eps:g}, but together they are "
                     "shifted further than the noise's scales allow",
                     loss=round_down(lo))




def _ends(e) -> str:
    lo, hi = (round_down(e[0]), round_up(e[1])) if e else (math.nan, math.nan)
    return f"{lo:.6g}" if hi - lo <= abs(hi) * 1e-9 else f"in [{lo:.6g}, {hi:.6g}]"


def _same_params(a, b) -> bool:
    return all(same_value(v, b.params.get(k)) for k, v in a.params.items())


def _struct(s) -> str:
    if s is None:
        return "absent"
    if s[1] == "dict":
        return f"keys {{{', '.join(s[2])}}}"
    if s[1] == "array":
        return f"an array of shape {s[2]}"
    if s[1] in ("list", "tuple"):
        return f"a {s[1]} of length {s[2]}"
    if s[1] in ("set", "frozenset"):
        return f"the set {{{', '.join(s[2])}}}"
    return f"a {s[1]}"




# ====================================================================== the entry point
def trace_mechanism(mechanism, d, d_prime, epsilon, delta=0.0, rng=None, declared=None, *,
                    modulus=None, arithmetic: str = "exact", rtol: float = RTOL,
                    relation: str | None = None, path_cache: dict | None = None,
                    timeout=guard.DEFAULT_TIMEOUT,
                    total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> TraceResult:
    """Trace ``mechanism`` on ``d`` and ``d_prime`` and decide its claim (``epsilon``,
    ``delta``) for this pair without sampling (see the module doc).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, size, rng)``, the auditor's contract; run with ``size = 1``.
        Noise must come from ``rng`` (numpy ``Generator`` methods, privtools laws'
        ``sample``) for the trace to replay it.
    d, d_prime : datasets
        The neighbouring pair (refused when identical).
    epsilon, delta : float
        The claim; δ = 0 asks for pure ε (exact), δ > 0 for the certified ε(δ).
    rng : int, Generator, SeedSequence or None
        The recording's seed; exact findings do not depend on it.
    declared : number or dict, optional
        The sensitivity each output may move by (a number for all, or ``{path: bound}``
        with the paths the findings' ``where`` names, e.g. ``"[0, 2]"``); a larger shift is a
        ``sensitivity`` finding whatever the claim.
    modulus : int, optional
        Integer outputs live in Z_m (a modular secure sum's view): shifts and probes are
        read mod m and the releases are wrapped.
    rtol : float
        Relative slack of the comparison with the claim (default 2⁻⁴⁰): the verdict reads
        the claim as ε·(1 + rtol), so that a scale computed as ``1/ε`` in floating point —
        an exact loss a few ulps above ε — is not a violation. 0 compares exactly.
    path_cache : dict, optional
        Explorations of the paths kept by dataset, for a search that meets one dataset in
        several pairs of the same mechanism (:func:`search_traced` passes one).
    relation : {"query", "linf"}, optional
        Search a proof for every neighbouring pair of the relation (every answer moves by at
        most 1, or by ``declared`` when it is a number): a randomness alignment checked on
        every path of a symbolic run (``verification.audit.trace.paths.align``);
        ``result.proof`` holds it when its cost is within the claim.
    arithmetic : {"exact", "real"}
        ``"real"`` accepts the real-arithmetic model of continuous noise (a certificate
        for the law, not for its floats); the default holds only with integer noise.
    timeout, total_timeout : seconds
        The user-code guard's limits (one call; the whole trace).

    Returns
    -------
    TraceResult
        ``verdict`` ``"fail"``/``"holds"``/``"inconclusive"``, ``findings``,
        ``epsilon_interval``.
    """
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    eps, dlt = claim.epsilon, claim.delta
    declared = _check_declared(declared)
    modulus = _check_modulus(modulus)
    if arithmetic not in ARITHMETIC:
        raise ParameterError(f"arithmetic must be one of {ARITHMETIC}, got {arithmetic!r}")
    if relation is not None and relation not in align.RELATIONS:
        raise ParameterError(f"relation must be one of {align.RELATIONS} (a proof is searched "
                             f"for them), got {relation!r}")
    rtol = float(to_fraction("rtol", rtol))
    if not 0 <= rtol <= 1e-6:
        raise ParameterError(f"rtol must be in [0, 1e-6], got {rtol!r}")
    check_pair(d, d_prime, relation if declared is None else None)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng) % (2**62)
    wrapped = guard.wrap(mechanism, "mechanism")
    delta_q = Fraction(dlt)

    def work(tick):

        t = _Trace(runner=Runner(wrapped), d=d, dp=d_prime, eps=eps, delta=delta_q,
                   declared=declared, modulus=modulus, arithmetic=arithmetic, seed=seed,
                   rtol=rtol, relation=relation, path_cache=path_cache)
        return t.run()
    return guard.run(work, timeout=timeout, total_timeout=total_timeout,
                     what="the trace", shared=(wrapped,))
