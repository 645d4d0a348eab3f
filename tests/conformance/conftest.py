"""Fixtures for the conformance suite: the local wire server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.openai.openai_wire import WireServer, running_server


@pytest.fixture
def wire() -> Iterator[WireServer]:
    """A local OpenAI-compatible server on 127.0.0.1 (ephemeral port) replaying queued fixtures."""
    with running_server() as server:
        yield server
