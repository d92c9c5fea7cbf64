"""Which presets' exported pages the browser opens in the suite, and why those cover the others.

An exported page's script (explorer/ui/timetravel.js) is one program for every preset: what differs from page to
page is only its data. A page is described here by the things that script and plotly.js do differently:
the engine that ran it, the plotly.js bundle it inlines (cartesian or full), each plotly trace type a figure uses,
each view it shows and whether as a figure or a table, a table left empty (e.g. after the last row is deleted),
whether predict mode is offered (rows to bet on) or not, and one snapshot or several (the slider and Play).

:data:`BROWSER_SET` is a smallest set of presets found (greedily) whose pages together show every such kind that
any preset's page shows; tests/engine/ui/test_export.py checks that, with every preset's page made without a browser,
so a new preset that renders something new fails there until it joins the set. tests/browser/test_export.py opens
the set's pages; ``bash scripts/test tests/browser/test_export.py --every-preset`` opens every preset's page.
"""

from __future__ import annotations

import json
import re
from typing import Any

# The seed story in each format the screenshots show (Iceberg's also plays; Paimon's and Delta's offer no predict
# mode), then what ``smallest_cover`` adds to them: DuckLake (its row history as a table), a race (its figure)
# and a delete that empties a table (tests/engine/ui/test_export.py checks the set still covers every preset's kinds).
BROWSER_SET = (
    "seed-delete-insert-delete", "paimon-late-arriving-event", "delta-seed-delete-insert-delete",
    "ducklake-changelog-sequence-a", "concurrent-compaction-vs-equality-delete", "delete-whole-file-or-position-delete",
)

_PAYLOAD = re.compile(r'<script type="application/json" id="sx-text-0">(.*?)</script>', flags=re.DOTALL)
_BUNDLE = re.compile(r'<script type="text/plain" id="sx-plotly" data-bundle="(\w+)"')


def payload_of(html: str) -> dict[str, Any]:
    """The time-travel data a run's page carries (every snapshot's figures and tables, the tabs)."""
    found = _PAYLOAD.search(html)
    assert found is not None, "the page has no time-travel data"
    data: dict[str, Any] = json.loads(found.group(1).replace("<\\/", "</"))
    return data


def page_kinds(engine: str, html: str, predictable_rows: int) -> frozenset[str]:
    """What the page's script and plotly.js do differently for this page (the module's docstring lists it)."""
    payload = payload_of(html)
    bundle = _BUNDLE.search(html)
    kinds = {f"engine {engine}", f"bundle {bundle.group(1) if bundle else 'none'}",
             "predict offered" if predictable_rows else "no predict",
             "one snapshot" if len(payload["snapshots"]) == 1 else "several snapshots"}
    for snap in payload["snapshots"]:
        for name, fig in snap["figures"].items():
            kinds.add(f"figure {name}")
            kinds.update(f"trace {t.get('type') or 'scatter'}" for t in fig.get("data", []))
        for name, table in snap["tables"].items():
            kinds.add(f"table {name}")
            if not table["rows"]:
                kinds.add("an empty table")
    return frozenset(kinds)


def smallest_cover(kinds_by_preset: dict[str, frozenset[str]], start: tuple[str, ...] = ()) -> list[str]:
    """A small set of presets whose kinds together are every preset's (greedy: the preset adding most next, ties
    by name), starting from ``start``."""
    chosen = list(start)
    wanted = frozenset().union(*kinds_by_preset.values())
    have = frozenset().union(*(kinds_by_preset[n] for n in chosen)) if chosen else frozenset()
    while have != wanted:
        best = max(sorted(kinds_by_preset), key=lambda n: len(kinds_by_preset[n] - have))
        chosen.append(best)
        have |= kinds_by_preset[best]
    return chosen
