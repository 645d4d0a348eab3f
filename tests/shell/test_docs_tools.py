"""``docs/tools.md`` runs as written: its Python blocks execute in order, and each `test_*` it defines passes."""

from __future__ import annotations

import inspect
import linecache
import re
from pathlib import Path
from typing import Any

import trio
import trio.testing

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks() -> list[str]:
    return _BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_tools_page_has_snippets() -> None:
    """The page has code (so the next test cannot pass vacuously)."""
    assert len(_blocks()) >= 8


def test_every_tools_snippet_runs_and_its_tests_pass() -> None:
    """Each block runs after the ones before it; the `test_*` functions it defines run too (async ones under trio)."""
    namespace: dict[str, Any] = {"__name__": "docs_tools"}
    for number, block in enumerate(_blocks(), start=1):
        filename = f"{DOC.name}:block{number}"
        linecache.cache[filename] = (len(block), None, block.splitlines(keepends=True), filename)  # readable tracebacks
        # dont_inherit: the snippets run as a user's module would, without this file's __future__ imports.
        exec(compile(block, filename, "exec", dont_inherit=True), namespace)
    tests = [fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]
    assert len(tests) >= 3
    for fn in tests:
        if inspect.iscoroutinefunction(fn):
            trio.run(fn, clock=trio.testing.MockClock(autojump_threshold=0))
        else:
            fn()
