"""A process of its own (its own Python, its own Spark JVM) for the engine-fault tests: never the suite's session.

    python fault_child.py hold            start Spark, print {"pid", "jvm_pid", "warehouse"}, then wait
    python fault_child.py kill-jvm        the app runs a preset; at step 2 the java child is killed by pid;
                                          then the app runs again; prints what happened as JSON
    python fault_child.py oom             a sql step asks Spark for more memory than it has; prints the message
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path


def jvm_pid() -> int:
    from pyspark import SparkContext

    return SparkContext._gateway.proc.pid


def process_state(pid: int) -> str | None:
    """'Z' for a zombie, another letter for a live process, None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def hold() -> None:
    from explorer.jvm.session import get_spark, warehouse_dir

    get_spark()
    print(json.dumps({"pid": os.getpid(), "jvm_pid": jvm_pid(), "warehouse": str(warehouse_dir())}), flush=True)
    time.sleep(600)


def kill_jvm() -> None:
    from explorer.jvm.session import get_spark, warehouse_dir
    from explorer.ui.app import App

    get_spark()
    first_pid, first_warehouse = jvm_pid(), warehouse_dir()
    app = App(preset="seed-delete-insert-delete")
    original = app.runner.on_progress  # the run controller reports each step through it

    def progress(*args):
        if args[0] == 2 and args[2] is None and process_state(first_pid) not in (None, "Z"):
            os.kill(first_pid, signal.SIGKILL)
            time.sleep(1.0)
        original(*args)

    app.runner.on_progress = progress
    failed = app.run()
    report = {"first_result": failed is not None, "error": app.error_text,
              "old_jvm_state": process_state(first_pid), "old_warehouse_exists": first_warehouse.exists()}
    app.runner.on_progress = original
    result = app.run()
    report.update(second_agrees=bool(result is not None and result.agrees), second_error=app.error_text,
                  new_jvm=jvm_pid() != first_pid, new_warehouse_differs=warehouse_dir() != first_warehouse)
    print(json.dumps(report), flush=True)


def oom() -> None:
    from explorer import api
    from explorer.scenario.errors import ExplorerError

    text = ("name: oom\nengine: iceberg\ntable:\n  columns: {id: int, name: string}\nsteps:\n"
            "  - insert: [{id: 1, name: a}]\n"
            "  - sql: \"INSERT INTO {table} SELECT 2, concat_ws(',', array_repeat(repeat('x', 30000000), 40))\"\n")
    try:
        api.run(text, safe=False)
        print(json.dumps({"error": None}))
    except ExplorerError as exc:
        print(json.dumps({"error": str(exc), "type": type(exc).__name__}), flush=True)


if __name__ == "__main__":
    import faulthandler

    faulthandler.register(signal.SIGUSR1)  # a stuck child can be asked for its stacks
    {"hold": hold, "kill-jvm": kill_jvm, "oom": oom}[sys.argv[1]]()
