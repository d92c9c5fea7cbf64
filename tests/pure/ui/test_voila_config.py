"""The project's voila configuration, as voila itself loads it from the paths the launcher and Binder set."""

from __future__ import annotations

import os
import subprocess
import sys

from explorer.ui.launch import jupyter_env

LOAD = """
from voila.app import Voila
app = Voila()
app.load_config_file("voila", path=app.config_file_paths)
print(app.config.VoilaExecutor.iopub_timeout, app.config.VoilaConfiguration.template)
"""


def test_voila_waits_for_a_busy_kernels_output() -> None:
    # nbclient's default (4 s) silently dropped the app's output when 20 kernels started at once on 2 cores
    # (benchmarks/room.py); the project's config must reach voila through the launcher's environment.
    env = jupyter_env({k: v for k, v in os.environ.items() if k not in ("JUPYTER_CONFIG_PATH", "JUPYTER_PATH")})
    out = subprocess.run([sys.executable, "-c", LOAD], env=env, capture_output=True, text=True, check=True,
                         cwd="/").stdout.split()
    assert int(out[0]) >= 300, out
    assert out[1] == "explorer", out
