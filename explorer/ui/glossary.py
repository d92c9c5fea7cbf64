"""The glossary as a page a notebook can link to in JupyterLab and in voila.

``docs/glossary.md`` is the source. A notebook's link must stay inside the folder the server serves (JupyterLab's
root and voila's are ``notebooks/``), so the page readers open is ``notebooks/glossary.html``, rendered from the
source by :func:`glossary_html` and committed (``python -m explorer.ui.glossary`` rewrites it; a test checks it
is in step). JupyterLab opens it in a tab; voila serves it under ``voila/files/`` (its config allows this one
file, and the project's voila template sends a click on a notebook's relative link there). Each term gets an
anchor (``glossary.html#applies``).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "docs" / "glossary.md"
PAGE = ROOT / "notebooks" / "glossary.html"
_TERM = re.compile(r"^\*\*([^*]+?)\.\*\*", flags=re.MULTILINE)

_STYLE = """body { font-family: system-ui, sans-serif; max-width: 46em; margin: 1.5em auto; padding: 0 1em;
  line-height: 1.5; color: #263238; }
p { margin: 0.8em 0; } code { background: #eceff1; padding: 0 3px; border-radius: 3px; }
p[id]:target { background: #fff8e1; }"""


def anchor(term: str) -> str:
    """The anchor of a term: lower case, words joined by dashes ("Data sequence number" → data-sequence-number)."""
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def glossary_html(markdown: str) -> str:
    """The glossary page: Markdown rendered (raw HTML kept as text), each term's paragraph with an anchor."""
    import mistune

    body = str(mistune.create_markdown(escape=True)(markdown))
    body = re.sub(r"<p><strong>([^<]+?)\.</strong>",
                  lambda m: f'<p id="{anchor(m.group(1))}"><strong>{m.group(1)}.</strong>', body)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Glossary</title>\n"
            f"<!-- Rendered from docs/glossary.md by `python -m explorer.ui.glossary`; edit that file. -->\n"
            f"<style>{_STYLE}</style></head>\n<body>\n{body}</body></html>\n")


def terms(markdown: str) -> list[str]:
    return _TERM.findall(markdown)


HOVER_CHARS = 240


def definitions(markdown: str) -> dict[str, str]:
    """term (lower case) -> the first sentence of its definition, in plain text (for a hover box)."""
    out = {}
    for m in re.finditer(r"^\*\*([^*]+?)\.\*\* (.+?)(?:\n\n|\Z)", markdown, flags=re.MULTILINE | re.DOTALL):
        paragraph = re.sub(r"[`*]", "", " ".join(m.group(2).split()))  # code and emphasis marks read as text
        first = re.split(r"(?<=[a-z)0-9])\. ", paragraph, maxsplit=1)[0].rstrip(".") + "."
        if len(first) > HOVER_CHARS:  # a hover box stays short: up to the last clause that fits, then the page
            cut = first[:HOVER_CHARS].rsplit("; ", 1)[0]
            first = cut + "; … (the glossary says more)"
        out[m.group(1).lower()] = first
    return out


# The first lines of a chapter name the glossary's words in italics: "Words such as *scope*, *applies* ...".
_WORDS_LINE = re.compile(r"^Words such as .+?\]\(glossary\.html\)", flags=re.MULTILINE | re.DOTALL)
_WORD = re.compile(r"\*([a-z][a-z -]*?)\*|<abbr [^>]*>([^<]+)</abbr>")


def with_hover(chapter_markdown: str, markdown: str) -> str:
    """A chapter's Markdown with each glossary word of its "Words such as ..." line wrapped in
    ``<abbr title="definition">``, so a learner reads the definition on hover (JupyterLab and voila alike); the
    words already wrapped are wrapped again from the current glossary."""
    defs = definitions(markdown)

    def word(m: re.Match) -> str:
        term = m.group(1) or m.group(2)
        title = defs.get(term.lower())
        if title is None:
            return m.group(0)
        return f'<abbr title="{html.escape(title, quote=False).replace(chr(34), "&quot;")}">{term}</abbr>'

    return _WORDS_LINE.sub(lambda line: _WORD.sub(word, line.group(0)), chapter_markdown, count=1)


def main() -> int:
    """Rewrite the page and the chapters' hover definitions (``notebooks/*.md``; sync the ``.ipynb`` pairs with
    jupytext afterwards) from docs/glossary.md."""
    source = SOURCE.read_text(encoding="utf-8")
    PAGE.write_text(glossary_html(source), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    for chapter in sorted(PAGE.parent.glob("*.md")):
        text = chapter.read_text(encoding="utf-8")
        new = with_hover(text, source)
        if new != text:
            chapter.write_text(new, encoding="utf-8")
            print(f"wrote {chapter.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
