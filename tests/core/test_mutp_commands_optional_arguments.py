"""Wrapper options whose argument is optional never take the next word: the wrapped command is still seen.

GNU xargs' ``-e``/``--eof[=E]`` and ``--max-lines[=N]``, procps watch's ``-d``/``--differences[=permanent]`` and
sudo's ``-h[HOST]`` take an argument only when it is attached. Reading the next word as their argument would hide
the command they run from deny rules and guards (``xargs --eof rm -rf /`` runs ``rm``).
"""

from __future__ import annotations

import json

import pytest

from helikon_fc.core import ToolCall
from helikon_fc.core.permissions import (
    BashRule,
    Deny,
    PermissionConfig,
    ToolEffect,
    ToolInfo,
    command_programs,
    decide,
)

BASH = ToolInfo("Bash", ToolEffect.SIDE_EFFECT)


@pytest.mark.parametrize(
    "line",
    [
        "xargs --eof rm -rf build",
        "xargs --max-lines rm -rf build",
        "watch -d rm -rf build",
        "watch --differences rm -rf build",
        "sudo -h rm -rf build",
        "xargs -e rm -rf build",
    ],
)
def test_an_option_with_an_optional_argument_does_not_hide_the_wrapped_command(line: str) -> None:
    assert command_programs(line) == ("rm",)
    call = ToolCall("c1", "Bash", json.dumps({"command": line}))
    assert isinstance(decide(PermissionConfig(deny=(BashRule("rm"),)), call, BASH), Deny)


@pytest.mark.parametrize(
    "line",
    [
        "xargs --eof=END rm x",
        "xargs -eEND rm x",
        "xargs --max-lines=2 rm x",
        "watch --differences=permanent rm x",
        "sudo -hbuild rm x",
    ],
)
def test_an_attached_optional_argument_is_the_options_own(line: str) -> None:
    assert command_programs(line) == ("rm",)


def test_the_required_arguments_of_xargs_and_watch_still_take_the_next_word() -> None:
    assert command_programs("xargs -E END -L 2 --max-args 3 rm x") == ("rm",)
    assert command_programs("watch -n 5 --interval 2 rm x") == ("rm",)
