"""The explorer's one JVM, shared by every Java-backed engine (Iceberg's Spark adapter, Paimon's Java runner).

The JVM is Spark's driver: :mod:`~explorer.jvm.session` starts, shares, restarts and reaps it (built with the
Iceberg runtime jar and the ``explorer`` Iceberg catalog, because Spark fixes its jars and catalogs when it
starts); :mod:`~explorer.jvm.processes` finds the other processes it lives with; :mod:`~explorer.jvm.helpers`
compiles a Java helper's source in it with Janino; :mod:`~explorer.jvm.wire` reads what a helper hands back (Arrow
IPC streams); :mod:`~explorer.jvm.threads` lowers a worker thread's priority. Nothing here imports a format
package: each format brings its own helpers and class loader and asks this package for the JVM.
"""
