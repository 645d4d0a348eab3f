"""Shell command lines taken apart into the programs they run, for the permission rules.

`parse_command` splits a line on ``&& || ; | |& &``, newlines and parentheses (quote-aware; ``>&``,
``&>`` and ``2>&1`` are redirections, not separators), separates redirections from words, strips
leading ``NAME=value`` assignments and the wrappers ``env sudo doas timeout nice nohup stdbuf
command builtin exec time xargs ionice setsid watch`` with their options (each wrapper's options
that take an argument are known), and looks inside what else runs code: ``bash/sh/zsh/dash/ksh -c
PAYLOAD`` (the shell itself is kept as a command too), ``eval``, ``env -S``, ``find -exec ... ;``
and command substitutions (``$(...)``, backticks, ``<(...)``), up to `MAX_DEPTH` levels deep.
Shell keywords (``if then do ! {`` ...) are skipped; a ``for``/``case`` header runs nothing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

import attrs

from .lexer import CONTROL_OPERATORS, Operator, Token, Word, tokenize

__all__ = ["MAX_DEPTH", "Redirect", "SimpleCommand", "command_programs", "parse_command", "program_name"]

MAX_DEPTH = 3
"""How many levels of ``sh -c`` payloads and substitutions are followed."""

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_DURATION = re.compile(r"\d+(?:\.\d+)?[smhd]?")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
_SKIPPED_KEYWORDS = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})
_HEADER_KEYWORDS = frozenset({"for", "case", "esac", "select", "function", "in"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


@attrs.frozen
class Redirect:
    """A redirection: its operator as written (``>``, ``2>>``, ``&>``, ``<``, ``2>&``) and its target word."""

    operator: str
    target: str

    @property
    def writes_file(self) -> bool:
        """Whether it writes to a file named by `target` (not an input, a here document or an fd duplication)."""
        operator = self.operator.lstrip("0123456789")
        if operator.endswith("&") and (self.target.isdigit() or self.target == "-"):
            return False
        return ">" in operator


@attrs.frozen
class SimpleCommand:
    """One command a line runs.

    Attributes:
        program: The program as written, quotes removed (``/bin/rm`` stays a path; see `program_name`).
        args: Its arguments, quotes removed.
        redirects: Its redirections.
        wrappers: The wrappers stripped in front of it (``("sudo", "timeout")``).
        depth: 0 on the line itself, 1 inside one ``sh -c`` payload or substitution, and so on.
        unread: A payload nested deeper than `MAX_DEPTH`, not taken apart: `program` holds its whole
            text. Deny rules treat it as matching, allow rules never match it, and a guard asks.
    """

    program: str
    args: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    wrappers: tuple[str, ...] = ()
    depth: int = 0
    unread: bool = False


def program_name(program: str) -> str:
    """The last path component of `program`: ``/usr/bin/git`` is ``git``."""
    return program.rstrip("/").rpartition("/")[2] or program


def parse_command(line: str) -> tuple[SimpleCommand, ...]:
    """Every command `line` runs, in order, nested payloads right after the command that runs them.

    >>> [c.program for c in parse_command("sudo -u deploy FOO=1 timeout 5 git push && bash -c 'rm -rf build'")]
    ['git', 'bash', 'rm']
    """
    return tuple(_parse(line, 0))


def command_programs(line: str) -> tuple[str, ...]:
    """The programs of `parse_command(line)`, in order (a payload too deep to read is left out)."""
    return tuple(command.program for command in parse_command(line) if not command.unread)


# Wrappers and their options.


@attrs.frozen
class _Wrapper:
    """The option syntax of a wrapper command, enough to find the command it wraps."""

    short_with_argument: str = ""
    long_with_argument: frozenset[str] = frozenset()
    short_attached_only: str = ""
    """Letters whose argument is optional: only the rest of their cluster (``-hHOST``), never the next word."""
    long_flags: frozenset[str] = frozenset()
    """The other long options (none takes the next word), so that abbreviations resolve as getopt_long resolves them."""
    durations: int = 0
    assignments: bool = False
    lone_dash: bool = False


_WRAPPERS: dict[str, _Wrapper] = {
    "env": _Wrapper("uCS", frozenset({"unset", "chdir", "split-string"}), assignments=True, lone_dash=True),
    "sudo": _Wrapper(
        "ugCDprtUTRac",
        frozenset(
            {"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user", "chroot"}
            | {"command-timeout", "auth-type", "login-class"}
        ),
        assignments=True,
        short_attached_only="h",  # -h alone is help; -hHOST names a host
        long_flags=frozenset(
            {"askpass", "background", "bell", "preserve-env", "edit", "set-home", "help", "login", "list"}
            | {"remove-timestamp", "reset-timestamp", "non-interactive", "preserve-groups", "stdin", "shell"}
            | {"version", "validate"}
        ),
    ),
    "doas": _Wrapper("uC"),
    "timeout": _Wrapper("sk", frozenset({"signal", "kill-after"}), durations=1),
    "nice": _Wrapper("n", frozenset({"adjustment"})),  # -10 is a cluster of letters no argument follows
    "nohup": _Wrapper(),
    "stdbuf": _Wrapper("ioe", frozenset({"input", "output", "error"})),
    "command": _Wrapper(),
    "builtin": _Wrapper(),
    "exec": _Wrapper("a"),
    "time": _Wrapper("fo", frozenset({"format", "output"})),
    # xargs' --eof[=E] and --max-lines[=N], and watch's -d/--differences[=permanent], take an attached argument only.
    "xargs": _Wrapper(
        "IndPLEsa",
        frozenset({"max-args", "max-procs", "delimiter", "arg-file", "max-chars"}) | {"process-slot-var"},
        short_attached_only="eli",
        long_flags=frozenset({"null", "interactive", "no-run-if-empty", "open-tty", "show-limits", "verbose", "exit"})
        | {"eof", "max-lines", "replace"},
    ),
    "ionice": _Wrapper("cnp", frozenset({"class", "classdata", "pid"})),
    "setsid": _Wrapper(),
    "watch": _Wrapper(
        "nq",
        frozenset({"interval", "equexit"}),
        short_attached_only="d",
        long_flags=frozenset({"beep", "color", "no-color", "differences", "errexit", "chgexit", "precise", "exec"})
        | {"no-rerun", "no-title", "no-wrap", "no-linewrap", "help", "version"},
    ),
}


def _skip_wrapper(spec: _Wrapper, words: Sequence[str], index: int) -> tuple[int, str | None]:
    """Skip a wrapper's options from `index`; the index of what it wraps and an ``env -S`` payload."""
    payload: str | None = None
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word == "-" and spec.lone_dash:
            index += 1
            continue
        if word.startswith("--"):  # not "--" itself, which ends the options above
            name, equals, value = word[2:].partition("=")
            name = _long_name(spec, name)
            takes = name in spec.long_with_argument and not equals
            if name == "split-string":
                payload = value if equals else _at(words, index + 1)
            index += 2 if takes else 1
            continue
        if word.startswith("-") and len(word) > 1:
            step, found = _short_options(spec, words, index)
            payload = found if found is not None else payload
            index += step
            continue
        break
    for _ in range(spec.durations):
        if index < len(words) and _DURATION.fullmatch(words[index]):
            index += 1
    if spec.assignments:
        while index < len(words) and _ASSIGNMENT.match(words[index]):
            index += 1
    return index, payload


