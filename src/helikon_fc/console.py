"""Printing runs in a terminal: the live view of ``helikon run``, for your own programs.

``await print_events(agent.run(ctx, "Hi"))`` runs an agent and prints its events as they arrive;
``event_printer()`` is the same view as an ``on_event`` callback (``collect(on_event=...)``,
``run_to_completion(..., on_event=...)``).
"""

from __future__ import annotations

from .cli.printing import event_printer as event_printer, print_events as print_events

__all__ = ["event_printer", "print_events"]

event_printer.__module__ = __name__
print_events.__module__ = __name__
