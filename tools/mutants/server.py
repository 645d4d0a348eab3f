"""The fork server: one pytest session collects the tests once, then runs each mutant in a forked child.

`ForkServer` is a pytest plugin that takes over the run loop. After collection it forks a traced
child (which tests run which core lines: `tools.mutants.coverage_map`), then, for every mutant, a
child that swaps the mutant in (`tools.mutants.swap`) and runs the tests that cover its line,
stopping at the first failure. A mutant outside every function, or one that survives the fast
path, is run again in a fresh import of the package (`tools.mutants.child.MutantFinder`) against
the covering tests, since a swap cannot reach what was computed while modules were imported; a line
that runs only at import is covered by every test that runs its module's code, in the same stages.
"""

from __future__ import annotations

import ast
import json
import multiprocessing
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import CodeType
from typing import Any, TextIO

import pytest
from hypothesis import settings
from tools.mutants.child import PYTEST_FLAGS, MutantFinder
from tools.mutants.layer import PURE, module_name
from tools.mutants.operators import Mutant, mutated_code
from tools.mutants.swap import enclosing, live_functions, swap


@dataclass(frozen=True)
class Outcome:
    """What became of one mutant: ``killed``, ``timeout``, ``survived`` or ``uncovered``; and by which stage."""

    mutant: Mutant
    status: str
    stage: str
    seconds: float


def in_child(work: Callable[[], int], timeout: float) -> int | None:
    """Run `work` in a forked child (its own process group); its exit code, or None when it timed out."""
    pid = os.fork()
    if pid == 0:  # the child
        code = 99
        try:
            os.setpgid(0, 0)
            code = work()
        finally:
            sys.stdout.flush()
            os._exit(code)
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            time.sleep(0.01)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)  # anything the child left running
        except (ProcessLookupError, PermissionError):
            pass


def _quiet(log_path: str) -> None:
    descriptor = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(descriptor, 1)
    os.dup2(descriptor, 2)


TIMED_OUT = 98


def _timed_out(signum: int, frame: object) -> None:
    os._exit(TIMED_OUT)


def run_items(
    session: pytest.Session, items: list[pytest.Item], limits: list[float], killer: Path | None = None
) -> int:
    """Run `items` in this (child) process, stopping at the first failure; 1 when one failed, else 0.

    Each item has its own limit of CPU seconds (`limits`): past it the child exits at once (the mutant loops).
    The id of the test that failed is written to `killer`, so the next mutants can try it early.
    """
    signal.signal(signal.SIGPROF, _timed_out)
    for position, item in enumerate(items):
        last = position == len(items) - 1
        signal.setitimer(signal.ITIMER_PROF, limits[position])  # CPU time: a loaded machine is not a loop
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=None if last else items[position + 1])
        if session.testsfailed:
            if killer is not None:
                killer.write_text(item.nodeid)
            session._setupstate.teardown_exact(None)
            return 1
    return 0


