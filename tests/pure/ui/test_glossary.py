"""The glossary (docs/glossary.md) and the words chapters take from it (issue #43): each format's words defined
once, every word a chapter marks for hover defined, and every glossary word a chapter introduces marked.

A chapter marks its glossary words on its "Words such as ..." line (:func:`explorer.ui.glossary.with_hover` turns
each into a hover definition); a chapter *introduces* a word where it first writes it in bold. That the page and
the hovers are in step with docs/glossary.md is checked with the notebooks (tests/notebooks/test_notebooks.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.ui.glossary import PAGE, SOURCE, definitions, terms

CHAPTERS = sorted(PAGE.parent.glob("*.md"))
GLOSSARY = SOURCE.read_text(encoding="utf-8")
DEFINED = definitions(GLOSSARY)

# The words of every format a learner meets in the Paimon, Delta and DuckLake chapters (issue #43).
FORMAT_WORDS = ("Row kind", "Merge engine", "Bucket", "Sorted run", "Level", "Changelog producer", "Deletion vector",
                "Sequence number", "Commit version", "Change data feed", "Snapshot id", "Row id")

_WORDS_LINE = re.compile(r"^Words such as (.+?)\]\(glossary\.html\)", flags=re.MULTILINE | re.DOTALL)
_MARKED = re.compile(r"\*([^*\n]+?)\*|<abbr [^>]*>([^<]+)</abbr>")
_BOLD = re.compile(r"\*\*([A-Za-z][A-Za-z -]*?)\*\*")


def marked_words(chapter: str) -> list[str]:
    """The words a chapter marks as glossary words (italic, or already wrapped for hover) on its first lines."""
    line = _WORDS_LINE.search(chapter)
    assert line, "no 'Words such as ... [glossary](glossary.html)' line"
    return [(m.group(1) or m.group(2)).strip().lower() for m in _MARKED.finditer(line.group(1))]


def introduced_words(chapter: str) -> set[str]:
    """Glossary words a chapter writes in bold outside code (singular or plural: **commit versions**)."""
    prose = re.sub(r"```.*?```", "", chapter, flags=re.DOTALL)
    out = set()
    for m in _BOLD.finditer(prose):
        word = " ".join(m.group(1).lower().split())
        for form in (word, word[:-1] if word.endswith("s") else word):
            if form in DEFINED:
                out.add(form)
    return out


def test_every_format_word_is_defined_once():
    names = terms(GLOSSARY)
    for word in FORMAT_WORDS:
        assert names.count(word) == 1, f"docs/glossary.md defines {word!r} {names.count(word)} times"
    assert len({n.lower() for n in names}) == len(names), "a term defined twice"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_each_word_a_chapter_marks_is_defined(chapter: Path):
    words = marked_words(chapter.read_text(encoding="utf-8"))
    assert words, f"{chapter.name} marks no glossary word"
    undefined = [w for w in words if w not in DEFINED]
    assert not undefined, f"{chapter.name} marks {undefined}, which docs/glossary.md does not define"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_each_glossary_word_a_chapter_introduces_is_marked(chapter: Path):
    text = chapter.read_text(encoding="utf-8")
    missing = sorted(introduced_words(text) - set(marked_words(text)))
    assert not missing, (f"{chapter.name} introduces {missing} in bold but does not name them on its 'Words such "
                         f"as' line (add them, then run `python -m explorer.ui.glossary`)")


def test_the_checks_catch_an_undefined_and_an_unmarked_word():
    chapter = ("Words such as *row kind* and *flux capacitor* are defined once in the [glossary](glossary.html).\n\n"
               "Each record has a **merge engine** and ```\n**level**\n```.")
    assert [w for w in marked_words(chapter) if w not in DEFINED] == ["flux capacitor"]
    assert introduced_words(chapter) == {"merge engine"}
