"""The slider's Python twin in a real kernel moves what the learner sees in a real page, and back: checks run by
``tests/browser/test_app_views.py`` in its JupyterLab session (notebook 00), in that page and kernel rather than a
kernel and the app's Spark JVM of their own.

JupyterLab runs notebook 00 (the seed story) in headless Chromium and the page presses Run. A second client of
that same kernel (what ``jupyter console --existing`` does) then calls ``app.set_snapshot(...)``: the page's
slider, step label, caption and the views on screen must follow, although the page draws them from what it got
at run time. A drag of the page's slider must reach the Python model (index, snapshot, caption, figures). A twin
call the app cannot honour is one line in the page and leaves the slider where it was; the next good call takes
the line away.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from jupyter_client import BlockingKernelClient
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from explorer_testing import browser as B

# In the kernel: the app notebook 00 displayed (its cell's value, so in IPython's Out), and what Python holds.
FIND_APP = """
from explorer import At
from explorer.ui.app import App as _App
_apps = [v for v in Out.values() if isinstance(v, _App)]
assert len(_apps) == 1, f"notebook 00 should have shown one app, Out holds {len(_apps)}"
app = _apps[0]

def _twin_state():
    import json
    from explorer.ui.timetravel import table_spec
    spec = table_spec(app.current_figures["engine_rows"])  # the table as the page writes it: text in each cell
    print(json.dumps({"index": app.index, "key": app.snapshot_key, "keys": [k for _, k in app.snapshot_options],
                      "label": app.snapshot_options[app.index][0], "caption": app.caption,
                      "engine_rows": {"title": spec["title"],
                                      "rows": [dict(zip(spec["header"], r)) for r in spec["rows"]]}}))
"""

# In the page: what the learner sees of the time-travel widget (the views in the open tab, not the hidden ones).
SEEN_JS = f"""() => {{
  const w = document.querySelector('{B.TIME_TRAVEL}');
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const tables = {{}}, figures = {{}};
  for (const t of w.querySelectorAll('.sx-panels table.sx-table')) {{
    if (!shown(t)) continue;
    const head = [...t.querySelectorAll('th')].map(h => h.textContent);
    tables[t.dataset.role] = {{
      title: t.parentElement.querySelector('.sx-table-title').textContent,
      rows: [...t.querySelectorAll('tbody tr')].map(tr =>
        Object.fromEntries([...tr.children].map((td, k) => [head[k], td.textContent]))) }};
  }}
  for (const plot of w.querySelectorAll('.sx-panels .js-plotly-plot'))
    if (shown(plot)) figures[plot.closest('.sx-view').dataset.view] = plot.layout.meta.sequence_number;
  return {{ slider: +w.querySelector('input.sx-slider').value, drawn: w.dataset.drawnIndex,
           step: w.querySelector('.sx-step').textContent, caption: w.querySelector('.sx-caption').textContent,
           tables, figures }};
}}"""

AT_JS = f"""i => {{ const w = document.querySelector('{B.TIME_TRAVEL}');
  return w.dataset.drawnIndex === String(i) && +w.querySelector('input.sx-slider').value === i; }}"""


class Kernel:
    """A second client of the page's kernel: runs code there and reads what it prints."""

    def __init__(self, connection_file):
        self.client = BlockingKernelClient(connection_file=str(connection_file))
        self.client.load_connection_file()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str) -> str:
        out: list[str] = []

        def hook(msg) -> None:
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])

        reply = self.client.execute_interactive(code, store_history=False, timeout=120, output_hook=hook)
        content = reply["content"]
        assert content["status"] == "ok", f"{content.get('ename')}: {content.get('evalue')} in\n{code}"
        return "".join(out)

    def state(self) -> dict:
        return json.loads(self.run("_twin_state()"))

    def close(self) -> None:
        self.client.stop_channels()


def page_at(page, index: int) -> dict:
    """What the page shows once its slider is at ``index`` and the views of that snapshot are drawn."""
    try:
        page.wait_for_function(AT_JS, arg=index, timeout=30_000, polling=50)
    except PlaywrightTimeout:
        seen = page.evaluate(SEEN_JS)
        raise AssertionError(f"the page did not move to index {index} within 30 s: slider {seen['slider']}, drawn "
                    f"{seen['drawn']}, step {seen['step']!r}")
    return page.evaluate(SEEN_JS)


