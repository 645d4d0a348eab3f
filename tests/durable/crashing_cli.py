"""``python -m tests.durable.crashing_cli AFTER ARGS...``: the ``helikon`` command with ARGS, its
``--store`` wrapped in a `KillingStore`: the process kills itself with SIGKILL right after its
AFTER-th record write, as ``kill -9`` would at that moment.

The CLI opens its store with `helikon_fc.stores.store_at`; this entry point gives it the same store
inside the wrapper, and changes nothing else.
"""

from __future__ import annotations

import sys

from tests.durable.crashing_store import KillingStore

from helikon_fc.cli import live, main
from helikon_fc.stores import store_at


def _killing_store_at(after: int) -> object:
    def open_store(location: str) -> KillingStore:
        return KillingStore(store_at(location), after)

    return open_store


if __name__ == "__main__":
    setattr(live, "store_at", _killing_store_at(int(sys.argv[1])))  # noqa: B010 - the CLI's one store seam
    sys.exit(main(sys.argv[2:]))
