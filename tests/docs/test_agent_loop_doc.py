"""Every Python snippet in ``docs/agent-loop.md`` runs, and prints what its comments say it prints."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "agent-loop.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")


def test_the_page_has_snippets() -> None:
    """The page shows runnable code, not just prose."""
    assert len(SNIPPETS) >= 5


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs_and_prints_what_it_says(index: int) -> None:
    """The snippet runs in a fresh namespace, and each ``print(...)  # text`` comment appears in its output."""
    code = SNIPPETS[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{DOC.name}[{index}]", "exec"), {"__name__": f"snippet_{index}"})
    printed = out.getvalue()
    for line in code.splitlines():
        match = PRINTED.search(line)
        if match:
            assert match.group(1).strip() in printed, (match.group(1), printed)
