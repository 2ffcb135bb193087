"""The auditor's half of privtools: certified exact PMFs (``exact``), symbolic proofs of
the closed forms they use (``exact.symbolic``); divergences, tail checks, claims and
black-box audits build on these."""
