"""Every Python snippet in the README that runs offline runs, and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
TEXT = README.read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)
OFFLINE = [snippet for snippet in SNIPPETS if "from helikon_fc.openai import" not in snippet]
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")


def test_readme_opens_with_the_two_commands() -> None:
    """The first lines a newcomer reads are the demo command and the check command."""
    first_block = re.search(r"```sh\n(.*?)```", TEXT, flags=re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["pip install . && helikon demo", "nox"]


def test_offline_snippets_are_there() -> None:
    """The README shows the simulator snippet and the core tour, both runnable."""
    assert len(OFFLINE) == 2


@pytest.mark.parametrize("index", range(len(OFFLINE)))
def test_snippet_runs_and_prints_what_it_says(index: int) -> None:
    """The snippet runs in a fresh namespace, and each ``print(...)  # text`` comment appears in its output."""
    code = OFFLINE[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README[{index}]", "exec"), {"__name__": f"readme_{index}"})
    printed = out.getvalue()
    expected = [match.group(1).strip() for line in code.splitlines() if (match := PRINTED.search(line))]
    assert expected, "each offline snippet states what it prints"
    for text in expected:
        assert text in printed, (text, printed)


def test_the_streaming_snippet_compiles() -> None:
    """The snippet that needs a real model is at least valid Python with the names it imports."""
    online = [snippet for snippet in SNIPPETS if snippet not in OFFLINE]
    assert len(online) == 1
    compile(online[0], "README[online]", "exec")
