"""A paused run reads as paused, not failed: in `RunResult`, in the CLI's rendering and in its exit status."""

from __future__ import annotations

import io

from helikon_fc.cli.render import EventRenderer
from helikon_fc.cli.terminal import EXIT_FAILED, EXIT_PAUSED, exit_status
from helikon_fc.core import ApprovalRequested, RunPaused, RunStarted, Usage
from helikon_fc.shell.loop.results import RunResult

PAUSED = RunPaused((ApprovalRequested("tool:ask/cmd0", "Bash", '{"command": "rm -rf /"}'),), Usage(requests=2))


def test_the_renderer_says_paused_and_names_what_waits() -> None:
    """The terminal line says "paused" with each waiting tool and call id, and never "failed"."""
    out = io.StringIO()
    renderer = EventRenderer(out)
    renderer.render(RunStarted("ops"))
    renderer.render(PAUSED)
    text = out.getvalue()
    assert "paused" in text and "Bash (tool:ask/cmd0)" in text
    assert "failed" not in text


def test_the_exit_status_of_a_paused_run_is_its_own() -> None:
    """A paused run exits with 3: neither success (0) nor failure (1)."""
    assert exit_status(PAUSED) == EXIT_PAUSED == 3
    assert EXIT_PAUSED != EXIT_FAILED


def test_a_result_that_ends_paused_reports_its_pending_calls() -> None:
    """`RunResult.from_events` accepts a paused run: `paused`, `pending` and the usage so far."""
    result = RunResult.from_events([RunStarted("ops"), PAUSED])
    assert result.paused and result.pending == PAUSED.pending
    assert result.usage == Usage(requests=2)
