"""`load_dataset` and `Dataset`: a JSONL line per case; every loading error names the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helikon_fc.evals import (
    Case,
    Contains,
    CostBudget,
    Dataset,
    DatasetError,
    ExactOutput,
    ExpectedCall,
    MatchesRegex,
    UsageBudget,
    load_dataset,
)


def _write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def test_a_full_line_becomes_a_case() -> None:
    """Every field of a line lands in the case: expectations, metadata, and the evaluators it names."""
    line = {
        "name": "dining",
        "input": "How is my dining budget?",
        "expected_output": "$88 left",
        "expected_calls": [{"name": "get_budget", "arguments": {"category": "dining"}, "agent": "budget"}],
        "calls_match": "subset",
        "expected_agents": ["triage", "budget"],
        "metadata": {"topic": "budgets", "level": 2},
        "evaluators": [
            {"contains": "$88", "ignore_case": True},
            {"regex": "\\d+", "name": "digits"},
            {"exact": "x"},
            {"max_requests": 3, "max_total_tokens": 100},
            {"max_usd": "0.01"},
        ],
    }
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        dataset = load_dataset(_write(Path(folder), "# a comment", "", line))
    assert dataset.name == "cases"
    (case,) = dataset.cases
    assert case.name == "dining" and case.input == "How is my dining budget?" and case.expected_output == "$88 left"
    assert case.expected_calls == (ExpectedCall(name="get_budget", arguments={"category": "dining"}, agent="budget"),)
    assert case.calls_match == "subset" and case.expected_agents == ("triage", "budget")
    assert dict(case.metadata) == {"topic": "budgets", "level": 2}
    assert case.evaluators == (
        Contains(text="$88", ignore_case=True),
        MatchesRegex(pattern="\\d+", name="digits"),
        ExactOutput(expected="x"),
        UsageBudget(max_requests=3, max_total_tokens=100),
        CostBudget(max_usd="0.01"),
    )


def test_a_line_without_a_name_is_named_by_its_line(tmp_path: Path) -> None:
    """A case with no name is called ``line N``."""
    dataset = load_dataset(_write(tmp_path, {"input": "a"}, {"input": "b"}))
    assert [case.name for case in dataset.cases] == ["line 1", "line 2"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{oops", "cases.jsonl line 2: not JSON"),
        ([1, 2], "cases.jsonl line 2: must be a JSON object (a case), got list"),
        ({"name": "x"}, "cases.jsonl line 2, field 'input': missing: every case needs an input"),
        ({"input": 42}, "cases.jsonl line 2, field 'input': must be a string, got a number (42)"),
        ({"input": "q", "expect": "x"}, "cases.jsonl line 2, field 'expect': unknown field; a case has name, input"),
        ({"input": "q", "calls_match": "sorted"}, "line 2, field 'calls_match': must be one of in_order, any_order"),
        ({"input": "q", "expected_calls": [{"nam": "x"}]}, "line 2, field 'expected_calls[0]': must be an object with"),
        (
            {"input": "q", "expected_calls": [{"name": "x", "arguments": [1]}]},
            "line 2, field 'expected_calls[0].arguments': must be an object (or absent: any arguments), got an array",
        ),
        ({"input": "q", "expected_agents": "triage"}, "line 2, field 'expected_agents': must be an array of strings"),
        ({"input": "q", "metadata": []}, "line 2, field 'metadata': must be a JSON object, got an array"),
        ({"input": "q", "evaluators": [{"bogus": 1}]}, "line 2, field 'evaluators[0]': names no evaluator; use one of"),
        ({"input": "q", "evaluators": [{"regex": "("}]}, "line 2, field 'evaluators[0]': MatchesRegex: pattern '('"),
        (
            {"input": "q", "evaluators": [{"max_usd": "lots"}]},
            "line 2, field 'evaluators[0]': CostBudget: max_usd must",
        ),
        (
            {"input": "q", "evaluators": [{"max_requests": -2}]},
            "line 2, field 'evaluators[0]': UsageBudget: max_requests",
        ),
        ({"input": "q", "evaluators": [{"contains": 3}]}, "line 2, field 'evaluators[0].contains': must be a string"),
        ({"name": "first", "input": "q"}, "line 2, field 'name': 'first' names the case of line 1 too"),
    ],
)
def test_errors_name_the_line_and_the_field(tmp_path: Path, line: object, message: str) -> None:
    """Each malformed line is refused with a `DatasetError` naming the file, the line, the field and the problem."""
    path = _write(tmp_path, {"name": "first", "input": "fine"}, line)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    assert message in str(info.value)


def test_a_missing_or_empty_file_is_a_dataset_error(tmp_path: Path) -> None:
    """A file that is not there, or holds no case, is a `DatasetError` saying so."""
    with pytest.raises(DatasetError, match="cannot read the dataset"):
        load_dataset(tmp_path / "nope.jsonl")
    with pytest.raises(DatasetError, match=r"empty.jsonl: no cases"):
        (tmp_path / "empty.jsonl").write_text("\n# nothing\n")
        load_dataset(tmp_path / "empty.jsonl")


def test_python_datasets_check_their_cases() -> None:
    """A `Dataset` refuses two cases of one name and anything that is not a `Case`; a `Case` an unknown match."""
    with pytest.raises(ValueError, match="Dataset: two cases are named 'a'"):
        Dataset(cases=[Case(name="a", input="x"), Case(name="a", input="y")])
    with pytest.raises(TypeError, match=r"Dataset: cases\[0\] must be a Case, got str"):
        Dataset(cases=["a"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="Case 'a': calls_match must be one of in_order, any_order, subset"):
        Case(name="a", input="x", calls_match="sorted")  # type: ignore[arg-type]


def test_a_case_s_metadata_is_a_frozen_copy() -> None:
    """Changing the dict a case was built from does not change the case."""
    metadata: dict[str, object] = {"topic": "budgets"}
    case = Case(name="a", input="x", metadata=metadata)  # type: ignore[arg-type]
    metadata["topic"] = "changed"
    assert case.metadata["topic"] == "budgets"
