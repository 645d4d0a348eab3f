"""The schema-checker bench measures what it says: payloads that fit, through both forms of the schema."""

from __future__ import annotations

from bench import schema_check
from helikon_fc.core import validate
from helikon_fc.core.schema import compile_schema


def test_the_payloads_fit_their_schemas_and_the_flat_one_has_four_fields() -> None:
    """A bench of failing payloads would time the error path; the flat payload is the issue's 4-field object."""
    for schema, value in schema_check.PAYLOADS.values():
        assert validate(value, schema) == []
        assert validate(value, compile_schema(schema)) == []
    assert len(schema_check.FLAT_VALUE) == 4


def test_measure_reports_both_forms_for_each_payload() -> None:
    """Every payload gets a positive µs figure for the dict and the compiled form."""
    figures = schema_check.measure(number=5, repeat=1)
    assert set(figures) == {"flat", "nested"}
    assert all(set(row) == {"dict", "compiled"} and min(row.values()) > 0 for row in figures.values())
