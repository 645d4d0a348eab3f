"""The crash test's worker process: the ``helikon`` command line, started early and held until its go file exists.

Python and temporalio take seconds to import on a loaded machine; the test starts the replacement
worker with the first one, everything imported, and lets it poll (``HELIKON_WORKER_GO``) only once
the first is killed. What runs then is the command line's own code: ``helikon temporal worker ...``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import temporalio.client
import temporalio.worker  # noqa: F401

import helikon_fc.temporal  # noqa: F401
from helikon_fc.cli import main

from . import crash_agents  # noqa: F401

if __name__ == "__main__":
    go = os.environ.get("HELIKON_WORKER_GO")
    while go is not None and not Path(go).exists():
        time.sleep(0.02)
    sys.exit(main(sys.argv[1:]))
