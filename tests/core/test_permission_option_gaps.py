"""The last option-table and glob gaps the permission mutation run pointed at (issue 15), each a way past a rule.

- sudo's ``-a type`` (``--auth-type``) and ``-c class`` (``--login-class``) take an argument: read as no-argument
  flags, their argument was taken for the program and the real command escaped a deny rule.
- sudo's ``-h`` takes its host only attached (``-hHOST``; ``-h`` alone is help): reading the next word as the host
  hid the command after it.
- procps watch's ``-q``/``--equexit CYCLES`` takes an argument: the cycle count was read as the program.
- In a glob's ``[!]a]`` the ``]`` right after the ``!`` is a member of the class, as it is right after ``[``.
"""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import ToolCall
from helikon_fc.core.permissions import BashRule, Deny, PermissionConfig, ToolEffect, ToolInfo, command_programs, decide
from helikon_fc.core.permissions.paths import glob_matches

BASH = ToolInfo("Bash", ToolEffect.SIDE_EFFECT)


@pytest.mark.parametrize(
    "line",
    [
        "sudo -a pam rm -rf /",
        "sudo -apam rm -rf /",
        "sudo --auth-type pam rm -rf /",
        "sudo -c staff rm -rf /",
        "sudo --login-class staff rm -rf /",
        "sudo -h rm -rf /",
        "sudo -hbuildhost rm -rf /",
        "sudo --host buildhost rm -rf /",
        "watch -q 3 rm -rf build",
        "watch --equexit 3 rm -rf build",
        "watch --equexit=3 rm -rf build",
    ],
)
def test_the_wrapped_command_is_found_past_the_option(line: str) -> None:
    assert command_programs(line) == ("rm",)
    call = ToolCall("c1", "Bash", json.dumps({"command": line}))
    assert isinstance(decide(PermissionConfig(deny=(BashRule("rm"),)), call, BASH), Deny)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("a/[!]x]", "a/y", True),
        ("a/[!]x]", "a/]", False),
        ("a/[!]x]", "a/x", False),
        ("a/[^]x]", "a/]", False),
        ("a/[!]]", "a/]", False),
        ("a/[!]]", "a/b", True),
        ("a/[!]", "a/[!]", True),  # no member before the closing bracket: not a class, a literal
    ],
)
def test_a_bracket_first_in_a_negated_class_is_a_member(pattern: str, path: str, expected: bool) -> None:
    assert glob_matches(pattern, path) is expected


@pytest.mark.parametrize(
    "line",
    ["sudo --login rm -rf /", "sudo --login-c staff rm -rf /", "xargs -e rm -rf x", "xargs -eEND rm -rf x"],
)
def test_long_names_and_attached_only_letters_resolve_as_getopt_does(line: str) -> None:
    # `--login` is sudo's -i, not an abbreviation of --login-class; xargs' -e takes its end marker only attached.
    assert command_programs(line) == ("rm",)
