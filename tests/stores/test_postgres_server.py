"""The throwaway PostgreSQL server of the tests leaves nothing behind, even when its owner is SIGKILLed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.stores.postgres_server import LEGACY_GRACE_SECONDS, OWNER_FILE, PREFIX, remove_stale

REPO = Path(__file__).resolve().parents[2]

OWNER = """
import time
from tests.stores.postgres_server import running_postgres
with running_postgres() as server:
    print(server.port, flush=True)
    time.sleep(600)
"""


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _folders_on(port: int) -> list[Path]:
    """The server folders whose server listens on `port` (its socket file names the port)."""
    return [root for root in Path("/tmp").glob(f"{PREFIX}*") if (root / f".s.PGSQL.{port}").exists()]


def _wait_until(condition: object, limit: float = 60.0) -> bool:
    """Poll `condition` (a callable) until it holds or `limit` seconds pass; whether it held."""
    assert callable(condition)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return bool(condition())


def test_a_sigkilled_owner_leaves_no_server_and_no_folder() -> None:
    """The watchdog stops the server and removes its folder when the process that started it is SIGKILLed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *sys.path])}
    owner = subprocess.Popen([sys.executable, "-c", OWNER], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        port = int(owner.stdout.readline())
        assert _accepts(port)
        folders = _folders_on(port)
        assert len(folders) == 1 and (folders[0] / OWNER_FILE).read_text().startswith(f"{owner.pid} ")
    finally:
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        assert owner.stdout is not None
        owner.stdout.close()
    assert _wait_until(lambda: not _accepts(port) and not folders[0].exists())


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_folders_of_dead_owners_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    """A start removes the folders of owners that died (or whose pid now names another process), and of
    old folders from before owner files; it keeps a live owner's and a young folder without an owner file."""
    dead, reused, mine, legacy_old, legacy_young = (tmp_path / f"{PREFIX}{n}" for n in "abcde")
    for folder in (dead, reused, mine, legacy_old, legacy_young):
        (folder / "data").mkdir(parents=True)
    (dead / OWNER_FILE).write_text(f"{_dead_pid()} 12345")
    (reused / OWNER_FILE).write_text(f"{os.getpid()} 1")  # this pid, another start time: not this process
    (mine / OWNER_FILE).write_text(
        f"{os.getpid()} {Path(f'/proc/{os.getpid()}/stat').read_text().rsplit(')', 1)[1].split()[19]}"
    )
    old = time.time() - LEGACY_GRACE_SECONDS - 60
    os.utime(legacy_old, (old, old))
    assert sorted(remove_stale(tmp_path)) == [dead, reused, legacy_old]
    assert sorted(tmp_path.iterdir()) == [mine, legacy_young]
