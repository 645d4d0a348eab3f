"""The lexer's words and operators, shape by shape (`helikon_fc.core.permissions.coding.lexer`'s module docstring).

Quotes and backslashes are removed from a word's value (kept in its raw text), comments and here-document
bodies are skipped, substitutions are kept for the parser, and malformed input is read as far as it goes.
"""

from __future__ import annotations

import pytest

from helikon_fc.core.permissions.coding.lexer import CONTROL_OPERATORS, Operator, Token, Word, tokenize

NL = Operator("\n")


def _w(value: str, raw: str | None = None, *substitutions: str) -> Word:
    return Word(value, value if raw is None else raw, tuple(substitutions))


def _values(line: str) -> list[str]:
    return [token.value if isinstance(token, Word) else f"<{token.text}>" for token in tokenize(line)]


CASES: tuple[tuple[str, tuple[Token, ...]], ...] = (
    # Quotes and escapes.
    ("a 'b c' \"d e\" f\\ g", (_w("a"), _w("b c", "'b c'"), _w("d e", '"d e"'), _w("f g", "f\\ g"))),
    ('"a\\"b\\$c\\\\d\\e"', (_w('a"b$c\\d\\e', '"a\\"b\\$c\\\\d\\e"'),)),
    ('"a\\`b"', (_w("a`b", '"a\\`b"'),)),
    ('"a\\\nb"', (_w("ab", '"a\\\nb"'),)),
    ("a\\\nb", (_w("ab", "a\\\nb"),)),
    ("\"a\"'b'c", (_w("abc", "\"a\"'b'c"),)),
    ('""', (_w("", '""'),)),
    ("''", (_w("", "''"),)),
    ("'x\\'", (_w("x\\", "'x\\'"),)),
    ("a\\", (_w("a\\"),)),
    ("\\#x", (_w("#x", "\\#x"),)),
    # Blanks.
    ("a\tb\rc  d", (_w("a"), _w("b"), _w("c"), _w("d"))),
    # Comments.
    ("a#b", (_w("a#b"),)),
    ("a #b c\nd", (_w("a"), NL, _w("d"))),
    ("#c\nd", (NL, _w("d"))),
    ("'a'#b", (_w("a#b", "'a'#b"),)),
    ("a # c", (_w("a"),)),
    # Malformed input.
    ("'unclosed", (_w("unclosed", "'unclosed"),)),
    ('"unclosed', (_w("unclosed", '"unclosed'),)),
    ('"a\\', (_w("a\\", '"a\\'),)),
    ("`x", (_w("`x", "`x", "x"),)),
    ('"`x', (_w("`x", '"`x', "x"),)),
    ("$(x", (_w("$(x", "$(x", "x"),)),
    ("${x", (_w("${x"),)),
    # Substitutions.
    ("$(a $(b) c)", (_w("$(a $(b) c)", None, "a $(b) c"),)),
    ("`d` <(e) >(f)", (_w("`d`", None, "d"), _w("<(e)", None, "e"), _w(">(f)", None, "f"))),
    ('"x $(rm y) `ls`"', (_w("x $(rm y) `ls`", '"x $(rm y) `ls`"', "rm y", "ls"),)),
    ('"$((1+2))"', (_w("$((1+2))", '"$((1+2))"'),)),
    ('"$(echo ")")"', (_w('$(echo ")")', '"$(echo ")")"', 'echo ")"'),)),
    ("$(echo ')' ) z", (_w("$(echo ')' )", None, "echo ')' "), _w("z"))),
    ('$(echo "(" ) z', (_w('$(echo "(" )', None, 'echo "(" '), _w("z"))),
    ("$(a \\) b) z", (_w("$(a \\) b)", None, "a \\) b"), _w("z"))),
    ('"$(echo \\")" z', (_w('$(echo \\")', '"$(echo \\")"', 'echo \\"'), _w("z"))),
    ("a$(b)c", (_w("a$(b)c", None, "b"),)),
    ("$(echo '') z", (_w("$(echo '')", None, "echo ''"), _w("z"))),
    ("$(echo 'a') z", (_w("$(echo 'a')", None, "echo 'a'"), _w("z"))),
    ("$(echo 'x", (_w("$(echo 'x", None, "echo 'x"),)),
    ('$(echo "a\\"b") z', (_w('$(echo "a\\"b")', None, 'echo "a\\"b"'), _w("z"))),
    ('$(echo "$(a)") z', (_w('$(echo "$(a)")', None, 'echo "$(a)"'), _w("z"))),
    ('$(echo "x', (_w('$(echo "x', None, 'echo "x'),)),
    ("$(a) z", (_w("$(a)", None, "a"), _w("z"))),
    ("`a` z", (_w("`a`", None, "a"), _w("z"))),
    ('"`a` b" z', (_w("`a` b", '"`a` b"', "a"), _w("z"))),
    ('"$(a) b" z', (_w("$(a) b", '"$(a) b"', "a"), _w("z"))),
    ('"a\\x" z', (_w("a\\x", '"a\\x"'), _w("z"))),
    ("$(a)$(b)", (_w("$(a)$(b)", None, "a", "b"),)),
    # Operators and file descriptors.
    ("a>b 2>c &>d", (_w("a"), Operator(">"), _w("b"), Operator("2>"), _w("c"), Operator("&>"), _w("d"))),
    (">&e 2>&1 >>f", (Operator(">&"), _w("e"), Operator("2>&"), _w("1"), Operator(">>"), _w("f"))),
    ("&>>g <h <<<i", (Operator("&>>"), _w("g"), Operator("<"), _w("h"), Operator("<<<"), _w("i"))),
    ("<&3 <>j >|k", (Operator("<&"), _w("3"), Operator("<>"), _w("j"), Operator(">|"), _w("k"))),
    ("12>>f", (Operator("12>>"), _w("f"))),
    ("2&>b", (Operator("2&>"), _w("b"))),
    ("2;b", (_w("2"), Operator(";"), _w("b"))),
    ("2&b", (_w("2"), Operator("&"), _w("b"))),
    ("'2'>f", (_w("2", "'2'"), Operator(">"), _w("f"))),
    ("a2>&1", (_w("a2"), Operator(">&"), _w("1"))),
    ("(a) (b)", (Operator("("), _w("a"), Operator(")"), Operator("("), _w("b"), Operator(")"))),
)


