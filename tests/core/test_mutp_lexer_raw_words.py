"""A word's ``raw`` is its text as written, without the operator that ends it (lexer `Word` docstring).

The parser reads keywords and assignments from the raw text, so a keyword directly followed by an operator
(``fi;``, ``done;``) is still a keyword, not a program.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import command_programs
from helikon_fc.core.permissions.coding.lexer import Operator, Word, tokenize


@pytest.mark.parametrize("operator", ["&&", "||", ";;", "|&", ";", "|", "&", ">", ">>", "&>", ">&", "<", ")", "("])
def test_a_word_ended_by_an_operator_does_not_carry_it(operator: str) -> None:
    assert tokenize(f"a{operator}b") == (Word("a", "a"), Operator(operator), Word("b", "b"))


def test_a_quoted_word_ended_by_an_operator_keeps_its_quotes_only() -> None:
    assert tokenize("'a b';c") == (Word("a b", "'a b'"), Operator(";"), Word("c", "c"))


def test_a_file_descriptor_prefix_is_part_of_the_operator() -> None:
    assert tokenize("echo 2>f") == (Word("echo", "echo"), Operator("2>"), Word("f", "f"))
    assert tokenize("echo a2>f") == (Word("echo", "echo"), Word("a2", "a2"), Operator(">"), Word("f", "f"))


@pytest.mark.parametrize(
    ("line", "programs"),
    [
        ("if git diff; then git status; fi; git log", ("git", "git", "git")),
        ("while git fetch; do git pull; done;git log", ("git", "git", "git")),
        ("{ git status;}|git log", ("git", "git")),
    ],
)
def test_a_keyword_right_before_an_operator_is_still_skipped(line: str, programs: tuple[str, ...]) -> None:
    assert command_programs(line) == programs
