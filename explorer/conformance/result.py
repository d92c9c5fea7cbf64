"""What checking a table's readers found: the typed result of ``explorer readers`` and ``explorer.readers(...)``.

One :class:`ReadersResult` per run: the readers of the run's format (:class:`ReaderInfo`, each with its library
version, or one line saying how to install it when it is missing), and per snapshot of the run
(:class:`SnapshotCheck`) the reference rows and one :class:`Verdict` per reader: ``agrees``, ``differs`` (rows
missing / extra, by value, as multisets; with a :class:`Diagnosis`), ``refused`` (the reader declined; its
message verbatim) or ``failed`` (it crashed, hung or read garbage; its message verbatim).

Rows are plain data (``{column: value}``, values as :func:`explorer.scenario.rows.normalize_value` leaves them),
so the result is JSON as it stands (:meth:`ReadersResult.to_plain`). Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

Row = Mapping[str, Any]


class Status(StrEnum):
    """A reader's verdict on one snapshot."""

    AGREES = "agrees"  # the same rows as the reference, as a multiset
    DIFFERS = "differs"  # rows missing and/or extra
    REFUSED = "refused"  # the reader declined to read this snapshot (a feature it does not support)
    FAILED = "failed"  # the reader crashed, hung past the time limit, or returned something unreadable


@dataclass(frozen=True)
class ReaderInfo:
    """One reader of a format. ``missing``: the one line saying how to install it, when it is not installed
    (it then has no verdicts). ``reference``: the rows every other reader is compared with come from it."""

    name: str
    format: str
    library: str
    version: str | None
    reference: bool = False
    missing: str | None = None
    note: str | None = None

    @property
    def available(self) -> bool:
        return self.missing is None

    @property
    def label(self) -> str:
        """``duckdb 1.5.5`` (the name and version people see)."""
        return f"{self.name} {self.version}" if self.version else self.name

    def to_plain(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "library": self.library, "format": self.format,
                "reference": self.reference, "missing": self.missing, "note": self.note}


@dataclass(frozen=True)
class Flip:
    """One (data file, delete file) decision the reader took the other way from the spec.

    ``applied``: what the reader did (True: it applied a delete the spec says does not apply; False: it left off
    one that applies). ``outcome``: the spec's outcome for the pair (:class:`explorer.iceberg.resolution.Outcome`
    value). ``rule``: the rule the flip breaks, in the chapters' words. ``sentence``: the whole finding."""

    data_file: str
    delete_file: str
    applied: bool
    outcome: str
    rule: str
    sentence: str

    def to_plain(self) -> dict[str, Any]:
        return {"data_file": self.data_file, "delete_file": self.delete_file, "applied": self.applied,
                "outcome": self.outcome, "rule": self.rule, "sentence": self.sentence}


@dataclass(frozen=True)
class Diagnosis:
    """Why a reader's rows differ: the smallest set of decision flips whose result is exactly its rows
    (``explained``), or the statement that no set of flips explains them (``explained`` False, no flips)."""

    explained: bool
    flips: tuple[Flip, ...]
    text: str

    @property
    def rules(self) -> tuple[str, ...]:
        """The distinct rules broken, in order of first appearance."""
        return tuple(dict.fromkeys(f.rule for f in self.flips))

    def to_plain(self) -> dict[str, Any]:
        return {"explained": self.explained, "text": self.text, "flips": [f.to_plain() for f in self.flips]}


