"""How a public module claims the names it exports: their `__module__` becomes the public module.

So reprs, documentation and pickling show where users import a name from, not the room it is
implemented in. The pure core's values keep their home in `helikon_fc.core` (the wire format
resolves their annotations through their own module), so a public module that re-exports them
leaves them alone.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping

__all__ = ["claim"]


def claim(module: str, namespace: Mapping[str, object], names: Iterable[str]) -> None:
    """Set `__module__` to `module` on each class and function of `names` not defined in the core."""
    for name in names:
        value = namespace[name]
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue  # a type alias or a constant has no module of its own
        if not value.__module__.startswith("helikon_fc.core"):
            value.__module__ = module
