"""The pure core: scenario model, captured metadata records, the Iceberg delete resolver and the Paimon merge
model. Nothing in here imports Spark or pypaimon or touches the file system beyond reading scenario files."""