@dataclass(frozen=True)
class Verdict:
    """One reader on one snapshot. ``rows``: what it returned (None when it refused or failed); ``missing``:
    reference rows it did not return; ``extra``: rows it returned that the reference does not hold; ``error``: the
    reader's own message, verbatim (refused / failed)."""

    status: Status
    rows: tuple[Row, ...] | None = None
    missing: tuple[Row, ...] = ()
    extra: tuple[Row, ...] = ()
    diagnosis: Diagnosis | None = None
    error: str | None = None
    seconds: float = 0.0

    def to_plain(self) -> dict[str, Any]:
        return {"status": self.status.value,
                "rows": None if self.rows is None else [dict(r) for r in self.rows],
                "missing": [dict(r) for r in self.missing], "extra": [dict(r) for r in self.extra],
                "diagnosis": None if self.diagnosis is None else self.diagnosis.to_plain(),
                "error": self.error, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class SnapshotCheck:
    """One snapshot (Delta: one version) of the run: the reference rows and every available reader's verdict."""

    snapshot_id: int
    sequence_number: int | None
    ordinal: int
    label: str
    reference_rows: tuple[Row, ...]
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)

    def to_plain(self) -> dict[str, Any]:
        return {"snapshot_id": self.snapshot_id, "sequence_number": self.sequence_number, "ordinal": self.ordinal,
                "label": self.label, "reference_rows": [dict(r) for r in self.reference_rows],
                "readers": {name: v.to_plain() for name, v in self.verdicts.items()}}


@dataclass(frozen=True)
class ReadersResult:
    """Every reader of a run's format at every snapshot of the run (see the module docstring).

    ``reference``: the reader whose rows are the reference (Iceberg: Spark; Delta: delta-rs; Paimon: pypaimon;
    DuckLake: DuckDB). ``notes``: what the learner must know about this format's readers (DuckLake: DuckDB is its
    only reader). ``warehouse``: where the run's table was kept (None when it was dropped after the check)."""

    scenario: str
    format: str
    reference: str
    readers: tuple[ReaderInfo, ...]
    snapshots: tuple[SnapshotCheck, ...]
    warehouse: str | None = None
    table_location: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def differs(self) -> bool:
        """Some reader returned other rows than the reference at some snapshot (exit 3 on the command line)."""
        return any(v.status is Status.DIFFERS for s in self.snapshots for v in s.verdicts.values())

    @property
    def agrees(self) -> bool:
        """No reader differs (refusals and failures are verdicts, not disagreements about rows)."""
        return not self.differs

    def reader(self, name: str) -> ReaderInfo:
        for r in self.readers:
            if r.name == name:
                return r
        raise KeyError(f"no reader {name!r}; this run's readers: {', '.join(r.name for r in self.readers)}")

    def verdicts(self, name: str) -> tuple[Verdict, ...]:
        """One reader's verdicts, snapshot by snapshot (empty when it is missing)."""
        return tuple(s.verdicts[name] for s in self.snapshots if name in s.verdicts)

    def counts(self, name: str) -> dict[str, int]:
        """How many snapshots got each status from one reader (every status named, zero included)."""
        seen = Counter(v.status for v in self.verdicts(name))
        return {status.value: seen.get(status, 0) for status in Status}

    def diagnoses(self) -> tuple[str, ...]:
        """The distinct diagnosis texts, in order of first appearance."""
        texts = (v.diagnosis.text for s in self.snapshots for v in s.verdicts.values() if v.diagnosis is not None)
        return tuple(dict.fromkeys(texts))

    def to_plain(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "format": self.format, "reference": self.reference,
                "agrees": self.agrees, "readers": [r.to_plain() for r in self.readers],
                "counts": {r.name: self.counts(r.name) for r in self.readers if r.available},
                "snapshots": [s.to_plain() for s in self.snapshots], "diagnoses": list(self.diagnoses()),
                "notes": list(self.notes), "warehouse": self.warehouse, "table_location": self.table_location}

    def to_text(self) -> str:
        lines = [f"{self.scenario} ({self.format}): {len(self.snapshots)} snapshot(s), reference "
                 f"{self.reader(self.reference).label}"]
        lines += [f"  note: {n}" for n in self.notes]
        for r in self.readers:
            if not r.available:
                lines.append(f"  {r.name}: not installed: {r.missing}")
        available = [r for r in self.readers if r.available]
        for s in self.snapshots:
            seq = "" if s.sequence_number is None else f" seq {s.sequence_number}"
            lines.append(f"snapshot {s.snapshot_id}{seq} ({s.label}): {len(s.reference_rows)} reference row(s)")
            for r in available:
                v = s.verdicts.get(r.name)
                if v is None:
                    continue
                line = f"  {r.label:<22} {v.status.value}"
                if v.status is Status.AGREES:
                    line += f" ({len(v.rows or ())} rows)"
                elif v.status is Status.DIFFERS:
                    line += f": {len(v.missing)} missing, {len(v.extra)} extra"
                    line += "".join(f"\n      missing {_brief(row)}" for row in v.missing)
                    line += "".join(f"\n      extra   {_brief(row)}" for row in v.extra)
                    if v.diagnosis is not None:
                        line += f"\n      diagnosis: {v.diagnosis.text}"
                elif v.error is not None:
                    line += f": {_first_line(v.error)}"
                lines.append(line)
        for r in available:
            c = self.counts(r.name)
            lines.append(f"{r.label}: " + ", ".join(f"{n} {k}" for k, n in c.items() if n))
        if self.warehouse:
            lines.append(f"kept the table in {self.warehouse}")
        return "\n".join(lines)


