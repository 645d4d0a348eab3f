"""`store_at`: the store a location string names (what the CLI's ``--store`` takes)."""

from __future__ import annotations

from ._base import StoreBase
from .postgres import PostgresStore
from .sqlite import SQLiteStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def store_at(location: str) -> StoreBase:
    """A (not yet opened) store for `location`: a ``postgresql://`` (or ``postgres://``) DSN gives a
    `PostgresStore`, anything else is a SQLite file path and gives a `SQLiteStore`.

    Raises:
        ValueError: `location` is empty.
    """
    if not isinstance(location, str) or not location:
        raise ValueError(f"location must be a SQLite file path or a postgresql:// DSN, got {location!r}")
    if location.startswith(POSTGRES_SCHEMES):
        return PostgresStore(location)
    return SQLiteStore(location)
