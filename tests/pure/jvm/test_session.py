"""The shared local session's configuration without starting it: Java found (or its Debian package named) and the
Iceberg runtime jar (the session itself: tests/engine/jvm/test_session.py)."""

from __future__ import annotations


import pytest

from explorer.scenario.errors import EngineError
from explorer.jvm import session as ss


def test_missing_java_names_the_debian_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no java on PATH
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(EngineError) as err:
        ss.require_java()
    assert "openjdk-17-jre-headless" in str(err.value)


def test_java_home_is_honoured(monkeypatch, tmp_path):
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert ss.require_java() == str(java)


def test_runtime_jar_is_the_scala_2_12_iceberg_1_10_2_jar():
    jar = ss.iceberg_runtime_jar()
    assert jar.is_file() and jar.name == "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
