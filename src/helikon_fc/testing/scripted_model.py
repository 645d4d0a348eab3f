"""`ScriptedModel`: a fake model that answers with a fixed list of turns, in order."""

from __future__ import annotations

from collections.abc import Iterable

from ..core import ModelFailureKind, ModelRequest
from ..models.protocol import ModelError, ModelStream
from ._script_position import ScriptPositions
from ._stream import DEFAULT_KEEP_REQUESTS, PerRunLog, TurnStream, keep_requests_checked
from .script import ScriptedTurn


class ScriptExhausted(ModelError):
    """A `ScriptedModel` was asked for more turns than its script has (kind ``OTHER``).

    Attributes:
        model: the model's name.
        turn: the turn asked for, counting from 0.
        script_length: how many turns the script has.
    """

    def __init__(self, model: str, turn: int, script_length: int) -> None:
        plural = "turn" if script_length == 1 else "turns"
        super().__init__(
            ModelFailureKind.OTHER,
            f"scripted model {model!r} has no turn {turn}: its script has {script_length} {plural}"
            f" (turns count from 0; this was request number {turn + 1})",
        )
        self.model = model
        self.turn = turn
        self.script_length = script_length


class ScriptedModel:
    """A `Model` that answers its scripted turns in order, one per request, with no network.

    Build the turns with `reply`, `call_tools`, `fail`, `raw` and `broken`. Each request takes the
    next turn; asking past the end raises `ScriptExhausted`. Requests that share the model take
    turns in the order they call it. The latest requests are recorded in `requests` (the last
    ``keep_requests``, default 100; `None` keeps every one).

    The position in the script lives in the trio run: every ``trio.run`` (every `simulate`, every
    pytest-trio test) starts from the first turn, so one model (and one agent) can serve many tests.
    But a request whose conversation already shows turns of the script answered (their text, their
    calls with ids, names and arguments) is answered with the turn after the last of them, if the model
    has not gone further: so a run resumed from its records (``Runner.resume``, in this trio run or
    another process) goes on where it stopped, as it would with a real model.

    Example:
        ``ScriptedModel([call_tools(call("add", a=1, b=2)), reply("3")])``
    """

    __slots__ = ("_log", "_name", "_positions", "_turns")

    def __init__(
        self,
        turns: Iterable[ScriptedTurn],
        *,
        name: str = "scripted",
        keep_requests: int | None = DEFAULT_KEEP_REQUESTS,
    ) -> None:
        self._turns = tuple(turns)
        for index, turn in enumerate(self._turns):
            if not isinstance(turn, ScriptedTurn):
                raise TypeError(
                    f"ScriptedModel {name!r}: turn {index} is {turn!r}; build turns with reply(), call_tools(),"
                    " fail(), raw() or broken()"
                )
        self._name = name
        self._positions = ScriptPositions(self._turns)
        keep = keep_requests_checked(f"ScriptedModel {name!r}", keep_requests)
        self._log = PerRunLog(f"helikon_fc.testing.ScriptedModel:{name}", keep)

    @property
    def name(self) -> str:
        """The model's name, as given (default ``"scripted"``)."""
        return self._name

    @property
    def turns(self) -> tuple[ScriptedTurn, ...]:
        """The script."""
        return self._turns

    @property
    def requests(self) -> tuple[ModelRequest, ...]:
        """The latest requests (see ``keep_requests``) of the latest trio run that used the model, in order.

        Requests past the end of the script are included.
        """
        return tuple(self._log.latest.requests)

    def stream(self, request: ModelRequest) -> ModelStream:
        """Answer `request` with the next turn of the script; see the `Model` protocol."""

        async def open_turn() -> tuple[int, ScriptedTurn]:  # noqa: ASYNC124 - `TurnStream` awaits it (see FunctionModel)
            turn_index = self._log.current().record(request, self._positions.next_after(request.items))
            if turn_index >= len(self._turns):
                raise ScriptExhausted(self._name, turn_index, len(self._turns))
            return turn_index, self._turns[turn_index]  # noqa: ASYNC910 - `TurnStream.__aenter__` checkpoints right after

        return TurnStream(open_turn)

    def __repr__(self) -> str:
        return f"ScriptedModel(<{len(self._turns)} turns>, name={self._name!r})"
