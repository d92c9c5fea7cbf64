"""Random DuckLake scenarios for differential checks: inserts (one or more files), deletes, updates, merges by key,
two-job races, and (optionally) both compactions. Pure: returns the scenario as a plain mapping."""

from __future__ import annotations

import random
from typing import Any


def random_ducklake(rng: random.Random, *, steps: int = 6, compaction: bool = True) -> dict[str, Any]:
    kinds = ["insert", "insert", "delete", "update", "merge", "race"] + (["compact", "rewrite"] if compaction else [])
    out: list[dict[str, Any]] = []
    serial = 0

    def text() -> str:
        nonlocal serial
        serial += 1
        return f"v{serial}"

    for i in range(rng.randint(2, steps)):
        kind = "insert" if i == 0 else rng.choice(kinds)
        key = rng.randint(1, 6)
        if kind == "insert":
            rows = [{"id": rng.randint(1, 6), "v": text()} for _ in range(rng.randint(1, 4))]
            step: dict[str, Any] = {"insert": rows}
            files = rng.randint(1, len(rows))
            if files > 1:
                step["files"] = files
        elif kind == "delete":
            step = {"delete": {"id": key}}
        elif kind == "update":
            step = {"update": {"set": {"v": text()}, "where": {"id": key}}}
        elif kind == "merge":
            ids = rng.sample(range(1, 7), rng.randint(1, 3))
            step = {"merge": {"rows": [{"id": k, "v": text()} for k in ids], "on": ["id"],
                              "matched": rng.choice(["update", "delete"])}}
        elif kind == "compact":
            step = {"compact": {}}
        elif kind == "rewrite":
            step = {"compact": {"options": {"mode": "rewrite_data_files", "delete_threshold": "0"}}}
        else:
            step = {"concurrent": {"jobs": {"A": {"delete": {"id": key}}, "B": {"insert": [{"id": 9, "v": text()}]}},
                                   "commit_order": rng.choice([["A", "B"], ["B", "A"]])}}
        out.append(step)
    return {"name": "random-ducklake", "engine": "ducklake", "table": {"columns": {"id": "int", "v": "string"}},
            "steps": out}
