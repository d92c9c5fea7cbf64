"""Exported pages without a browser: every preset's page holds every snapshot's views, references nothing
outside the file, and matches what the app hands its time-travel widget; ``explorer export`` from the command
line (a preset, a kept table's folder; bad arguments, without an engine: tests/pure/ui/test_export.py).

Every run is the test session's shared one (``preset_result`` in tests/conftest.py: the Iceberg and Paimon runs
are also used by the read-back, inspect and Paimon runner tests), so no preset runs twice for its page; the
browser opens a representative set of them (tests/browser/test_export.py), checked here to show every kind of
page any preset's shows.
"""

from __future__ import annotations

import json
import re

import pytest

from explorer.api import list_presets
from explorer.iceberg.result import IcebergResult
from explorer.ui.cli import EXIT_OK, main
from explorer.ui.export import CARTESIAN_TRACES, Page, Section, page_html, run_page, trace_types
from explorer.ui.timetravel import PANELS

ICEBERG = [s.name for s in list_presets("iceberg")]
PAIMON = [s.name for s in list_presets("paimon")]
DELTA = [s.name for s in list_presets("delta")]
DUCKLAKE = [s.name for s in list_presets("ducklake")]
# Any way a page could ask for something outside itself (plotly's bundle is checked apart: it names map tile
# servers in strings it uses only for map traces, which no explorer figure has).
EXTERNAL = re.compile(r"""(src|href)\s*=\s*["']?(https?:|//)|@import|url\(\s*["']?(https?:|//)""", re.IGNORECASE)


def sections_of(html: str) -> dict[str, str]:
    """The page's inline scripts by id (section data and texts), and the page without plotly's bundle."""
    scripts = dict(re.findall(r'<script type="application/json" id="([^"]+)">(.*?)</script>', html, flags=re.DOTALL))
    return {k: v.replace("<\\/", "</") for k, v in scripts.items()}


PLOTLY_HOLDER = re.compile(r'<script type="text/plain" id="sx-plotly" data-bundle="(\w+)" data-version="([^"]+)">'
                           r'(.*?)</script>', flags=re.DOTALL)


def plotly_of(html: str) -> tuple[str, str]:
    """The plotly.js a page inlines (its bundle's name, e.g. ``cartesian``) and the page without it; checks it is
    exactly once there, byte for byte one of the two bundles, at the plotly package's version."""
    from explorer.ui.export import cartesian_bundle, full_bundle

    found = PLOTLY_HOLDER.findall(html)
    assert len(found) == 1, "plotly.js is inlined exactly once"
    name, version, source = found[0]
    bundle = {"cartesian": cartesian_bundle(), "full": full_bundle()}[name]
    assert bundle is not None and source == bundle.source and version == bundle.version == full_bundle().version
    return name, html.replace(source, "")


def page_parts(html: str) -> tuple[dict, dict, str]:
    scripts = sections_of(html)
    data = json.loads(scripts["sx-data-0"])
    payload = json.loads(scripts["sx-text-0"])
    _, rest = plotly_of(html)
    return data, payload, rest


def check_page(result, name: str, html: str) -> None:
    data, payload, rest = page_parts(html)
    # the smaller bundle whenever it draws every figure of the page (a figure needing more takes the full one)
    types = trace_types(Page("", sections=(Section("run", {}, text=sections_of(html)["sx-text-0"]),)))
    assert types and plotly_of(html)[0] == ("cartesian" if types <= CARTESIAN_TRACES else "full"), types
    assert not EXTERNAL.search(rest), f"{name}: the page refers to something outside itself: " \
                                      f"{EXTERNAL.search(rest).group(0)}"
    assert len(html) < 6_000_000, f"{name}: {len(html) / 1e6:.1f} MB"
    snapshots = payload["snapshots"]
    assert len(snapshots) == len(result.points()) == data["snapshots"] > 0
    assert [p["title"] for p in payload["panels"]] == [t for t, _ in PANELS]
    for snap in snapshots:
        views = set(snap["figures"]) | set(snap["tables"])
        assert snap["label"] and snap["caption"] and snap["check"], (name, snap["key"])
        assert snap["agrees"] is not False, (name, snap["check"])
        # Every tab has something to show at every snapshot.
        for title, names in PANELS:
            assert views & set(names), f"{name}: tab {title!r} is empty at snapshot {snap['label']}"
    assert not data["banner"] and data["predict"] is False


@pytest.mark.spark
@pytest.mark.parametrize("name", ICEBERG)
def test_every_iceberg_preset_exports_every_snapshots_views(preset_result, preset_page, name):
    check_page(preset_result(name), name, preset_page(name))


@pytest.mark.paimon
@pytest.mark.parametrize("name", PAIMON)
def test_every_paimon_preset_exports_every_snapshots_views(preset_result, preset_page, name):
    """On the runner the explorer picks (Paimon's Java library for what pypaimon cannot run)."""
    check_page(preset_result(name), name, preset_page(name))


@pytest.mark.delta
@pytest.mark.parametrize("name", DELTA)
def test_every_delta_preset_exports_every_snapshots_views(preset_result, preset_page, name):
    check_page(preset_result(name), name, preset_page(name))


