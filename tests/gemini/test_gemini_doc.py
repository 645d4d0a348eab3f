"""``docs/providers.md``'s Gemini blocks run with a key and print what they say (tests/docs/test_pages.py runs the
page's other blocks, and these without the key, where they must stop with the message the page shows)."""

from __future__ import annotations

import pytest
from tests.docs.pages import ROOT, Block, blocks, check_printed, fresh_namespace, run_block

GEMINI_BLOCKS = [block for block in blocks(ROOT / "docs" / "providers.md") if "GEMINI_API_KEY" in block.needs]


def test_the_page_shows_gemini_and_model_from_name() -> None:
    """The page has a block for `GeminiModel` and one for `model_from_name`."""
    code = [block.code for block in GEMINI_BLOCKS]
    assert any("GeminiModel(" in text for text in code) and any("model_from_name(" in text for text in code)


@pytest.mark.parametrize("block", GEMINI_BLOCKS, ids=lambda block: block.name)
def test_a_gemini_block_runs_with_its_keys(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    """With placeholder keys (nothing is sent: the blocks only build models), each block runs alone."""
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for need in block.needs:
        monkeypatch.setenv(need, "docs-placeholder-key")
    check_printed(block, run_block(block, fresh_namespace(block)))
