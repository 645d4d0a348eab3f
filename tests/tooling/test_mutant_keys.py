"""The keys `tools/mutants/equivalent.toml` lists mutants by: one key names one mutant.

A key is ``path::scope::change``, so that it survives edits elsewhere in the file. The same change can occur more
than once in one scope (`False` -> `True` on two arguments of one call); before the occurrence was part of the
key, listing one of them as equivalent silently listed the others too.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

from tools.mutants.layer import PURE
from tools.mutants.operators import mutants

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """
def pick(a, b):
    x = make(a, strict=False, quiet=False)
    if a:
        return x
    if b:
        return x
    return None
"""


def test_repeated_changes_in_one_scope_get_their_occurrence() -> None:
    found = [m for m in mutants("m.py", SOURCE) if m.description == "`False` -> `True`"]
    assert [m.key for m in found] == ["m.py::pick::`False` -> `True`", "m.py::pick::`False` -> `True` #2"]
    returns = [m for m in mutants("m.py", SOURCE) if m.description == "`return x` -> `return None`"]
    assert [(m.line, m.occurrence) for m in returns] == [(5, 1), (7, 2)]


def test_every_mutant_of_the_pure_layer_has_a_key_of_its_own() -> None:
    keys: Counter[str] = Counter()
    for path in sorted(path for top in PURE for path in top.rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        keys.update(m.key for m in mutants(relative, path.read_text()))
    assert [key for key, count in keys.items() if count > 1] == []
    listed = [
        entry["key"] for entry in tomllib.loads((ROOT / "tools/mutants/equivalent.toml").read_text())["equivalent"]
    ]
    assert [key for key in listed if key not in keys] == []  # a listed key that names nothing is stale
