"""Fixtures for the store conformance suite: one `backend` per kind of store, each test on a fresh database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import attrs
import pytest

from helikon_fc.stores import MemoryStore, StoreBase

BACKENDS = ("memory",)


@attrs.frozen
class Backend:
    """A kind of store, set up on a database of its own for one test."""

    name: str
    new_store: Callable[[], StoreBase]
    """A new, unopened store on this test's database (each call a new store object)."""
    persistent: bool
    """Whether a second store on the database sees what the first wrote (false for memory)."""


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn, on a fresh database."""
    name: str = request.param
    if name == "memory":
        return Backend(name, MemoryStore, persistent=False)
    raise AssertionError(f"unknown backend {name}")


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[StoreBase]:
    """An open store of the backend, closed at the end of the test."""
    async with backend.new_store() as opened:
        yield opened
