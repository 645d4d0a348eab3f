"""``docs/observability.md``: its Python snippet runs and prints what it says; its tree is the example's."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "observability.md").read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC, flags=re.DOTALL)


def test_the_snippet_runs_and_prints_what_it_says() -> None:
    assert len(SNIPPETS) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(SNIPPETS[0], "observability.md", "exec"), {"__name__": "snippet"})
    assert out.getvalue().strip() == "['chat scripted', 'invoke_agent greeter']"


def test_the_tree_shown_is_the_one_the_example_test_checks() -> None:
    from tests.otel.test_example import TREE

    assert TREE in DOC