class ForkServer:
    """Runs the mutants in forked children once the session has collected (see the module docstring)."""

    def __init__(
        self,
        mutants: list[Mutant],
        root: Path,
        first: tuple[str, ...],
        work: Path,
        log: Callable[[Outcome, int], None],
        import_coverage: Any = None,
        console: TextIO = sys.stdout,
        reuse_trace: bool = False,
        max_tests: int | None = None,
        workers: int = 1,
        budget: float | None = None,
    ) -> None:
        self.budget = budget
        self.reuse_trace, self.max_tests, self.workers = reuse_trace, max_tests, workers
        self.worker = 0
        self.kills: dict[str, int] = {}
        self._live_functions: dict[str, dict[tuple[str, str, int], list[Any]]] = {}
        self._texts: dict[str, str] = {}
        self.mutants, self.root, self.first, self.work, self.log = mutants, root, first, work, log
        self.import_coverage, self.console = import_coverage, console
        self.outcomes: list[Outcome] = []
        self.trace: dict[str, Any] = {}
        self.import_lines: dict[str, set[int]] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        settings.load_profile("mutants")
        if self.import_coverage is not None:
            self.import_coverage.stop()
            data = self.import_coverage.get_data()
            self.import_lines = {name: set(data.lines(name) or ()) for name in data.measured_files()}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {item.nodeid: item for item in session.items}
        self.trace = self._traced(session)
        failing = set(self.trace["failed"])
        if self.workers <= 1:
            for number, mutant in enumerate(self.mutants, 1):
                self.outcomes.append(self._one(session, mutant, items, failing, number))
        else:
            self._parallel(session, items, failing)
        return True

    def _one(
        self, session: pytest.Session, mutant: Mutant, items: dict[str, pytest.Item], failing: set[str], number: int
    ) -> Outcome:
        started = time.monotonic()
        status, stage = self._mutate(session, mutant, items, failing)
        outcome = Outcome(mutant, status, stage, time.monotonic() - started)
        self.log(outcome, number)
        return outcome

    def _parallel(self, session: pytest.Session, items: dict[str, pytest.Item], failing: set[str]) -> None:
        """`workers` forked workers take the next mutant from a shared counter; their outcomes merge here."""
        counter = multiprocessing.Value("i", 0)
        pids = []
        for worker in range(self.workers):
            pid = os.fork()
            if pid == 0:  # a worker: mutants until none is left
                code = 1
                try:
                    self.worker = worker
                    with (self.work / f"worker-{worker}.jsonl").open("w", buffering=1) as out:
                        while True:
                            with counter.get_lock():
                                index = counter.value
                                counter.value += 1
                            if index >= len(self.mutants):
                                break
                            outcome = self._one(session, self.mutants[index], items, failing, index + 1)
                            out.write(json.dumps([index, outcome.status, outcome.stage, outcome.seconds]) + "\n")
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        for pid in pids:
            os.waitpid(pid, 0)
        found: dict[int, Outcome] = {}
        for worker in range(self.workers):
            for line in (self.work / f"worker-{worker}.jsonl").read_text().splitlines():
                index, status, stage, seconds = json.loads(line)
                found[index] = Outcome(self.mutants[index], status, stage, seconds)
        self.outcomes.extend(found[index] for index in sorted(found))

    def _traced(self, session: pytest.Session) -> dict[str, Any]:
        from tools.mutants.coverage_map import CoveragePlugin

        out = self.work / "coverage.json"
        if self.reuse_trace and out.exists():
            reused: dict[str, Any] = json.loads(out.read_text())
            print(
                f"traced run: reused {out.relative_to(self.root)} ({len(reused['durations'])} tests)", file=self.console
            )
            return reused
        out.unlink(missing_ok=True)

        def work() -> int:
            _quiet(str(self.work / "trace.log"))
            plugin = CoveragePlugin([str(top / "*") for top in PURE])
            session.config.pluginmanager.register(plugin)
            for position, item in enumerate(session.items):
                nextitem = session.items[position + 1] if position + 1 < len(session.items) else None
                item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            out.write_text(json.dumps(plugin.result()))
            return 0

        started = time.monotonic()
        in_child(work, timeout=7200)
        if not out.exists():
            raise SystemExit(f"the traced run wrote no coverage: see {self.work / 'trace.log'}")
        trace: dict[str, Any] = json.loads(out.read_text())
        print(f"traced run: {len(trace['durations'])} tests in {time.monotonic() - started:.0f} s", file=self.console)
        if trace["failed"]:
            print(f"  failing unmutated (left out): {', '.join(trace['failed'])}", file=self.console)
        return trace

    def _covering(self, mutant: Mutant, failing: set[str]) -> list[str]:
        by_line: dict[str, list[str]] = self.trace["lines"].get(str(self.root / mutant.path), {})
        ids: set[str] = set()
        for line in range(mutant.line, mutant.end_line + 1):
            ids.update(by_line.get(str(line), ()))
        durations: dict[str, float] = self.trace["durations"]
        return sorted((i for i in ids if i and i not in failing), key=lambda i: durations.get(i, 0.0))

    def _killers_first(self, ids: list[str]) -> list[str]:
        """Tests that killed earlier mutants go first (a neighbour's killer often kills this one), then fastest."""
        durations: dict[str, float] = self.trace["durations"]
        return sorted(ids, key=lambda i: durations.get(i, 1.0) / (1 + 4 * self.kills.get(i, 0)))

    def _killer_file(self) -> Path:
        return self.work / f"killer-{self.worker}"

    def _note_killer(self) -> None:
        path = self._killer_file()
        if path.exists():
            nodeid = path.read_text()
            self.kills[nodeid] = self.kills.get(nodeid, 0) + 1
            path.unlink()

    def _capped(self, ids: list[str]) -> list[str]:
        """At most `max_tests` tests, and only as many as fit in `budget` seconds of traced time (at least one)."""
        ids = ids if self.max_tests is None else ids[: self.max_tests]
        if self.budget is None:
            return ids
        durations: dict[str, float] = self.trace["durations"]
        kept: list[str] = []
        spent = 0.0
        for nodeid in ids:
            spent += durations.get(nodeid, 1.0)
            if kept and spent > self.budget:
                break
            kept.append(nodeid)
        return kept

    def _limit(self, nodeid: str) -> float:
        """One test's CPU-time limit under a mutant: four times its traced duration (tracing slows a test two to
        three times, so about ten times its untraced one), and at least 3 s."""
        return max(3.0, 4 * float(self.trace["durations"].get(nodeid, 1.0)))

    def _timeout(self, ids: list[str]) -> float:
        durations: dict[str, float] = self.trace["durations"]
        return 600 + 10 * sum(durations.get(i, 1.0) for i in ids)  # wall clock: only for a child that hangs

    def _mutate(
        self, session: pytest.Session, mutant: Mutant, items: dict[str, pytest.Item], failing: set[str]
    ) -> tuple[str, str]:
        path = self.root / mutant.path
        source = path.read_text()
        code = mutated_code(mutant, source, str(path))
        assert isinstance(code, CodeType)
        original = compile(source, str(path), "exec")
        keys = enclosing(original, mutant.line, mutant.end_line)
        ids = self._covering(mutant, failing)
        first, rest = self._stages(ids)
        if keys and ids:
            status = "survived"
            for stage, chosen in (("first", first), ("rest", rest)):
                if not chosen:
                    continue
                status = self._fast(session, [items[i] for i in chosen], str(path), keys, code, self._timeout(chosen))
                if status == "no swap":
                    break
                if status != "survived":
                    return status, stage
            if status == "survived" and not self._runs_at_import(mutant):
                return "survived", "rest" if rest else "first"
        if not ids and keys and not self._runs_at_import(mutant):
            return "uncovered", "-"
        if not first and not rest:
            first, rest = self._module_tests(mutant, failing)
        first, rest = self._with_readers(mutant, source, [i for i in items if i not in failing], first, rest)
        if not first and not rest:  # no test ran the module's code: all of the first stage
            first = list(self.first)
        status = "survived"
        for stage, chosen in (("fresh", first), ("fresh rest", rest)):
            if chosen:
                status = self._fresh(mutant, code, chosen, self._timeout(chosen))
                if status != "survived":
                    return status, stage
        return status, "fresh"

    def _stages(self, ids: list[str]) -> tuple[list[str], list[str]]:
        """`ids` split into the first stage (tests/core, properties, ...) and the rest, each ordered and capped."""
        first = [i for i in ids if i.startswith(tuple(f"{p}/" for p in self.first))]
        rest = self._capped(self._killers_first([i for i in ids if i not in first]))
        return self._capped(self._killers_first(first)), rest

    def _module_tests(self, mutant: Mutant, failing: set[str]) -> tuple[list[str], list[str]]:
        """For a line run only at import: every test that runs the module's code, in the stages, order and caps
        of a normal mutant's covering tests (the 60 fastest of them let about 24 mutants a run survive falsely)."""
        by_line: dict[str, list[str]] = self.trace["lines"].get(str(self.root / mutant.path), {})
        return self._stages(sorted({i for tests in by_line.values() for i in tests if i and i not in failing}))

    def _with_readers(
        self, mutant: Mutant, source: str, collected: Iterable[str], first: list[str], rest: list[str]
    ) -> tuple[list[str], list[str]]:
        """`first` and `rest` with, ahead of each, the `collected` tests (those that pass unmutated) of its stage in
        files that name the class whose body holds the mutant (none outside a class body). A class body's values are
        read through code no trace credits to the module (attrs' generated ``__init__``, a converter), so no covering
        test need read them; a test file that names the class likely does."""
        name = _class_at(source, mutant.line)
        if name is None:
            return first, rest
        word = re.compile(rf"\b{re.escape(name)}\b")
        readers = [nodeid for nodeid in collected if word.search(self._text(nodeid.split("::")[0]))]
        in_first = [nodeid for nodeid in readers if nodeid.startswith(tuple(f"{p}/" for p in self.first))]
        in_rest = [nodeid for nodeid in readers if nodeid not in in_first]
        return _ahead(in_first, first), _ahead(in_rest, rest)

    def _text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = (self.root / path).read_text()
        return self._texts[path]

    def _runs_at_import(self, mutant: Mutant) -> bool:
        lines = self.import_lines.get(str(self.root / mutant.path), set())
        return bool(lines & set(range(mutant.line, mutant.end_line + 1)))

    def _fast(
        self,
        session: pytest.Session,
        chosen: list[pytest.Item],
        filename: str,
        keys: Any,
        code: CodeType,
        timeout: float,
    ) -> str:
        index = self._live(filename)

        def work() -> int:
            _quiet(str(self.work / f"mutant-{self.worker}.log"))
            if not swap(filename, keys, code, index):
                return NO_SWAP
            return run_items(session, chosen, [self._limit(item.nodeid) for item in chosen], self._killer_file())

        status = _status(in_child(work, timeout))
        self._note_killer()
        return status

    def _live(self, filename: str) -> dict[tuple[str, str, int], list[Any]]:
        """The live functions of `filename`, found once per worker (a scan of the heap): every child is a fork
        of the worker, so the same objects are live in it."""
        if filename not in self._live_functions:
            self._live_functions[filename] = live_functions({filename})
        return self._live_functions[filename]

    def _fresh(self, mutant: Mutant, code: CodeType, ids: list[str], timeout: float) -> str:
        module = module_name(mutant.path)
        root = str(self.root)

        def work() -> int:
            _quiet(str(self.work / f"mutant-{self.worker}.log"))
            for name, loaded in list(sys.modules.items()):
                if name.startswith("helikon_fc") or str(getattr(loaded, "__file__", None) or "").startswith(root):
                    del sys.modules[name]
            sys.meta_path.insert(0, MutantFinder(module, str(self.root / mutant.path), code))
            return int(pytest.main([*ids, "-x", *PYTEST_FLAGS], plugins=[_Profile()]))

        return _status(in_child(work, timeout), fresh=True)


def _class_at(source: str, line: int) -> str | None:
    """The name of the innermost class whose body (or decorators) holds `line` outside any function, or `None`."""
    found: str | None = None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and _spans(node, line):
            return None
        if isinstance(node, ast.ClassDef) and _spans(node, line):
            found = node.name
    return found


def _spans(node: ast.expr | ast.stmt, line: int) -> bool:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(decorator.lineno for decorator in decorators)])
    return start <= line <= (node.end_lineno or node.lineno)


def _ahead(readers: list[str], ids: list[str]) -> list[str]:
    """`readers`, then the rest of `ids`."""
    ahead = set(readers)
    return [*readers, *(nodeid for nodeid in ids if nodeid not in ahead)]


class _Profile:
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        settings.load_profile("mutants")


NO_SWAP = 97


def _status(code: int | None, fresh: bool = False) -> str:
    if code is None:
        return "timeout"
    if code == NO_SWAP:
        return "no swap"
    if code == TIMED_OUT:
        return "timeout"
    if code == 0:
        return "survived"
    return "killed"  # a failing test, an error at import or collection: the mutant was noticed
