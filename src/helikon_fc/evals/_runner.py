"""`run_eval`: every case of a dataset, `repeat` times, concurrently under a `CapacityLimiter`; and its sync twin."""

from __future__ import annotations

import os
import uuid
from contextlib import AsyncExitStack
from typing import Any, TextIO

import trio
import trio.testing

from ..shell import _checks
from ..shell.durable.storage import RunStore
from ..shell.tools.function_tool import sync_tools_inline
from ._case import Case, Dataset
from ._case_evaluators import evaluators_for
from ._progress import Progress
from ._recorded import copy_runs
from ._report import CaseReport, EvalReport, Repetition
from ._running import AgentSource, ContextFactory, run_case
from ._scoring import score_run

StoreOption = RunStore | str | os.PathLike[str] | None


async def run_eval(
    agent: AgentSource,
    dataset: Dataset,
    *,
    repeat: int = 1,
    concurrency: int = 4,
    timeout: float | None = 60.0,
    min_pass_rate: float = 1.0,
    store: StoreOption = None,
    context: ContextFactory | None = None,
    progress: TextIO | None = None,
) -> EvalReport:
    """Run every case of `dataset` `repeat` times and score each run; a failing agent fails its case, never the eval.

    Args:
        agent: the agent, or a function ``(case) -> agent`` (a fresh agent per case: a `ScriptedModel` per case).
        dataset: the cases and evaluators.
        repeat: runs per case (the pass rate, and which repetitions disagree, are in the report).
        concurrency: how many runs at once (a `trio.CapacityLimiter`).
        timeout: seconds each run may take (``RunFailed(TimedOut)``), or `None` for no limit.
        min_pass_rate: the share of a case's repetitions that must pass for the case to pass.
        store: a `RunStore`, or a SQLite path / ``postgresql://`` DSN: every run is recorded there (after the eval,
            all at once), under the `run_id` its repetition shows, for ``helikon runs show RUN_ID --store ...``.
        context: builds each run's context from its case: a `RunContext`, or the ``ctx.user`` of a fresh one
            (default: ``RunContext.ephemeral(None)``).
        progress: where to write a line per finished run (``sys.stderr`` on a terminal), or `None`.

    Under a virtual clock (``trio.testing.MockClock``: pytest-trio's ``autojump_clock``, or `run_eval_sync` with
    `virtual_time`) sync function tools run inline, as in `helikon_fc.testing.simulate`: a worker thread would
    look idle to the clock, which would jump to the runs' deadlines.

    Raises:
        TypeError, ValueError: an argument is out of range (named in the message), before anything runs.
        StoreError: the store cannot be opened (before anything runs) or written.
    """
    _check(agent, dataset, repeat, concurrency, timeout, min_pass_rate)
    from ..stores import MemoryStore

    memory = MemoryStore() if store is not None else None
    runs = _Repetitions(agent, dataset, repeat, concurrency, timeout, memory, context, progress)
    async with AsyncExitStack() as stack:
        target = await _open_store(stack, store)  # before the runs: a store that cannot open fails the eval at once
        if isinstance(trio.lowlevel.current_clock(), trio.testing.MockClock):
            stack.enter_context(sync_tools_inline())  # a worker thread would look idle to the virtual clock
        await runs.run_all()
        if target is not None and memory is not None:
            await copy_runs(memory, target)
    runs.meter.done()
    return EvalReport(
        dataset=dataset.name,
        agent=_agent_name(agent),
        repeat=repeat,
        min_pass_rate=min_pass_rate,
        cases=tuple(_case_report(case, runs.slots[i], min_pass_rate) for i, case in enumerate(dataset.cases)),
        store=os.fspath(store) if isinstance(store, str | os.PathLike) else None,
    )


