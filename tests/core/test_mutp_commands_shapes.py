"""The programs a command line runs, shape by shape (original-notes section 6, "Command parsing").

Each case names what `parse_command` finds: wrappers and their option arities stripped, assignments skipped,
keywords skipped, headers running nothing, and the payloads of shells, ``eval``, ``env -S``, ``find -exec``
and substitutions followed up to `MAX_DEPTH` levels.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions import Redirect, SimpleCommand, command_programs, parse_command, program_name
from helikon_fc.core.permissions.coding.commands import MAX_DEPTH


def _shape(line: str) -> list[tuple[str, tuple[str, ...], tuple[str, ...], int]]:
    return [(c.program, c.args, c.wrappers, c.depth) for c in parse_command(line)]


# Wrappers: which options take an argument.


@pytest.mark.parametrize(
    ("line", "wrappers"),
    [
        ("env -u HOME -C /tmp FOO=1 git status", ("env",)),
        ("env -uHOME git status", ("env",)),
        ("env - git status", ("env",)),
        ("env --unset=HOME git status", ("env",)),
        ("env --unset HOME git status", ("env",)),
        ("env --chdir /tmp git status", ("env",)),
        ("env -- git status", ("env",)),
        ("sudo -u root -- git status", ("sudo",)),
        ("sudo -uroot git status", ("sudo",)),
        ("sudo -E FOO=1 BAR+=2 git status", ("sudo",)),
        ("sudo --user root git status", ("sudo",)),
        ("sudo --user=root git status", ("sudo",)),
        ("sudo -g wheel -D /srv -hhost --host h2 -p pw -T 5 -R /c git status", ("sudo",)),
        ("sudo -a pam -apam --auth-type pam git status", ("sudo",)),
        ("sudo -c staff --login-class staff --login-c staff git status", ("sudo",)),
        ("sudo --login git status", ("sudo",)),  # -i exactly, not an abbreviation of --login-class
        ("doas -u root git status", ("doas",)),
        ("timeout 5 git status", ("timeout",)),
        ("timeout -s KILL 5s git status", ("timeout",)),
        ("timeout --signal=KILL 1.5m git status", ("timeout",)),
        ("timeout -k 1 5 git status", ("timeout",)),
        ("timeout --kill-after 1 5 git status", ("timeout",)),
        ("nice -n 10 git status", ("nice",)),
        ("nice -n10 git status", ("nice",)),
        ("nice -10 git status", ("nice",)),
        ("nice --adjustment 5 git status", ("nice",)),
        ("nohup git status", ("nohup",)),
        ("stdbuf -oL -e 0 git status", ("stdbuf",)),
        ("stdbuf --output L git status", ("stdbuf",)),
        ("command git status", ("command",)),
        ("builtin git status", ("builtin",)),
        ("exec -a name git status", ("exec",)),
        ("time -p git status", ("time",)),
        ("time -f fmt git status", ("time",)),
        ("time --format fmt git status", ("time",)),
        ("xargs -0 -n 1 -I{} git status", ("xargs",)),
        ("xargs --max-args 1 git status", ("xargs",)),
        ("ionice -c 3 git status", ("ionice",)),
        ("setsid -w git status", ("setsid",)),
        ("watch -n 1 git status", ("watch",)),
        ("watch -q 3 --equexit 3 --equexit=3 git status", ("watch",)),
        ("/usr/bin/sudo git status", ("sudo",)),
        ("sudo timeout 5 nice -n 1 git status", ("sudo", "timeout", "nice")),
    ],
)
def test_wrappers_and_their_options_are_stripped(line: str, wrappers: tuple[str, ...]) -> None:
    """Options that take an argument take the next word (or the attached rest); others take nothing."""
    assert _shape(line) == [("git", ("status",), wrappers, 0)]


@pytest.mark.parametrize(
    "line",
    ["sudo", "sudo -u root", "timeout", "timeout -s KILL", "timeout 5", "nice -n", "env -S", "env --split-string"],
)
def test_a_wrapper_with_nothing_to_wrap_is_the_program_itself(line: str) -> None:
    words = line.split()
    assert _shape(line) == [(words[0], tuple(words[1:]), (), 0)]


def test_timeout_takes_one_duration_and_then_the_command() -> None:
    """Only the first duration-looking word is timeout's; the next one is the program."""
    assert _shape("timeout 5 100 x") == [("100", ("x",), ("timeout",), 0)]


def test_only_timeout_takes_a_duration() -> None:
    assert _shape("nohup 5s x") == [("5s", ("x",), ("nohup",), 0)]
    assert _shape("timeout git status") == [("git", ("status",), ("timeout",), 0)]


def test_a_double_dash_ends_a_wrappers_options_only_once() -> None:
    assert _shape("env -- -S x") == [("-S", ("x",), ("env",), 0)]
    assert _shape("nohup -- -- x") == [("--", ("x",), ("nohup",), 0)]


