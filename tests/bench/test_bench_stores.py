"""`python -m bench.stores`: the per-append figures of a store, and their table."""

from __future__ import annotations

from bench.measure import Budget
from bench.stores import measure, render

from helikon_fc.stores import MemoryStore

TINY = Budget(0.0, 0.001, 1)


async def test_measure_times_each_kind_of_append() -> None:
    """Every figure (item, record, 16 at once; wall and CPU) is measured and positive."""
    figures = await measure(MemoryStore, TINY)
    assert sorted(figures) == sorted(f"{k}_{t}" for k in ("item", "record", "x16") for t in ("wall", "cpu"))
    assert all(value > 0 for key, value in figures.items() if key.endswith("wall"))


def test_render_prints_one_row_per_store() -> None:
    """The table has a header and one row per store, each cell wall then CPU microseconds."""
    figures = {f"{k}_{t}": 1234.4 for k in ("item", "record", "x16") for t in ("wall", "cpu")}
    lines = render([("memory", figures)]).splitlines()
    assert len(lines) == 3 and lines[2].startswith("| memory | 1,234 µs wall (1,234 µs CPU) |")