class _Repetitions:
    """Every run of an eval, each scored into a slot of its own so the report keeps the cases' order."""

    def __init__(
        self,
        agent: AgentSource,
        dataset: Dataset,
        repeat: int,
        concurrency: int,
        timeout: float | None,
        memory: RunStore | None,
        context: ContextFactory | None,
        progress: TextIO | None,
    ) -> None:
        self._prefix = f"eval-{uuid.uuid4().hex[:8]}"
        self._agent = agent
        self._dataset = dataset
        self._repeat = repeat
        self._limiter = trio.CapacityLimiter(concurrency)
        self._timeout = timeout
        self._memory = memory
        self._context = context
        self.slots: list[list[Repetition | None]] = [[None] * repeat for _ in dataset.cases]
        """Per case, per repetition: its scored run (`None` until it finished)."""
        self.meter = Progress(progress, total=len(dataset.cases) * repeat)

    async def run_all(self) -> None:
        """Start every (case, repetition) in one nursery; the limiter caps how many run at once."""
        async with trio.open_nursery() as nursery:
            for case_index in range(len(self._dataset.cases)):
                for rep in range(self._repeat):
                    nursery.start_soon(self._one, case_index, rep)

    async def _one(self, case_index: int, rep: int) -> None:
        """Run and score one repetition of one case (recorded under a run id of the eval when there is a store)."""
        case = self._dataset.cases[case_index]
        run_id = f"{self._prefix}-{case_index}-{rep}" if self._memory is not None else None
        async with self._limiter:
            run = await run_case(
                self._agent, case, run_id=run_id, timeout=self._timeout, store=self._memory, context=self._context
            )
            repetition = await score_run(rep, case, run, evaluators_for(self._dataset, case))
        self.slots[case_index][rep] = repetition
        self.meter.finished(case.name, repetition)


async def _open_store(stack: AsyncExitStack, store: StoreOption) -> RunStore | None:
    """The store to copy the runs into: `store` itself, or the one at its path (closed when `stack` closes)."""
    if store is None or not isinstance(store, str | os.PathLike):
        await trio.lowlevel.checkpoint()
        return store
    from ..stores import store_at

    return await stack.enter_async_context(store_at(os.fspath(store)))


def run_eval_sync(
    agent: AgentSource,
    dataset: Dataset,
    *,
    virtual_time: bool = False,
    **options: Any,
) -> EvalReport:
    """`run_eval` in a ``trio.run`` of its own, from sync code (a script, a sync test).

    Args:
        agent: see `run_eval`.
        dataset: see `run_eval`.
        virtual_time: run under ``trio.testing.MockClock(autojump_threshold=0)`` with deterministic scheduling,
            as `helikon_fc.testing.simulate` does: for agents on the simulator (or
            on recordings), whose latencies and timeouts then cost no real time. Never for real models.
        **options: the keyword arguments of `run_eval`.

    Raises:
        RuntimeError: called from inside a trio run (``await run_eval(...)`` there).
    """
    if trio.lowlevel.in_trio_run():
        raise RuntimeError(
            "run_eval_sync() starts its own trio.run, so it cannot be called from inside trio; await run_eval(...)"
        )
    if not virtual_time:
        return trio.run(_call, agent, dataset, options)
    from ..testing import deterministic_scheduling

    with deterministic_scheduling():
        return trio.run(_call, agent, dataset, options, clock=trio.testing.MockClock(autojump_threshold=0))


async def _call(agent: AgentSource, dataset: Dataset, options: dict[str, Any]) -> EvalReport:
    return await run_eval(agent, dataset, **options)


def _case_report(case: Case, repetitions: list[Repetition | None], min_pass_rate: float) -> CaseReport:
    done = tuple(rep for rep in repetitions if rep is not None)
    passed = sum(rep.passed for rep in done)
    return CaseReport(
        name=case.name,
        input=case.input,
        expected_output=case.expected_output,
        metadata=case.metadata,
        repetitions=done,
        passed=bool(done) and passed / len(done) >= min_pass_rate,
    )


def _agent_name(agent: AgentSource) -> str:
    name = getattr(agent, "name", None) if _checks.is_agent(agent) else getattr(agent, "__name__", None)
    return str(name) if name is not None else repr(agent)


def _check(agent: object, dataset: object, repeat: object, concurrency: object, timeout: object, rate: object) -> None:
    owner = "run_eval"
    if not _checks.is_agent(agent) and not callable(agent):
        raise TypeError(_checks.message(owner, "agent", agent, "an Agent or a function (case) -> Agent"))
    _checks.require_type(owner, "dataset", dataset, Dataset, "a Dataset (see load_dataset)")
    for argument, value in (("repeat", repeat), ("concurrency", concurrency)):
        _checks.require_type(owner, argument, value, int, "a whole number from 1 up")
        if value < 1:  # type: ignore[operator]
            raise ValueError(_checks.message(owner, argument, value, "a whole number from 1 up"))
    if timeout is not None:
        _checks.require_type(owner, "timeout", timeout, (int, float), "a positive number of seconds or None")
        if not timeout > 0:  # type: ignore[operator]
            raise ValueError(_checks.message(owner, "timeout", timeout, "a positive number of seconds or None"))
    _checks.require_type(owner, "min_pass_rate", rate, (int, float), "a number from 0 to 1")
    if not 0 <= rate <= 1:  # type: ignore[operator]
        raise ValueError(_checks.message(owner, "min_pass_rate", rate, "a number from 0 to 1"))
