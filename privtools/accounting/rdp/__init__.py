"""Rényi-DP accounting: the mechanisms' curves ε(α) (:mod:`.curves`), their composition
(:mod:`.composition`), the conversions to (ε, δ) (:mod:`.conversions`) and the RDP accountant
that interprets events as curves (:mod:`.accountant`)."""
