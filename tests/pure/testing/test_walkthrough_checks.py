"""The walkthrough's output checks (explorer_testing/walkthrough.py) catch what they are meant to, and only that."""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from explorer_testing.walkthrough import NOTEBOOKS, output_problems, reading_order


def notebook(*outputs) -> nbformat.NotebookNode:
    cell = new_code_cell("run()")
    cell.outputs = list(outputs)
    return new_notebook(cells=[cell])


def stdout(text: str):
    return new_output("stream", name="stdout", text=text)


def test_each_kind_of_problem_is_named():
    yaml_dump = "".join(f"key{i}: {i}\n" for i in range(16))
    found = output_problems(notebook(
        new_output("error", ename="ValueError", evalue="boom", traceback=[]),
        new_output("stream", name="stderr", text="WARN something\n"),
        stdout("The same deletes on a format **v3** table.\n"),
        stdout(yaml_dump)))
    assert [p.split(": ", 1)[1].split(":")[0] for p in found] == [
        "ValueError", "stderr", "Markdown printed raw", "a printed YAML dump of 16 lines"]


def test_what_a_chapter_prints_on_purpose_passes():
    fifteen = "".join(f"step {i}: insert\n" for i in range(15))  # "step 1: insert" reads like YAML; 15 is fine
    assert output_problems(notebook(
        stdout(fifteen), stdout("E1 x D4: 5 < 4 -> ignored-by-sequence\nrows: [(1, 'a')]\n"),
        new_output("display_data", data={"text/plain": "<Figure>", "text/html": "<div>**not raw**</div>"}))) == []


def test_the_reading_order_is_notebook_00s():
    order = reading_order()
    assert order[:4] == ["00-start-here.ipynb", "01-sequence-numbers.ipynb", "02-merge-on-read-deletes.ipynb",
                         "03-concurrent-writers.ipynb"]
    assert order.index("07-changelog-copy-on-write.ipynb") > order.index("06-streaming-upserts-flink.ipynb")


def test_the_file_numbers_are_the_reading_order():
    """An instructor says "open chapter 3" and the learner opens 03-...: notebook 00's table reads the chapters
    in their numbers' order, and every numbered notebook is in it."""
    order = reading_order()
    assert order == sorted(order), f"notebook 00 reads the chapters out of their numbers' order: {order}"
    numbered = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    assert order == numbered
    assert [int(name[:2]) for name in order] == list(range(len(order)))
