"""``docs/testing.md`` runs as written: its Python blocks execute in order, and each `test_*` it defines passes."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import trio
import trio.testing

DOC = Path(__file__).resolve().parents[2] / "docs" / "testing.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks() -> list[str]:
    return _BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_page_has_snippets() -> None:
    """The page is not empty of code (so the next test cannot pass vacuously)."""
    assert len(_blocks()) >= 6


def test_every_snippet_runs_and_every_test_it_defines_passes() -> None:
    """Each block runs after the ones before it; the `test_*` functions run too, async ones under a MockClock."""
    namespace: dict[str, Any] = {"__name__": "docs_testing"}
    for number, block in enumerate(_blocks(), start=1):
        code = compile(block, f"{DOC.name}:block{number}", "exec")
        exec(code, namespace)
    tests = {name: fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)}
    assert tests, "the page defines no test functions"
    for fn in tests.values():
        if inspect.iscoroutinefunction(fn):
            clock = trio.testing.MockClock(autojump_threshold=0)
            wanted = inspect.signature(fn).parameters
            kwargs = {"autojump_clock": clock} if "autojump_clock" in wanted else {}

            async def run(fn: Any = fn, kwargs: dict[str, Any] = kwargs) -> None:
                await fn(**kwargs)

            trio.run(run, clock=clock)
        else:
            fn()
