"""Sphinx configuration of the docs site, built by ``bash scripts/site`` (scripts/site.py stages the sources).

MyST-NB renders the chapters' outputs; it never executes them (scripts/site.py does, once, with a cache). The
furo theme and the site's plotly.js are local files: the built site fetches nothing from outside.
"""

project = "Sequence Explorer"
author = "Sequence Explorer contributors"
copyright = "Sequence Explorer contributors, Apache-2.0"
root_doc = "docs/index"
extensions = ["myst_nb"]
nb_execution_mode = "off"  # executed beforehand by scripts/site.py (cached), or taken from the notebook tests
nb_merge_streams = True
nb_output_stderr = "remove"
nb_ipywidgets_js = {}  # no widget manager from a CDN: scripts/site.py replaces live widgets with a note  # Spark's and Java's start-up lines are not part of a chapter's story
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "toc.not_included", "myst.xref_missing"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
html_theme = "furo"
html_title = "Sequence Explorer"
html_static_path = ["_static"]
# the plotly package's own bundle, then the few lines that draw each chapter figure with it
html_js_files = ["plotly.min.js", "site-figures.js"]
html_css_files = ["site.css"]
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}
