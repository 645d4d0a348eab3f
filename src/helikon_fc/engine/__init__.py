"""The model loop once for every runtime: `run_loop` decides, a runtime's `Performer` performs.

Nothing here imports trio, asyncio or temporalio (a test checks): the trio shell and the Temporal
workflow are two performers of the same loop (docs/architecture.md draws them).
"""

from .controls import Controls as Controls, Held as Held
from .injections import PendingInjections as PendingInjections, with_injections as with_injections
from .loop import Begin as Begin, contexts as contexts, run_loop as run_loop
from .performer import Meter as Meter, Performer as Performer

__all__ = [
    "Begin",
    "Controls",
    "Held",
    "Meter",
    "PendingInjections",
    "Performer",
    "contexts",
    "run_loop",
    "with_injections",
]