def _long_name(spec: _Wrapper, name: str) -> str:
    """The long option `name` stands for: getopt_long takes an unambiguous prefix (``--uns`` is ``--unset``),
    and an exact name before any longer one it is a prefix of (sudo's ``--login`` is not ``--login-class``)."""
    known = spec.long_with_argument | spec.long_flags
    if name in known:
        return name
    matches = [option for option in known if option.startswith(name)]
    return matches[0] if len(matches) == 1 else name


def _short_options(spec: _Wrapper, words: Sequence[str], index: int) -> tuple[int, str | None]:
    """How many words a cluster of short options (``-u root``, ``-uroot``, ``-oL``) takes, and an ``-S`` payload."""
    cluster = words[index][1:]
    for position, letter in enumerate(cluster):
        if letter in spec.short_attached_only:
            return 1, None  # the rest of the cluster, if any, is its argument
        if letter in spec.short_with_argument:
            attached = cluster[position + 1 :]
            argument = attached or _at(words, index + 1)
            return (1 if attached else 2), (argument if letter == "S" else None)
    return 1, None


def _at(words: Sequence[str], index: int) -> str | None:
    return words[index] if index < len(words) else None


# Parsing.


def _parse(line: str, depth: int) -> list[SimpleCommand]:
    if depth > MAX_DEPTH:
        text = line.strip()
        return [SimpleCommand(text, depth=depth, unread=True)] if text else []
    commands: list[SimpleCommand] = []
    segment: list[Token] = []
    for token in (*tokenize(line), Operator("\n")):
        if isinstance(token, Operator) and token.text in CONTROL_OPERATORS:
            commands.extend(_segment(segment, depth))
            segment = []
        else:
            segment.append(token)
    return commands


