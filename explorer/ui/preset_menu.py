"""The preset picker's menu: presets grouped by the chapter that tells them, in reading order, one line each.

A learner meets a preset in a chapter first; the picker lists them the same way ("02 · same-commit-upsert — Upsert
in one commit ..."), then the ones no chapter uses yet. The project's own regression scenarios (``regression-*``)
are not offered: they guard engine corner cases and teach nothing on their own (they still load by name).
``tests/pure/ui/test_preset_menu.py`` checks that every preset listed under a chapter is used in that chapter's
notebook, so the menu cannot drift from the chapters.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.scenario.model import Scenario

# (chapter number as the file names carry it, the presets it runs), in reading order (the numbers' order).
CHAPTERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("01", ("seed-delete-insert-delete",)),
    ("02", ("seed-sql-delete-v2", "seed-deletion-vectors-v3", "same-commit-upsert", "delete-whole-file-or-position-delete",
            "partition-scoped-delete", "compaction-starting-sequence", "rewrite-position-deletes-keeps-sequence",
            "v1-to-v2-upgrade", "concurrent-compaction-vs-equality-delete",
            "concurrent-compaction-vs-equality-delete-no-starting-sequence",
            "concurrent-compaction-vs-position-delete", "compaction-into-the-current-spec")),
    ("03", ("concurrent-delete-vs-update", "concurrent-delete-vs-update-delete-first",
            "concurrent-snapshot-isolation-lost-delete", "concurrent-different-partitions")),
    ("04", ("stats-pruned-equality-delete",)),
    ("05", ("compaction-applies-equality-deletes",)),
    ("06", ("flink-checkpoint-upsert",)),
    ("07", ("changelog-sequence-a", "changelog-sequence-b", "changelog-net-cancels")),
    ("08", ("v3-row-lineage-through-compaction", "v3-upgrade-position-deletes-to-dvs")),
    ("09", ("branch-and-fast-forward", "branch-commit-skips-main-sequence", "cherry-pick", "rollback-then-append")),
    ("10", ("paimon-late-arriving-event", "paimon-snapshot-ordering", "paimon-writers-grid",
            "paimon-rowkind-delete-and-update",
            "paimon-sequence-tie", "paimon-multi-field-sequence", "paimon-partial-update", "paimon-sequence-groups",
            "paimon-java-sequence-group", "paimon-java-first-row", "paimon-java-first-row-ignore-delete",
            "paimon-java-sequence-group-retract", "paimon-java-partial-update-remove-on-delete")),
    ("11", ("paimon-java-full-compaction-changelog", "paimon-java-deletion-vectors")),
)
INTERNAL_PREFIX = "regression-"
MORE = "more"  # the group of presets no chapter runs


def menu(presets: Mapping[str, Scenario]) -> list[tuple[str, str]]:
    """The picker's (label, preset name) options: by chapter in reading order, then the rest alphabetically."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for chapter, names in CHAPTERS:
        for name in names:
            if name in presets and name not in seen:
                out.append((_label(chapter, presets[name]), name))
                seen.add(name)
    for name in sorted(presets):
        if name not in seen and not name.startswith(INTERNAL_PREFIX):
            out.append((_label(MORE, presets[name]), name))
    return out


def _label(group: str, scenario: Scenario) -> str:
    return f"{group} · {scenario.name} — {scenario.title}" if scenario.title else f"{group} · {scenario.name}"
