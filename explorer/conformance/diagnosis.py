"""Why a reader's rows differ from the reference: the smallest set of delete decisions taken the other way.

The resolver already decides every (data file, delete file) pair of a snapshot (:func:`explorer.iceberg.model.
decide_all`: applies or not, by which rule, with which outcome). A reader that returns other rows took some of
those decisions the other way. :func:`diagnose` searches, by increasing size, for the smallest set of flipped
decisions whose rows equal the reader's rows exactly (as a multiset of values), and words each flip with the rule
it breaks, in the chapters' words. Nothing here is written per case: the words come from the pair's outcome and
the delete's kind alone.

Only decisions that can change a row are candidates: the delete file lists a row of the data file (an equality
delete: its key; a position delete or DV: a position of that file). A flip that applies a delete can only hide
rows, so it is a candidate only when it hides a row the reader is missing; a flip that leaves a delete off can
only show rows, so it is a candidate only when it shows a row the reader has extra. The search stops at
:data:`MAX_FLIPS` flips or :data:`MAX_SETS` sets tried; past that, or when no set matches, the diagnosis says
that no set of flips explains the rows (and the verdict shows them).

Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from explorer.conformance.result import Diagnosis, Flip
from explorer.iceberg.capture import FileContent, FileRecord, TableState
from explorer.iceberg.resolution import Decision, Outcome
from explorer.iceberg.model import RowMatcher, decide_all, file_order_key
from explorer.scenario.rows import in_schema, normalize_row

MAX_FLIPS = 3
MAX_SETS = 20_000

_EQ = FileContent.EQUALITY_DELETES
_DV = FileContent.DELETION_VECTOR
_KIND = {_EQ: "equality delete", FileContent.POSITION_DELETES: "position delete", _DV: "deletion vector"}


@dataclass(frozen=True)
class _Candidate:
    decision: Decision
    data_file: FileRecord
    delete_file: FileRecord
    rows: tuple[int, ...]  # the rows (indexes into the snapshot's rows) the delete file lists in the data file


def _key(row: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in normalize_row(row).items()))


def diagnose(state: TableState, reader_rows: Iterable[Mapping[str, Any]], reader: str,
             decisions: Sequence[Decision] | None = None) -> Diagnosis:
    """The smallest set of decision flips that turns the spec's rows of ``state`` into ``reader_rows``.

    ``reader`` names the reader in the sentences ("DuckDB 1.5.5"). ``decisions``: the resolver's decisions of
    ``state`` when the caller has them (else computed here)."""
    decisions = tuple(decisions) if decisions is not None else decide_all(state)
    columns = state.snapshot.columns
    files = {f.id: f for f in (*state.data_files, *state.delete_files)}
    data_files = sorted(state.data_files, key=file_order_key)
    rows: list[tuple[FileRecord, int, Mapping[str, Any]]] = [
        (d, position, row) for d in data_files for position, row in enumerate(d.rows)]
    keys = [_key(r) for r in in_schema((r for _, _, r in rows), columns)]
    where = {(d.id, position): i for i, (d, position, _) in enumerate(rows)}

    matchers: dict[str, RowMatcher] = {}
    candidates: list[_Candidate] = []
    for decision in decisions:
        d, x = files[decision.data_file], files[decision.delete_file]
        m = matchers.get(x.id) or matchers.setdefault(x.id, RowMatcher(x))
        hit = tuple(where[(d.id, p)] for p, r in enumerate(d.rows) if m.matches(d, p, r))
        if hit:
            candidates.append(_Candidate(decision, d, x, hit))

    # rows each applied delete hides, by the spec's decisions
    hidden_by: list[set[int]] = [set() for _ in rows]
    for k, c in enumerate(candidates):
        if c.decision.applies:
            for i in c.rows:
                hidden_by[i].add(k)
    target = Counter(_key(r) for r in in_schema(reader_rows, columns))
    spec = Counter(keys[i] for i in range(len(rows)) if not hidden_by[i])
    missing, extra = spec - target, target - spec
    useful = [k for k, c in enumerate(candidates)
              if (not c.decision.applies and any(keys[i] in missing for i in c.rows))
              or (c.decision.applies and any(keys[i] in extra for i in c.rows))]

    found = _search(useful, candidates, hidden_by, keys, target)
    if found is None:
        return Diagnosis(explained=False, flips=(), text=(
            f"no set of at most {MAX_FLIPS} flipped delete decisions explains {reader}'s rows: "
            f"{sum(missing.values())} row(s) missing and {sum(extra.values())} extra that no delete decision of this "
            f"snapshot accounts for (see the rows)"))
    flips = tuple(_flip(candidates[k], reader) for k in found)
    return Diagnosis(explained=True, flips=flips, text="; ".join(f.sentence for f in flips))


def _search(useful: list[int], candidates: list[_Candidate], hidden_by: list[set[int]], keys: list[Any],
            target: Counter[Any]) -> tuple[int, ...] | None:
    tried = 0
    for size in range(1, min(MAX_FLIPS, len(useful)) + 1):
        for chosen in _sets(useful, size):
            tried += 1
            if tried > MAX_SETS:
                return None
            flipped = set(chosen)
            rows: Counter[Any] = Counter()
            for i, hiders in enumerate(hidden_by):
                now = hiders ^ {k for k in flipped if i in candidates[k].rows}
                if not now:
                    rows[keys[i]] += 1
            if rows == target:
                return chosen
    return None


def _sets(items: list[int], size: int) -> Iterator[tuple[int, ...]]:
    yield from combinations(items, size)


def _scope(f: FileRecord) -> str:
    if f.spec_unpartitioned and not f.partition:
        return "unpartitioned"
    return f"partition {f.partition_values_text}"


def rule_broken(decision: Decision, delete_file: FileRecord) -> str:
    """The rule a reader breaks when it takes ``decision`` the other way, in the chapters' words."""
    kind = delete_file.content
    if decision.applies:  # the reader left off a delete that applies
        if kind is _EQ:
            if delete_file.spec_unpartitioned and not delete_file.partition:
                return ("an equality delete written under an unpartitioned spec is global: it applies to data files "
                        "of every partition with a strictly smaller sequence number")
            return ("an equality delete applies to the data files of its partition with a strictly smaller "
                    "sequence number (data < delete)")
        if kind is _DV:
            return ("a deletion vector applies to the data file it references when that file's sequence number is "
                    "its own or lower (data <= delete)")
        return ("a position delete applies to data files at its own sequence number or lower (data <= delete), "
                "in its partition")
    outcome = decision.outcome
    if outcome is Outcome.OTHER_PARTITION:
        if kind is _EQ:
            return "an equality delete written in a partition applies only to data files of that partition"
        return "a position delete applies only to data files of its own partition"
    if outcome is Outcome.IGNORED_BY_SEQUENCE:
        if kind is _EQ:
            return ("an equality delete applies only to data files with a strictly smaller sequence number "
                    "(data < delete, never equal: a row written in the same commit survives it)")
        return "a position delete or deletion vector never applies to data newer than itself (data <= delete)"
    if outcome is Outcome.OTHER_FILE:
        return "a position delete or deletion vector applies only to the data file whose path it lists"
    if outcome is Outcome.SUPERSEDED_BY_DV:
        return ("in v3 a deletion vector replaces every position delete file of its data file (it already holds "
                "their positions)")
    return f"the spec's outcome {outcome.value}"


def _flip(c: _Candidate, reader: str) -> Flip:
    d, x, decision = c.data_file, c.delete_file, c.decision
    rule = rule_broken(decision, x)
    if decision.applies:
        if d.sequence_number == x.sequence_number:
            why = f"although both are at sequence {x.sequence_number}"
        else:
            why = f"although {decision.comparison}" if decision.comparison else "although it applies"
        sentence = f"{reader} ignored {x.id} for {d.id} {why}: {rule}"
    else:
        if decision.outcome in (Outcome.OTHER_PARTITION,) or (x.partition != d.partition):
            where = f"{x.id} ({_scope(x)}) to {d.id} ({_scope(d)})"
        else:
            where = (f"{x.id} (sequence {x.sequence_number}) to {d.id} (sequence {d.sequence_number})"
                     if decision.outcome is Outcome.IGNORED_BY_SEQUENCE else f"{x.id} to {d.id}")
        sentence = f"{reader} applied {_KIND[x.content]} {where}: {rule}"
    return Flip(data_file=d.id, delete_file=x.id, applied=not decision.applies, outcome=decision.outcome.value,
                rule=rule, sentence=sentence)
