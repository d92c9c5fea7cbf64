"""The explorer's small Java helpers (``java/*.java``, shipped as package data), compiled in Spark's driver JVM.

Janino, the compiler Spark ships for its own generated code, compiles a helper's source at first use under the
class loader that loaded Iceberg, so the helpers need no JDK, no jar and no download. One instance per helper and
Spark application (a new session in the same process gets fresh ones).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

_SOURCES = Path(__file__).with_name("java")
_HELPERS: dict[tuple[str, str], Any] = {}  # (Spark application id, class name) -> the compiled instance
_LOCK = threading.Lock()


def java_helper(spark, class_name: str):
    """An instance of the helper ``java/<class_name>.java`` in the driver JVM of ``spark``."""
    key = (spark.sparkContext.applicationId, class_name)
    with _LOCK:  # the runner's read-back thread and the main thread may ask at once
        helper = _HELPERS.get(key)
        if helper is None:
            jvm, gateway = spark._jvm, spark.sparkContext._gateway
            compiler = jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(jvm.org.apache.iceberg.Table._java_lang_class.getClassLoader())
            compiler.cook((_SOURCES / f"{class_name}.java").read_text(encoding="utf-8"))
            cls = compiler.getClassLoader().loadClass(class_name)
            helper = _HELPERS[key] = cls.getDeclaredConstructor(gateway.new_array(jvm.java.lang.Class, 0)) \
                .newInstance(gateway.new_array(jvm.java.lang.Object, 0))
    return helper


def java_strings(spark, values) -> Any:
    """A Java ``String[]`` of ``values`` (py4j passes a Python list as a List, not an array)."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    values = list(values)
    array = gateway.new_array(jvm.java.lang.String, len(values))
    for i, value in enumerate(values):
        array[i] = value
    return array
