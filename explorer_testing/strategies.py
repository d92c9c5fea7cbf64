"""Random scenarios for differential testing: the resolver (or Paimon model) against the real engine.

Each generator is written once against a tiny :class:`Chooser` interface, so the same code drives hypothesis
(``iceberg_scenarios()``/``paimon_scenarios()``: shrinkable, for the test suite) and a seeded
``random.Random`` (``random_iceberg_scenario``/``random_paimon_scenario``: fast and reproducible, for the long
campaign in ``scripts/differential_campaign.py``). Key domains are tiny on purpose, so deletes, upserts and
merges keep hitting existing rows. Every generated scenario is valid by construction (it parses), and steps
Spark would legitimately refuse are never generated.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from explorer.paimon.options import AGGREGATE_FUNCTIONS
from explorer.api import parse_scenario
from explorer.scenario.model import Scenario

T = TypeVar("T")

KEYS = (0, 1, 2, 3, 4)
TEXTS = ("a", "b", "c")
PARTITIONS = (0, 1)
UPGRADE_SQL = "ALTER TABLE {table} SET TBLPROPERTIES ('format-version'='2')"
SQL_PREDICATES = ("id < 2", "id % 2 = 0", "v = 'b'", "v IS NULL", "id >= 3 OR v = 'a'", "p = 1",
                  "id = 1 AND v IS NOT NULL")


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int: ...

    def choice(self, options: Sequence[T]) -> T: ...

    def boolean(self) -> bool: ...


class RandomChooser:
    """A :class:`Chooser` over ``random.Random``: the same seed gives the same scenarios."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def boolean(self) -> bool:
        return self.rng.random() < 0.5


class DrawChooser:
    """A :class:`Chooser` over hypothesis' ``draw``, so failures shrink."""

    def __init__(self, draw: Callable[[Any], Any]):
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def integer(self, low: int, high: int) -> int:
        return self.draw(self.st.integers(low, high))

    def choice(self, options: Sequence[T]) -> T:
        return self.draw(self.st.sampled_from(list(options)))

    def boolean(self) -> bool:
        return self.draw(self.st.booleans())


def _distinct(c: Chooser, options: Sequence[T], count: int) -> list[T]:
    left = list(options)
    out = []
    for _ in range(min(count, len(left))):
        out.append(left.pop(c.integer(0, len(left) - 1)))
    return out


# ------------------------------------------------------------------------------------------- Iceberg


