"""The Readers tab in a real browser: what ``tests/browser/test_readers_tab.py`` checks in an exported page and in
JupyterLab, and ``tests/browser/test_app_views.py`` in its voila session (safe mode), in that page and kernel
rather than a kernel and the app's Spark JVM of their own: Delta's seed story run with its readers checked, one
row per reader at every snapshot, no blank cell, the tab moving with the slider."""

from __future__ import annotations

from pathlib import Path

from explorer.conformance.result import ReadersResult
from explorer_testing import browser as B

PRESET = "delta-seed-delete-insert-delete"

# The Readers table on screen: its title and {reader: verdict}; empty when the tab shows no table.
READERS_JS = f"""() => {{
  const w = document.querySelector('{B.TIME_TRAVEL}');
  const t = [...w.querySelectorAll('.sx-panels table.sx-table[data-role="readers"]')]
    .find(e => e.getClientRects().length > 0);
  if (!t) return {{}};
  const head = [...t.querySelectorAll('th')].map(h => h.textContent);
  const rows = [...t.querySelectorAll('tbody tr')].map(tr => [...tr.children].map(td => td.textContent));
  return {{ title: t.parentElement.querySelector('.sx-table-title').textContent,
           verdicts: Object.fromEntries(rows.map(r => [r[0], r[head.indexOf('verdict')]])),
           colours: [...t.querySelectorAll('tbody tr')].map(tr => getComputedStyle(tr.children[0]).backgroundColor) }};
}}"""


def expected(checked: ReadersResult, index: int) -> dict[str, str]:
    snap = checked.snapshots[index]
    out = {}
    for r in sorted(checked.readers, key=lambda r: not r.reference):
        label = r.label + (" (reference)" if r.reference else "")
        out[label] = snap.verdicts[r.name].status.value if r.available else "not installed"
    return out



def walk(page, checked: ReadersResult | None, where: str) -> list[str]:
    """Every snapshot of the Readers tab: its verdicts (when ``checked`` is known) and what a reader sees wrong."""
    problems = []
    B.open_panel(page, "Readers")
    count = B.snapshot_count(page)
    assert checked is None or count == len(checked.snapshots)
    for index in [count - 1, *range(count - 1)]:
        B.move_slider(page, index)
        seen = page.evaluate(READERS_JS)
        assert seen, f"{where}: no Readers table at snapshot {index + 1}"
        if checked is not None:
            assert seen["verdicts"] == expected(checked, index), (where, index, seen)
        assert len(seen["verdicts"]) >= 3, seen  # delta-rs, duckdb, polars
        problems += [f"{where} / snapshot {index + 1}: {p}" for p in B.page_problems(page)]
    return problems


def tick_readers(page) -> None:
    box = page.locator(".widget-checkbox", has_text="check other readers").locator("input").first
    box.check()
    assert box.is_checked()



def readers_tab_checks(page, artifacts: Path, where: str) -> list[str]:
    """On a page showing the app: Delta's seed story run with its readers checked, then every snapshot of the
    Readers tab (:func:`walk`); what a reader would see wrong, and a screenshot ``readers-tab-<where>.png``."""
    B.choose_preset(page, PRESET)
    tick_readers(page)
    B.click_run(page)
    problems = walk(page, None, where)
    widget = page.locator(B.TIME_TRAVEL).first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(artifacts / f"readers-tab-{where}.png"))
    assert not B.stderr_boxes(page), f"{where}: a red stderr box after the readers' run"
    return problems
