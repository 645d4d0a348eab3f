"""``docs/core.md`` is runnable: its Python example runs and prints exactly the output the page shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "core.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_core_tour_runs_and_prints_what_it_says() -> None:
    """The tour's example drives `transition` to `Done` and prints the events shown below it."""
    (example,) = blocks("python")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, str(DOC), "exec"), {"__name__": "core_tour"})
    shown = [block for block in blocks("text") if block.startswith('{"type"')]
    assert shown == [printed.getvalue()]
