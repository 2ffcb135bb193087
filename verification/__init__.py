"""The judge: paper 000's claims and bounds checked exactly, plan checks, goodness of fit and
black-box audits of samplers and mechanisms. It reads only public ``privtools`` names (an
import contract checked in CI); the exact engine it reads is :mod:`privtools.exact` (one
import path: ``verification.exact`` and ``verification.divergence`` are kept only as
deprecated aliases of :mod:`privtools.exact` and :mod:`privtools.exact.divergence`)."""

__all__: list[str] = []   # the judge's names live in its modules (verification.audit, ...)
