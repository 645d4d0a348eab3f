"""``helikon serve`` as a real subprocess on a free loopback port, for the tests that stop or kill it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import trio

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests.serve.served_agents:agents"
PERMISSIONS = "tests.serve.served_agents:permissions"


@attrs.frozen
class Server:
    """A running ``helikon serve``: its process, its URL and the file its stderr goes to."""

    process: trio.Process
    url: str
    stderr: Path


@asynccontextmanager
async def helikon_serve(
    db: Path, log: Path, *extra: str, environ: dict[str, str] | None = None
) -> AsyncIterator[Server]:
    """Start ``helikon serve`` on `db` (stderr to `log`, `environ` added to its environment), wait until it
    listens; kill it on the way out."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    env.pop("HELIKON_SERVE_TOKEN", None)
    env.update(environ or {})
    command = [sys.executable, "-m", "helikon_fc", "serve", TARGET, "--store", str(db), "--port", "0"]
    command += ["--permissions", PERMISSIONS, *extra]
    with log.open("wb") as err:
        process = await trio.lowlevel.open_process(command, stderr=err, stdout=subprocess.DEVNULL, cwd=ROOT, env=env)
    try:
        url = await _listening(process, log)
        yield Server(process, url, log)
    finally:
        if process.returncode is None:
            process.kill()
        with trio.CancelScope(shield=True):
            await process.wait()


async def _listening(process: trio.Process, log: Path) -> str:
    with trio.fail_after(30):
        while True:
            found = re.search(r" at (http://\S+) ", log.read_text())
            if found:
                return found.group(1)
            if process.returncode is not None:
                raise AssertionError(f"helikon serve exited {process.returncode}: {log.read_text()}")
            await trio.sleep(0.05)
