"""Shared by the multi-agent examples: print a run's events as they arrive, one readable line each."""

from __future__ import annotations

from helikon_fc import (
    AgentEvent,
    AgentUpdated,
    HandoffItem,
    MessageOutput,
    RunCompleted,
    RunFailed,
    RunStarted,
    TokenDelta,
    ToolCallItem,
    ToolOutputItem,
)


class EventPrinter:
    """Prints who is active, handoffs, tool calls and results, streamed text and the final usage."""

    def __init__(self) -> None:
        self.agent = "?"
        self.mid_line = False

    def __call__(self, event: AgentEvent) -> None:
        if self.mid_line and not isinstance(event, TokenDelta):
            print()
            self.mid_line = False
        match event:
            case RunStarted(agent=agent) | AgentUpdated(agent=agent):
                self.agent = agent
            case HandoffItem(from_agent=source, to_agent=target):
                print(f"  => handoff {source} -> {target}")
            case ToolCallItem(item=call):
                print(f"  -> [{self.agent}] {call.name} {call.arguments or '{}'}")
            case ToolOutputItem(item=result):
                output = " ".join(result.output.split())
                print(f"  <- {'error: ' if result.is_error else ''}{output[:120]}")
            case TokenDelta(text=text):
                if not self.mid_line:
                    print(f"  {self.agent}: ", end="")
                    self.mid_line = True
                print(text, end="", flush=True)
            case MessageOutput():
                pass
            case RunCompleted(usage=usage):
                tokens = f"{usage.input_tokens} in + {usage.output_tokens} out tokens"
                print(f"  [done: {usage.requests} model calls, {tokens}]")
            case RunFailed(error=error):
                print(f"  [failed: {error}]")
            case _:
                pass
