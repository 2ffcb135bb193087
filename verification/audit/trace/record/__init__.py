"""What a traced run records: exact affine forms (:mod:`.affine`), tracked values
(:mod:`.tracked`), the recording generator (:mod:`.recorder`), an output's leaves
(:mod:`.leaves`), running a mechanism under the recorder (:mod:`.runs`) and the linear model
of a coupled run (:mod:`.model`)."""
