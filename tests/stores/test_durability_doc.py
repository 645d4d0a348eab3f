"""Every Python snippet in ``docs/durability.md`` runs, and prints what its comments say it prints
(the PostgreSQL one against the test session's own server)."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "durability.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
PRINTED = re.compile(r"print\(.*\)\s*# (.+)$")


def test_the_page_has_snippets() -> None:
    """The page shows runnable code: sessions across runs on SQLite and on PostgreSQL, and the protocol."""
    assert len(SNIPPETS) >= 3
    assert any("SQLiteStore" in code for code in SNIPPETS) and any("PostgresStore" in code for code in SNIPPETS)


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs_and_prints_what_it_says(
    index: int, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snippet runs in a fresh namespace, and each ``print(...)  # text`` comment appears in its output."""
    code = SNIPPETS[index]
    if "HELIKON_POSTGRES_DSN" in code:
        monkeypatch.setenv("HELIKON_POSTGRES_DSN", request.getfixturevalue("postgres_dsn"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{DOC.name}[{index}]", "exec"), {"__name__": f"snippet_{index}"})
    printed = out.getvalue()
    expected = [match.group(1).strip() for match in map(PRINTED.search, code.splitlines()) if match]
    assert expected
    for line in expected:
        assert line in printed, (line, printed)
