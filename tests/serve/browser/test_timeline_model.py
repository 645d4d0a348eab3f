"""The page's timeline model (``static/timeline.js``) and its drawing, run in Chromium on envelopes written
here: lanes per agent path, overlapping branches side by side, a sub-run under its call, handoffs, repeats
dropped, and run data drawn as text only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from tests.serve.browser.page import open_page

pytestmark = pytest.mark.browser

MODEL = """
const [envelopes, done] = arguments;
import("/static/timeline.js").then(({ Timeline, layoutRows }) => {
  const timeline = new Timeline();
  const applied = envelopes.map((envelope) => timeline.apply(envelope));
  const blocks = timeline.shownBlocks();
  const rows = layoutRows(blocks);
  const entry = (e) =>
    e.kind === "call" ? { kind: "call", id: e.call.id, name: e.call.name, result: e.call.result,
                          status: e.call.status, subLanes: e.call.subLanes }
    : e.kind === "handoff" ? { kind: "handoff", to: e.handoff.toAgent, toLane: e.handoff.toLane }
    : e;
  done({
    applied,
    lanes: timeline.orderedLanes().map((l) => ({ key: l.key, parent: l.parentKey, call: l.call, status: l.status,
                                                 usage: l.usage })),
    blocks: blocks.map((b) => ({ lane: b.laneKey, start: b.start, end: b.end, turn: b.turn, ...rows.get(b.id),
                                 entries: b.entries.map(entry) })),
    outcome: timeline.outcome && timeline.outcome.status,
  });
}).catch((error) => done({ error: String(error) }));
"""

USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "cached_input_tokens": 0,
    "reasoning_tokens": 0,
    "requests": 1,
    "unreported_requests": 0,
}


def key(*path: str) -> str:
    """The page's key of the lane of `path` (its JSON, as ``JSON.stringify`` writes it)."""
    return json.dumps(list(path), separators=(",", ":"))


