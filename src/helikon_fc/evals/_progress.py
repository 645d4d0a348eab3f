"""`Progress`: a line per finished run on a terminal (stderr), so a long eval shows it is moving."""

from __future__ import annotations

from typing import TextIO

from ._report import Repetition


class Progress:
    """Counts finished runs and writes ``[done/total] case #rep PASS|FAIL (reason)`` lines to `out` (if any)."""

    __slots__ = ("_done", "_out", "_total")

    def __init__(self, out: TextIO | None, *, total: int) -> None:
        self._out = out
        self._total = total
        self._done = 0

    def finished(self, case: str, repetition: Repetition) -> None:
        """Count one finished run and show it."""
        self._done += 1
        if self._out is None:
            return
        width = len(str(self._total))
        outcome = "pass" if repetition.passed else "FAIL"
        why = ""
        if not repetition.passed:
            failing = next((r for r in repetition.results if not r.passed), None)
            why = f": {repetition.error or (failing.reason if failing else '')}"
            why = why if len(why) <= 100 else why[:99] + "…"
        line = f"eval [{self._done:>{width}}/{self._total}] {case} #{repetition.index} {outcome}{why}\n"
        self._out.write(line)
        self._out.flush()

    def done(self) -> None:
        """Nothing more will run (the count is complete)."""
        if self._out is not None:
            self._out.flush()
