"""``python examples/durable_resume.py``: a run killed with SIGKILL mid-round resumes in another process."""

from __future__ import annotations

from tests.examples.test_loop_examples import run_example


async def test_the_killed_run_resumes_to_its_answer() -> None:
    """The first process dies by SIGKILL with one lookup recorded and two in flight; the resume makes
    those two again (each key's effect is logged once: the killed ones never got that far) and
    finishes with two model calls."""
    done = await run_example("durable_resume.py")
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode().splitlines()
    assert out[0] == "first attempt killed by signal 9"
    assert out[1] == "after the crash: run running, 1 of 3 lookups recorded as finished"
    assert out[2] == "You spent $2030 over the last three months."
    assert out[3] == "lookups made: 3 for 3 idempotency keys, model calls: 2"
    assert out[4] == "status: completed"
