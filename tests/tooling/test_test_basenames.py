"""Two test files with one basename in directories without ``__init__.py`` cannot be collected by one
pytest command (the default import mode names both modules by their basename)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_test_files_outside_packages_have_unique_basenames() -> None:
    seen: dict[str, list[str]] = defaultdict(list)
    for top in ("tests", "properties", "e2e"):
        for path in (ROOT / top).rglob("test_*.py"):
            if not (path.parent / "__init__.py").exists():
                seen[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
