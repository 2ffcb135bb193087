"""Audit the DP-SGD you actually run: the training step traced on neighbouring batches, the
batch sampler identified and tested, the whole run certified under the scheme it uses, and
lower-bounded with canaries.

* :func:`audit_training` — the four parts and one verdict (:mod:`.audit`);
* :func:`batches_of` — a sampler from an iterable of index batches or a PyTorch-style
  ``BatchSampler`` (no torch import);
* :mod:`.step` — the step's checks (:class:`TrainingFinding`, :data:`CALLS`);
* :mod:`.certify` — the run's events under each scheme;
* :mod:`.canaries` — the one-run (Steinke, Nasr and Jagielski 2023) and repeated-runs
  canary bounds;
* :mod:`.adapters` — steps and samplers from jax_privacy and Opacus (optional extras).
"""

from .audit import VERDICTS, TrainingAudit, audit_training
from .batches import batches_of
from .canaries import CanaryBound, one_run_bound, one_run_epsilon, runs_epsilon
from .step import CALLS, TrainingFinding

__all__ = ["audit_training", "TrainingAudit", "VERDICTS", "TrainingFinding", "CALLS",
           "CanaryBound", "one_run_bound", "one_run_epsilon", "runs_epsilon", "batches_of"]
