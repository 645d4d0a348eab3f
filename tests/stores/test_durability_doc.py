"""``docs/durability.md``'s PostgreSQL snippet runs against the test session's own server, and prints what its
comments say (tests/docs/test_pages.py runs the page's other snippets, and this one without a server)."""

from __future__ import annotations

import pytest
from tests.docs.pages import ROOT, blocks, check_printed, fresh_namespace, run_block


def test_the_page_has_snippets() -> None:
    """The page shows runnable code: sessions across runs on SQLite and on PostgreSQL, and the protocol."""
    code = [block.code for block in blocks(ROOT / "docs" / "durability.md")]
    assert len(code) >= 3
    assert any("SQLiteStore" in text for text in code) and any("PostgresStore" in text for text in code)


def test_the_postgres_snippet_runs_and_prints_what_it_says(postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The block that needs ``HELIKON_POSTGRES_DSN`` runs against a fresh database and prints what it says."""
    (block,) = [block for block in blocks(ROOT / "docs" / "durability.md") if "HELIKON_POSTGRES_DSN" in block.needs]
    monkeypatch.setenv("HELIKON_POSTGRES_DSN", postgres_dsn)
    check_printed(block, run_block(block, fresh_namespace(block)))
