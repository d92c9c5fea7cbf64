"""Every Java helper the explorer ships (``explorer/**/java/*.java``) compiles the way it is compiled at run time:
by Janino in Spark's driver JVM, each under its class loader (Iceberg's; Paimon's jar for the Paimon helper).
Compiled afresh here, not taken from the per-session cache, so a helper no test happens to call still fails."""

from __future__ import annotations

from pathlib import Path

import pytest

import explorer
from explorer.iceberg.spark import java_helpers as jvm
from explorer.paimon import java_runner

pytestmark = pytest.mark.spark

PACKAGE = Path(explorer.__file__).parent
SOURCES = sorted(PACKAGE.glob("**/java/*.java"))
# where each helper is compiled at run time: its folder -> the function that compiles it (uncached)
COMPILERS = {
    PACKAGE / "iceberg" / "spark" / "java": lambda spark, name: jvm.compile_helper(spark, name),
    PACKAGE / "paimon" / "java": lambda spark, name: java_runner.compile_paimon_helper(spark),
}


def test_every_helper_folder_has_its_compiler():
    assert SOURCES, "no Java helper found"
    assert {s.parent for s in SOURCES} <= set(COMPILERS), "a new java/ folder: say how its helpers compile"
    assert {s.name for s in jvm.helper_sources()} == {s.name for s in SOURCES if s.parent.parts[-3] == "iceberg"}


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: str(s.relative_to(PACKAGE)))
def test_helper_compiles(spark, source):
    cls = COMPILERS[source.parent](spark, source.stem)
    assert cls.getName() == source.stem