def envelopes(*events: tuple[list[str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Envelopes at positions 1, 2, ... (10 ms apart) of `(path, event)` pairs."""
    return [
        {"position": index, "at_ms": index * 10, "path": path, "event": event}
        for index, (path, event) in enumerate(events, start=1)
    ]


def model_of(driver: WebDriver, stream: list[dict[str, Any]]) -> dict[str, Any]:
    """What the page's `Timeline` makes of `stream`."""
    model: dict[str, Any] = driver.execute_async_script(MODEL, stream)
    assert "error" not in model, model
    return model


def blocks_of(model: dict[str, Any], lane: str) -> list[dict[str, Any]]:
    return [block for block in model["blocks"] if block["lane"] == lane]


def overlap(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two blocks share a grid row (drawn side by side)."""
    return bool(one["rowStart"] < other["rowEnd"] and other["rowStart"] < one["rowEnd"])


@pytest.fixture
def page(chromium: WebDriver, server_url: str) -> WebDriver:
    open_page(chromium, f"{server_url}/")
    chromium.set_script_timeout(10)
    return chromium


def turn(n: int) -> dict[str, Any]:
    return {"type": "turn_started", "turn": n}


def token(text: str) -> dict[str, Any]:
    return {"type": "token_delta", "text": text}


def completed(*by_agent: str) -> dict[str, Any]:
    shares = [{"agent": agent, "usage": USAGE} for agent in by_agent]
    return {"type": "run_completed", "usage": USAGE, "usage_by_agent": shares, "usage_by_model": []}


def test_parallel_branches_get_a_lane_each_and_stand_side_by_side_while_they_overlap(page: WebDriver) -> None:
    """Branches a and b interleave (their blocks share rows); c starts after both ended (rows of its own)."""
    top, a, b, c = ["research"], ["research", "a"], ["research", "b"], ["research", "c"]
    model = model_of(
        page,
        envelopes(
            (top, {"type": "run_started", "agent": "research", "run_id": None}),
            (a, {"type": "agent_updated", "agent": "a"}),
            (a, turn(0)),
            (b, {"type": "agent_updated", "agent": "b"}),
            (b, turn(0)),
            (a, token("alpha")),
            (b, token("beta")),
            (c, turn(0)),
            (c, token("gamma")),
            (top, completed("a", "b", "c")),
        ),
    )
    assert [lane["key"] for lane in model["lanes"]] == [key(*top), key(*a), key(*b), key(*c)]
    assert [lane["parent"] for lane in model["lanes"]] == [None, key(*top), key(*top), key(*top)]
    [block_a], [block_b], [block_c] = (blocks_of(model, key(*path)) for path in (a, b, c))
    assert block_a["entries"] == [{"kind": "text", "text": "alpha"}]
    assert overlap(block_a, block_b)
    assert not overlap(block_a, block_c) and not overlap(block_b, block_c)
    assert block_c["rowStart"] > block_b["rowStart"]
    assert model["outcome"] == "completed"


def test_an_agent_as_tool_sub_run_is_attached_to_its_call_and_drawn_beside_it(page: WebDriver) -> None:
    """The summarizer's lane names the call `digest` that started it; the call lists the lane; the caller's
    turn spans the sub-run's rows; the sub-run's own usage stays on its lane."""
    writer, summarizer = ["writer"], ["writer", "summarizer"]
    call = {"type": "tool_call", "call_id": "call_1", "name": "digest", "arguments": '{"input": "a statement"}'}
    result = {"type": "tool_result", "call_id": "call_1", "output": "- rent", "is_error": False}
    model = model_of(
        page,
        envelopes(
            (writer, {"type": "run_started", "agent": "writer", "run_id": None}),
            (writer, turn(0)),
            (writer, {"type": "tool_call_item", "item": call}),
            (summarizer, {"type": "run_started", "agent": "summarizer", "run_id": None}),
            (summarizer, turn(0)),
            (summarizer, token("- rent")),
            (summarizer, completed("summarizer")),
            (writer, {"type": "tool_output_item", "item": result}),
            (writer, turn(1)),
            (writer, token("Here is your digest.")),
            (writer, completed("summarizer", "writer")),
        ),
    )
    sub = next(lane for lane in model["lanes"] if lane["key"] == key("writer", "summarizer"))
    assert sub["call"] == {"laneKey": key("writer"), "callId": "call_1", "name": "digest"}
    assert sub["usage"] == USAGE and sub["status"] == "completed"
    first, second = blocks_of(model, key("writer"))
    [digest] = [entry for entry in first["entries"] if entry["kind"] == "call"]
    assert digest == {
        "kind": "call",
        "id": "call_1",
        "name": "digest",
        "result": "- rent",
        "status": "done",
        "subLanes": [key("writer", "summarizer")],
    }
    [inner] = blocks_of(model, key("writer", "summarizer"))
    assert first["rowStart"] <= inner["rowStart"] and inner["rowEnd"] <= first["rowEnd"]
    assert second["turn"] == 1 and not overlap(second, inner)


def test_a_handoff_points_at_its_target_lane_and_a_repeated_position_changes_nothing(page: WebDriver) -> None:
    """The handoff resolves to the lane its target speaks in; the source lane reads "handed off"; an
    envelope seen twice (a replay overlapping the live stream) is dropped."""
    triage, billing = ["triage"], ["triage", "billing"]
    stream = envelopes(
        (triage, turn(0)),
        (triage, {"type": "handoff_item", "from": "triage", "to": "billing"}),
        (billing, {"type": "agent_updated", "agent": "billing"}),
        (billing, turn(0)),
        (billing, token("Refunded.")),
    )
    model = model_of(page, [*stream, stream[-1]])
    assert model["applied"] == [True, True, True, True, True, False]
    [source] = blocks_of(model, key("triage"))
    assert source["entries"] == [{"kind": "handoff", "to": "billing", "toLane": key("triage", "billing")}]
    assert [lane["status"] for lane in model["lanes"]] == ["handed off", "running"]
    end = {"position": len(stream) + 1, "at_ms": 100, "path": triage, "event": completed("triage", "billing")}
    ended = model_of(page, [*stream, end])
    assert [lane["status"] for lane in ended["lanes"]] == ["handed off", "completed"]
    assert [block["end"] for block in ended["blocks"]] == [2, 6], "the run's end closes the last active block"
    assert blocks_of(model, key("triage", "billing"))[0]["entries"] == [{"kind": "text", "text": "Refunded."}]


def test_handoffs_back_and_forth_each_find_the_lane_of_their_target(page: WebDriver) -> None:
    """In a swarm whose members hand off to each other more than once, every handoff resolves, also to a
    lane that exists already."""
    ada, bob = ["swarm", "ada"], ["swarm", "bob"]

    def handoff(to: str) -> dict[str, Any]:
        return {"type": "handoff_item", "from": "x", "to": to}

    model = model_of(
        page,
        envelopes(
            (ada, turn(0)),
            (ada, handoff("bob")),
            (bob, turn(0)),
            (bob, handoff("ada")),
            (ada, turn(1)),
            (ada, handoff("bob")),
            (bob, turn(1)),
            (bob, token("done")),
        ),
    )
    handoffs = [entry for block in model["blocks"] for entry in block["entries"] if entry["kind"] == "handoff"]
    assert [(entry["to"], entry["toLane"]) for entry in handoffs] == [
        ("bob", key(*bob)),
        ("ada", key(*ada)),
        ("bob", key(*bob)),
    ]


HOSTILE = '<img src=x onerror="window.hacked=1"><script>window.hacked=2</script>'

DRAW = """
const [envelopes, done] = arguments;
Promise.all([import("/static/timeline.js"), import("/static/timeline_view.js")]).then(([model, view]) => {
  const timeline = new model.Timeline();
  envelopes.forEach((envelope) => timeline.apply(envelope));
  const box = document.createElement("div");
  document.body.append(box);
  view.renderTimeline(box, timeline);
  const count = (selector) => box.querySelectorAll(selector).length;
  const found = { images: count("img"), scripts: count("script"), arrows: count("path.arrow"),
                  text: box.textContent, hacked: window.hacked ?? null };
  box.remove();
  done(found);
}).catch((error) => done({ error: String(error) }));
"""


def test_run_data_is_drawn_as_text_never_as_markup(page: WebDriver) -> None:
    """Agent names, tool names, arguments, results and tokens that look like HTML show as those characters."""
    path = [HOSTILE]
    call = {"type": "tool_call", "call_id": HOSTILE, "name": HOSTILE, "arguments": HOSTILE}
    result = {"type": "tool_result", "call_id": HOSTILE, "output": HOSTILE, "is_error": True}
    stream = envelopes(
        (path, turn(0)),
        (path, token(HOSTILE)),
        (path, {"type": "tool_call_item", "item": call}),
        (path, {"type": "tool_output_item", "item": result}),
        (path, {"type": "handoff_item", "from": HOSTILE, "to": "next"}),
        ([HOSTILE, "next"], token("hi")),
    )
    found = page.execute_async_script(DRAW, stream)
    assert "error" not in found, found
    assert (found["images"], found["scripts"], found["hacked"]) == (0, 0, None)
    assert found["text"].count(HOSTILE) >= 5, "the agent, token, tool name, id and result show as written"
    assert found["arrows"] == 1, "the handoff's arrow to the lane of `next`"


ERRORS = """
const [errors, done] = arguments;
import("/static/format.js").then((format) => done(errors.map(format.describeError)))
  .catch((error) => done([String(error)]));
"""


def test_a_failure_reads_as_the_library_words_it(page: WebDriver) -> None:
    """`describeError` says each AgentError as its Python `str` does, nested branch failures included."""
    model_failed = {"type": "model_failed", "kind": "rate_limited", "message": "429", "retry_after": 2.0}
    parallel = {
        "type": "parallel_failed",
        "failures": [{"key": "b", "error": {"type": "max_turns_exceeded", "limit": 3}}],
    }
    unknown = {"type": "from_the_future", "detail": "x"}
    words = page.execute_async_script(ERRORS, [model_failed, parallel, unknown])
    assert words == [
        "model failed (rate_limited): 429",
        "1 parallel branch(es) failed: b: max turns (3) exceeded",
        "the run failed (from_the_future)",
    ]