def _segment(tokens: Sequence[Token], depth: int) -> list[SimpleCommand]:
    """The commands of one simple command's tokens: the command itself, then what runs inside it."""
    words: list[Word] = []
    redirects: list[Redirect] = []
    substitutions: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if isinstance(token, Operator):
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if isinstance(following, Word):
                redirects.append(Redirect(token.text, following.value))
                substitutions.extend(following.substitutions)
                index += 1
        else:
            words.append(token)
            substitutions.extend(token.substitutions)
        index += 1
    commands = _simple([w.value for w in words], [w.raw for w in words], tuple(redirects), depth)
    for text in substitutions:
        commands.extend(_parse(text, depth + 1))
    return commands


def _simple(
    values: Sequence[str], raws: Sequence[str], redirects: tuple[Redirect, ...], depth: int
) -> list[SimpleCommand]:
    """A word list as commands: keywords, assignments and wrappers stripped, payloads followed."""
    index = 0
    while index < len(raws) and raws[index] in _SKIPPED_KEYWORDS:
        index += 1
    if index < len(raws) and raws[index] in _HEADER_KEYWORDS:
        return []
    while index < len(raws) and _ASSIGNMENT.match(raws[index]):
        index += 1
    wrappers: list[str] = []
    payloads: list[str] = []
    while index < len(values):
        spec = _WRAPPERS.get(program_name(values[index]))
        if spec is None:
            break
        after, payload = _skip_wrapper(spec, values, index + 1)
        if payload is not None:
            payloads.append(" ".join([payload, *(shlex.quote(word) for word in values[after:])]))
            index = len(values)
            break
        if after >= len(values):
            break
        wrappers.append(program_name(values[index]))
        index = after
    if index >= len(values):
        return _nested(payloads, depth)
    program, args = values[index], tuple(values[index + 1 :])
    commands = [SimpleCommand(program, args, redirects, tuple(wrappers), depth)]
    commands.extend(_inside(program, args, depth))
    return commands + _nested(payloads, depth)


def _nested(payloads: Sequence[str], depth: int) -> list[SimpleCommand]:
    return [command for payload in payloads for command in _parse(payload, depth + 1)]


def _inside(program: str, args: tuple[str, ...], depth: int) -> list[SimpleCommand]:
    """The commands a program runs from its arguments: a shell's ``-c``, ``eval``, ``find -exec``."""
    name = program_name(program)
    if name in _SHELLS:
        payload = _shell_payload(args)
        return _parse(payload, depth + 1) if payload is not None else []
    if name == "eval" and args:
        return _parse(" ".join(args), depth + 1)
    if name == "find":
        return _find_exec(args, depth)
    return []


def _shell_payload(args: Sequence[str]) -> str | None:
    """The command string of ``bash -c STRING`` (also ``-lc``, ``-e -c``, ``-o pipefail -c``), if any."""
    index = 0
    wants_payload = False
    while index < len(args):
        arg = args[index]
        if arg == "--":
            index += 1
            break
        if len(arg) < 2 or arg[0] not in "-+":
            break
        if arg.startswith("--"):
            index += 2 if arg in ("--rcfile", "--init-file") else 1
            continue
        cluster = arg[1:]
        wants_payload = wants_payload or (arg[0] == "-" and "c" in cluster)
        index += 2 if ("o" in cluster or "O" in cluster) else 1
    return args[index] if wants_payload and index < len(args) else None


def _find_exec(args: tuple[str, ...], depth: int) -> list[SimpleCommand]:
    """The commands of ``find ... -exec CMD ARGS ;`` (or ``+``)."""
    commands: list[SimpleCommand] = []
    index = 0
    while index < len(args):
        if args[index] in _FIND_EXEC:
            end = index + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            group = args[index + 1 : end]
            if depth + 1 > MAX_DEPTH:
                commands.append(SimpleCommand(shlex.join(group), depth=depth + 1, unread=True))
            else:
                commands.extend(_simple(group, group, (), depth + 1))
            index = end
        index += 1
    return commands
