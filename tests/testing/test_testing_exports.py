"""`helikon_fc.testing` exports every public name once, in a sorted `__all__`."""

from __future__ import annotations

import inspect

import helikon_fc.testing as testing
from helikon_fc.testing import function_model, script, scripted_model, simulation


def test_all_is_sorted_and_resolves() -> None:
    """`__all__` is sorted, without duplicates, and every name in it exists."""
    assert testing.__all__ == sorted(set(testing.__all__))
    for name in testing.__all__:
        assert hasattr(testing, name), name


def test_every_public_name_of_the_submodules_is_exported() -> None:
    """Each public class, function and constant defined in the simulator's modules is in `__all__`."""
    defined = set()
    for module in (script, scripted_model, function_model, simulation):
        for name, value in vars(module).items():
            if name.startswith("_") or inspect.ismodule(value):
                continue
            if getattr(value, "__module__", module.__name__) == module.__name__ or name.isupper():
                defined.add(name)
    defined -= {"annotations", "Ctx"}
    assert defined <= set(testing.__all__), defined - set(testing.__all__)