@pytest.mark.parametrize(("line", "tokens"), CASES)
def test_tokens(line: str, tokens: tuple[Token, ...]) -> None:
    assert tokenize(line) == tokens


def test_every_control_operator_is_one_token() -> None:
    assert _values("a&&b||c;;d|&e;f|g&h") == [
        "a",
        "<&&>",
        "b",
        "<||>",
        "c",
        "<;;>",
        "d",
        "<|&>",
        "e",
        "<;>",
        "f",
        "<|>",
        "g",
        "<&>",
        "h",
    ]
    assert CONTROL_OPERATORS == {"&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"}


# Here documents.


@pytest.mark.parametrize(
    "line",
    [
        "cat <<EOF\nbody rm -rf /\nEOF\nls",
        "cat <<-EOF\n\tbody\n\tEOF\nls",
        "cat 2<<EOF\nb\nEOF\nls",
        "cat <<EOF\n EOF\n\tEOF\nEOF\nls",
        "cat <<'EOF'\n$(rm x)\nEOF\nls",
    ],
)
def test_a_here_document_body_is_skipped_up_to_its_delimiter_line(line: str) -> None:
    assert [t for t in tokenize(line) if isinstance(t, Word)][-1] == _w("ls")
    assert "body" not in _values(line) and "b" not in _values(line)
    assert all(not (isinstance(t, Word) and t.substitutions) for t in tokenize(line))


def test_several_here_documents_on_one_line_are_skipped_in_order() -> None:
    assert _values("cat <<A && cat <<B\nx\nA\ny\nB\nls") == [
        "cat",
        "<<<>",
        "A",
        "<&&>",
        "cat",
        "<<<>",
        "B",
        "<\n>",
        "ls",
    ]


def test_only_a_dash_here_document_strips_tabs_before_its_delimiter() -> None:
    assert _values("cat <<E\n\tE\nE\nls") == ["cat", "<<<>", "E", "<\n>", "ls"]
    assert _values("cat <<-E\n\tE\nls") == ["cat", "<<<->", "E", "<\n>", "ls"]
    assert _values("cat <<E\n\tE\nls") == ["cat", "<<<>", "E", "<\n>"]


def test_an_unended_here_document_takes_the_rest() -> None:
    assert _values("cat <<EOF\nno end\nls") == ["cat", "<<<>", "EOF", "<\n>"]


def test_a_here_string_has_no_body() -> None:
    assert _values("cat <<<x\nls") == ["cat", "<<<<>", "x", "<\n>", "ls"]


def test_a_here_document_is_read_once() -> None:
    """After its body is skipped, the next line's lines are commands again."""
    assert _values("cat <<E\nx\nE\na\nE\nb") == ["cat", "<<<>", "E", "<\n>", "a", "<\n>", "E", "<\n>", "b"]


@pytest.mark.parametrize(
    "inner",
    ['echo ""', 'echo "a"', 'echo "\\""', 'echo "$(a "")"', 'echo "$()"', 'echo "$(a)b"'],
)
def test_a_substitution_ends_at_its_own_parenthesis_past_quoted_text(inner: str) -> None:
    """Double quotes (with escapes and substitutions inside) inside ``$(...)`` hide their parentheses only."""
    assert tokenize(f"$({inner}) z") == (_w(f"$({inner})", None, inner), _w("z"))


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("$(()) z", (_w("$(())"), _w("z"))),
        ("$(((1))) z", (_w("$(((1)))"), _w("z"))),
        ("${} z", (_w("${}"), _w("z"))),
        ('"$() x" z', (_w("$() x", '"$() x"', ""), _w("z"))),
        ('"`` x" z', (_w("`` x", '"`` x"', ""), _w("z"))),
        ("`` z", (_w("``", None, ""), _w("z"))),
        ('"\\"', (_w('"', '"\\"'),)),
    ],
)
def test_empty_expansions_and_substitutions_end_where_they_close(line: str, tokens: tuple[Token, ...]) -> None:
    """An expansion or substitution with nothing inside still closes at its first closing character."""
    assert tokenize(line) == tokens
