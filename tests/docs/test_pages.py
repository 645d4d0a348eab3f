"""Every Python block of README.md and docs/*.md runs: alone (unless marked as continuing), and page by page in
order; each prints what its comments say; a block that needs a key, a server or a package fails without it with
the message its page shows. The markers are read by `tests.docs.pages` (and documented in docs/contributing.md)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.docs.pages import (
    Block,
    blocks,
    check_printed,
    failure_text,
    fresh_namespace,
    pages,
    run_block,
    without_package,
)
from tests.openai.openai_wire import running_server

PAGES = [page for page in pages() if blocks(page)]
BLOCKS = [block for page in PAGES for block in blocks(page)]
ALONE = [block for block in BLOCKS if not block.continues]
CONTINUING = [block for block in BLOCKS if block.continues]
NEEDING = [(block, need) for block in BLOCKS for need in block.needs]
# What this module can supply: an OpenAI key is met by a local OpenAI-compatible server. The other needs are met
# where their servers live: tests/stores/test_durability_doc.py (PostgreSQL), tests/temporal/test_doc.py (Temporal).
MET_HERE = {"OPENAI_API_KEY"}
ENV_VAR = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _ids(block: Block) -> str:
    return block.name


@pytest.fixture(autouse=True)
def _no_openai_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocks run as on a machine with no OpenAI settings, whatever this one has."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_every_page_is_read() -> None:
    """The README and the docs pages with code are all here (a page added later is picked up by the glob)."""
    names = {page.name for page in PAGES}
    assert {"README.md", "testing.md", "tools.md", "agent-loop.md", "control.md"} <= names
    assert len(BLOCKS) >= 60


@pytest.mark.parametrize("block", ALONE, ids=_ids)
def test_block_runs_alone_and_prints_what_it_says(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block that does not say it continues runs in a fresh namespace (its needs met where this module can)."""
    if set(block.needs) - MET_HERE:
        return  # run by the test next to its server (see MET_HERE); its failure without it is checked below
    with _needs_met(block, monkeypatch):
        printed = run_block(block, fresh_namespace(block))
    check_printed(block, printed)


@pytest.mark.parametrize("block", CONTINUING, ids=_ids)
def test_a_continuing_block_does_need_the_blocks_before_it(block: Block) -> None:
    """A block says it continues only if it must: alone, it stops on a name an earlier block defines."""
    with pytest.raises(NameError):
        run_block(block, fresh_namespace(block))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_page_runs_in_order_and_prints_what_it_says(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's blocks run one after the other in one namespace, as a reader runs them."""
    page_blocks = [block for block in BLOCKS if block.page == page]
    namespace = fresh_namespace(page_blocks[0])
    for block in page_blocks:
        if set(block.needs) - MET_HERE:
            continue
        with _needs_met(block, monkeypatch):
            printed = run_block(block, namespace)
        check_printed(block, printed)


@pytest.mark.parametrize(
    ("block", "need"), NEEDING, ids=lambda value: value.name if isinstance(value, Block) else value
)
def test_without_what_it_needs_a_block_fails_with_the_message_its_page_shows(
    block: Block, need: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the key unset, the server absent or the package missing, the block stops with a documented message."""
    shown = [text for text in block.documented_failures() if len(text) >= 12]
    assert shown, f"{block.name} needs {need}: the page shows no message (in backquotes) for its absence"
    with contextlib.ExitStack() as stack:
        if ENV_VAR.match(need):
            monkeypatch.delenv(need, raising=False)
        elif need.startswith("package "):
            stack.enter_context(without_package(need.removeprefix("package ").replace("-", ".")))
        with pytest.raises(Exception) as failed:  # any exception: its text is compared below
            run_block(block, fresh_namespace(block))
    text = failure_text(failed.value)
    assert any(message in text for message in shown), (text, shown)


def test_the_markers_and_the_printed_texts_are_read(tmp_path: Path) -> None:
    """The top comment lines are markers; the texts after ``print(...)`` are what it must print, in order."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nx = 6 * 7\nprint(x)  # 42\nprint([x + 1])\n# [43]\n```\n\n"
        "```python\n# continued from the block above\n# needs: SOME_KEY\n# needs: package some-sdk\nprint(x)\n```\n"
    )
    first, second = blocks(page)
    assert (first.line, first.continues, first.needs, first.expected()) == (1, False, (), ["42", "[43]"])
    assert (second.line, second.continues, second.needs) == (8, True, ("SOME_KEY", "package some-sdk"))
    check_printed(first, "42\n[43]\n")
    with pytest.raises(AssertionError, match="says it prints '42'"):
        check_printed(first, "41\n[43]\n")
    with pytest.raises(AssertionError, match=re.escape("says it prints '[43]'")):
        check_printed(first, "[43]\n42\n")  # out of order


@contextlib.contextmanager
def _needs_met(block: Block, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What `block` needs of MET_HERE: an OpenAI key is a placeholder for a local OpenAI-compatible server that
    answers each chat request with a short streamed text."""
    if "OPENAI_API_KEY" not in block.needs:
        yield
        return
    with running_server() as wire:
        for _ in range(4):
            wire.enqueue("chat", "text_stream")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-placeholder")
        monkeypatch.setenv("OPENAI_BASE_URL", wire.base_url)
        yield
