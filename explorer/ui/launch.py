"""Start JupyterLab on the notebooks (default) or the voila dashboard (``--voila``) and print the URL.

Used by ``bash scripts/lab``. Binds to loopback by default; pass ``--ip 0.0.0.0`` to reach it from outside a
container. The token is generated here and printed in the URL, so the link works in one click.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path

from explorer import settings

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
# The project's voila template (stock lab without its CDN stylesheets) and the config that selects it, for voila
# on its own and for voila inside JupyterLab's server (/voila/render/...). binder/start exports the same paths.
JUPYTER_DATA = HERE / "jupyter_data"
JUPYTER_CONFIG = HERE / "jupyter_config"
VOILA_TEMPLATE = "explorer"
NOTEBOOKS = ROOT / "notebooks"
START = "00-start-here.ipynb"
PLAYGROUND = "playground.ipynb"


def jupyter_env(env: dict | None = None) -> dict:
    """``env`` (default: this process's) with the project's Jupyter data and config dirs searched first."""
    env = dict(os.environ if env is None else env)
    for key, path in (("JUPYTER_PATH", JUPYTER_DATA), ("JUPYTER_CONFIG_PATH", JUPYTER_CONFIG)):
        env[key] = os.pathsep.join([str(path), *filter(None, env.get(key, "").split(os.pathsep))])
    return env


def build_command(args: argparse.Namespace, token: str) -> list[str]:
    python = sys.executable
    notebooks = Path(getattr(args, "notebook_dir", None) or NOTEBOOKS)
    if args.voila:
        # voila serves one dashboard without a login token; it listens on loopback unless --ip says otherwise.
        return [python, "-m", "voila", str(notebooks / PLAYGROUND), f"--port={args.port}", "--no-browser",
                f"--Voila.ip={args.ip}", "--show_tracebacks=False", f"--template={VOILA_TEMPLATE}"]
    cmd = [python, "-m", "jupyterlab", f"--notebook-dir={notebooks}", f"--ServerApp.ip={args.ip}",
           f"--ServerApp.port={args.port}", f"--IdentityProvider.token={token}", "--no-browser",
           f"--LabApp.default_url=/lab/tree/{START}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/lab", description=__doc__)
    parser.add_argument("--voila", action="store_true", help="open the playground as a voila dashboard")
    parser.add_argument("--port", type=int, default=8888)
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--notebook-dir", default=str(NOTEBOOKS),
                        help="serve the notebooks of this directory (default: the repository's notebooks/)")
    args = parser.parse_args(argv)
    wanted = Path(args.notebook_dir) / (PLAYGROUND if args.voila else START)
    if not wanted.is_file():
        print(f"scripts/lab: {wanted} does not exist; --notebook-dir must hold {START} and {PLAYGROUND}",
              file=sys.stderr)
        return 2
    try:
        token = settings.TOKEN.get() or secrets.token_hex(16)
        cmd = build_command(args, token)
        env = jupyter_env()
        notes = safety_notes(args, env)
    except settings.SettingError as exc:
        print(f"scripts/lab: {exc}", file=sys.stderr)
        return 2
    host = "localhost" if args.ip in ("127.0.0.1", "0.0.0.0") else args.ip
    if args.voila:
        url = f"http://{host}:{args.port}/"
    else:
        url = f"http://{host}:{args.port}/lab/tree/{START}?token={token}"
    print(f"\n  Sequence Explorer is starting. Open:\n\n    {url}\n{notes}\n  (Ctrl+C to stop)\n", flush=True)
    os.execve(cmd[0], cmd, env)
    return 0  # pragma: no cover


def safety_notes(args: argparse.Namespace, env: dict) -> str:
    """What the start banner says about safe mode and the network; sets ``EXPLORER_SAFE=1`` in ``env`` for the
    dashboard unless the teacher explicitly chose ``EXPLORER_SAFE=0``."""
    notes = ""
    if args.voila:
        env.setdefault(settings.SAFE.name, "1")
        safe = settings.SAFE.get(env)
        notes += ("\n  Safe mode is ON: sql steps may only touch the scenario's own table, scenarios are size-"
                  "limited.\n" if safe else "\n  Safe mode is OFF (EXPLORER_SAFE=0): sql steps run any Spark SQL, "
                  "including reading and writing this machine's files.\n")
    if args.ip not in ("127.0.0.1", "localhost", "::1"):
        notes += (f"\n  The {'dashboard' if args.voila else 'server'} is OPEN TO THE NETWORK on {args.ip}:"
                  f"{args.port}: anyone who can reach this machine can use it"
                  f"{'' if args.voila else ' with the token in the URL'}.\n")
    return notes


if __name__ == "__main__":
    raise SystemExit(main())
