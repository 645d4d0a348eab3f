"""A throwaway PostgreSQL server for the tests and the benchmark: `initdb` + `pg_ctl` in a temp dir,
on a free loopback port, stopped and removed at the end.

Nothing outlives its owner: a watchdog process (`tests/stores/pg_watchdog.py`) stops the server and
removes its folder when the process that started it dies without doing so (a SIGKILLed pytest), and
each start first removes the folders of earlier owners that are dead (`remove_stale`).

The binaries come from Debian's ``postgresql`` package (``/usr/lib/postgresql/<version>/bin``).
`initdb` refuses to run as root, so as root the server runs as the ``postgres`` system user the
package creates.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

PREFIX = "helikon-pg-"
"""How the servers' folders in the temp dir are named."""
OWNER_FILE = "owner"
"""The file in a server's folder that names its owner: ``<pid> <start time>``."""
LEGACY_GRACE_SECONDS = 600
"""How old a folder without an owner file (made before there was one) must be to count as stale."""
INSTALL_HINT = "install PostgreSQL's server binaries: apt-get update && apt-get install -y postgresql"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here, or the server would not start."""


@attrs.frozen
class PostgresServer:
    """A running server: connect as ``postgres`` (trust authentication) on 127.0.0.1."""

    port: int

    def dsn(self, dbname: str = "postgres") -> str:
        """The connection URL of database `dbname` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"


def find_bin_dir() -> Path:
    """The folder holding `initdb` and `pg_ctl` (the newest installed version).

    Raises:
        PostgresUnavailable: none is installed.
    """
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is not None and shutil.which("pg_ctl") is not None:
        return Path(initdb).resolve().parent
    raise PostgresUnavailable(f"no PostgreSQL server binaries (initdb, pg_ctl) found: {INSTALL_HINT}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_postgres(*, fast: bool = True) -> Iterator[PostgresServer]:
    """Start a server for the duration of the block.

    Args:
        fast: turn off fsync (the tests do not need the disk to survive a power loss); the
            benchmark passes ``False`` to measure what a real deployment pays.

    Raises:
        PostgresUnavailable: no binaries, or the server did not start (its log is in the message).
    """
    bin_dir = find_bin_dir()
    remove_stale(Path(tempfile.gettempdir()))
    root = Path(tempfile.mkdtemp(prefix=PREFIX))
    (root / OWNER_FILE).write_text(_identity(os.getpid()))
    as_root = os.geteuid() == 0
    prefix: list[str] = []
    if as_root:
        account = pwd.getpwnam("postgres")
        os.chown(root, account.pw_uid, account.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data, log, port = root / "data", root / "log", _free_port()
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
    if fast:
        options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    pg_ctl = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data)]
    stop = [*pg_ctl, "-m", "fast", "-w", "stop"]
    watchdog = _start_watchdog(root, stop)
    try:
        _run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"], log)
        _run([*pg_ctl, "-o", options, "-l", str(log), "-w", "-t", "60", "start"], log)
        try:
            yield PostgresServer(port)
        finally:
            subprocess.run(stop, capture_output=True, check=False)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        _dismiss(watchdog)


def _start_watchdog(root: Path, stop: list[str]) -> subprocess.Popen[bytes]:
    """The watchdog of the server in `root` (see `pg_watchdog.py`): it acts if this process dies."""
    script = Path(__file__).with_name("pg_watchdog.py")
    return subprocess.Popen(
        [sys.executable, str(script), str(root), json.dumps(stop)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _dismiss(watchdog: subprocess.Popen[bytes]) -> None:
    """Tell the watchdog the server is stopped and removed, and let it exit."""
    assert watchdog.stdin is not None
    try:
        watchdog.stdin.write(b"done\n")
        watchdog.stdin.close()
    except BrokenPipeError:  # it died already: nothing left for it to do
        pass
    watchdog.wait()


def _start_time(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot, from /proc), or `None` if it is not running."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; the name before ")" may hold spaces


def _identity(pid: int) -> str:
    """What `OWNER_FILE` holds for owner `pid`: its pid and start time (a reused pid has another)."""
    return f"{pid} {_start_time(pid)}"


def _postmaster_alive(root: Path) -> bool:
    """Whether the server whose folder is `root` still runs (by its ``postmaster.pid``)."""
    try:
        pid = int((root / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return False
    return _start_time(pid) is not None


def is_stale(root: Path, now: float) -> bool:
    """Whether the server folder `root` belongs to a dead owner.

    With an owner file: its owner is gone (or is another process under a reused pid). Without one
    (a folder from before owner files): no server runs in it and it is older than
    `LEGACY_GRACE_SECONDS` (a younger one may belong to a run still starting).
    """
    try:
        owner = (root / OWNER_FILE).read_text()
    except FileNotFoundError:
        try:
            age = now - root.stat().st_mtime
        except FileNotFoundError:
            return False  # removed meanwhile
        return not _postmaster_alive(root) and age > LEGACY_GRACE_SECONDS
    pid, _, _ = owner.partition(" ")
    return not pid.isdigit() or _identity(int(pid)) != owner


def remove_stale(parent: Path) -> list[Path]:
    """Stop the servers of dead owners in `parent` and remove their folders; the folders removed."""
    removed: list[Path] = []
    for root in sorted(parent.glob(f"{PREFIX}*")):
        if not root.is_dir() or not is_stale(root, time.time()):
            continue
        if _postmaster_alive(root):
            _stop_orphan(root)
        shutil.rmtree(root, ignore_errors=True)
        removed.append(root)
    return removed


def _stop_orphan(root: Path) -> None:
    """Stop the server left running in `root` (as its owner would have)."""
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    pg_ctl = str(find_bin_dir() / "pg_ctl")
    subprocess.run([*prefix, pg_ctl, "-D", str(root / "data"), "-m", "fast", "-w", "stop"], capture_output=True)


def _run(command: list[str], log: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        server_log = log.read_text(errors="replace") if log.exists() else ""
        raise PostgresUnavailable(
            f"{Path(command[command.index('--') + 1 if '--' in command else 0]).name} failed "
            f"(exit {done.returncode}): {done.stderr.strip()} {server_log.strip()}"
        )
