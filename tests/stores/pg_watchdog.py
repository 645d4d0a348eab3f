"""Stops a throwaway PostgreSQL server when the process that started it dies (even by SIGKILL).

Run by `tests.stores.postgres_server` as ``python pg_watchdog.py ROOT STOP_COMMAND_JSON``, in a session
of its own (a signal to the test run's process group does not reach it), with a pipe from its owner
on stdin. The owner writes ``done`` once it has stopped the server itself; end of file without it
means the owner died: the watchdog stops the server and removes ``ROOT``. Standard library only.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys


def main() -> None:
    """Wait for the owner's word or its death; on its death, stop the server and remove its folder."""
    root, stop = sys.argv[1], json.loads(sys.argv[2])
    if sys.stdin.readline().strip() == "done":
        return
    subprocess.run(stop, capture_output=True, check=False)
    shutil.rmtree(root, ignore_errors=True)  # a postmaster still starting shuts down when its lock file goes


if __name__ == "__main__":
    main()
