"""examples/compaction.py runs offline and shows one compaction before the last chapter."""

from __future__ import annotations

from tests.examples.test_loop_examples import run_example


async def test_the_compaction_example_compacts_once_and_answers() -> None:
    """The simulator run reads four chapters, compacts once on the way, and answers; 6 calls with the summary."""
    done = await run_example("compaction.py")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines() == [
        '-> read_chapter({"number":1})',
        '-> read_chapter({"number":2})',
        '-> read_chapter({"number":3})',
        "[compacted 5 items: ~325 -> ~135 tokens]",
        '-> read_chapter({"number":4})',
        "All 4 chapters read: 30 sightings in total.",
        "(6 model calls, summaries included)",
    ]
