"""Which files the mutation tool mutates (the pure layer) and the import name each is served under.

The pure layer is the code that imports no trio, asyncio or temporalio: ``helikon_fc.core`` and
``helikon_fc.engine`` (``tests/engine/test_engine_imports.py`` checks the engine stays so).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE = (ROOT / "src" / "helikon_fc" / "core", ROOT / "src" / "helikon_fc" / "engine")


def mutated_files() -> list[Path]:
    """Every module of the pure layer but the packages' ``__init__.py`` (re-exports, mutated only when named)."""
    return sorted(path for top in PURE for path in top.rglob("*.py") if path.name != "__init__.py")


def module_name(path: str) -> str:
    """The import name of a file under ``src/``: a package's ``__init__.py`` is the package itself."""
    parts = Path(path).relative_to("src").with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