def iceberg_plain(c: Chooser, *, name: str = "random-iceberg", max_steps: int = 7) -> dict:
    """One random Iceberg scenario as a plain mapping (what a YAML file holds).

    Beside data steps: tags and rollbacks to them, a branch with inserts on it, a cherry-pick of one of those
    commits onto main, a fast-forward of main to the branch (only while main has not moved since the branch
    was made, as Iceberg requires), and partition spec evolution of ``p`` (drop, add, replace with a bucket or
    truncate transform) on tables that have the column."""
    partitioned = c.boolean()
    format_version = c.choice((1, 2, 2, 3, 3))
    write_mode = c.choice(("merge-on-read", "copy-on-write"))
    columns = {"id": "int", "v": "string"}
    if partitioned:
        columns["p"] = "int"
    table: dict[str, Any] = {"columns": columns, "format_version": format_version, "write_mode": write_mode}
    if partitioned:
        table["partitioned_by"] = ["p"]
    count = c.integer(2, max_steps)
    # A v1 table is upgraded to v2 by a sql step somewhere after the first insert (or never).
    upgrade_at = c.integer(1, count) if format_version == 1 else None
    steps: list[dict] = []
    tags: list[str] = []  # tags made so far: a later step may roll the table back to one
    upgraded = format_version >= 2
    fields = ["p"] if partitioned else []  # the partition spec in force
    branch: str | None = None
    main_moved = False  # since the branch was made (fast-forward needs main to be the branch's ancestor)
    pickable: list[int] = []  # steps (1-based) that committed an insert on the branch
    for i in range(count):
        if i == 0:
            steps.append(_insert(c, partitioned))
            continue
        if upgrade_at is not None and i == upgrade_at:
            steps.append({"sql": UPGRADE_SQL, "label": "upgrade to format v2"})
            upgraded = True
            continue
        kinds = ["insert", "insert", "compact"]
        if upgraded or write_mode == "copy-on-write":
            kinds += ["delete", "delete", "update", "merge"]
        if upgraded:
            kinds += ["equality_delete", "equality_delete", "upsert", "upsert", "tag"]
        if tags:
            kinds.append("rollback")
        if upgraded:
            kinds += ["branch_insert"] * 5 if branch else ["branch"] * 3
        if pickable:
            kinds += ["cherry_pick"] * 5
        if branch and not main_moved and pickable:
            kinds += ["fast_forward"] * 2
        if partitioned:
            kinds.append("partition")
        kind = c.choice(kinds)
        if kind == "tag":
            tags.append(f"t{i}")
            steps.append({"sql": f"ALTER TABLE {{table}} CREATE TAG {tags[-1]}", "label": f"tag {tags[-1]}"})
        elif kind == "rollback":
            tag = c.choice(tags)
            steps.append({"sql": f"CALL {{catalog}}.system.set_current_snapshot(table => '{{table}}', "
                                 f"ref => '{tag}')", "label": f"roll back to {tag}"})
            main_moved = True
        elif kind == "branch":
            branch, main_moved = f"b{i}", False
            steps.append({"sql": f"ALTER TABLE {{table}} CREATE BRANCH {branch}", "label": f"branch {branch}"})
        elif kind == "branch_insert":
            rows = [_row(c, partitioned) for _ in range(c.integer(1, 2))]
            values = ", ".join("(" + ", ".join(_sql_literal(r[k]) for k in columns) + ")" for r in rows)
            steps.append({"sql": f"INSERT INTO {{table}}.branch_{branch} VALUES {values}",
                          "label": f"insert on {branch}"})
            pickable.append(i + 1)
        elif kind == "cherry_pick":
            step = pickable.pop(c.integer(0, len(pickable) - 1))
            steps.append({"sql": f"CALL {{catalog}}.system.cherrypick_snapshot('{{table}}', {{snapshot:{step}}})",
                          "label": f"cherry-pick step {step} onto main"})
            main_moved = True
        elif kind == "fast_forward":
            steps.append({"sql": f"CALL {{catalog}}.system.fast_forward('{{table}}', 'main', '{branch}')",
                          "label": f"fast-forward main to {branch}"})
            pickable.clear()  # those commits are on main now; picking one again would be refused
        elif kind == "partition":
            steps.append(_partition(c, fields))
        else:
            steps.append(_ICEBERG_STEPS[kind](c, partitioned))
            main_moved = True
    return {"name": name, "engine": "iceberg", "table": table, "steps": steps}


PARTITION_FIELDS = ("p", "bucket(2, p)", "truncate(2, p)")


def _partition(c: Chooser, fields: list[str]) -> dict:
    """Evolve the spec in force (``fields``, updated in place): drop a field, replace it, or add one."""
    unused = [f for f in PARTITION_FIELDS if f not in fields]
    action = c.choice(("drop", "replace")) if fields else "add"
    if action == "add":
        new = c.choice(unused)
        fields.append(new)
        return {"partition": {"add": [new]}, "label": f"partition by {new}"}
    old = c.choice(fields)
    if action == "drop":
        fields.remove(old)
        return {"partition": {"drop": [old]}, "label": f"drop partition field {old}"}
    new = c.choice(unused)
    fields[fields.index(old)] = new
    return {"partition": {"replace": {old: new}}, "label": f"replace {old} with {new}"}


def _sql_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    return f"'{value}'" if isinstance(value, str) else str(value)


def _row(c: Chooser, partitioned: bool, *, key: int | None = None, nullable: bool = True) -> dict:
    row = {"id": c.choice(KEYS) if key is None else key,
           "v": c.choice(TEXTS + ((None,) if nullable else ()))}
    if partitioned:
        row["p"] = c.choice(PARTITIONS)
    return row


def _insert(c: Chooser, partitioned: bool) -> dict:
    rows = [_row(c, partitioned) for _ in range(c.integer(1, 4))]
    files = c.integer(1, min(3, len(rows)))
    return {"insert": rows, **({"files": files} if files > 1 else {})}


