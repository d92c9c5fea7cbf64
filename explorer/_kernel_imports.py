"""One import a learner's kernel makes cheaper: JSON Schema's IRI grammar, which no figure needs.

The first plotly figure a kernel shows imports ``plotly.io._renderers``, which imports ``nbformat`` (to check
its version for the mimetype renderer), which imports ``jsonschema``. When the ``rfc3987`` package is absent,
``jsonschema._format`` imports ``rfc3987_syntax`` for its ``iri`` / ``iri-reference`` format checkers, and that
module builds about forty Earley parsers at import time: 2.5 to 3 CPU-seconds on this kind of machine, paid by
every chapter's kernel at its first figure, against 0.2 s for the rest of ``jsonschema._format`` (measured with
``time.process_time`` around the import, with and without it; python-jsonschema/jsonschema#1428 reports the
same cost). Nothing a kernel runs here validates an IRI against a schema, so :func:`skip_iri_grammar` imports
``jsonschema._format`` once without that module: its ``iri`` checkers are then not registered, which JSON Schema
treats as an unknown format that passes. ``rfc3987_syntax`` itself stays importable afterwards.

Only in an IPython kernel (the chapters, the playground, voila's pages): a plain process (the CLI, the tests'
own process, JupyterLab's server) imports nothing more than before.
"""

from __future__ import annotations

import sys

SKIPPED = "rfc3987_syntax"


def skip_iri_grammar() -> bool:
    """Import ``jsonschema._format`` without ``rfc3987_syntax`` if this is a kernel that has not imported either
    yet. True when it did; False when nothing was done (not a kernel, already imported, or no jsonschema)."""
    if "ipykernel" not in sys.modules or "jsonschema._format" in sys.modules or SKIPPED in sys.modules:
        return False
    sys.modules[SKIPPED] = None  # type: ignore[assignment]  # an import of it now raises ImportError
    try:
        import jsonschema._format  # noqa: F401
    except ImportError:
        return False
    finally:
        del sys.modules[SKIPPED]
    return True
