"""What the mutation tool mutates, under which import name, and which tests a fresh-import mutant runs.

Each test here pins a defect the tool had: a package's ``__init__.py`` served under the name
``pkg.__init__`` (so its mutants never replaced anything and always survived), a mutant needing a
fresh import checked by only the 60 fastest of its module's tests (false survivors), and the
engine left out of the pure layer.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from tools.mutants.child import MutantFinder
from tools.mutants.layer import PURE, module_name, mutated_files
from tools.mutants.operators import Mutant
from tools.mutants.server import ForkServer

ROOT = Path(__file__).resolve().parents[2]


def test_a_package_init_is_named_as_the_package() -> None:
    assert module_name("src/helikon_fc/core/patterns/__init__.py") == "helikon_fc.core.patterns"
    assert module_name("src/helikon_fc/core/patterns/vocabulary.py") == "helikon_fc.core.patterns.vocabulary"


def test_a_mutated_package_init_still_imports_its_submodules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "mutpkg_probe"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 1\n")
    (package / "inner.py").write_text("INNER = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path])
    init = str(package / "__init__.py")
    sys.meta_path.insert(0, MutantFinder("mutpkg_probe", init, compile("VALUE = 3\n", init, "exec")))
    try:
        assert importlib.import_module("mutpkg_probe").VALUE == 3
        assert importlib.import_module("mutpkg_probe.inner").INNER == 2
    finally:
        sys.modules.pop("mutpkg_probe.inner", None)
        sys.modules.pop("mutpkg_probe", None)


def test_the_engine_is_part_of_the_pure_layer() -> None:
    assert [str(path.relative_to(ROOT)) for path in PURE] == ["src/helikon_fc/core", "src/helikon_fc/engine"]
    files = {str(path.relative_to(ROOT)) for path in mutated_files()}
    assert {"src/helikon_fc/engine/loop.py", "src/helikon_fc/core/wire.py"} <= files


def _server(tmp_path: Path, tests: int) -> tuple[ForkServer, Mutant]:
    path = "src/helikon_fc/core/patterns/vocabulary.py"
    mutant = Mutant(path, 0, 0, 10, 10, "<module>", "`1` -> `2`")
    server = ForkServer([mutant], ROOT, ("tests/core", "properties"), tmp_path, lambda outcome, number: None)
    first = [f"tests/core/test_v.py::test_{n}" for n in range(tests)]
    rest = ["tests/agents/test_a.py::test_x"]
    server.trace = {
        "lines": {str(ROOT / path): {"20": first[: tests // 2], "30": [*first[tests // 2 :], *rest, ""]}},
        "durations": {nodeid: 0.01 * (tests - n) for n, nodeid in enumerate(first)} | {rest[0]: 0.5},
        "failed": [],
    }
    return server, mutant


def test_a_fresh_import_mutant_runs_every_test_of_its_module(tmp_path: Path) -> None:
    server, mutant = _server(tmp_path, 150)
    first, rest = server._module_tests(mutant, failing={"tests/core/test_v.py::test_3"})
    assert len(first) == 149 and "tests/core/test_v.py::test_3" not in first
    assert first[0] == "tests/core/test_v.py::test_149"  # the fastest first, as for a normal mutant
    assert rest == ["tests/agents/test_a.py::test_x"]


def test_a_fresh_import_mutant_keeps_the_caps_of_a_normal_one(tmp_path: Path) -> None:
    server, mutant = _server(tmp_path, 150)
    server.max_tests = 40
    first, _rest = server._module_tests(mutant, failing=set())
    assert len(first) == 40


def test_module_names_reach_the_engine_and_the_packages() -> None:
    from tools.mutants.__main__ import _module_file, test_paths

    def named(name: str) -> str:
        return str(_module_file(name).relative_to(ROOT))

    assert named("engine.loop") == "src/helikon_fc/engine/loop.py"
    assert named("helikon_fc.engine.loop") == "src/helikon_fc/engine/loop.py"
    assert named("patterns") == "src/helikon_fc/core/patterns/__init__.py"
    assert named("src/helikon_fc/core/patterns/__init__.py") == "src/helikon_fc/core/patterns/__init__.py"
    assert named("patterns.vocabulary") == "src/helikon_fc/core/patterns/vocabulary.py"
    assert named("wire") == "src/helikon_fc/core/wire.py"
    first, rest = test_paths()
    assert "tests/engine" in first and "tests/engine" not in rest and "tests/core" not in rest


def test_a_class_body_mutant_also_runs_the_tests_that_name_its_class(tmp_path: Path) -> None:
    """`Begin`'s ``kw_only=True`` is read only by attrs' generated ``__init__``, which no trace credits to
    ``engine/loop.py``: the fresh stage adds the tests of every file that names the class, ahead of the rest."""
    path = "src/helikon_fc/engine/loop.py"
    source = (ROOT / path).read_text()
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip().startswith("resumed: bool"))
    mutant = Mutant(path, 0, 0, line, line, "<module>", "`True` -> `False`")
    server = ForkServer([mutant], ROOT, ("tests/core", "tests/engine", "properties"), tmp_path, lambda o, n: None)
    reader = "tests/engine/test_shared_loop.py::test_begin_takes_its_options_by_keyword_only"
    collected = [reader, "tests/core/test_records.py::test_x", "tests/agents/test_graph.py::test_y"]
    assert server._with_readers(mutant, source, collected[1:], [], []) == ([], [])  # files that do not name it
    first, rest = server._with_readers(mutant, source, collected, ["tests/core/test_other.py::test_z"], [])
    assert first == [reader, "tests/core/test_other.py::test_z"]
    assert rest == []


def test_a_mutant_outside_a_class_body_gets_no_readers(tmp_path: Path) -> None:
    path = "src/helikon_fc/engine/loop.py"
    source = (ROOT / path).read_text()
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.startswith("_FIXED = "))
    mutant = Mutant(path, 0, 0, line, line, "<module>", "`!=` -> `==`")
    server = ForkServer([mutant], ROOT, ("tests/core", "tests/engine", "properties"), tmp_path, lambda o, n: None)
    collected = ["tests/engine/test_shared_loop.py::test_begin_takes_its_options_by_keyword_only"]
    assert server._with_readers(mutant, source, collected, ["tests/core/a.py::t"], ["tests/b.py::u"]) == (
        ["tests/core/a.py::t"],
        ["tests/b.py::u"],
    )