def _where(c: Chooser, partitioned: bool) -> Any:
    form = c.integer(0, 3)
    if form == 0:
        return {"id": c.choice(KEYS)}
    if form == 1:
        return {"v": c.choice(TEXTS + (None,))}
    if form == 2:
        where: dict[str, Any] = {"id": c.choice(KEYS)}
        if partitioned:
            where["p"] = c.choice(PARTITIONS)
        else:
            where["v"] = c.choice(TEXTS)
        return where
    options = SQL_PREDICATES if partitioned else tuple(p for p in SQL_PREDICATES if "p =" not in p)
    return c.choice(options)


def _delete(c: Chooser, partitioned: bool) -> dict:
    return {"delete": _where(c, partitioned)}


def _update(c: Chooser, partitioned: bool) -> dict:
    column = c.choice(("v", "v", "id"))
    value = c.choice(TEXTS + (None,)) if column == "v" else c.choice(KEYS)
    return {"update": {"set": {column: value}, "where": _where(c, partitioned)}}


def _merge(c: Chooser, partitioned: bool) -> dict:
    keys = _distinct(c, KEYS, c.integer(1, 3))
    rows = [_row(c, partitioned, key=k) for k in keys]
    matched = c.choice(("update", "update", "delete", "none"))
    not_matched = c.choice(("insert", "none")) if matched != "none" else "insert"
    return {"merge": {"rows": rows, "on": ["id"], "matched": matched, "not_matched": not_matched}}


def _equality_delete(c: Chooser, partitioned: bool) -> dict:
    on = c.choice((("id",), ("id",), ("v",), ("id", "v")))
    rows = []
    for _ in range(c.integer(1, 2)):
        row: dict[str, Any] = {}
        if "id" in on:
            row["id"] = c.choice(KEYS)
        if "v" in on:
            row["v"] = c.choice(TEXTS + (None,))  # null deletes rows where v IS NULL
        if partitioned:
            row["p"] = c.choice(PARTITIONS)
        rows.append(row)
    return {"equality_delete": rows}


def _upsert(c: Chooser, partitioned: bool) -> dict:
    keys = _distinct(c, KEYS, c.integer(1, 3))
    return {"upsert": [_row(c, partitioned, key=k) for k in keys], "key": ["id"]}


def _compact(c: Chooser, partitioned: bool) -> dict:
    return {"compact": {} if c.integer(0, 3) else {"use_starting_sequence_number": False}}


_ICEBERG_STEPS: dict[str, Callable[[Chooser, bool], dict]] = {
    "insert": _insert, "delete": _delete, "update": _update, "merge": _merge,
    "equality_delete": _equality_delete, "upsert": _upsert, "compact": _compact}


# -------------------------------------------------------------------------------------------- Paimon


PAIMON_ENGINES = ("deduplicate", "deduplicate", "partial-update", "aggregation", "first-row")


