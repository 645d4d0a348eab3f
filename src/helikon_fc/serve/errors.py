"""`ServeError`: a request the server refuses, with the HTTP status and the words the body carries."""

from __future__ import annotations

from collections.abc import Sequence


class ServeError(Exception):
    """A refused request: answered with `status` and ``{"error": message, "problems": [...]}``."""

    def __init__(self, status: int, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.problems = list(problems)


def bad_request(message: str, problems: Sequence[str] = ()) -> ServeError:
    """400: the body is malformed or does not decode."""
    return ServeError(400, message, problems)


def not_found(message: str) -> ServeError:
    """404: no such run or agent."""
    return ServeError(404, message)


def conflict(message: str, problems: Sequence[str] = ()) -> ServeError:
    """409: the run is not in a state that allows this."""
    return ServeError(409, message, problems)


def unavailable(message: str) -> ServeError:
    """503: the server is shutting down."""
    return ServeError(503, message)