@pytest.mark.parametrize("name", DUCKLAKE)
def test_every_ducklake_preset_exports_every_snapshots_views(preset_result, preset_page, name):
    check_page(preset_result(name), name, preset_page(name))


def test_every_preset_is_exported_here():
    """No engine's presets are left out of the checks above."""
    assert sorted(ICEBERG + PAIMON + DELTA + DUCKLAKE) == sorted(s.name for s in list_presets())


@pytest.mark.spark
@pytest.mark.paimon
@pytest.mark.delta
def test_the_pages_the_browser_opens_show_every_kind_any_presets_page_shows(preset_result, preset_page):
    """The browser opens a representative set of pages (tests/browser/test_export.py): together they show every
    engine, plotly bundle, trace type, view (as a figure or a table), empty table, predict mode offered or not, and
    one snapshot or several that any preset's page shows (``page_kinds``). A preset that shows something new fails
    here, with the set to open that covers it."""
    from explorer.ui.engine_views import ResultViews
    from explorer_testing.export_pages import BROWSER_SET, page_kinds, smallest_cover

    kinds = {}
    for s in list_presets():
        bets = len(ResultViews(preset_result(s.name)).predictable_rows())
        kinds[s.name] = page_kinds(s.engine, preset_page(s.name), bets)
    assert set(BROWSER_SET) <= set(kinds), set(BROWSER_SET) - set(kinds)
    missing = frozenset().union(*kinds.values()) - frozenset().union(*(kinds[n] for n in BROWSER_SET))
    assert not missing, (f"no page the browser opens shows {sorted(missing)}; a set that covers every kind: "
                         f"{smallest_cover(kinds, BROWSER_SET)}")


@pytest.mark.spark
def test_the_page_shows_what_the_app_shows_and_predict_mode_keeps_the_answer_for_reveal(preset_capture):
    """The page's payload is the one the app hands its widget after Run (same presenter); in predict mode the
    rows asked about are the app's, with their answers, and the page starts hidden."""
    from explorer.ui.app import App

    result = IcebergResult(preset_capture("seed-delete-insert-delete"))
    app = App(preset="seed-delete-insert-delete")
    app.show_result(result)
    _, payload, _ = page_parts(page_html(run_page(result)))
    assert payload["snapshots"] == json.loads(app.w_time.payload)["snapshots"]
    # The Export page button offers the same page as a download (a data: link, nothing written on the server).
    assert app.w_export_page.disabled is False
    app.w_export_page.click()
    link = re.search(r'download="seed-delete-insert-delete.html" href="data:text/html;base64,([^"]+)"',
                     app.w_export_link.value)
    assert link, app.w_export_link.value
    import base64

    _, downloaded, _ = page_parts(base64.b64decode(link.group(1)).decode("utf-8"))
    assert downloaded["snapshots"] == payload["snapshots"]

    app.set_predict_mode(True)
    app.show_result(result)
    data, _, _ = page_parts(app.export_page())
    assert data["predict"] is True
    assert [r["label"] for r in data["rows"]] == [r.label for r in app.prediction_rows]
    assert [r["visible"] for r in data["rows"]] == [r.visible for r in app.prediction_rows]
    assert any(not r["visible"] for r in data["rows"]) and any(r["visible"] for r in data["rows"])


@pytest.mark.spark
def test_export_a_kept_tables_folder_from_the_command_line(preset_capture, tmp_path, capsys):
    """A kept table (here the session's kept run of the seed story) is read through inspect and exported."""
    capture = preset_capture("seed-delete-insert-delete")
    out = tmp_path / "kept.html"
    from explorer.iceberg.spark.metadata import local_path

    assert main(["export", local_path(capture.table_location), "-o", str(out)]) == EXIT_OK
    assert f"wrote {out}" in capsys.readouterr().err
    _, payload, _ = page_parts(out.read_text(encoding="utf-8"))
    assert len(payload["snapshots"]) == len(capture.snapshots)
    assert "Inspected table" in out.read_text(encoding="utf-8")
    last = payload["snapshots"][-1]
    assert last["agrees"] is True and {"timeline", "decisions", "rows"} <= set(last["figures"]) | set(last["tables"])


@pytest.mark.delta
def test_explorer_export_writes_a_runs_page_and_to_html_is_deprecated_but_still_writes_it(preset_result, tmp_path):
    """``explorer.export`` is the one public way to a page (a result, or a preset it runs first); a result's
    ``to_html`` warns that it goes and still writes the same page (the core names no UI module to do it)."""
    import explorer

    result = preset_result("delta-seed-delete-insert-delete")
    page = explorer.export(result, tmp_path / "run.html")
    assert "sx-data-0" in page.read_text(encoding="utf-8")
    ran = explorer.export("ducklake-seed-delete-insert-delete", tmp_path / "ran.html", predict=True)
    assert json.loads(sections_of(ran.read_text(encoding="utf-8"))["sx-data-0"])["predict"] is True
    with pytest.warns(DeprecationWarning, match=r"explorer\.export\(result, path\)"):
        old = result.to_html(tmp_path / "old.html")
    assert sections_of(old.read_text(encoding="utf-8")).keys() == sections_of(page.read_text(encoding="utf-8")).keys()
