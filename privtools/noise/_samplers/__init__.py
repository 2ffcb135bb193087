"""The samplers' machinery behind the laws: fixed-budget samplers (:mod:`.fixed`,
:mod:`.cells`), alias-table weights (:mod:`.weights`, :mod:`.polya_table`), the compiled bulk
path (:mod:`.kernel`) and the cache of default samplers (:mod:`.cache`)."""
