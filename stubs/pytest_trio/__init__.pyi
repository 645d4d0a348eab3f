"""Typed stubs for pytest-trio, which ships no ``py.typed``: its public surface as the tests use it."""

from collections.abc import Callable
from typing import TypeVar

_F = TypeVar("_F", bound=Callable[..., object])

__version__: str
__all__ = ["trio_fixture"]

def trio_fixture(func: _F) -> _F:
    """Mark `func` as a fixture that runs inside the test's trio run (a sync function may use trio there)."""
