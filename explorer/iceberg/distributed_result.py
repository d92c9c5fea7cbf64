"""What a distributed inspect brings back to the driver: the summary's counts and one row per partition.

The distributed path (:mod:`explorer.iceberg.spark.distributed`) computes these as Spark jobs; this module only
words and shapes them, with the same text as the single-machine summary
(:class:`~explorer.iceberg.plan_summary.SummaryCounts`). Files are named by their path relative to the table.

Pure: no engine, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.iceberg.plan_summary import PartitionLoad, SummaryCounts, text_table

HEAVIEST = 10  # partitions listed as the heaviest


@dataclass(frozen=True)
class PlanCheck:
    """The attached-delete sets compared with Iceberg Java's own planning, file by file (a join on Spark)."""

    compared: int
    differ: int

    @property
    def agrees(self) -> bool:
        return self.differ == 0


@dataclass(frozen=True)
class DistributedInspection:
    """A table inspected by Spark jobs: the decision summary and per-partition loads at one snapshot."""

    table: str
    snapshot_id: int
    counts: SummaryCounts
    partitions: tuple[PartitionLoad, ...]
    check: PlanCheck | None = None

    @property
    def agrees(self) -> bool:
        """False only when a check ran and found a data file whose attached deletes differ."""
        return self.check is None or self.check.agrees

    def summary(self) -> list[str]:
        return self.counts.lines()

    def heaviest(self, n: int = HEAVIEST) -> list[PartitionLoad]:
        """The partitions whose readers open the most delete files (attached pairs), most first."""
        return sorted(self.partitions, key=lambda p: (-p.attached, -p.most_on_one_file, p.partition))[:n]

    def to_text(self) -> str:
        lines = [f"{self.table} at snapshot {self.snapshot_id} (planned by Spark jobs: the distributed path)", ""]
        lines += self.summary()
        rows = [[p.partition, p.data_files, p.equality_deletes, p.position_deletes, p.deletion_vectors, p.attached,
                 p.most_on_one_file] for p in self.heaviest()]
        if rows:
            lines += ["", f"heaviest partitions ({len(rows)} of {len(self.partitions):,}):",
                      text_table(["partition", "data files", "eq deletes", "pos deletes", "DVs", "attached",
                                  "most on one file"], rows)]
        if self.check is not None:
            lines += ["", f"checked against Iceberg Java's planning: {self.check.differ:,} of "
                          f"{self.check.compared:,} data files differ"]
        return "\n".join(lines)

    def to_plain(self) -> dict[str, Any]:
        out: dict[str, Any] = {"table": self.table, "snapshot_id": self.snapshot_id, "distributed": True,
                               "summary": self.summary(), "agrees": self.agrees,
                               "data_files": self.counts.data_files, "delete_files": self.counts.delete_files,
                               "partitions": [p.to_plain() for p in self.partitions]}
        if self.check is not None:
            out["check"] = {"sets_compared": self.check.compared, "sets_differ": self.check.differ}
        return out
