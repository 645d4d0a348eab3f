"""Every Python snippet in ``docs/control.md`` runs, and prints what its comments say it prints."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "control.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")
CONTINUED = re.compile(r"^# (.+)$")


def test_the_page_shows_each_part_of_the_control_layer() -> None:
    """The page has runnable code for effects, the decision, resolution, redaction, guardrails and hooks."""
    code = "\n".join(SNIPPETS)
    for name in ("ToolEffect", "decide(", "resolve_permission", "redact_text", "run_input_guardrails", "fire_pre"):
        assert name in code, name


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs_and_prints_what_it_says(index: int) -> None:
    """The snippet runs in a fresh namespace, and each ``print(...)  # text`` comment (or each comment line right
    after a bare ``print(...)``) appears in its output."""
    code = SNIPPETS[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{DOC.name}[{index}]", "exec"), {"__name__": f"snippet_{index}"})
    printed = out.getvalue().splitlines()
    lines = code.splitlines()
    checked = 0
    for number, line in enumerate(lines):
        match = PRINTED.search(line)
        if match:
            assert any(match.group(1).strip() in out_line for out_line in printed), (match.group(1), printed)
            checked += 1
        elif line.startswith("print(") and line.endswith(")"):
            for follow in lines[number + 1 :]:
                comment = CONTINUED.match(follow)
                if not comment:
                    break
                assert comment.group(1).strip() in printed, (comment.group(1), printed)
                checked += 1
    assert checked, "a snippet should show what it prints"
