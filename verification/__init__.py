"""The judge: paper 000's claims and bounds checked exactly, plan checks, goodness of fit and
black-box audits of samplers and mechanisms. It reads only public ``privtools`` names (an
import contract checked in CI); ``verification.exact`` and ``verification.divergence`` are
the exact engine's public names as the judge reads them."""
