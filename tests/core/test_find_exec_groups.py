"""`find`'s actions run a command: how `parse_command` reads their groups (survivors of the whole-core mutant run).

An action (``-exec``, ``-execdir``, ``-ok``, ``-okdir``) takes every word up to ``;`` or ``+`` as one command; an
``-exec`` inside that group is an argument of the command, not an action of `find`; an empty group runs nothing;
and a group read at the deepest level (`MAX_DEPTH`) is read, one level deeper is kept whole as unread.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import parse_command
from helikon_fc.core.permissions.coding.commands import MAX_DEPTH


def _shape(line: str) -> list[tuple[str, int, bool]]:
    return [(command.program, command.depth, command.unread) for command in parse_command(line)]


@pytest.mark.parametrize(
    ("line", "programs"),
    [
        ("find . -exec rm a b \\; -name x", ["find", "rm"]),  # an odd number of words before the `;`
        ("find . -exec rm a \\; -name x", ["find", "rm"]),  # an even number
        ("find . -exec rm a \\; -exec ls \\;", ["find", "rm", "ls"]),
        ("find . -exec rm a b \\; -exec ls \\;", ["find", "rm", "ls"]),  # the first `;` ends the first group
        ("find . -exec \\; -name x", ["find"]),  # an empty group runs nothing
        ("find . -exec echo -exec rm {} \\;", ["find", "echo"]),  # `-exec rm {}` are echo's arguments
    ],
)
def test_each_action_is_one_command_up_to_its_terminator(line: str, programs: list[str]) -> None:
    assert [program for program, _depth, _unread in _shape(line)] == programs


def test_a_group_at_the_deepest_level_is_read_and_one_deeper_is_not() -> None:
    assert MAX_DEPTH == 3
    two_shells = "bash -c \"bash -c 'find . -exec rm {} +'\""
    assert _shape(two_shells)[-1] == ("rm", 3, False)
    three_shells = 'bash -c "bash -c \'bash -c \\"find . -exec rm {} +\\"\'"'
    assert _shape(three_shells)[-2:] == [("find", 3, False), ("rm '{}'", 4, True)]
