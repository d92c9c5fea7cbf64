"""The "Every commit order" grid in a real page, in JupyterLab and in voila (headless Chromium, 1400x900).

The app runs the compaction-vs-equality-delete race in its 4 histories on the real engine (Iceberg), then, in the
same page and kernel as a learner picking another preset, a Delta race in its 8 histories on delta-rs; the page
shows each grid grouped by outcome. Clicking a history must swap its detail (race lanes, fates, rows, snapshots, verdict) in the
same task as the click, before any message could reach the kernel and come back; the selection must then reach
Python. No table cell may be empty, nothing may stick out of the page, no red stderr box. Screenshots go to
artifacts/browser/.
"""

from __future__ import annotations

import pytest

from explorer_testing import browser as B

pytestmark = pytest.mark.browser

PRESET = "concurrent-compaction-vs-equality-delete"
GRID = ".sx-or"

# Click history ``i`` and read the detail's title in the same task: a change here happened without the kernel.
CLICK_JS = f"""i => {{
  const grid = document.querySelector('{GRID}');
  const before = grid.querySelector('.sx-detail b').textContent;
  grid.querySelector(`button.sx-h[data-index="${{i}}"]`).click();
  return {{ before, after: grid.querySelector('.sx-detail b').textContent,
           lanes: grid.querySelectorAll('.sx-detail svg.sx-lanes g, .sx-detail svg.sx-lanes circle').length }};
}}"""

PROBLEMS_JS = f"""() => {{
  const out = [];
  const grid = document.querySelector('{GRID}');
  grid.querySelectorAll('td').forEach((td, k) => {{ if (!td.textContent.trim()) out.push(`cell ${{k}} is empty`); }});
  const page = document.documentElement.clientWidth;
  for (const e of grid.querySelectorAll('.sx-group, .sx-detail, table')) {{
    const r = e.getBoundingClientRect();
    if (r.right > page + 1) out.push(`${{e.className || e.tagName}} sticks out of the page (${{Math.round(r.right)}} > ${{page}})`);
  }}
  return out;
}}"""


def run_grid(page) -> None:
    B.choose_preset(page, PRESET)
    page.get_by_text("Every commit order", exact=True).first.click()
    page.locator("button.jupyter-button", has_text="Run every order").first.click()
    page.locator(f"{GRID} .sx-detail").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)


def check_grid(page, artifacts, name: str) -> None:
    cells = page.locator(f"{GRID} button.sx-h")
    assert cells.count() == 4
    assert page.locator(f"{GRID} .sx-group").count() >= 2
    seen = page.evaluate(CLICK_JS, 4)
    assert seen["before"].startswith("#1 ") and seen["after"].startswith("#4 "), seen
    assert "C.start D.start D.commit C.commit" in seen["after"]
    detail = page.locator(f"{GRID} .sx-detail").first.inner_text()
    assert "retried" in detail and "equals serial order D→C" in detail
    problems = page.evaluate(PROBLEMS_JS)
    assert not problems, problems
    assert not B.stderr_boxes(page)
    shoot_grid(page, artifacts, name)



def shoot_grid(page, artifacts, name: str) -> None:
    """Screenshots of the grid and of the history's detail below it, for the eye."""
    for part, selector in (("grid", GRID), ("detail", f"{GRID} .sx-detail")):
        shown = page.locator(selector).first
        shown.scroll_into_view_if_needed()
        shown.screenshot(path=str(artifacts / f"orders-{part}-{name}.png"))

def open_and_check(page, server, artifacts, kind: str) -> None:
    (B.open_jupyterlab if kind == "lab" else B.open_voila)(page, server)
    run_grid(page)
    check_grid(page, artifacts, kind)


# One representative Delta race (issue #41): its 8 histories (2 serial, 2 commit orders x 3 isolation levels), run on
# delta-rs from the app; the grid swaps a history without the kernel, in JupyterLab and in voila.
DELTA_PRESET = "delta-race-delete-vs-update-delete-first"


def check_delta_grid(page, artifacts, name: str) -> None:
    """The Delta race's grid, in a page where the Iceberg race's grid (4 histories) is still shown: the view stays
    open (its title folds it), and the new grid is the one with 8 histories."""
    B.choose_preset(page, DELTA_PRESET)
    run_every = page.locator("button.jupyter-button", has_text="Run every order").first
    if not run_every.is_visible():
        page.get_by_text("Every commit order", exact=True).first.click()
    run_every.click()
    page.wait_for_function(f"() => document.querySelectorAll('{GRID} button.sx-h').length === 8",
                           timeout=B.RUN_TIMEOUT_MS, polling=100)
    page.locator(f"{GRID} .sx-detail").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
    seen = page.evaluate(CLICK_JS, 8)
    assert seen["before"].startswith("#1 ") and seen["after"].startswith("#8 "), seen
    assert "B.commit A.commit" in seen["after"] and "SnapshotIsolation, delta-rs only" in seen["after"], seen
    # the thumbnail's own caption says the level is delta-rs's alone, whole inside its button
    cap = page.evaluate(f"""() => {{
      const b = document.querySelector('{GRID} button.sx-h[data-index="8"]'), c = b.querySelector('.sx-cap');
      const r = c.getBoundingClientRect(), o = b.getBoundingClientRect();
      return {{ text: c.textContent, inside: r.left >= o.left - 1 && r.right <= o.right + 1 }}; }}""")
    assert cap["text"] == "#8 SnapshotIsolation (delta-rs)" and cap["inside"], cap
    detail = page.locator(f"{GRID} .sx-detail").first.inner_text()
    # B first; at SnapshotIsolation delta-rs skips the added-files check, so the removed file refuses A
    assert "refused: ConcurrentDeleteRead" in detail and "delta-rs" in detail, detail
    problems = page.evaluate(PROBLEMS_JS)
    assert not problems, problems
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1")
    assert not B.stderr_boxes(page)
    shoot_grid(page, artifacts, f"delta-{name}")


# One page per server for both races: each test of a page starts a kernel (and the app its Spark JVM), the larger
# share of such a test's CPU; the Delta grid then runs in the page the Iceberg grid left, as a learner would.
@pytest.mark.delta
@pytest.mark.parametrize("kind", ["lab", "voila"])
def test_the_grid_swaps_a_history_without_the_kernel_iceberg_then_delta(page, request, artifacts, kind):
    server = request.getfixturevalue("lab_server" if kind == "lab" else "voila_server")
    with B.session_on(page, server, artifacts, f"orders-{kind}", {}, stop=False):
        open_and_check(page, server, artifacts, kind)
        check_delta_grid(page, artifacts, kind)
