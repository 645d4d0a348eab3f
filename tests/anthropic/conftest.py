"""Fixtures for the Anthropic provider tests: the local Messages API server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.anthropic.anthropic_wire import AnthropicWire, running_wire


@pytest.fixture
def messages_wire() -> Iterator[AnthropicWire]:
    """A local Messages API server on 127.0.0.1 (ephemeral port) replaying queued fixtures."""
    with running_wire() as server:
        yield server
