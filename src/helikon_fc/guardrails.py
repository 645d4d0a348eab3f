"""Guardrails: checks of a run's input and final output that can stop it.

A guardrail is `Guardrail(name, check)`, where ``await check(ctx, text)`` answers `Pass()` or
`Tripwire(name, info)`. `run_input_guardrails` and `run_output_guardrails` run a list of them as a
run does and answer the first `Tripped` (or `None`), for testing guardrails on their own.
"""

from __future__ import annotations

from ._public import claim
from .shell.control.guardrails import (
    Guardrail as Guardrail,
    GuardrailVerdict as GuardrailVerdict,
    Pass as Pass,
    Tripped as Tripped,
    Tripwire as Tripwire,
    run_input_guardrails as run_input_guardrails,
    run_output_guardrails as run_output_guardrails,
)

__all__ = [
    "Guardrail",
    "GuardrailVerdict",
    "Pass",
    "Tripped",
    "Tripwire",
    "run_input_guardrails",
    "run_output_guardrails",
]

claim(__name__, globals(), __all__)
