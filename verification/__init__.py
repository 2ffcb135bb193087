"""The judge: paper 000's claims and bounds checked exactly, plan checks, goodness of fit and
black-box audits of samplers and mechanisms. It reads only public ``privtools`` names (an
import contract checked in CI); the exact engine it reads is :mod:`privtools.exact` (one
import path; the judge keeps no alias of it)."""

__all__: list[str] = []   # the judge's names live in its modules (verification.audit, ...)
