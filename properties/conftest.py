"""Hypothesis profiles for the property suite, chosen by the ``HYPOTHESIS_PROFILE`` environment variable.

- ``dev`` (the default): 50 examples per property, for quick local runs.
- ``ci``: 300 examples per property (what ``nox -s properties`` runs).
- ``thorough``: 3,000 examples per property, for a long soak before a release.

No profile has a deadline: timing on shared CI machines is not part of the specification.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings


def _register(name: str, examples: int, steps: int) -> None:
    settings.register_profile(
        name,
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )


_register("dev", 50, 30)
_register("ci", 300, 40)
_register("thorough", 3_000, 60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
