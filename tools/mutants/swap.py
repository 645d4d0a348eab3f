"""Putting a mutant in place in a running process: the mutated module's code objects swapped into
the live functions that enclose the mutated line.

Every function object keeps a reference to its code; assigning ``fn.__code__`` changes what every
caller runs, whoever imported it and however (methods, closures the module made at import time,
functions wrapped by ``functools.cache``). Closures made later are made from the enclosing
function's (swapped) code, so they are mutated too. A line outside every function (a module
constant, a class body) cannot be swapped: such a mutant is run in a fresh import instead.
"""

from __future__ import annotations

import gc
import types
from collections import defaultdict
from collections.abc import Iterator

CodeKey = tuple[str, int]
COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")


def _codes(
    code: types.CodeType, parents: tuple[types.CodeType, ...] = ()
) -> Iterator[tuple[types.CodeType, tuple[types.CodeType, ...]]]:
    yield code, parents
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const, (*parents, code))


def _is_function(code: types.CodeType) -> bool:
    return bool(code.co_flags & 0x02) and code.co_name not in COMPREHENSIONS  # CO_NEWLOCALS: a function


def enclosing(module_code: types.CodeType, first: int, last: int) -> list[CodeKey]:
    """The functions (name, first line) whose own code runs a line in ``first..last``, and their enclosers."""
    found: set[CodeKey] = set()
    for code, parents in _codes(module_code):
        lines = {line for _start, _end, line in code.co_lines() if line is not None}
        if lines & set(range(first, last + 1)):
            for each in (code, *parents):
                if _is_function(each):
                    found.add((each.co_name, each.co_firstlineno))
    return sorted(found, key=lambda key: key[1])


def by_key(module_code: types.CodeType) -> dict[CodeKey, types.CodeType]:
    return {(code.co_name, code.co_firstlineno): code for code, _parents in _codes(module_code) if _is_function(code)}


def live_functions(filenames: set[str]) -> dict[tuple[str, str, int], list[types.FunctionType]]:
    """Every function object alive now whose code comes from one of `filenames`."""
    index: dict[tuple[str, str, int], list[types.FunctionType]] = defaultdict(list)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__code__.co_filename in filenames:
            code = obj.__code__
            index[(code.co_filename, code.co_name, code.co_firstlineno)].append(obj)
    return index


def swap(
    filename: str,
    keys: list[CodeKey],
    mutated: types.CodeType,
    index: dict[tuple[str, str, int], list[types.FunctionType]],
) -> bool:
    """Swap the mutated code into the live functions named by `keys`; False when it cannot be done."""
    new = by_key(mutated)
    for key in keys:
        replacement = new.get(key)
        if replacement is None:
            return False
        for function in index.get((filename, *key), []):
            try:
                function.__code__ = replacement
            except ValueError:  # the mutant changed the closure's free variables
                return False
    return True
