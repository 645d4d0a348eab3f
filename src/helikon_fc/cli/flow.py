"""`Flow`: an agent's text written after its ``name:`` prefix, wrapped at word boundaries with a hanging indent.

Text may arrive a few characters at a time (streamed tokens split words anywhere), so when wrapping, a
word is written only once it is known to be whole: the characters after the last space wait for the
next piece (or for `close`); without a width every character is written as it comes. A word that does
not fit on the line goes to the next one, indented to the text's first column; a newline in the text
starts an indented line too. A word longer than a whole line is written as it is (there is no boundary
to cut it at).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TextIO

_PIECES = re.compile(r"(\s+)")


class Flow:
    """Writes one text to `out`, starting at column `indent` (just after its prefix), wrapping at `width`.

    Args:
        out: where to write (the prefix is already written).
        indent: the column the text starts at, and the indent of every line after the first.
        width: the line width to wrap at, or `None` for no wrapping (newlines are still indented).
        style: applied to each written run of text (for example a dim colour), not to the indent.
        column: the column the text starts at, when the prefix is wider than `indent`.
    """

    def __init__(
        self,
        out: TextIO,
        *,
        indent: int,
        width: int | None,
        style: Callable[[str], str] = lambda text: text,
        column: int | None = None,
    ) -> None:
        self._out = out
        self._indent = indent
        self._width = width
        self._style = style
        self._column = indent if column is None else column
        self._space = ""  # whitespace seen after the last word, written only if the next word fits after it
        self._word = ""  # the characters after the last whitespace: perhaps only part of a word

    def write(self, text: str) -> None:
        """Add `text`; write every whole word of it (the last, perhaps partial, word waits)."""
        pieces = _PIECES.split(self._word + text)
        self._word = pieces.pop() if self._width is not None else ""  # without wrapping, no word need wait
        for piece in pieces:
            if piece and piece[0].isspace():
                self._whitespace(piece)
            elif piece:
                self._put(piece)
        self._out.flush()

    def close(self) -> None:
        """Write the last word; the line is then finished by the caller (which writes the newline)."""
        if self._word:
            self._put(self._word)
            self._word = ""
        elif self._space:  # trailing spaces are the text's too
            self._out.write(self._style(self._space))
        self._space = ""
        self._out.flush()

    def _whitespace(self, piece: str) -> None:
        breaks = piece.count("\n")
        if breaks:
            self._out.write(("\n" + " " * self._indent) * breaks)
            self._column = self._indent
            self._space = ""
        else:
            self._space += piece

    def _put(self, word: str) -> None:
        needed = len(self._space) + len(word)
        if self._width is not None and self._column > self._indent and self._column + needed > self._width:
            self._out.write("\n" + " " * self._indent)
            self._column = self._indent
            self._space = ""
        self._out.write(self._style(self._space + word))
        self._column += len(self._space) + len(word)
        self._space = ""


def hanging_indent(start: int, width: int | None, *, least: int = 4) -> int:
    """The indent of a text's further lines: under its first character (`start`), or only `least` columns when
    that would leave fewer than 30 columns to write in (a long agent name on a narrow terminal)."""
    if width is not None and width - start < 30:
        return least
    return start


def wrapped(text: str, *, indent: int, width: int | None) -> str:
    """`text` as `Flow` writes it from column `indent`: wrapped at `width`, further lines indented by
    `hanging_indent`."""
    import io

    out = io.StringIO()
    flow = Flow(out, indent=hanging_indent(indent, width), width=width, column=indent)
    flow.write(text)
    flow.close()
    return out.getvalue()
