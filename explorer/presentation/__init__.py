"""Presentation: plotly figures, the ipywidgets app and the CLI. Consumes captures; never runs an engine itself
except through the public ``explorer`` API."""
