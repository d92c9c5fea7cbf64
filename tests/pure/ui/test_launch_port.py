"""The launcher's port: the address it prints is the one the server will listen on (explorer/ui/launch.py)."""

from __future__ import annotations

import socket

from explorer.ui.launch import build_command, free_port, main


def listening() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def test_a_port_in_use_is_skipped_and_a_free_one_kept():
    with listening() as busy:
        port = busy.getsockname()[1]
        chosen = free_port("127.0.0.1", port)
        assert chosen is not None and chosen > port
    assert free_port("127.0.0.1", port) == port  # closed again: free


def test_every_port_taken_is_a_clear_line(capsys, tmp_path, monkeypatch):
    import explorer.ui.launch as launch

    (tmp_path / "playground.ipynb").write_text("{}")
    monkeypatch.setattr(launch, "PORT_TRIES", 1)
    # Were a port found, main would exec the server in this very process: refuse that loudly instead.
    monkeypatch.setattr(launch.os, "execve", lambda *a: (_ for _ in ()).throw(AssertionError("server started")))
    with listening() as busy:
        port = busy.getsockname()[1]
        code = main(["--voila", "--port", str(port), "--notebook-dir", str(tmp_path)])
    assert code == 2
    assert f"ports {port} to {port}" in capsys.readouterr().err


def test_the_servers_do_not_move_off_the_printed_port():
    import argparse

    for voila in (True, False):
        args = argparse.Namespace(voila=voila, port=9999, ip="127.0.0.1", notebook_dir=None)
        cmd = build_command(args, "t")
        assert any(a.endswith("port_retries=0") for a in cmd), cmd
        assert any(a.endswith("port=9999") for a in cmd), cmd
