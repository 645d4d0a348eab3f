"""``python examples/approval.py``: a run pauses for approval in one process and is resumed in another."""

from __future__ import annotations

from tests.examples.test_loop_examples import run_example


async def test_the_paused_run_resumes_with_the_decisions() -> None:
    """The first process exits with two calls waiting; the resume runs the approved one with its new arguments,
    refuses the rejected one, and the printed token is redacted everywhere."""
    done = await run_example("approval.py")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out == [
        "first process exited; the run waits for approval of 2 call(s):",
        '  wipe: {"command":"rm -rf /"}',
        '  home: {"command":"rm -rf ~"}',
        "status: paused",
        "decisions: wipe approved as `rm -rf build/`, home rejected",
        "list: ok (deploy token ***); wipe: ok (deploy token ***); home: permission denied: never the home directory",
        "status: completed",
    ]
    assert "tok-8c1f27d9e4" not in done.stdout.decode()


async def test_a_bad_model_is_a_usage_error() -> None:
    """An unknown provider exits 2 before any process runs the agent."""
    done = await run_example("approval.py", "--model", "nope:x")
    assert done.returncode == 2
