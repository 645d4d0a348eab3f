"""Typed stubs for ``pytest_trio.plugin``: the fixtures and the decorator a test file may name."""

from collections.abc import Callable
from typing import TypeVar

import trio
import trio.testing

_F = TypeVar("_F", bound=Callable[..., object])

def trio_fixture(func: _F) -> _F:
    """Mark `func` as a fixture that runs inside the test's trio run."""

def mock_clock() -> trio.testing.MockClock:
    """The ``mock_clock`` fixture: a `MockClock` with autojump off."""

def autojump_clock() -> trio.testing.MockClock:
    """The ``autojump_clock`` fixture: a `MockClock(autojump_threshold=0)`."""

def nursery() -> trio.Nursery:
    """The ``nursery`` fixture: a nursery alive for the test's duration."""
