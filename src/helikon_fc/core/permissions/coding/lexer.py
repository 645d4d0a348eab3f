"""A quote-aware shell lexer: a command line as words and operators, never an error.

It knows what the permission rules need and no more: single and double quotes, backslash escapes
and line continuations, comments, control operators (``&& || ; | |& & ( )`` and newlines),
redirection operators with an optional file-descriptor prefix (``> >> 2> &> >& <`` ...), here
documents (their bodies are data, skipped), and command substitutions (``$(...)``, backticks,
``<(...)``), whose text is kept so the parser can look inside. Malformed input (an unclosed quote)
is read as far as it goes.
"""

from __future__ import annotations

import attrs

__all__ = ["CONTROL_OPERATORS", "Operator", "Word", "tokenize"]

CONTROL_OPERATORS = frozenset({"&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")"})
"""Operators that end a simple command."""

_OPERATORS = ("&>>", "<<<", "<<-", "&&", "||", ";;", "|&", "&>", ">>", ">&", ">|", "<<", "<>", "<&", ";", "|", "&")
_SINGLE = frozenset("><()")


@attrs.frozen
class Word:
    """One word: `value` with quotes removed, `raw` as written, and the command substitutions inside."""

    value: str
    raw: str
    substitutions: tuple[str, ...] = ()


@attrs.frozen
class Operator:
    """A control or redirection operator, with its file-descriptor prefix (``2>``)."""

    text: str


Token = Word | Operator


def tokenize(text: str) -> tuple[Token, ...]:
    """The words and operators of `text`, in order."""
    return _Lexer(text).run()


def _matching(text: str, start: int, open_char: str, close_char: str) -> int:
    """The index of the `close_char` balancing the `open_char` just before `start` (or len(text))."""
    depth = 1
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "'":
            end = text.find("'", index + 1)
            index = len(text) if end == -1 else end + 1
            continue
        if char == '"':
            index = _double_quote_end(text, index + 1) + 1
            continue
        if char == open_char:
            depth += 1
        elif char == close_char:
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return len(text)


def _double_quote_end(text: str, start: int) -> int:
    """The index of the ``"`` closing a double-quoted string that starts at `start` (or len(text))."""
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
        elif char == '"':
            return index
        elif text.startswith("$(", index):
            index = _matching(text, index + 2, "(", ")") + 1
        else:
            index += 1
    return len(text)


class _Lexer:
    """One pass over a command line; the mutable state lives only for the call of `tokenize`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.tokens: list[Token] = []
        self.value: list[str] = []
        self.start: int | None = None
        self.substitutions: list[str] = []
        self.heredocs: list[tuple[str, bool]] = []

    def run(self) -> tuple[Token, ...]:
        text = self.text
        while self.index < len(text):
            char = text[self.index]
            if char in " \t\r":
                self.flush()
                self.index += 1
            elif text.startswith("\\\n", self.index):
                self.index += 2
            elif char == "\n":
                self.flush()
                self.tokens.append(Operator("\n"))
                self.index += 1
                self.skip_heredoc_bodies()
            elif char == "#" and self.start is None:
                end = text.find("\n", self.index)
                self.index = len(text) if end == -1 else end
            else:
                self.word_or_operator(char)
        self.flush()
        return tuple(self.tokens)

    def word_or_operator(self, char: str) -> None:
        text = self.text
        if char == "'":
            self.begin()
            end = text.find("'", self.index + 1)
            end = len(text) if end == -1 else end
            self.value.append(text[self.index + 1 : end])
            self.index = end + 1
        elif char == '"':
            self.begin()
            self.double_quoted()
        elif char == "\\":
            self.begin()
            self.value.append(text[self.index + 1 : self.index + 2] or "\\")  # a trailing backslash is itself
            self.index += 2
        elif text.startswith("$((", self.index):
            self.literal(_matching(text, self.index + 3, "(", ")") + 2)
        elif text.startswith("$(", self.index) or (char in "<>" and text.startswith("(", self.index + 1)):
            self.substitution(2)
        elif char == "`":
            self.backtick()
        elif text.startswith("${", self.index):
            self.literal(_matching(text, self.index + 2, "{", "}") + 1)
        else:
            operator = self.operator_at()
            if operator is None:
                self.begin()
                self.value.append(char)
                self.index += 1
            else:
                self.emit_operator(operator)

    def operator_at(self) -> str | None:
        for operator in _OPERATORS:
            if self.text.startswith(operator, self.index):
                return operator
        char = self.text[self.index]
        return char if char in _SINGLE else None

    def emit_operator(self, operator: str) -> None:
        raw = self.text[self.start : self.index] if self.start is not None else ""
        fd_prefixed = operator[0] in "<>&" and operator not in CONTROL_OPERATORS and raw.isdigit()
        if fd_prefixed:
            self.reset()
        else:
            self.flush()  # before the index passes the operator: a word's raw text ends where the operator begins
        self.index += len(operator)
        self.tokens.append(Operator(raw + operator if fd_prefixed else operator))

    def double_quoted(self) -> None:
        text = self.text
        index = self.index + 1
        while index < len(text) and text[index] != '"':
            if text[index] == "\\" and index + 1 < len(text):
                following = text[index + 1]
                if following == "\n":
                    pass
                elif following in '$`"\\':
                    self.value.append(following)
                else:
                    self.value.append("\\" + following)
                index += 2
            elif text.startswith("$(", index) and not text.startswith("$((", index):
                end = _matching(text, index + 2, "(", ")")
                self.substitutions.append(text[index + 2 : end])
                self.value.append(text[index : end + 1])
                index = end + 1
            elif text[index] == "`":
                end = text.find("`", index + 1)
                end = len(text) if end == -1 else end
                self.substitutions.append(text[index + 1 : end])
                self.value.append(text[index : end + 1])
                index = end + 1
            else:
                self.value.append(text[index])
                index += 1
        self.index = index + 1

    def substitution(self, opening: int) -> None:
        self.begin()
        end = _matching(self.text, self.index + opening, "(", ")")
        self.substitutions.append(self.text[self.index + opening : end])
        self.value.append(self.text[self.index : end + 1])
        self.index = end + 1

    def backtick(self) -> None:
        self.begin()
        end = self.text.find("`", self.index + 1)
        end = len(self.text) if end == -1 else end
        self.substitutions.append(self.text[self.index + 1 : end])
        self.value.append(self.text[self.index : end + 1])
        self.index = end + 1

    def literal(self, end: int) -> None:  # the text up to `end` (exclusive): an expansion, and nothing after it
        self.begin()
        self.value.append(self.text[self.index : end])
        self.index = end

    def begin(self) -> None:
        if self.start is None:
            self.start = self.index

    def reset(self) -> None:
        self.value = []
        self.start = None
        self.substitutions = []

    def flush(self) -> None:
        if self.start is None:
            return
        raw = self.text[self.start : self.index]
        word = Word("".join(self.value), raw, tuple(self.substitutions))
        previous = self.tokens[-1] if self.tokens else None
        if isinstance(previous, Operator) and previous.text.lstrip("0123456789") in ("<<", "<<-"):
            self.heredocs.append((word.value, previous.text.endswith("-")))
        self.tokens.append(word)
        self.reset()

    def skip_heredoc_bodies(self) -> None:
        """After a newline, skip the bodies of the here documents opened on the line before."""
        for delimiter, strip_tabs in self.heredocs:
            while self.index < len(self.text):
                end = self.text.find("\n", self.index)
                end = len(self.text) if end == -1 else end
                line = self.text[self.index : end]
                self.index = end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self.heredocs = []
