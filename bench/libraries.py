"""The libraries the bench compares, and which scenarios each can express (standard library only)."""

from __future__ import annotations

from dataclasses import dataclass, field

SCENARIOS = ("S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9")

TITLES = {
    "S1": "S1 single turn",
    "S2": "S2 tool script (3 rounds x 4 parallel calls)",
    "S3": "S3 2,000 concurrent S2 runs, 50 ms model latency",
    "S4": "S4 streaming",
    "S5": "S5 one more tool round vs conversation length",
    "S6": "S6 pure transition",
    "S7": "S7 graph scheduling (MockClock)",
    "S8": "S8 10,000 concurrent S2 runs: memory",
    "S9": "S9 one model call over real HTTP to a local OpenAI-compatible server: TTFT and total",
}

# Variants: a second measurement a scenario module takes beside a scenario, in the same process (its
# result's "variants" entry), named here so the report and the modules agree on the names.
S1_IN_A_NURSERY = "through a nursery"
"""The trio floor's S1 with the run started as a task in a nursery of its own: issue 14's S1 reference."""
S2_SIMULATOR = "through the simulator (FunctionModel)"
"""helikon_fc's S2 with `helikon_fc.testing.FunctionModel` as the model instead of a plain `Model`."""
S4_CHANNEL = "through a memory channel"
"""The trio floor's S4 with its events sent from a producer task through a memory channel."""


@dataclass(frozen=True)
class Library:
    """One contestant: its scenario module, the distribution it needs, and what it cannot express."""

    key: str
    label: str
    module: str
    distribution: str | None
    """The installed distribution whose version the results name (None: the standard library)."""
    imports: str
    """A module the interpreter must be able to import for the library to run."""
    unsupported: dict[str, str] = field(default_factory=dict)
    """Scenario id -> why the library cannot run it (shown in the table instead of a number)."""

    def supports(self, scenario: str) -> bool:
        return scenario not in self.unsupported


_NO_CORE = "no pure transition function: the loop is not a separate value"
_NO_DAG = "not scripted: S7 runs under trio's MockClock (virtual time); asyncio peers have no equivalent"
_NO_S9 = "its OpenAI model is langchain-openai's, which the bench extra does not install"
_NO_S8 = (
    "not run for peers (time budget: 10,000 concurrent runs take minutes to hours here); S3 gives their memory "
    "per run at 2,000"
)

LIBRARIES: tuple[Library, ...] = (
    Library("helikon_fc", "helikon_fc", "bench.scenarios.helikon", "helikon_fc", "helikon_fc"),
    Library(
        "trio-floor",
        "trio floor",
        "bench.scenarios.floor_trio",
        "trio",
        "trio",
        {"S6": _NO_CORE},
    ),
    Library(
        "asyncio-floor",
        "asyncio floor",
        "bench.scenarios.floor_asyncio",
        None,
        "asyncio",
        {"S6": _NO_CORE, "S7": "reference wavefront is the trio floor's (MockClock is trio's)"},
    ),
    Library(
        "openai-agents",
        "openai-agents",
        "bench.scenarios.peer_openai_agents",
        "openai-agents",
        "agents",
        {"S6": _NO_CORE, "S7": _NO_DAG, "S8": _NO_S8},
    ),
    Library(
        "pydantic-ai",
        "pydantic-ai",
        "bench.scenarios.peer_pydantic_ai",
        "pydantic-ai-slim",
        "pydantic_ai",
        {"S6": _NO_CORE, "S7": _NO_DAG, "S8": _NO_S8},
    ),
    Library(
        "langgraph",
        "langgraph",
        "bench.scenarios.peer_langgraph",
        "langgraph",
        "langgraph",
        {"S6": _NO_CORE, "S7": _NO_DAG, "S8": _NO_S8, "S9": _NO_S9},
    ),
)

BY_KEY = {lib.key: lib for lib in LIBRARIES}
PEERS = ("openai-agents", "pydantic-ai", "langgraph")
