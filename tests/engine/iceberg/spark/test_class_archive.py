"""The driver JVM's class data sharing archive on the running session: only a whole archive counts as usable,
and the session maps the prepared one (the options without a JVM: tests/pure/iceberg/spark/test_class_archive.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.iceberg.spark import class_archive as ca


def _class_path(spark) -> str:
    return str(spark._jvm.System.getProperty("java.class.path"))


@pytest.mark.spark
def test_only_a_whole_archive_counts_as_usable(spark, tmp_path):
    from explorer.jvm.session import require_java

    java, class_path = require_java(), _class_path(spark)
    junk = tmp_path / "junk.jsa"
    junk.write_bytes(b"\0" * 4096)
    assert not ca.usable(junk, java, class_path)
    prepared = ca.archive_path()
    if not prepared.is_file():
        pytest.skip("no class archive prepared here (scripts/test prepares one before the suite)")
    assert ca.usable(prepared, java, class_path)
    truncated = tmp_path / "truncated.jsa"
    with prepared.open("rb") as source, truncated.open("wb") as target:
        target.write(source.read(1 << 20))
    assert not ca.usable(truncated, java, class_path)  # such a file crashes a JVM that maps it


@pytest.mark.spark
def test_the_session_maps_the_prepared_archive(spark):
    """The suite's own session: started after scripts/test prepared the archive, its JVM maps it."""
    prepared = ca.archive_path()
    if not ca.enabled() or not prepared.is_file():
        pytest.skip("no class archive prepared here (scripts/test prepares one before the suite)")
    proc = getattr(spark.sparkContext._gateway, "proc", None)
    if proc is None:
        pytest.skip("the session's JVM was not launched by PySpark here")
    assert str(prepared) in Path(f"/proc/{proc.pid}/maps").read_text()