def test_only_env_reads_a_lone_dash_as_an_option() -> None:
    assert _shape("nice - x") == [("-", ("x",), ("nice",), 0)]
    assert _shape("env - - x") == [("x", (), ("env",), 0)]


def test_assignments_after_a_wrapper_are_skipped_only_for_env_and_sudo() -> None:
    assert _shape("env A=1 B=2 git") == [("git", (), ("env",), 0)]
    assert _shape("sudo A=1 git") == [("git", (), ("sudo",), 0)]
    assert _shape("nohup A=1 git") == [("A=1", ("git",), ("nohup",), 0)]
    assert _shape("timeout 5 A=1 git") == [("A=1", ("git",), ("timeout",), 0)]


@pytest.mark.parametrize(
    "line",
    ["env -S 'rm -rf' x 'y z'", "env --split-string='rm -rf' x 'y z'", "env --split-string 'rm -rf' x 'y z'"],
)
def test_an_env_split_string_payload_is_read_with_the_words_after_it(line: str) -> None:
    """``env -S`` splits its string into a command, to which the words after it are appended (quoted)."""
    assert _shape(line) == [("rm", ("-rf", "x", "y z"), (), 1)]


def test_an_attached_env_split_string_in_an_option_cluster_is_read() -> None:
    assert _shape("env -iS'rm x'") == [("rm", ("x",), (), 1)]
    assert _shape("env -i -S 'rm x' y") == [("rm", ("x", "y"), (), 1)]


def test_only_the_S_option_of_env_carries_a_payload() -> None:
    assert _shape("env -u 'rm x' git") == [("git", (), ("env",), 0)]
    assert _shape("env --unset='rm x' git") == [("git", (), ("env",), 0)]


# Assignments, keywords and headers.


def test_leading_assignments_are_skipped_but_their_substitutions_are_read() -> None:
    assert _shape("FOO=1 BAR+=2 git push") == [("git", ("push",), (), 0)]
    assert _shape("FOO=1") == []
    assert _shape("FOO=$(rm x) ls") == [("ls", (), (), 0), ("rm", ("x",), (), 1)]
    assert _shape("FOO=$(rm x)") == [("rm", ("x",), (), 1)]


def test_a_quoted_assignment_or_keyword_is_a_program() -> None:
    assert _shape('"FOO=1" git') == [("FOO=1", ("git",), (), 0)]
    assert _shape('"if" ls') == [("if", ("ls",), (), 0)]


@pytest.mark.parametrize(
    ("line", "programs"),
    [
        ("if git push; then ls; else rm x; fi", ("git", "ls", "rm")),
        ("! git push", ("git",)),
        ("{ git push; }", ("git",)),
        ("while true; do ls; done", ("true", "ls")),
        ("until false; do ls; done", ("false", "ls")),
        ("elif rm x; then ls; fi", ("rm", "ls")),
        ("for x in a b; do rm $x; done", ("rm",)),
        ("select x in a; do ls; done", ("ls",)),
        ("case x in a) ls;; esac", ("ls",)),
        ("function f { ls; }", ()),
        ("in x", ()),
    ],
)
def test_keywords_are_skipped_and_headers_run_nothing(line: str, programs: tuple[str, ...]) -> None:
    assert command_programs(line) == programs


# Separators and substitutions.


def test_every_control_operator_separates_commands() -> None:
    assert command_programs("a | b |& c || d & e && f; g\nh") == tuple("abcdefgh")
    assert command_programs("(cd x && rm y)") == ("cd", "rm")


def test_substitutions_are_read_after_their_command() -> None:
    assert _shape("echo `rm x` $(ls) <(cat y)") == [
        ("echo", ("`rm x`", "$(ls)", "<(cat y)"), (), 0),
        ("rm", ("x",), (), 1),
        ("ls", (), (), 1),
        ("cat", ("y",), (), 1),
    ]


def test_a_substitution_in_a_redirect_target_is_read() -> None:
    assert _shape("echo > $(rm x)") == [("echo", (), (), 0), ("rm", ("x",), (), 1)]


def test_redirects_are_kept_with_their_operator_and_target() -> None:
    (command,) = parse_command("sort < in 2>> log > out")
    assert command == SimpleCommand("sort", (), (Redirect("<", "in"), Redirect("2>>", "log"), Redirect(">", "out")))


def test_a_redirect_without_target_is_dropped() -> None:
    assert parse_command("echo x 2>") == (SimpleCommand("echo", ("x",)),)


# Shells, eval and find -exec.


