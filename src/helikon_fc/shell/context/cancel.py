"""`CancelToken`: cancellation that crosses task (and thread) boundaries (``ctx.cancel_token``)."""

from __future__ import annotations

import weakref
from contextlib import AbstractContextManager
from types import TracebackType

import trio


class CancelToken:
    """Cancellation that crosses task boundaries: cancelling a token cancels every run attached to it
    and every child token; cancelling a child never reaches its parent.

    A token holds its children weakly: a child lives as long as the run context that carries it,
    so a long-lived context does not accumulate one token per sub-agent run it ever started."""

    __slots__ = ("__weakref__", "_children", "_reason", "_scopes", "_trio_token")

    def __init__(self) -> None:
        self._reason: str | None = None
        # Both made on first use: most tokens never get a child, and whatever a token holds, every
        # concurrent run holds (a `WeakSet` alone is eight objects for the garbage collector to track).
        self._scopes: set[trio.CancelScope] | None = None
        self._children: weakref.WeakSet[CancelToken] | None = None
        self._trio_token: trio.lowlevel.TrioToken | None = None

    @property
    def cancelled(self) -> bool:
        """Whether `cancel` was called (here or on an ancestor)."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """Why it was cancelled, or `None`."""
        return self._reason

    def cancel(self, reason: str = "run cancelled") -> None:
        """Cancel every run attached to this token and to its children. Idempotent.

        Safe from any thread, and it never blocks: off the trio thread of the run it last attached to,
        the flags are set at once and the scopes are cancelled on that thread
        (`trio.lowlevel.TrioToken.run_sync_soon`); a run that is over has no scope left to cancel.
        """
        if self._reason is not None:
            return
        self._reason = reason
        token = self._trio_token
        if token is None or on_trio_thread(token):
            self._cancel_scopes()
        else:
            try:
                token.run_sync_soon(self._cancel_scopes)
            except trio.RunFinishedError:
                pass
        if self._children is not None:
            for child in list(self._children):
                child.cancel(reason)

    def _cancel_scopes(self) -> None:
        if self._scopes is not None:
            for scope in list(self._scopes):
                scope.cancel()

    def child(self) -> CancelToken:
        """A token cancelled with this one, that can also be cancelled on its own."""
        token = CancelToken()
        if self._children is None:
            self._children = weakref.WeakSet()
        self._children.add(token)
        if self._reason is not None:
            token.cancel(self._reason)
        return token

    def attach(self, scope: trio.CancelScope) -> AbstractContextManager[None]:
        """Cancel `scope` when this token is cancelled (at once if it already is), while inside the block.

        Call it from the trio thread that runs `scope`.
        """
        return _Attachment(self, scope)

    def _attach(self, scope: trio.CancelScope) -> None:
        # Token and scope first, the flag last: a thread cancelling meanwhile is then seen either way.
        self._trio_token = trio.lowlevel.current_trio_token()
        if self._scopes is None:
            self._scopes = set()
        self._scopes.add(scope)
        if self._reason is not None:
            scope.cancel()

    def _detach(self, scope: trio.CancelScope) -> None:
        if self._scopes is not None:
            self._scopes.discard(scope)


class _Attachment:
    """What `CancelToken.attach` returns: one slotted object per attached run, where a
    ``@contextmanager`` costs a generator, its context manager and that one's ``__dict__``."""

    __slots__ = ("_scope", "_token")

    def __init__(self, token: CancelToken, scope: trio.CancelScope) -> None:
        self._token = token
        self._scope = scope

    def __enter__(self) -> None:
        self._token._attach(self._scope)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._token._detach(self._scope)


def on_trio_thread(token: trio.lowlevel.TrioToken) -> bool:
    """Whether this thread runs the trio run `token` belongs to."""
    return trio.lowlevel.in_trio_run() and trio.lowlevel.current_trio_token() is token
