"""No quoted source text in what a learner reads (issue #43): a sentence that tells what a spec, a format's
documentation, a protocol or a code comment says gives it in the project's own words, naming the section, never
as a quotation.

Why not keep quotes and check them against the spec: that check needs the spec's text in the repository, and
files fetched from the formats' repositories are not committed here. So a quotation cannot be kept true by a
test, and none is allowed: this test fails on a sentence that names a written source and puts four or more words
in double quotation marks. Quoting what an engine prints (an error message, the explorer's own output) is fine:
those sentences name no written source, and the runs show the text.

Scanned: docs/*.md, README.md, the chapters (notebooks/*.md, prose only), the preset stories (title,
description) and every string in explorer/ that is not a docstring (the app's and results' text).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

# Names of a written source whose words a sentence could claim to give ("spec id" is an Iceberg field).
SOURCE = re.compile(r"\b(spec|spec's|specification|docs|documentation|PROTOCOL|javadoc|comment|docstring)\b(?! id)",
                    re.IGNORECASE)
QUOTE = re.compile(r"[\"“]([^\"”]+?)[\"”]")
MIN_WORDS = 4


def _sentences(text: str) -> Iterator[str]:
    """Sentences of prose: split at blank lines, list items and table cells, then at sentence ends."""
    for block in re.split(r"\n\s*\n|\n\s*[-*] |\|", text):
        flat = " ".join(block.split())
        yield from re.split(r"(?<=[.;!?])\s+(?=[A-Z(*`])", flat)


def quoted_source_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that name a written source and quote four or more words."""
    out = []
    for sentence in _sentences(text):
        quotes = [q for q in QUOTE.findall(sentence) if len(q.split()) >= MIN_WORDS]
        if quotes and SOURCE.search(QUOTE.sub("", sentence)):
            out.append(sentence)
    return out


def _markdown_prose(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # code cells and examples
    return re.sub(r"<[^>]+>", "", text)  # HTML tags (a hover's title attribute is the glossary's own text)


def _preset_prose(path: Path) -> str:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return "\n\n".join(str(data.get(key) or "") for key in ("title", "description"))


def _app_strings(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def _texts() -> Iterator[tuple[str, str]]:
    for path in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", *sorted((ROOT / "notebooks").glob("*.md"))]:
        yield str(path.relative_to(ROOT)), _markdown_prose(path)
    for path in sorted((ROOT / "explorer" / "presets").glob("*.yaml")):
        yield str(path.relative_to(ROOT)), _preset_prose(path)
    for path in sorted((ROOT / "explorer").rglob("*.py")):
        for string in _app_strings(path):
            yield str(path.relative_to(ROOT)), string


def test_no_sentence_quotes_a_spec_or_the_docs():
    found = [f"{where}: {sentence[:200]}" for where, text in _texts() for sentence in quoted_source_sentences(text)]
    assert not found, ("rephrase these in the project's own words, without quotation marks, naming the section "
                       "they come from:\n" + "\n".join(found))


def test_the_check_catches_a_quoted_spec_sentence_and_lets_the_rest_through():
    assert quoted_source_sentences('The spec says such an update "is treated as if the row was removed".')
    assert quoted_source_sentences("Delta's docs say a blind INSERT “does not conflict with a DELETE”.")
    assert quoted_source_sentences('A comment in the committer: "position deletes only touch new files here".')
    # the same fact in the project's words, an engine's message, a short name in quotes: not quotations
    assert not quoted_source_sentences("The spec's *Row Lineage* section treats such an update as a delete plus "
                                       "an insert.")
    assert not quoted_source_sentences('Spark refuses it ("Delete files are currently not supported in changelog '
                                       'scans").')
    assert not quoted_source_sentences('The spec calls it a "position delete".')
    assert not quoted_source_sentences('The explorer prints "Begin/end-only reader vs DuckDB at snapshot N".')