@pytest.mark.parametrize("shell", ["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "/bin/sh", "'bash'"])
def test_every_shell_runs_its_c_payload_and_is_kept_itself(shell: str) -> None:
    assert [c.program for c in parse_command(f"{shell} -c 'rm x'")] == [shell.strip("'"), "rm"]


@pytest.mark.parametrize(
    "options",
    ["-c", "-lc", "-ce", "-e -c", "-o pipefail -c", "-O extglob -c", "--norc -c", "--rcfile f -c", "--init-file f -c"],
)
def test_a_shells_options_before_the_payload_are_skipped(options: str) -> None:
    assert command_programs(f"bash {options} 'rm x' arg0") == ("bash", "rm")


@pytest.mark.parametrize(
    "line", ["bash -x script.sh", "bash -c", "bash -- -c 'rm x'", "bash +c 'rm x'", "bash - -c x", "fish -c 'rm x'"]
)
def test_a_shell_without_a_c_payload_runs_only_itself(line: str) -> None:
    assert len(parse_command(line)) == 1


def test_after_double_dash_the_next_argument_is_the_payload_even_if_it_looks_like_an_option() -> None:
    assert command_programs("bash -c -- 'rm x'") == ("bash", "rm")
    assert command_programs("bash -c -- '-x; rm y'") == ("bash", "-x", "rm")


def test_plus_options_are_skipped_before_the_payload() -> None:
    assert command_programs("bash +x -c 'rm x'") == ("bash", "rm")


def test_eval_runs_its_arguments_joined() -> None:
    assert _shape("eval 'rm x; ls'") == [("eval", ("rm x; ls",), (), 0), ("rm", ("x",), (), 1), ("ls", (), (), 1)]
    assert _shape("eval rm x") == [("eval", ("rm", "x"), (), 0), ("rm", ("x",), (), 1)]
    assert _shape("eval") == [("eval", (), (), 0)]


@pytest.mark.parametrize("action", ["-exec", "-execdir", "-ok", "-okdir"])
def test_find_runs_the_command_of_each_exec_action(action: str) -> None:
    assert _shape(f"find . {action} rm {{}} \\; -print") == [
        ("find", (".", action, "rm", "{}", ";", "-print"), (), 0),
        ("rm", ("{}",), (), 1),
    ]


def test_find_runs_several_exec_actions_ended_by_semicolon_or_plus() -> None:
    assert command_programs("find . -exec rm {} + -execdir ls ;") == ("find", "rm", "ls")
    assert command_programs("find . -exec ;") == ("find",)
    assert command_programs("find -name x") == ("find",)
    assert command_programs("find -exec rm {} \\;") == ("find", "rm")
    assert command_programs("sudo find . -exec rm {} +") == ("find", "rm")


# Depth.


def test_substitutions_are_followed_to_max_depth_and_the_rest_is_unread() -> None:
    assert MAX_DEPTH == 3
    line = "echo $(echo $(echo $(echo $(rm x))))"
    commands = parse_command(line)
    assert [(c.depth, c.unread) for c in commands] == [(0, False), (1, False), (2, False), (3, False), (4, True)]
    assert commands[-1] == SimpleCommand("rm x", depth=4, unread=True)
    assert command_programs(line) == ("echo",) * 4
    assert command_programs("echo $(echo $(echo $(rm x)))")[-1] == "rm"


def test_an_empty_payload_beyond_max_depth_is_nothing() -> None:
    assert len(parse_command("echo $(echo $(echo $(echo $(  ))))")) == 4


def test_nested_shell_payloads_count_depth() -> None:
    line = """sh -c "sh -c 'sh -c \\"sh -c ls\\"'" """
    assert [(c.program, c.depth, c.unread) for c in parse_command(line)] == [
        ("sh", 0, False),
        ("sh", 1, False),
        ("sh", 2, False),
        ("sh", 3, False),
        ("ls", 4, True),
    ]


def test_find_exec_beyond_max_depth_is_unread_text() -> None:
    line = """sh -c "sh -c 'sh -c \\"find . -exec rm {} +\\"'" """
    assert parse_command(line)[-1] == SimpleCommand("rm '{}'", depth=4, unread=True)


def test_an_eval_or_env_payload_counts_one_level() -> None:
    assert [c.depth for c in parse_command("eval 'eval \"eval ls\"'")] == [0, 1, 2, 3]
    assert parse_command("env -S 'env -S \"env -S ls\"'")[-1] == SimpleCommand("ls", depth=3)


# Redirects and program names.


@pytest.mark.parametrize(
    ("operator", "target", "writes"),
    [
        (">", "f", True),
        (">>", "f", True),
        ("2>", "f", True),
        ("&>", "f", True),
        (">|", "f", True),
        (">&", "f", True),
        ("<>", "f", True),
        ("<", "f", False),
        ("<<", "EOF", False),
        ("2>&", "1", False),
        (">&", "-", False),
        ("<&", "3", False),
        ("10>", "f", True),
    ],
)
def test_which_redirects_write_a_file(operator: str, target: str, writes: bool) -> None:
    assert Redirect(operator, target).writes_file is writes


@pytest.mark.parametrize(
    ("program", "name"), [("/usr/bin/git", "git"), ("git", "git"), ("bin/git/", "git"), ("/", "/"), ("./x", "x")]
)
def test_program_name_is_the_last_path_component(program: str, name: str) -> None:
    assert program_name(program) == name
