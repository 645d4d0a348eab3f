"""``${...}`` and ``$((...))`` end where their closing brace or parentheses end (lexer docstring; guards).

Beyond its closing ``}``/``))`` an expansion takes nothing: a separator right after it still separates, so
``echo ${x};rm -rf /`` runs ``rm`` (and the rm-root guard asks), and a space still ends the word.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import command_guard_hits, command_programs, parse_command
from helikon_fc.core.permissions.coding.lexer import Operator, Word, tokenize


@pytest.mark.parametrize("expansion", ["${x}", "${x:-${y}}", "${x:-'}'}", "$((1))", "$(( (1+2) * 3 ))"])
@pytest.mark.parametrize("separator", [";", "&", "|", "\n", "&&", " ; "])
def test_a_separator_right_after_an_expansion_still_separates(expansion: str, separator: str) -> None:
    line = f"echo {expansion}{separator}rm -rf /"
    assert command_programs(line) == ("echo", "rm")
    assert [hit.name for hit in command_guard_hits(parse_command(line))] == ["rm-root"]


@pytest.mark.parametrize("expansion", ["${x}", "$((1+2))"])
def test_an_expansion_is_one_word_ended_by_a_space(expansion: str) -> None:
    assert tokenize(f"echo {expansion} z") == (
        Word("echo", "echo"),
        Word(expansion, expansion),
        Word("z", "z"),
    )


def test_an_expansion_continues_the_word_it_is_part_of() -> None:
    assert tokenize("a${x}b$((1))c") == (Word("a${x}b$((1))c", "a${x}b$((1))c"),)


def test_an_unclosed_expansion_runs_to_the_end() -> None:
    assert tokenize("echo ${x") == (Word("echo", "echo"), Word("${x", "${x"))
    assert tokenize("echo $((1") == (Word("echo", "echo"), Word("$((1", "$((1"))


def test_an_expansion_before_a_redirect_keeps_the_redirect() -> None:
    assert tokenize("echo ${x}>/etc/passwd") == (
        Word("echo", "echo"),
        Word("${x}", "${x}"),
        Operator(">"),
        Word("/etc/passwd", "/etc/passwd"),
    )
