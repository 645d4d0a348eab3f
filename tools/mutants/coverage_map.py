"""Which tests run which lines of the pure layer: one traced run of the suite, before any mutant.

A mutant is then run against only the tests that execute its line (those of ``tests/core`` and
``properties`` first, the rest of ``tests/`` for the mutants they let through). A line run only
while modules are imported (a class body, a module constant) is covered by "every test".
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest


class CoveragePlugin:
    """Records, per test, the core lines it runs and how long it takes; and which tests fail unmutated."""

    def __init__(self, include: list[str]) -> None:
        import coverage

        self.cov = coverage.Coverage(data_file=None, include=include, branch=False)
        self.durations: dict[str, float] = {}
        self.failed: list[str] = []
        self.cov.start()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
        self.cov.switch_context(item.nodeid)
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            self.durations[item.nodeid] = time.perf_counter() - start
            self.cov.switch_context("")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.failed.append(report.nodeid)

    def result(self) -> dict[str, Any]:
        """``{"lines": {file: {line: [test ids]}}, "durations": {...}, "failed": [...]}``."""
        self.cov.stop()
        data = self.cov.get_data()
        lines: dict[str, dict[str, list[str]]] = {}
        for filename in data.measured_files():
            by_line = data.contexts_by_lineno(filename)
            lines[filename] = {str(line): sorted(set(contexts)) for line, contexts in by_line.items()}
        return {"lines": lines, "durations": self.durations, "failed": sorted(set(self.failed))}