def kernel_at(kernel: Kernel, index: int, timeout_s: float = 30.0) -> dict:
    """The model once the page's move has reached it (the page sends it; the kernel gets it asynchronously)."""
    deadline = time.monotonic() + timeout_s
    while (state := kernel.state())["index"] != index:
        assert time.monotonic() < deadline, f"the kernel's app stayed at index {state['index']}, page at {index}"
        time.sleep(0.2)
    return state


def user_ids(table: dict) -> set[str]:
    return {r["user_id"] for r in table["rows"]}


def snapshot_twin_checks(page, scratch: Path) -> None:
    """On JupyterLab's page of notebook 00 (its one kernel; ``scratch`` is the server's private folder): the seed
    story is run again (the last snapshot on screen), then the twin's checks above."""
    B.choose_preset(page, B.SEED)
    B.click_run(page)
    files = sorted((scratch / "runtime").glob("kernel-*.json"))
    assert len(files) == 1, f"expected the notebook's one kernel, found {[f.name for f in files]}"
    kernel = Kernel(files[0])
    try:
        kernel.run(FIND_APP)
        state = kernel.state()
        keys, last = state["keys"], len(state["keys"]) - 1
        assert last == 5 and state["index"] == last, state  # the seed story: six snapshots, the last on screen
        B.open_panel(page, "Rows")
        seen = page_at(page, last)
        assert (seen["step"], seen["caption"]) == (state["label"], state["caption"])
        assert "500" not in user_ids(seen["tables"]["engine-rows"]), "user 500 is deleted again at sequence 6"

        # Python -> page: by sequence number (notebook 00: "watch user 500 come back at 5").
        kernel.run("app.set_snapshot(5)")
        state, seen = kernel.state(), page_at(page, 4)
        assert state["index"] == 4 and (seen["step"], seen["caption"]) == (state["label"], state["caption"])
        engine = seen["tables"]["engine-rows"]
        assert engine["title"].startswith("What Spark read at sequence 5"), engine["title"]
        assert engine == state["engine_rows"] and "500" in user_ids(engine)

        # Python -> page: by snapshot id, to the first snapshot.
        kernel.run(f"app.set_snapshot(At(snapshot_id={keys[0]}))")
        state, seen = kernel.state(), page_at(page, 0)
        assert state["key"] == keys[0] and (seen["step"], seen["caption"]) == (state["label"], state["caption"])
        engine = seen["tables"]["engine-rows"]
        assert engine["title"].startswith("What Spark read at sequence 1") and engine == state["engine_rows"]

        # Page -> Python: a drag of the page's slider moves the model, figures and caption included.
        B.move_slider(page, 3)
        state, seen = kernel_at(kernel, 3), page.evaluate(SEEN_JS)
        assert state["key"] == keys[3] and (state["label"], state["caption"]) == (seen["step"], seen["caption"])
        assert state["engine_rows"] == seen["tables"]["engine-rows"]

        # A twin call that cannot be honoured: one line in the page, the slider stays; the next one clears it.
        kernel.run("app.set_snapshot(At(snapshot_id=12345))")
        complaint = page.get_by_text("no snapshot with id 12345").first
        complaint.wait_for(state="visible", timeout=30_000)
        assert page.evaluate(SEEN_JS)["slider"] == 3 and kernel.state()["index"] == 3
        kernel.run("app.set_snapshot(5)")
        page_at(page, 4)
        try:
            complaint.wait_for(state="detached", timeout=30_000)
        except PlaywrightTimeout:
            raise AssertionError(f"after a good app.set_snapshot(5) the page still says: {complaint.text_content()}")

        # The figures follow too: the timeline on screen is drawn as of sequence 5.
        B.open_panel(page, "Timeline")
        assert page.evaluate(SEEN_JS)["figures"].get("timeline") == 5
    finally:
        kernel.close()
