"""The JupyterLab settings the project ships (``labconfig/default_setting_overrides.json``) name settings the
installed JupyterLab has: a misspelt plugin or key is ignored by JupyterLab without a word."""

import json
import sys
from pathlib import Path

import pytest

OVERRIDES = (Path(__file__).resolve().parents[3] / "explorer" / "ui" / "jupyter_config" / "labconfig"
             / "default_setting_overrides.json")
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
JSON_TYPES = {"boolean": bool, "string": str, "integer": int, "number": (int, float), "object": dict,
              "array": list}


def _schema(plugin: str) -> dict:
    package, name = plugin.split(":")
    path = SCHEMAS / package / f"{name}.json"
    assert path.is_file(), f"{plugin}: no schema {path} in the installed JupyterLab"
    return json.loads(path.read_text())


@pytest.mark.skipif(not SCHEMAS.is_dir(), reason="JupyterLab (the lab extra) is not installed")
def test_every_override_is_a_setting_of_the_installed_jupyterlab():
    overrides = json.loads(OVERRIDES.read_text())
    for plugin, values in overrides.items():
        properties = _schema(plugin)["properties"]
        for key, value in values.items():
            assert key in properties, f"{plugin}: no setting {key!r} (has {sorted(properties)})"
            kind = properties[key].get("type")
            if isinstance(kind, str) and kind in JSON_TYPES:
                assert isinstance(value, JSON_TYPES[kind]), f"{plugin}.{key}: {value!r} is not a {kind}"


def test_a_notebook_starts_its_kernel_without_asking():
    """A notebook whose kernel the machine does not name starts the server's default kernel instead of opening a
    Select Kernel dialog per cell; Run All while the kernel is still initializing says so in one note (JupyterLab
    then runs no cell: without the note it ran none either, silently, as seen in Chromium)."""
    tracker = json.loads(OVERRIDES.read_text())["@jupyterlab/notebook-extension:tracker"]
    assert tracker["autoStartDefaultKernel"] is True
    assert tracker["enableKernelInitNotification"] is True


def test_every_chapter_names_the_kernel_every_install_has():
    """Each chapter (the .ipynb and its jupytext .md) names ipykernel's ``python3`` kernel with its language: a
    kernelspec naming a kernel the machine lacks is what opens JupyterLab's Select Kernel dialog (one per code
    cell on Run All, with JupyterLab's stock settings; seen in Chromium, tests/browser/test_run_all.py)."""
    import re

    notebooks = OVERRIDES.parents[4] / "notebooks"
    chapters = sorted(notebooks.glob("*.ipynb"))
    assert len(chapters) >= 10
    for ipynb in chapters:
        spec = json.loads(ipynb.read_text())["metadata"].get("kernelspec", {})
        assert (spec.get("name"), spec.get("language")) == ("python3", "python"), f"{ipynb.name}: {spec}"
        header = ipynb.with_suffix(".md").read_text().split("\n---\n", 1)[0]
        found = re.search(r"kernelspec:\n(?:  .*\n)*?  name: (\S+)", header + "\n")
        assert found and found.group(1) == "python3", f"{ipynb.with_suffix('.md').name}: no kernelspec python3"
