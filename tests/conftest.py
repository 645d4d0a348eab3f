"""Settings shared by every test under tests/.

Hypothesis-driven tests here have no deadline: they assert behaviour, and timing on a shared CI
machine is not part of it (a 200 ms default deadline failed a fragment property once under load).
"""

from __future__ import annotations

from hypothesis import settings

settings.register_profile("tests", deadline=None)
settings.load_profile("tests")
