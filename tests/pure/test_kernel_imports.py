"""``import explorer`` in a kernel imports JSON Schema's format checkers without ``rfc3987_syntax``'s grammar
(explorer._kernel_imports), and outside a kernel imports neither."""

from __future__ import annotations

import subprocess
import sys

# After ``import explorer``: is the grammar module imported (or blocked: a None entry in sys.modules would make
# every later import of it fail), are JSON Schema's format checkers loaded, and which IRI/URI checkers they hold.
# (Importing rfc3987_syntax here to show it still imports would cost the 3 CPU-seconds the module saves.)
PROBE = """
import sys{kernel}
import explorer
print('rfc3987_syntax' in sys.modules, 'jsonschema._format' in sys.modules)
f = sys.modules.get('jsonschema._format')
print(f and sorted(n for n in f.draft7_format_checker.checkers if n in ('iri', 'uri')))
"""


def _probe(kernel: bool) -> list[str]:
    code = PROBE.format(kernel="; import types; sys.modules['ipykernel'] = types.ModuleType('ipykernel')"
                        if kernel else "")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return out.stdout.split("\n")[:2]


def test_only_a_kernel_imports_the_format_checkers_and_without_the_iri_grammar() -> None:
    assert _probe(kernel=True) == ["False True", "['uri']"]
    assert _probe(kernel=False) == ["False False", "None"]
