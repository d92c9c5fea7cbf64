"""The Spark + Iceberg adapter: the local session, one commit per scenario step (Spark SQL, or Iceberg's Java API
through py4j for equality deletes, upserts and concurrent jobs), capture from the table's own metadata files, and
the changelog reader. Everything it returns is a typed record from ``explorer.iceberg``."""
