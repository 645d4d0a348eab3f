"""``python examples/approval_server.py``: a served run pauses, is decided over HTTP, and completes."""

from __future__ import annotations

from tests.examples.test_loop_examples import run_example


async def test_the_served_run_pauses_and_completes_with_the_decisions() -> None:
    """The client sees the pause with both waiting calls, sends the decisions (202), and follows the rest of the
    run from Last-Event-ID: the approved call ran with its new arguments, the rejected one was refused."""
    done = await run_example("approval_server.py")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == [
        "paused at position 15; waiting:",
        '  wipe: {"command":"rm -rf /"}',
        '  home: {"command":"rm -rf ~"}',
        "POST /runs/cleanup/approvals -> 202: wipe as `rm -rf build/`, home rejected",
        "  list -> ok",
        "  wipe -> ok",
        "  home -> permission denied: never the home directory",
        "answer: list: ok; wipe: ok; home: permission denied: never the home directory",
        "status: completed, 35 events, positions 1..35",
    ]
    assert "serving on loopback only" in done.stderr.decode()
