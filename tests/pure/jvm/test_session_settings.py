"""How the explorer builds its SparkSession: master and k=v settings from configure(), the CLI or the
environment (no session is started here)."""

from __future__ import annotations

import pytest

from explorer.jvm import session
from explorer.scenario.errors import EngineError
from explorer.ui.cli import build_parser


def test_conf_text_and_lists_parse_and_a_malformed_item_is_named():
    assert session.parse_conf("a=1; b = x=y\nc=") == {"a": "1", "b": "x=y", "c": ""}
    assert session.parse_conf(["spark.sql.catalog.prod=org.x.Catalog"]) == {"spark.sql.catalog.prod": "org.x.Catalog"}
    with pytest.raises(EngineError, match="key=value, not 'oops'"):
        session.parse_conf(["oops"])


def test_master_and_settings_come_from_configure_over_the_environment(monkeypatch):
    workspace = session.Workspace()  # a workspace of its own: the process's default is left alone
    monkeypatch.delenv("EXPLORER_SPARK_MASTER", raising=False)
    monkeypatch.delenv("EXPLORER_SPARK_CONF", raising=False)
    assert workspace.spark_master() == "local[2]" and workspace.spark_settings() == {}
    monkeypatch.setenv("EXPLORER_SPARK_MASTER", "spark://127.0.0.1:7077")
    monkeypatch.setenv("EXPLORER_SPARK_CONF", "spark.executor.memory=512m;spark.cores.max=1")
    assert workspace.spark_master() == "spark://127.0.0.1:7077"
    workspace.configure(master="local[1]", conf=["spark.cores.max=2"])
    assert workspace.spark_master() == "local[1]"
    assert workspace.spark_settings() == {"spark.executor.memory": "512m", "spark.cores.max": "2"}
    assert session.spark_master() == "spark://127.0.0.1:7077"  # the default workspace only sees the environment


def test_cli_takes_master_and_repeated_conf():
    args = build_parser().parse_args(["inspect", "cat.db.t", "--master", "spark://h:7077", "--conf", "a=1",
                                      "--conf", "b=2", "--ref", "audit"])
    assert (args.master, args.conf, args.ref) == ("spark://h:7077", ["a=1", "b=2"], "audit")
    args = build_parser().parse_args(["run", "--preset", "x", "--master", "local[1]"])
    assert args.master == "local[1]"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["inspect", "cat.db.t", "--ref", "a", "--at-seq", "3"])
