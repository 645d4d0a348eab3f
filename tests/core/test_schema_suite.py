"""The official JSON-Schema-Test-Suite, draft 2020-12 (required tests), run against `compile_schema` + `validate`.

The suite's files are vendored in ``json_schema_suite/`` (with the suite's LICENSE), as shipped under
``json/tests/draft2020-12/`` in the ``jsonschema`` 4.26.0 sdist, less ``refRemote.json`` (remote refs left
out). A case passes when the schema compiles and `validate` accepts exactly the valid instances. The cases
that fail are named in `KNOWN_FAILURES`, all of them schemas whose ``$ref`` points at a remote document the
suite serves from ``localhost:1234``: those are refused when compiled, by design (no fetch, ever). Any other
failure, a known failure that starts passing, or any exception fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helikon_fc.core import JsonValue, validate
from helikon_fc.core.schema import SchemaError, compile_schema

SUITE = Path(__file__).parent / "json_schema_suite"
FILES = sorted(SUITE.glob("*.json"))
PASS_RATE_FLOOR = 0.98

_DYNAMIC_EXTENDIBLE = ("incorrect parent schema", "incorrect extended schema", "correct extended schema")
KNOWN_FAILURES: frozenset[str] = frozenset(
    [
        "dynamicRef: strict-tree schema, guards against misspelled properties: instance with misspelled field",
        "dynamicRef: strict-tree schema, guards against misspelled properties: instance with correct field",
        *(f"dynamicRef: tests for implementation dynamic anchor and reference link: {t}" for t in _DYNAMIC_EXTENDIBLE),
        *(
            f"dynamicRef: $ref and $dynamicAnchor are independent of order - $defs first: {t}"
            for t in _DYNAMIC_EXTENDIBLE
        ),
        *(
            f"dynamicRef: $ref and $dynamicAnchor are independent of order - $ref first: {t}"
            for t in _DYNAMIC_EXTENDIBLE
        ),
        "dynamicRef: $ref to $dynamicRef finds detached $dynamicAnchor: number is valid",
        "dynamicRef: $ref to $dynamicRef finds detached $dynamicAnchor: non-number is invalid",
        "vocabulary: schema that uses custom metaschema with with no validation vocabulary: "
        "applicator vocabulary still works",
        "vocabulary: schema that uses custom metaschema with with no validation vocabulary: "
        "no validation: valid number",
        "vocabulary: schema that uses custom metaschema with with no validation vocabulary: "
        "no validation: invalid number, but it still validates",
        "vocabulary: ignore unrecognized optional vocabulary: string value",
        "vocabulary: ignore unrecognized optional vocabulary: number value",
    ]
)


def _outcomes(path: Path) -> dict[str, str]:
    """Each test of one suite file by name (``file: case: test``): "pass", "fail", or why its schema was refused."""
    outcomes: dict[str, str] = {}
    for case in json.loads(path.read_text(encoding="utf-8")):
        schema: JsonValue = case["schema"]
        try:
            compiled = compile_schema(schema)
            refused = ""
        except SchemaError as exc:
            refused = str(exc)
        for test in case["tests"]:
            name = f"{path.stem}: {case['description']}: {test['description']}"
            if refused:
                outcomes[name] = refused
            else:
                fits = validate(test["data"], compiled) == []
                outcomes[name] = "pass" if fits == test["valid"] else "fail"
    return outcomes


def test_the_suite_is_vendored_whole() -> None:
    """Every required draft 2020-12 file but refRemote.json is here, with the suite's license."""
    assert len(FILES) == 45
    assert (SUITE / "LICENSE").read_text(encoding="utf-8").startswith("Copyright (c) 2012 Julian Berman")
    assert not (SUITE / "refRemote.json").exists()


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_each_file_fails_only_its_known_cases(path: Path) -> None:
    """In each file, exactly the cases in KNOWN_FAILURES fail: a regression fails, and so does a silent fix."""
    outcomes = _outcomes(path)
    failed = {name for name, outcome in outcomes.items() if outcome != "pass"}
    known = {name for name in KNOWN_FAILURES if name.startswith(f"{path.stem}: ")}
    assert failed == known
    for name in known:
        assert "are never fetched" in outcomes[name], name


def test_the_pass_rate_is_at_least_98_percent(capsys: pytest.CaptureFixture[str]) -> None:
    """Over the whole suite at least 98 % pass; every failure is a refused remote $ref."""
    outcomes = {name: outcome for path in FILES for name, outcome in _outcomes(path).items()}
    passed = sum(outcome == "pass" for outcome in outcomes.values())
    rate = passed / len(outcomes)
    with capsys.disabled():
        print(f"\nJSON-Schema-Test-Suite draft 2020-12: {passed}/{len(outcomes)} passed ({rate:.2%})")
    assert len(outcomes) == 1226
    assert rate >= PASS_RATE_FLOOR
    assert {name for name, outcome in outcomes.items() if outcome != "pass"} <= KNOWN_FAILURES
