"""Start JupyterLab on the notebooks (default) or the voila dashboard (``--voila``) and print the URL.

Used by ``bash scripts/lab``. Binds to loopback by default; pass ``--ip 0.0.0.0`` to reach it from outside a
container. The token is generated here and printed in the URL, so the link works in one click.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
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


PORT_TRIES = 50  # as many ports as Jupyter's own port_retries would try


def free_port(ip: str, first: int, tries: int = PORT_TRIES) -> int | None:
    """The first port from ``first`` on that nothing listens on at ``ip`` (a bind test, with the address reuse
    the servers' own sockets ask for), or None when ``tries`` ports are all taken. JupyterLab already on 8888
    makes the dashboard's 8888 busy: the launcher picks the port itself so that the address it prints is the
    one the server listens on (the servers' own retries would pick another port after the banner)."""
    for port in range(first, first + tries):
        with socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((ip, port))
            except OSError:
                continue
            return port
    return None


def build_command(args: argparse.Namespace, token: str) -> list[str]:
    python = sys.executable
    notebooks = Path(getattr(args, "notebook_dir", None) or NOTEBOOKS)
    if args.voila:
        # voila serves one dashboard without a login token; it listens on loopback unless --ip says otherwise.
        # port_retries=0: the port was chosen free (free_port); if it is taken meanwhile, voila stops with an
        # error instead of listening elsewhere than the banner says.
        return [python, "-m", "voila", str(notebooks / PLAYGROUND), f"--port={args.port}", "--no-browser",
                "--Voila.port_retries=0", f"--Voila.ip={args.ip}", "--show_tracebacks=False",
                f"--template={VOILA_TEMPLATE}"]
    cmd = [python, "-m", "jupyterlab", f"--notebook-dir={notebooks}", f"--ServerApp.ip={args.ip}",
           f"--ServerApp.port={args.port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           "--no-browser",
           f"--LabApp.default_url=/lab/tree/{START}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/lab", description=__doc__)
    parser.add_argument("--voila", action="store_true", help="open the playground as a voila dashboard")
    parser.add_argument("--port", type=int, default=8888,
                        help="the first port to try; the next free one is taken if it is in use (the banner says)")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--notebook-dir", default=str(NOTEBOOKS),
                        help="serve the notebooks of this directory (default: the repository's notebooks/)")
    args = parser.parse_args(argv)
    wanted = Path(args.notebook_dir) / (PLAYGROUND if args.voila else START)
    if not wanted.is_file():
        print(f"scripts/lab: {wanted} does not exist; --notebook-dir must hold {START} and {PLAYGROUND}",
              file=sys.stderr)
        return 2
    asked = args.port
    port = free_port(args.ip, asked, PORT_TRIES)
    if port is None:
        print(f"scripts/lab: ports {asked} to {asked + PORT_TRIES - 1} on {args.ip} are all in use; "
              f"pass a free one with --port", file=sys.stderr)
        return 2
    args.port = port
    moved = (f"\n  (port {asked} is in use, maybe by another JupyterLab or dashboard: this one listens on {port})\n"
             if port != asked else "")
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
    print(f"\n  Sequence Explorer is starting. Open:\n\n    {url}\n{moved}{notes}\n  (Ctrl+C to stop)\n", flush=True)
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
