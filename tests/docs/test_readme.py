"""The README opens with the two commands and shows the offline snippets (tests/docs/test_pages.py runs them)."""

from __future__ import annotations

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
TEXT = README.read_text()
SNIPPETS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)
OFFLINE = [snippet for snippet in SNIPPETS if "from helikon_fc.openai import" not in snippet]


def test_readme_opens_with_the_two_commands() -> None:
    """The first lines a newcomer reads are the demo command and the check command."""
    first_block = re.search(r"```sh\n(.*?)```", TEXT, flags=re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["pip install . && helikon demo", "nox"]


def test_offline_snippets_are_there() -> None:
    """The README shows the simulator snippet and the core tour, both runnable."""
    assert len(OFFLINE) == 2
