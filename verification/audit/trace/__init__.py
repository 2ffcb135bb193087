"""Grey-box audits: trace the noise a mechanism draws, replay it on the neighbour, decide.

* :func:`trace_mechanism` — one neighbouring pair decided without sampling: data-dependent
  calibration, unnoised outputs and sensitivity beyond the noise's scale found exactly, and
  a certified ε(δ) interval for the pair's view where every output is an additive release
  of traced draws (:mod:`.api`).
* :func:`confirm` — where the noise steers the control flow, the trace's candidate events
  tested on fresh draws, Bonferroni over the candidates (:mod:`.confirm`).
* :func:`search_traced` — hypothesis searches datasets for the pair of largest certified
  loss and shrinks it (:mod:`.search`).
* :func:`trace_plan`, :func:`trace_run` — the project's own deployment paths (a protocol
  batch's server view; a whole batch-successive-elimination run) traced release by release
  against their plan (:mod:`.plans`).

Underneath: the recording generator (``recorder.TracingGenerator``, a numpy ``Generator``
whose noise methods record and replay), runs (:mod:`.record.runs`), outputs of
any shape (:mod:`.record.leaves`), the probes' linear model (:mod:`.record.model`) and the releases'
certified losses (:mod:`.certify`).
"""

from .api import ARITHMETIC, KINDS, RTOL
from .plans import PlanTrace, RunTrace, trace_plan, trace_run

# the trace's entry points (trace_mechanism, TraceResult, Finding, confirm, search_traced,
# TracedSearch) are verification.audit's public names; this room's own are below
__all__ = ["KINDS", "ARITHMETIC", "RTOL", "trace_plan", "trace_run", "PlanTrace", "RunTrace"]