def paimon_plain(c: Chooser, *, name: str = "random-paimon", max_steps: int = 5,
                 avoid_known_gaps: bool = False, java: bool = False) -> dict:
    """One random Paimon primary-key scenario over the merge engines and options pypaimon implements.

    By default it includes the two situations the model learned from the campaign: one key written twice in
    one commit under partial-update or aggregation (the writer pre-merges them), and several writers on one
    table (equal sequence numbers, an undefined order). ``avoid_known_gaps`` still leaves both out, to compare
    a campaign with and without them.

    ``java``: a scenario for Paimon's Java library (batch writers only, as one bucket takes one writer there),
    adding what only it runs: deletion vectors, the lookup and full-compaction changelog producers, sequence
    groups, and compactions, full or Paimon's own pick.
    """
    engine = c.choice(PAIMON_ENGINES)
    writers = c.choice(((None,), ("A",))) if avoid_known_gaps else (None, None, "A", "B")
    if java:
        writers = (None,)
    distinct_keys = avoid_known_gaps and engine in ("partial-update", "aggregation")
    partitioned = c.boolean()
    columns = {"pk": "int", "v": "string", "n": "long", "ts": "long"}
    options: dict[str, str] = {}
    if engine != "deduplicate":
        options["merge-engine"] = engine
    grouped = java and engine == "partial-update" and c.boolean()
    if grouped:
        options["fields.ts.sequence-group"] = "v"
    elif engine != "first-row" and c.boolean():
        options["sequence.field"] = "ts"
        if c.integer(0, 3) == 0:
            options["sequence.field.sort-order"] = "descending"
    if java:
        producer = c.choice(("none", "none", "lookup", "full-compaction"))
        if engine == "first-row" and producer == "full-compaction":
            producer = "lookup"
        if producer != "none":
            options["changelog-producer"] = producer
        if engine != "first-row" and producer != "full-compaction" and c.integer(0, 2) == 0:
            options["deletion-vectors.enabled"] = "true"
    rowkind = c.integer(0, 2) == 0
    ignore_delete = False
    if rowkind:
        columns["op"] = "string"
        options["rowkind.field"] = "op"
        ignore_delete = c.boolean()
        if ignore_delete:
            options["ignore-delete"] = "true"
    if engine == "aggregation":
        options["fields.n.aggregate-function"] = c.choice(AGGREGATE_FUNCTIONS)
        text_functions = tuple(f for f in AGGREGATE_FUNCTIONS if f != "sum")
        if c.boolean():
            options["fields.v.aggregate-function"] = c.choice(text_functions)
        if c.integer(0, 3) == 0:
            options["fields.default-aggregate-function"] = c.choice(text_functions)
    if partitioned:
        columns["part"] = "int"
    table: dict[str, Any] = {"columns": columns, "primary_key": ["part", "pk"] if partitioned else ["pk"]}
    if partitioned:
        table["partitioned_by"] = ["part"]
    if options:
        table["options"] = options
    # Retractions (-U/-D) only where Paimon accepts them: deduplicate, or with ignore-delete.
    kinds = ("+I", "+U", "-U", "-D") if (engine == "deduplicate" or ignore_delete) else ("+I", "+U")
    steps: list[dict] = []
    for _ in range(c.integer(1, max_steps)):
        if steps and c.integer(0, 3 if java else 7) == 0:
            steps.append({"compact": {"options": {"full": "false"}} if java and c.boolean() else {}})
            continue
        rows = []
        count = c.integer(1, 4)
        pks = _distinct(c, (0, 1, 2, 3), count) if distinct_keys else [c.integer(0, 3) for _ in range(count)]
        for pk in pks:
            row: dict[str, Any] = {"pk": pk}
            if partitioned:
                row["part"] = c.choice(PARTITIONS)
            for column, values in (("v", TEXTS + (None,)), ("n", (1, 2, 5, None)), ("ts", (1, 2, 3, None))):
                value = c.choice(values)
                if value is not None:
                    row[column] = value
            if rowkind:
                row["op"] = c.choice(kinds)
            rows.append(row)
        step: dict[str, Any] = {"write": rows}
        writer = c.choice(writers)
        if writer:
            step["writer"] = writer
        steps.append(step)
    if all("compact" in s for s in steps):
        steps.insert(0, {"write": [{"pk": 0, **({"part": 0} if partitioned else {}),
                                    **({"op": "+I"} if rowkind else {})}]})
    return {"name": name, "engine": "paimon", "table": table, "steps": steps}


# ------------------------------------------------------------------------------------ entry points


RACE_KINDS = ("insert", "delete", "delete", "update", "update", "equality_delete", "upsert", "compact")


def iceberg_race_plain(c: Chooser, *, name: str = "random-race", contended: bool | None = None) -> dict:
    """One random race for ``explorer orders``: a format v2 merge-on-read table (partitioned or not) loaded by one
    or two inserts, then a ``concurrent`` step of two jobs drawn from the kinds a race may hold, ending the
    scenario. Deletes and updates use equality predicates half the time, so conflict filters and partitions
    both matter.

    A third of the races (all with ``contended=True``, none with ``False``) are **contended**: a DELETE and an
    UPDATE or MERGE that both match one row the set-up loaded. Drawn independently, two jobs almost never meet
    on one row (the first random campaign over races never produced a history that no serial order explains);
    a contended pair is where snapshot isolation lets a retried DELETE commit past the row another job rewrote,
    so some of its histories are not serializable (:func:`contended_race`)."""
    partitioned = c.boolean()
    columns = {"id": "int", "v": "string"}
    if partitioned:
        columns["p"] = "int"
    table: dict[str, Any] = {"columns": columns, "format_version": 2, "write_mode": "merge-on-read"}
    if partitioned:
        table["partitioned_by"] = ["p"]
    if contended is None:
        contended = c.integer(0, 2) == 0
    steps: list[dict] = [_insert(c, partitioned) for _ in range(c.integer(1, 2))]
    if contended:
        steps.append({"concurrent": {"jobs": contended_race(c, steps[0]["insert"], partitioned)}})
        return {"name": name, "engine": "iceberg", "table": table, "steps": steps}
    jobs = {}
    for job in ("A", "B"):
        kind = c.choice(RACE_KINDS)
        step = _ICEBERG_STEPS[kind](c, partitioned)
        if kind == "compact":
            step = {"compact": {"use_starting_sequence_number": c.boolean()}}
        jobs[job] = step
    steps.append({"concurrent": {"jobs": jobs}})
    return {"name": name, "engine": "iceberg", "table": table, "steps": steps}


