"""Engine adapters: run a scenario on a real engine (Spark + Iceberg, pypaimon) and return a typed capture."""
