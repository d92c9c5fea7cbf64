"""The glossary as a page a notebook can link to in JupyterLab and in voila.

``docs/glossary.md`` is the source. A notebook's link must stay inside the folder the server serves (JupyterLab's
root and voila's are ``notebooks/``), so the page readers open is ``notebooks/glossary.html``, rendered from the
source by :func:`glossary_html` and committed (``python -m explorer.ui.glossary`` rewrites it; a test checks it
is in step). JupyterLab opens it in a tab; voila serves it under ``voila/files/`` (its config allows this one
file, and the project's voila template sends a click on a notebook's relative link there). Each term gets an
anchor (``glossary.html#applies``).
"""

from __future__ import annotations

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

    body = mistune.create_markdown(escape=True)(markdown)
    body = re.sub(r"<p><strong>([^<]+?)\.</strong>",
                  lambda m: f'<p id="{anchor(m.group(1))}"><strong>{m.group(1)}.</strong>', body)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Glossary</title>\n"
            f"<!-- Rendered from docs/glossary.md by `python -m explorer.ui.glossary`; edit that file. -->\n"
            f"<style>{_STYLE}</style></head>\n<body>\n{body}</body></html>\n")


def terms(markdown: str) -> list[str]:
    return _TERM.findall(markdown)


def main() -> int:
    PAGE.write_text(glossary_html(SOURCE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
