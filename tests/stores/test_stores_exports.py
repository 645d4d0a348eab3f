"""`helikon_fc.stores` exports each store, the interfaces and the errors once, in a sorted `__all__`,
and never pulls psycopg in until a `PostgresStore` opens."""

from __future__ import annotations

import subprocess
import sys

import helikon_fc.stores as stores
from helikon_fc.shell.durable import storage


def test_all_is_sorted_and_every_name_is_documented() -> None:
    """`__all__` is sorted, without duplicates; every name resolves and has a docstring."""
    assert stores.__all__ == sorted(set(stores.__all__))
    for name in stores.__all__:
        value = getattr(stores, name)
        assert name == "RunStatus" or (value.__doc__ or "").strip(), name


def test_the_shell_interfaces_are_the_ones_re_exported() -> None:
    """The names shared with `helikon_fc.shell.durable.storage` are the same objects, not copies."""
    for name in ("Session", "SessionSnapshot", "Store", "RunStore", "RunRecord", "RunSummary", "StoreError"):
        assert getattr(stores, name) is getattr(storage, name)


def test_importing_the_stores_does_not_import_psycopg() -> None:
    """`import helikon_fc.stores` works without the postgres extra: psycopg loads when a PostgresStore opens."""
    code = "import sys, helikon_fc.stores; print('psycopg' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_shell_never_imports_the_stores() -> None:
    """Layering: importing the shell (and the runner) loads no `helikon_fc.stores` module."""
    code = (
        "import sys, helikon_fc.shell.loop.runner; print(any(m.startswith('helikon_fc.stores') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_compacting_session_needs_no_driver() -> None:
    """Layering: a stored session's compaction calls the model as a run does, without loading the run's driver."""
    code = (
        "import sys, helikon_fc.shell.durable.compacting_session; print('helikon_fc.shell.loop.driver' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
