"""Fixed-budget audits: a mechanism on one neighbouring pair (:mod:`.mechanism`), a sampler
against its law (:mod:`.sampler`) and a batch sampler against its accountant's scheme
(:mod:`.sampling`), each on a budget of draws stated before the first draw."""