def contended_race(c: Chooser, loaded: Sequence[Mapping[str, Any]], partitioned: bool) -> dict:
    """Two jobs that meet on one row of ``loaded``: a DELETE of it (by its key, its key and partition or text,
    or its text alone) and an UPDATE of it by key (any new text) or a MERGE whose source row has its key
    (matched: update). Which job is named A is drawn too."""
    row = c.choice(list(loaded))
    form = c.integer(0, 2)
    where: dict[str, Any] = {"id": row["id"]}
    if form == 1:
        if partitioned:
            where["p"] = row["p"]
        elif row.get("v") is not None:
            where["v"] = row["v"]
    elif form == 2 and row.get("v") is not None:
        where = {"v": row["v"]}
    delete = {"delete": where}
    writer: dict[str, dict[str, Any]]
    if c.boolean():
        writer = {"update": {"set": {"v": c.choice(TEXTS)}, "where": {"id": row["id"]}}}
    else:
        source = {**_row(c, partitioned, key=row["id"], nullable=False)}
        writer = {"merge": {"rows": [source], "on": ["id"], "matched": "update",
                            "not_matched": c.choice(("insert", "none"))}}
    return {"A": delete, "B": writer} if c.boolean() else {"A": writer, "B": delete}


def iceberg_races(contended: bool | None = None):
    """A hypothesis strategy of random two-job races (see :func:`iceberg_race_plain`)."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        return parse_scenario(iceberg_race_plain(DrawChooser(draw), contended=contended))

    return build()


def random_iceberg_race(rng: random.Random, *, name: str = "random-race", contended: bool | None = None) -> Scenario:
    """A seeded random race (the campaign's and the seeded tests' form of :func:`iceberg_races`)."""
    return parse_scenario(iceberg_race_plain(RandomChooser(rng), name=name, contended=contended))


def random_iceberg_scenario(rng: random.Random, *, name: str = "random-iceberg") -> Scenario:
    return parse_scenario(iceberg_plain(RandomChooser(rng), name=name))


def random_paimon_scenario(rng: random.Random, *, name: str = "random-paimon") -> Scenario:
    return parse_scenario(paimon_plain(RandomChooser(rng), name=name))


def iceberg_scenarios(max_steps: int = 7):
    """A hypothesis strategy of valid Iceberg scenarios (imports hypothesis only when called)."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        return parse_scenario(iceberg_plain(DrawChooser(draw), max_steps=max_steps))

    return build()


def paimon_java_scenarios(max_steps: int = 5):
    """A hypothesis strategy of valid Paimon scenarios for Paimon's Java library (``paimon_plain(java=True)``)."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        return parse_scenario(paimon_plain(DrawChooser(draw), max_steps=max_steps, java=True,
                                           name="random-paimon-java"))

    return build()


def random_paimon_java_scenario(rng: random.Random, *, name: str = "random-paimon-java") -> Scenario:
    return parse_scenario(paimon_plain(RandomChooser(rng), name=name, java=True))


def paimon_scenarios(max_steps: int = 5, *, avoid_known_gaps: bool = False):
    """A hypothesis strategy of valid Paimon scenarios."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        return parse_scenario(paimon_plain(DrawChooser(draw), max_steps=max_steps,
                                           avoid_known_gaps=avoid_known_gaps))

    return build()
