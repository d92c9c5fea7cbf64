"""The driver JVM's class data sharing archive: which options a session gets (without a JVM; that an archive is
mapped only when a JVM can really use it, since a damaged one would crash every session:
tests/engine/iceberg/spark/test_class_archive.py)."""

from __future__ import annotations


import pytest

from explorer.iceberg.spark import class_archive as ca


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(ca.ENV_CACHE, str(tmp_path))
    monkeypatch.delenv(ca.ENV_SWITCH, raising=False)
    monkeypatch.delenv("_EXPLORER_CLASS_ARCHIVE_DUMP", raising=False)
    return tmp_path


def test_no_archive_no_options(cache):
    assert ca.archive_path().parent == cache
    assert ca.jvm_options() == ""


def test_a_prepared_archive_is_mapped_quietly(cache):
    ca.archive_path().write_bytes(b"x")
    options = ca.jvm_options()
    assert f"-XX:SharedArchiveFile={ca.archive_path()}" in options
    assert "-Xshare:auto" in options and "-Xlog:cds=off" in options  # a stale archive never stops the JVM


@pytest.mark.parametrize("switch", ["off", "0", "false", "OFF"])
def test_switched_off(cache, monkeypatch, switch):
    ca.archive_path().write_bytes(b"x")
    monkeypatch.setenv(ca.ENV_SWITCH, switch)
    assert ca.jvm_options() == ""
    assert ca.prepare(log=lambda line: None) is None


def test_the_dumping_child_writes_instead_of_mapping(cache, monkeypatch):
    ca.archive_path().write_bytes(b"x")
    monkeypatch.setenv("_EXPLORER_CLASS_ARCHIVE_DUMP", str(cache / "new.partial"))
    options = ca.jvm_options()
    assert f"-XX:ArchiveClassesAtExit={cache / 'new.partial'}" in options and "SharedArchiveFile" not in options


def test_the_key_follows_the_iceberg_jar(cache, monkeypatch, tmp_path):
    jar = tmp_path / "iceberg.jar"
    jar.write_bytes(b"one")
    monkeypatch.setattr("explorer.jvm.session.iceberg_runtime_jar", lambda: jar)
    before = ca.archive_key()
    jar.write_bytes(b"another")
    assert ca.archive_key() != before