def _brief(row: Row) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in row.items()) + ")"


def _first_line(text: str) -> str:
    first = (text.strip().splitlines() or [""])[0]
    return first if len(first) <= 200 else first[:197] + "..."


@dataclass(frozen=True)
class PresetLine:
    """One preset of ``explorer conformance``: per reader, how many snapshots got each status, and the distinct
    diagnoses; ``error`` when the preset itself could not run (then no counts)."""

    preset: str
    format: str
    snapshots: int
    counts: Mapping[str, Mapping[str, int]]
    diagnoses: tuple[str, ...] = ()
    refusals: tuple[str, ...] = ()
    error: str | None = None
    seconds: float = 0.0
    failures: tuple[str, ...] = ()  # the distinct messages of ``failed`` verdicts, "reader: message"

    def to_plain(self) -> dict[str, Any]:
        return {"preset": self.preset, "format": self.format, "snapshots": self.snapshots,
                "counts": {k: dict(v) for k, v in self.counts.items()}, "diagnoses": list(self.diagnoses),
                "refusals": list(self.refusals), "failures": list(self.failures), "error": self.error,
                "seconds": round(self.seconds, 2)}


@dataclass(frozen=True)
class ConformanceResult:
    """Every preset through every reader of its format: a matrix preset × reader of verdict counts."""

    lines: tuple[PresetLine, ...]
    readers: tuple[ReaderInfo, ...]
    seconds: float = 0.0

    @property
    def differs(self) -> bool:
        return any(c.get(Status.DIFFERS.value, 0) for line in self.lines for c in line.counts.values())

    def totals(self) -> dict[str, dict[str, int]]:
        """Per ``format/reader``: the counts over every preset."""
        out: dict[str, dict[str, int]] = {}
        for line in self.lines:
            for reader, counts in line.counts.items():
                into = out.setdefault(f"{line.format}/{reader}", {s.value: 0 for s in Status})
                for status, n in counts.items():
                    into[status] = into.get(status, 0) + n
        return out

    def diagnoses(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d for line in self.lines for d in line.diagnoses))

    def to_plain(self) -> dict[str, Any]:
        return {"readers": [r.to_plain() for r in self.readers], "presets": [p.to_plain() for p in self.lines],
                "totals": self.totals(), "diagnoses": list(self.diagnoses()), "differs": self.differs,
                "seconds": round(self.seconds, 1)}

    def to_text(self) -> str:
        lines = []
        for p in self.lines:
            if p.error is not None:
                lines.append(f"{p.preset} ({p.format}): could not run: {_first_line(p.error)}")
                continue
            cells = "; ".join(f"{r} " + "/".join(str(c.get(s.value, 0)) for s in Status)
                              for r, c in p.counts.items())
            lines.append(f"{p.preset} ({p.format}, {p.snapshots} snapshots): {cells}")
        lines.append("counts are agrees/differs/refused/failed snapshots")
        lines += ["totals:"] + [f"  {k}: " + ", ".join(f"{n} {s}" for s, n in v.items())
                                for k, v in self.totals().items()]
        lines += ["diagnoses:"] + [f"  {d}" for d in self.diagnoses()]
        return "\n".join(lines)
