"""Fixtures for the Gemini provider tests: the local Gemini API server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.gemini.gemini_wire import GeminiServer, running_server

API_KEY = "test-gemini-key"
"""The key the server expects (a request without it gets HTTP 403, as from the real API)."""


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    """A local Gemini API server on 127.0.0.1 (ephemeral port) replaying queued fixtures."""
    with running_server(API_KEY) as server:
        yield server
