"""``helikon record MODULE:ATTRIBUTE "prompt" --out case.json``: run an agent once and keep its run as a recording."""

from __future__ import annotations

import argparse
import sys
import uuid
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._command import Command
from ..model_option import PROVIDERS, add_model_options
from ..terminal import EXIT_FAILED, exit_status

if TYPE_CHECKING:
    from ...agents.protocol import Agent
    from ...models.protocol import Model
    from ...testing import Recording

_EPILOG = f"""\
MODULE:ATTRIBUTE names an agent, or a factory of one, as for `helikon run`: a factory with a parameter
is called with the --model model, the way to record a whole multi-agent system on one model.
--model providers: {", ".join(PROVIDERS)}.

The recording holds every agent run of the run (handoff targets, agents called as tools, workflow
children), each model call with its request, answer and latency, and the run's events. Replay it:

  helikon record myapp.agents:build "Summarise my spending" --model openai:gpt-5-mini --out case.json
  helikon replay case.json                 # show it as it ran
  # in a test: Recording.read("case.json"), then replay(build(recording.model()), recording)
"""


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="MODULE:ATTRIBUTE", help="the agent to run (see below)")
    parser.add_argument("prompt", help="the user's message")
    parser.add_argument("--out", metavar="FILE", required=True, help="the recording file to write (JSON)")
    add_model_options(parser)


def _execute(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from ..loading import TargetError, load_agent
    from ..model_option import ModelOptionError, model_from_options

    out = Path(args.out)
    if not out.parent.is_dir():
        parser.error(f"--out {args.out}: the folder {str(out.parent)!r} does not exist")
    try:
        model = model_from_options(args.model, base_url=args.base_url, api_key_env=args.api_key_env)
    except ModelOptionError as exc:
        parser.error(str(exc))
    try:
        agent = load_agent(args.target, model)
    except TargetError as exc:
        parser.error(str(exc))
    return _record(args, agent, model, out)


def _record(args: argparse.Namespace, agent: Agent[Any], model: Model | None, out: Path) -> int:
    """Run and record the agent, write the recording; the exit status of the run (1 when it could not start)."""
    from functools import partial

    import trio

    from ...core import RunCompleted, RunFailed, RunPaused
    from ...shell.loop.results import RunStartError

    try:
        recording = trio.run(partial(_recorded, agent, args.prompt, model))
    except RunStartError as exc:
        print(f"helikon record: the run could not start: {exc}", file=sys.stderr)
        return EXIT_FAILED
    try:
        recording.save(out)
    except OSError as exc:
        print(f"helikon record: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    last = recording.events[-1] if recording.events else None
    terminal = last if isinstance(last, RunCompleted | RunFailed | RunPaused) else None
    calls = len(recording.calls)
    print(
        f"helikon record: wrote {out}: {len(recording.runs)} agent run(s), {calls} model call(s)"
        f"; show it with `helikon replay {out}`",
        file=sys.stderr,
    )
    if isinstance(terminal, RunFailed):
        print(f"helikon record: the recorded run failed: {terminal.error}", file=sys.stderr)
    return exit_status(terminal)


async def _recorded(agent: Agent[Any], prompt: str, model: Model | None) -> Recording:
    from ...stores import MemoryStore
    from ...testing import record

    async with AsyncExitStack() as stack:
        if isinstance(model, AbstractAsyncContextManager):  # an OpenAIModel: one client for the run
            await stack.enter_async_context(model)
        return await record(agent, prompt, store=MemoryStore(), run_id=str(uuid.uuid4()))


RECORD = Command(
    name="record",
    help="run an agent (MODULE:ATTRIBUTE) on a prompt and write the run as a recording to replay offline",
    description="Run any agent once on one prompt (on a real model with --model) and write everything it did "
    "to a recording file: `helikon replay` shows it, and helikon_fc.testing replays it as a deterministic test.",
    epilog=_EPILOG,
    configure=_configure,
    execute=_execute,
)
