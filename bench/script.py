"""The shared script every library runs (see `docs/performance.md`): one place for its constants."""

from __future__ import annotations

INSTRUCTIONS = "You are a benchmark agent: call the tools you are given, then answer."
PROMPT = "run the tools"
S1_TEXT = "hello from the fake model"
FINAL_TEXT = "all tools are done"
FINAL_CHUNKS = ("all ", "tools ", "are ", "done")
TOOL_NAMES = ("t0", "t1", "t2", "t3")
TOOL_ROUNDS = 3
"""S2: model turns 0, 1 and 2 call the four tools; turn 3 answers."""
MODEL_TURNS = TOOL_ROUNDS + 1
TOOL_CALLS = TOOL_ROUNDS * len(TOOL_NAMES)
INPUT_TOKENS = 10
OUTPUT_TOKENS = 5
LATENCY = 0.05
"""S3/S8: seconds every model call sleeps."""
S3_RUNS = 2_000
S8_RUNS = 10_000
S5_SIZES = (10, 1_000, 10_000)


def call_id(turn: int, k: int) -> str:
    """The call id of tool `k` in model turn `turn`."""
    return f"call_{turn}_{k}"


def turn_after(call_id_: str) -> int:
    """The model turn that follows the tool round a result with this call id belongs to (O(1), no scan)."""
    return int(call_id_.split("_", 2)[1]) + 1


def tool_output(k: int, x: int) -> str:
    """What tool `t{k}` returns for `x`."""
    return f"t{k}:{x}"


def history_texts(n: int) -> list[tuple[str, str]]:
    """S5: `n` earlier conversation items as (role, text) pairs, alternating user and assistant."""
    return [("user" if i % 2 == 0 else "assistant", f"earlier message {i}") for i in range(n)]
