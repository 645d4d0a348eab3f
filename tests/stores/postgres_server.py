"""A throwaway PostgreSQL server for the tests and the benchmark: `initdb` + `pg_ctl` in a temp dir,
on a free loopback port, stopped and removed at the end.

The binaries come from Debian's ``postgresql`` package (``/usr/lib/postgresql/<version>/bin``).
`initdb` refuses to run as root, so as root the server runs as the ``postgres`` system user the
package creates.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs

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
    root = Path(tempfile.mkdtemp(prefix="helikon-pg-"))
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
    try:
        _run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"], log)
        _run([*pg_ctl, "-o", options, "-l", str(log), "-w", "-t", "60", "start"], log)
        try:
            yield PostgresServer(port)
        finally:
            subprocess.run([*pg_ctl, "-m", "fast", "-w", "stop"], capture_output=True, check=False)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _run(command: list[str], log: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        server_log = log.read_text(errors="replace") if log.exists() else ""
        raise PostgresUnavailable(
            f"{Path(command[command.index('--') + 1 if '--' in command else 0]).name} failed "
            f"(exit {done.returncode}): {done.stderr.strip()} {server_log.strip()}"
        )
