"""What people use: the widget app and the changelog compare app, the command line, the JupyterLab/voila launcher
and PNG export. It consumes results through the engine registry (``explorer.engine``) and never runs an engine
except through the public ``explorer`` API."""
