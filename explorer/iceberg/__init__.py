"""Apache Iceberg: the pure model of a table's metadata (snapshots, files, sequence numbers), the delete resolver
(the algorithm of Iceberg Java's ``DeleteFileIndex``), results that explain every (data file, delete file) pair,
changelog classification and figures. The ``spark`` subpackage is the only part that runs an engine: it executes
scenarios on real Spark + Iceberg and returns typed captures."""
