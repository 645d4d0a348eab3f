"""The shared loop's boundary: `helikon_fc.engine` imports no runtime (trio, asyncio, temporalio)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import helikon_fc.engine as engine

RUNTIMES = ("trio", "asyncio", "temporalio", "anyio", "sniffio")


def imported_roots(path: Path) -> set[str]:
    """The top-level names of every module `path` imports (absolute imports only)."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_module_of_the_engine_imports_a_runtime() -> None:
    """No `import` statement in `helikon_fc/engine/` names trio, asyncio or temporalio (or anyio, sniffio)."""
    modules = sorted(Path(engine.__file__).parent.glob("*.py"))
    assert len(modules) >= 4
    for module in modules:
        assert not imported_roots(module) & set(RUNTIMES), module.name


def test_the_statement_check_sees_a_runtime() -> None:
    """The check is not vacuous: the trio driver's module imports trio."""
    driver = Path(engine.__file__).parent.parent / "shell" / "loop" / "driver.py"
    assert "trio" in imported_roots(driver)


def test_importing_the_engine_loads_no_runtime() -> None:
    """A fresh interpreter importing `helikon_fc.engine` (the Temporal sandbox's import) loads none of them."""
    code = (
        f"import sys\nimport helikon_fc.engine\nprint(','.join(sorted(m for m in {RUNTIMES!r} if m in sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
