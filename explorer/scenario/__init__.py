"""Scenarios, engine-neutral: the frozen step records a YAML file or mapping parses into, typed column values,
row comparison, and the errors a learner reads. Nothing here knows Iceberg or Paimon rules, imports an engine or
does I/O beyond reading a scenario file; each engine's own checks live in its package's ``validate`` module."""
