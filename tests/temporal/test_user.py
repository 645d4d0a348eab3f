"""The run context's user value crosses to the workers: tools and instructions see it, by a `UserCodec`."""

from __future__ import annotations

import asyncio
import uuid

import attrs
import pytest
from temporalio.client import Client

from helikon_fc import AgentAsTool, LlmAgent, function_tool
from helikon_fc.core import JsonValue, ModelRequest, RunCompleted, ToolOutputItem, ToolResult
from helikon_fc.shell.context.run_context import RunContext
from helikon_fc.shell.tools.tool import ToolContext
from helikon_fc.temporal import HelikonClient, UserCodec
from helikon_fc.testing import FunctionModel, ScriptedModel, ScriptedTurn, call, call_tools, reply

from .harness import on_temporal


@attrs.frozen
class Customer:
    name: str
    tier: int


@function_tool
def whoami(ctx: ToolContext[object]) -> str:
    """Say who the run is for."""
    return repr(ctx.user)


def _asker(name: str = "asker") -> LlmAgent[object]:
    model = ScriptedModel([call_tools(call("whoami")), reply("ok")])
    return LlmAgent(name=name, model=model, tools=[whoami])


def _tool_outputs(events: object) -> list[str]:
    return [e.item.output for e in events if isinstance(e, ToolOutputItem)]  # type: ignore[attr-defined]


def test_a_tool_sees_a_json_user_value(temporal_address: str) -> None:
    outcome = on_temporal(temporal_address, [_asker()], "asker", "who?", user={"name": "ada", "tier": 2})
    assert isinstance(outcome.result.terminal, RunCompleted)
    assert _tool_outputs(outcome.events) == [repr({"name": "ada", "tier": 2})]


def test_a_codec_carries_an_application_object(temporal_address: str) -> None:
    def decode(value: JsonValue) -> Customer:
        assert isinstance(value, dict)
        return Customer(str(value["name"]), int(str(value["tier"])))

    codec = UserCodec(encode=attrs.asdict, decode=decode)
    outcome = on_temporal(temporal_address, [_asker()], "asker", "who?", user=Customer("ada", 2), codec=codec)
    assert _tool_outputs(outcome.events) == [repr(Customer("ada", 2))]


def test_instructions_and_an_agent_as_tool_sub_run_see_the_user_too(temporal_address: str) -> None:
    seen: list[object] = []

    def instructions(ctx: RunContext[object]) -> str:
        seen.append(ctx.user)
        return "be helpful"

    def inner_turn(request: ModelRequest) -> ScriptedTurn:
        results = [item.output for item in request.items if isinstance(item, ToolResult)]
        return reply(f"inner saw {results[0]}") if results else call_tools(call("whoami"))

    inner = LlmAgent[object](
        name="inner",
        model=FunctionModel(inner_turn),
        tools=[whoami],
        instructions=instructions,
    )
    outer = LlmAgent[object](
        name="outer",
        model=ScriptedModel([call_tools(call("inner", input="go")), reply("outer ok")]),
        tools=[AgentAsTool(inner)],
    )
    outcome = on_temporal(temporal_address, [outer], "outer", "go", user="ada")
    assert outcome.result.output == "outer ok"
    assert _tool_outputs(outcome.events) == ["inner saw 'ada'"]
    assert seen == ["ada"]
    assert len(outcome.histories) == 2


def test_a_user_value_that_does_not_encode_is_refused_at_start(temporal_address: str) -> None:
    async def main() -> None:
        client = await Client.connect(temporal_address)
        runs = HelikonClient(client, f"q-{uuid.uuid4()}")
        with pytest.raises(TypeError, match=r"user: .*Customer.*UserCodec"):
            await runs.start("asker", "who?", user=Customer("ada", 2))

    asyncio.run(main())


def test_the_default_codec_keeps_a_dict_as_it_is() -> None:
    """JSON values pass as they are: a dict's keys keep their order, on the wire and back."""
    user = {"zeta": 1, "alpha": {"b": 2, "a": 1}}
    codec = UserCodec()
    text = codec.to_text(user)
    assert text == '{"zeta": 1, "alpha": {"b": 2, "a": 1}}'
    assert list(codec.from_text(text)) == ["zeta", "alpha"]
