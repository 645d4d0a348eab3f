"""The core's boundary: what it imports, what it exports, and that each export is documented."""

from __future__ import annotations

import inspect
import subprocess
import sys
import types

import helikon_fc.core as core

FORBIDDEN = ("trio", "httpx", "httpx2", "openai", "anyio", "asyncio", "sniffio")


def public_names() -> dict[str, object]:
    return {
        name: value
        for name, value in vars(core).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }


def test_importing_the_core_loads_no_io_library() -> None:
    """Rule: "`transition` ... no IO ... no trio" and "The core must never import trio, httpx, openai, anyio or
    asyncio": a fresh interpreter importing `helikon_fc.core` (and using its wire format) loads none of them.

    The parent package's re-exports are lazy, so this is the plain import a user (or a sandboxed workflow
    runtime) writes.
    """
    code = (
        "import sys\n"
        "import helikon_fc.core as core\n"
        "core.from_json(core.AgentEvent, core.to_json(core.RunStarted('a')))\n"
        "assert core.transition(core.initial_state(), core.Start(), core.TransitionCtx(\n"
        "    agent_name='a', instructions=None, conversation=core.Conversation())).events\n"
        f"print(','.join(sorted(m for m in {FORBIDDEN!r} if m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_the_check_would_see_an_io_library() -> None:
    """The import check is not vacuous: importing the package's application surface does load trio."""
    code = "import sys\nfrom helikon_fc import LlmAgent\nprint('trio' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def test_every_public_name_lives_in_the_core() -> None:
    """Every public class and function of `helikon_fc.core` is defined in a `helikon_fc.core` module."""
    for name, value in public_names().items():
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__module__.startswith("helikon_fc.core"), name


def test_every_public_class_and_function_has_a_docstring() -> None:
    """Public names have docstrings (Google style)."""
    for name, value in public_names().items():
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), name


def test_the_surface_names_exist() -> None:
    """python-surface.md "The core" section: the states, inputs, actions and functions it names are exported."""
    names = (
        "transition CallingModel ExecutingTools ApplyingHandoff Finalizing RepairingOutput Compacting NeedsApproval "
        "Done Failed Start ModelResponse ToolResults CallModel ExecuteTools PerformHandoff Terminate "
        "TransitionOutcome TransitionCtx LoopState TransitionInput NextAction AgentEvent AgentError Item Usage "
        "to_json from_json WireFormatError"
    ).split()
    exported = public_names()
    assert [name for name in names if name not in exported] == []
