"""``helikon serve``'s arguments: bad ones are one line and exit 2; a missing extra is one line and exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from tests.serve.process import ROOT, TARGET, helikon_serve

from helikon_fc.cli import main


def _refused(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(["serve", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_public_host_needs_a_token(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --token or HELIKON_SERVE_TOKEN, a host beyond loopback is refused before anything listens."""
    monkeypatch.delenv("HELIKON_SERVE_TOKEN", raising=False)
    err = _refused([TARGET, "--host", "0.0.0.0"], capsys)
    assert "--host 0.0.0.0 is not loopback: give a --token (or $HELIKON_SERVE_TOKEN)" in err


def test_bad_targets_ports_and_permissions_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    """Each bad argument is named with what it got."""
    assert "tests.serve.served_agents has no attribute 'ghost'" in _refused(["tests.serve.served_agents:ghost"], capsys)
    assert "must be a port from 0 to 65535, got '70000'" in _refused([TARGET, "--port", "70000"], capsys)
    err = _refused([TARGET, "--permissions", "tests.serve.served_agents:SLOW_WORDS"], capsys)
    assert "--permissions" in err and "20" in err
    assert "--token must not be empty" in _refused([TARGET, "--token", ""], capsys)


def test_without_the_serve_extra_it_says_what_to_install(tmp_path: Path) -> None:
    """Where starlette is missing: one line naming the extra, exit 1, no traceback."""
    hidden = tmp_path / "starlette"
    hidden.mkdir()
    (hidden / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'starlette'\", name='starlette')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "helikon_fc", "serve", TARGET],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "needs the serve extra (starlette is missing): pip install 'helikon_fc[serve]'" in done.stderr


async def test_a_served_token_is_required(tmp_path: Path) -> None:
    """``--token``: a request without it is 401, with it served; /health needs none."""
    async with helikon_serve(tmp_path / "runs.db", tmp_path / "serve.log", "--token", "tok-1") as server:
        async with httpx2.AsyncClient(base_url=server.url, timeout=10) as client:
            bare = await client.get("/runs")
            with_token = await client.get("/runs", headers={"authorization": "Bearer tok-1"})
            health = await client.get("/health")
    assert (bare.status_code, with_token.status_code, health.status_code) == (401, 200, 200)
    assert with_token.json() == {"runs": []}


def test_a_port_in_use_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """A server that cannot listen says why in one line (no traceback) and exits 1."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
        command = [
            sys.executable,
            "-m",
            "helikon_fc",
            "serve",
            TARGET,
            "--store",
            str(tmp_path / "r.db"),
            "--port",
            port,
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT, check=False, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "helikon serve: the server could not run: [Errno 98] Address already in use" in done.stderr
