"""The front-end code is JavaScript in files of its own: the time-travel widget's and the orders grid's modules
parse as ES modules (Node's own parser, the check a linter starts from), and so does an exported page's script
(the time-travel module with the page's code after it); the widgets and exported pages run exactly those files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.ui import export, orders_view, timetravel

JS = Path(timetravel.__file__).with_name("timetravel.js")
node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")


def node_check(tmp_path: Path, source: str) -> None:
    module = tmp_path / "check.mjs"  # .mjs: Node parses it as an ES module
    module.write_text(source, encoding="utf-8")
    done = subprocess.run(["node", "--check", str(module)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_widget_and_pages_run_the_javascript_files_as_shipped():
    text = JS.read_text(encoding="utf-8")
    assert timetravel.TimeTravel._esm == timetravel.WIDGET_ESM == text
    assert "export default {" in text  # exported pages swap this for a named object (explorer/ui/export.py)
    page_js = Path(export.__file__).with_name("export_page.js").read_text(encoding="utf-8")
    assert page_js in export.page_html(export.Page(title="t"))


@node
@pytest.mark.parametrize("module", [timetravel, orders_view], ids=["timetravel", "orders_view"])
def test_each_widget_module_parses_as_an_es_module(tmp_path, module):
    source = Path(module.__file__).with_suffix(".js").read_text(encoding="utf-8")
    assert "export default {" in source
    node_check(tmp_path, source)


@node
def test_an_exported_pages_script_parses(tmp_path):
    html = export.page_html(export.Page(title="t"))
    script = html.split('<script type="module">', 1)[1].split("</script>", 1)[0]
    node_check(tmp_path, script)
