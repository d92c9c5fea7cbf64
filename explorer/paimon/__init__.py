"""Apache Paimon primary-key tables: table options parsed once, the merge model (sequence fields, row kinds, merge
engines, undefined order), results and figures, and the pypaimon runner that writes real tables and reads them
back to check the model."""
