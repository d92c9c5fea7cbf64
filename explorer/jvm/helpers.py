"""Compile a Java helper's source in the explorer's JVM (Spark's driver) with Janino, and make its instance.

Janino is the compiler Spark ships for its own generated code, so a helper needs no JDK, no jar and no download.
A format package keeps its helpers' sources (``java/*.java``, package data) and says which class loader they
compile under: Iceberg's helpers under the loader that loaded Iceberg, Paimon's under a loader of its own
holding Paimon's jar (:func:`jar_class_loader`). The compiled instance is cached per Spark application and key
(a new session in the same process gets fresh ones).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from explorer.jvm.session import driver_jvm, py4j_gateway

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_INSTANCES: dict[tuple[str, str], Any] = {}  # (Spark application id, helper key) -> the compiled instance
_LOCK = threading.Lock()


def compile_source(spark: SparkSession, source: Path, class_name: str, parent_loader: Any, *,
                   target_version: int | None = None) -> Any:
    """Compile ``source`` now (no cache) under ``parent_loader`` (a ``java.lang.ClassLoader`` in the driver JVM);
    the class ``class_name`` it defines."""
    compiler = driver_jvm(spark).org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(parent_loader)
    if target_version is not None:
        compiler.setTargetVersion(target_version)
    compiler.cook(source.read_text(encoding="utf-8"))
    return compiler.getClassLoader().loadClass(class_name)


def jar_class_loader(spark: SparkSession, jar: Path) -> Any:
    """A new ``URLClassLoader`` holding ``jar``, a child of Spark's own class loader (Spark and the other
    helpers never see the jar's classes)."""
    jvm, gateway = driver_jvm(spark), py4j_gateway(spark)
    urls = gateway.new_array(jvm.java.net.URL, 1)
    urls[0] = jvm.java.io.File(str(jar)).toURI().toURL()
    spark_loader = jvm.org.codehaus.janino.SimpleCompiler._java_lang_class.getClassLoader()
    return jvm.java.net.URLClassLoader(urls, spark_loader)


def helper_instance(spark: SparkSession, key: str, compile_class: Callable[[SparkSession], Any]) -> Any:
    """The instance of the helper ``key`` in ``spark``'s driver JVM: compiled by ``compile_class(spark)`` and
    built with its no-argument constructor at first use, then cached for the Spark application."""
    cache_key = (spark.sparkContext.applicationId, key)
    with _LOCK:  # the runner's read-back thread and the main thread may ask at once
        helper = _INSTANCES.get(cache_key)
        if helper is None:
            jvm, gateway = driver_jvm(spark), py4j_gateway(spark)
            cls = compile_class(spark)
            helper = _INSTANCES[cache_key] = cls.getDeclaredConstructor(gateway.new_array(jvm.java.lang.Class, 0)) \
                .newInstance(gateway.new_array(jvm.java.lang.Object, 0))
    return helper
