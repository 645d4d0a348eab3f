"""The defaults of the optional record fields, and the offered tools a resumption gives back.

Rules (docstrings of `core.records`): `AskedRequest.kept` is "how many leading items of the log's conversation
the request's conversation starts with" and `injected` "how many system messages hooks appended to the
request"; a request recorded without either started with none and had none. A resumed run "offers these
again": the `ToolsOffered` record comes back whole, its tools included.
"""

from __future__ import annotations

from helikon_fc.core import ToolEffect
from helikon_fc.core.records import AskedRequest, OfferedTool, RunOpened, ToolsOffered, restore


def test_a_request_recorded_without_kept_or_injected_started_with_none_and_had_none() -> None:
    """`AskedRequest` defaults `kept` and `injected` to 0 and `items` to empty."""
    asked = AskedRequest(instructions=None)
    assert asked.kept == 0
    assert asked.injected == 0
    assert asked.items == ()


def test_a_resumption_gives_back_the_offered_tools() -> None:
    """`restore` returns the `ToolsOffered` record with its tools; a source listing nothing offers no tools."""
    tool = OfferedTool(name="now", source="s", description="d", parameters={}, effect=ToolEffect.READ_ONLY)
    offered = ToolsOffered(sources=("s",), tools=(tool,))
    point = restore([RunOpened(agent="a", pattern="llm", fingerprint="f"), offered])
    assert point.offered == offered
    assert point.offered.tools == (tool,)
    assert ToolsOffered(sources=("s",)).tools == ()
