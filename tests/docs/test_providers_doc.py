"""Every Python snippet in ``docs/providers.md`` runs (with a placeholder key; no snippet touches the network)."""

from __future__ import annotations

import pathlib
import re

import pytest
import trio
from tests.openai.openai_wire import running_server

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "providers.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_page_has_snippets() -> None:
    """The page shows runnable code for both APIs, connecting, sharing a client, local servers and retries."""
    assert len(SNIPPETS) >= 5


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_snippet_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snippet builds its models and agents in a fresh namespace without error."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-placeholder")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-docs-placeholder")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    namespace: dict[str, object] = {"__name__": f"snippet_{index}"}
    exec(compile(SNIPPETS[index], f"{DOC.name}[{index}]", "exec"), namespace)


def test_shared_client_snippet_runs_against_a_local_server(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``async with model:`` snippet answers both questions over one connection to an OpenAI-compatible server."""
    (snippet,) = [code for code in SNIPPETS if "async with model:" in code]
    with running_server() as wire:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-placeholder")
        monkeypatch.setenv("OPENAI_BASE_URL", wire.base_url)
        wire.enqueue("chat", "text_stream")
        wire.enqueue("chat", "text_stream")
        namespace: dict[str, object] = {"__name__": "snippet_shared_client"}
        exec(compile(snippet, f"{DOC.name}[shared client]", "exec"), namespace)
        main = namespace["main"]
        assert callable(main)
        trio.run(main)
        ports = {request.client_port for request in wire.requests}
    assert capsys.readouterr().out == "Hello, world!\n" * 2
    assert len(wire.requests) == 2
    assert len(ports) == 1
