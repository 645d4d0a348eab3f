"""Law of redaction in real runs: whatever JSON a tool returns, with configured secrets and secret-named keys at
any depth, no secret and no value of a secret-named key is in any event, durable record or session item, and
what the model reads is JSON of the same shape.

Each example is a whole simulated run (virtual time, the simulator's scripted model) recorded in a
`MemoryStore`, with its session in the same store, directly or inside an `AgentAsTool` sub-run.
"""

from __future__ import annotations

import json

import attrs
import trio
import trio.testing
from hypothesis import given, strategies as st
from properties.redaction_strategies import SECRET_NAMED_KEYS, json_values_with_secrets
from tests.control.leaky import ReturningTool

from helikon_fc import AgentAsTool, AgentInput, LlmAgent, Permissions, RunContext, Runner, RunResultStreaming
from helikon_fc.core import JsonValue, RedactionConfig, ToolResult, to_json
from helikon_fc.core.redaction import is_secret_value
from helikon_fc.stores import MemoryStore
from helikon_fc.testing import ScriptedModel, call, call_tools, reply

HIDDEN = "hidden-value-4711"
"""What the planted secret-named keys hold: found in no text a run leaves behind."""


@attrs.frozen
class _Outcome:
    """What a run left behind: every event, record and session item as JSON text, and what its tool's model read."""

    texts: tuple[str, ...]
    read: tuple[str, ...]


async def _run(agent: LlmAgent[None], outer: LlmAgent[None] | None, secrets: list[str]) -> _Outcome:
    async with MemoryStore() as store:
        permissions = Permissions(redaction=RedactionConfig(secrets=secrets))
        ctx = RunContext(None, session=store.session("s")).with_permissions(permissions)
        stream = Runner(store=store).run(outer or agent, ctx, AgentInput.from_user_text("go"), run_id="r")
        result = await RunResultStreaming(stream).collect()
        assert result.final_output == "done"
        records = [record.body for run in await store.runs() for record in await store.read_run_records(run.run_id)]
        items = await store.session("s").items()
    assert isinstance(agent.model, ScriptedModel)
    read = [item.output for request in agent.model.requests for item in request.items if isinstance(item, ToolResult)]
    return _Outcome((*map(to_json, result.events), *records, *map(to_json, items)), tuple(read))


def _planted(value: JsonValue, key: str) -> JsonValue:
    """`value` beside a secret-named key holding `HIDDEN`, one level down."""
    return {"out": value, "nested": [{key: HIDDEN, "plain": "kept"}]}


@given(case=json_values_with_secrets(), key=st.sampled_from(SECRET_NAMED_KEYS), nested=st.booleans())
def test_no_secret_survives_in_any_event_record_or_session_item(
    case: tuple[JsonValue, list[str]], key: str, nested: bool
) -> None:
    """A run whose tool returns a JSON value with secrets planted anywhere: no secret that counts and no value of
    a secret-named key is in any event, record or session item; the model reads JSON of the same shape."""
    value, secrets = case
    output = _planted(value, key)
    agent = LlmAgent(
        name="ops",
        model=ScriptedModel([call_tools(call("inspect")), reply("done")]),
        tools=[ReturningTool("inspect", output)],
    )
    outer = None
    if nested:
        asks = ScriptedModel([call_tools(call("ops", input="go")), reply("done")])
        outer = LlmAgent(name="outer", model=asks, tools=[AgentAsTool(agent)])
    outcome = trio.run(_run, agent, outer, secrets, clock=trio.testing.MockClock(autojump_threshold=0))
    counting = [secret for secret in secrets if is_secret_value(secret)]
    for text in (*outcome.texts, *outcome.read):
        assert HIDDEN not in text, text
    # a secret is looked for in every string a document holds, at any depth (escaping aside), and in what the
    # model read itself
    for found in (*outcome.read, *(text for document in outcome.texts for text in _strings(json.loads(document)))):
        assert not any(secret in found for secret in counting), (counting, found)
    [read] = outcome.read
    redacted = json.loads(read)
    assert isinstance(redacted, dict) and redacted["nested"] == [{key: "***", "plain": "kept"}]


def _strings(value: JsonValue) -> list[str]:
    """The keys and strings of a JSON value at any depth, and of the JSON documents its strings hold."""
    if isinstance(value, str):
        return [value, *_strings_inside(value)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *_strings(item))]
    return []


def _strings_inside(text: str) -> list[str]:
    """The strings of a JSON document held in a string (a tool result's output inside an event)."""
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return _strings(value) if isinstance(value, dict | list) else []
