"""``docs/control.md`` shows each part of the control layer (tests/docs/test_pages.py runs its snippets)."""

from __future__ import annotations

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "control.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_page_shows_each_part_of_the_control_layer() -> None:
    """The page has runnable code for effects, the decision, resolution, redaction, guardrails and hooks."""
    code = "\n".join(SNIPPETS)
    for name in ("ToolEffect", "decide(", "resolve_permission", "redact_text", "run_input_guardrails", "fire_pre"):
        assert name in code, name
