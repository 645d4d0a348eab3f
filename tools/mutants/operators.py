"""The mutation operators: small, syntactic changes to one node of a module's AST.

Each `Mutant` names one node (by its index in `ast.walk` order, so the same source gives the same
mutants) and one change to it. `mutants(source)` lists every mutant of a module; `mutated_code`
rebuilds a fresh tree, applies one mutant and compiles it under the original file name, so
tracebacks and line numbers still point at the real source.

Operators: comparison flips (``==``/``!=``, ``<``/``>=``, ``in``/``not in``, ``is``/``is not``) and
boundary shifts (``<``/``<=``), ``and``/``or``, arithmetic flips (``+``/``-``, ``*``/``/``...),
dropped ``not`` and unary minus, negated ``if``/``while``/conditional/comprehension conditions,
integer constants plus one, ``True``/``False`` swapped, simple statements dropped (replaced by
``pass``) and returned values replaced by ``None``.

Not mutated: docstrings, annotations, decorators, imports, ``__all__``, ``__slots__``, ``if TYPE_CHECKING:``
blocks, ``assert_never(...)`` calls, and lines carrying ``# pragma: no mutate``.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from types import CodeType

COMPARE_FLIPS: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Lt: (ast.GtE, ast.LtE),
    ast.LtE: (ast.Gt, ast.Lt),
    ast.Gt: (ast.LtE, ast.GtE),
    ast.GtE: (ast.Lt, ast.Gt),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
ARITHMETIC_FLIPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Continue, ast.Break, ast.Delete)


@dataclass(frozen=True)
class Mutant:
    """One change to one node: `index` in `ast.walk` order, `variant` among that node's changes."""

    path: str
    index: int
    variant: int
    line: int
    end_line: int
    scope: str
    description: str
    occurrence: int = 1
    """Which of the mutants with the same scope and description this is, counted in file order from 1."""

    @property
    def key(self) -> str:
        """A name that survives edits elsewhere in the file (for the list of equivalent mutants).

        The same change can occur more than once in one scope (`False` -> `True` on two arguments of one call):
        the second and later carry their occurrence (``... #2``), so listing one as equivalent lists no other.
        """
        base = f"{self.path}::{self.scope}::{self.description}"
        return base if self.occurrence == 1 else f"{base} #{self.occurrence}"


Change = tuple[str, Callable[[ast.AST], None]]


def _text(node: ast.AST) -> str:
    return ast.unparse(node).replace("\n", " ")[:80]


def _compare_changes(node: ast.Compare) -> Iterator[Change]:
    for position, op in enumerate(node.ops):
        for flip in COMPARE_FLIPS.get(type(op), ()):

            def apply(target: ast.AST, position: int = position, flip: type[ast.cmpop] = flip) -> None:
                assert isinstance(target, ast.Compare)
                target.ops[position] = flip()

            mutated = ast.Compare(left=node.left, ops=[*node.ops], comparators=node.comparators)
            mutated.ops[position] = flip()
            yield f"`{_text(node)}` -> `{_text(mutated)}`", apply


def _changes(node: ast.AST, parent: ast.AST | None) -> Iterator[Change]:
    if isinstance(node, ast.Compare):
        yield from _compare_changes(node)
    elif isinstance(node, ast.BoolOp):
        other: type[ast.boolop] = ast.Or if isinstance(node.op, ast.And) else ast.And

        def flip_bool(target: ast.AST) -> None:
            assert isinstance(target, ast.BoolOp)
            target.op = other()

        yield f"`{_text(node)}`: {type(node.op).__name__.lower()} -> {other.__name__.lower()}", flip_bool
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in ARITHMETIC_FLIPS:
        arith = ARITHMETIC_FLIPS[type(node.op)]

        def flip_arith(target: ast.AST) -> None:
            assert isinstance(target, ast.BinOp | ast.AugAssign)
            target.op = arith()

        yield f"`{_text(node)}`: {type(node.op).__name__} -> {arith.__name__}", flip_arith
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield f"`{_text(node)}` -> `{_text(node.operand)}`", _replace_in_parent(parent, node, lambda n: n.operand)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield f"`{node.value}` -> `{not node.value}`", _set_constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield f"`{node.value}` -> `{node.value + 1}`", _set_constant(node.value + 1)
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        yield f"`{_text(node.test)}` negated", _negate_test
    if isinstance(node, ast.comprehension):
        for position, condition in enumerate(node.ifs):
            yield f"`{_text(condition)}` negated", _negate_if(position)
    if isinstance(node, ast.Return) and node.value is not None and not _is_none(node.value):
        yield f"`{_text(node)}` -> `return None`", _return_none
    if isinstance(node, DROPPABLE) and not (isinstance(node, ast.AnnAssign) and node.value is None):
        yield f"`{_text(node)}` dropped", _drop(parent, node)


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _set_constant(value: int) -> Callable[[ast.AST], None]:
    def apply(target: ast.AST) -> None:
        assert isinstance(target, ast.Constant)
        target.value = value

    return apply


def _negate_test(target: ast.AST) -> None:
    assert isinstance(target, ast.If | ast.While | ast.IfExp)
    target.test = ast.UnaryOp(op=ast.Not(), operand=target.test)


def _negate_if(position: int) -> Callable[[ast.AST], None]:
    def apply(target: ast.AST) -> None:
        assert isinstance(target, ast.comprehension)
        target.ifs[position] = ast.UnaryOp(op=ast.Not(), operand=target.ifs[position])

    return apply


def _return_none(target: ast.AST) -> None:
    assert isinstance(target, ast.Return)
    target.value = ast.Constant(value=None)


def _fields_holding(parent: ast.AST, node: ast.AST) -> Iterator[tuple[str, int | None]]:
    for name, value in ast.iter_fields(parent):
        if value is node:
            yield name, None
        elif isinstance(value, list):
            for position, item in enumerate(value):
                if item is node:
                    yield name, position


def _replace_in_parent(
    parent: ast.AST | None, node: ast.AST, replacement: Callable[[ast.UnaryOp], ast.AST]
) -> Callable[[ast.AST], None]:
    """Replace the node, found at the same place in the fresh tree's parent (set by `_walk`)."""
    assert parent is not None
    name, position = next(_fields_holding(parent, node))

    def apply(target: ast.AST) -> None:
        assert isinstance(target, ast.UnaryOp)
        fresh_parent = getattr(target, "_mutant_parent")  # noqa: B009
        new = replacement(target)
        if position is None:
            setattr(fresh_parent, name, new)
        else:
            getattr(fresh_parent, name)[position] = new

    return apply


def _drop(parent: ast.AST | None, node: ast.AST) -> Callable[[ast.AST], None]:
    assert parent is not None
    name, position = next(_fields_holding(parent, node))
    assert position is not None

    def apply(target: ast.AST) -> None:
        fresh_parent = getattr(target, "_mutant_parent")  # noqa: B009
        getattr(fresh_parent, name)[position] = ast.Pass()

    return apply


def _skipped(node: ast.AST, lines: list[str]) -> bool:
    """Subtrees never mutated: see the module docstring."""
    if isinstance(node, ast.Import | ast.ImportFrom | ast.arg):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True  # a docstring, or the `...` of a stub
    if isinstance(node, ast.If) and _text(node.test).endswith("TYPE_CHECKING"):
        return True
    if isinstance(node, ast.Assign) and any(_text(target) in ("__all__", "__slots__") for target in node.targets):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and _text(node.value.func) == "assert_never":
        return True
    line = getattr(node, "lineno", None)
    return line is not None and "pragma: no mutate" in lines[line - 1]


def _walk(tree: ast.Module, lines: list[str]) -> Iterator[tuple[ast.AST, ast.AST | None, str]]:
    """Every mutable node with its parent and the qualified name of its scope, in a fixed order."""
    stack: list[tuple[ast.AST, ast.AST | None, str]] = [(tree, None, "<module>")]
    while stack:
        node, parent, scope = stack.pop(0)
        if _skipped(node, lines):
            continue
        node._mutant_parent = parent  # type: ignore[attr-defined]
        yield node, parent, scope
        inner = scope
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inner = node.name if scope == "<module>" else f"{scope}.{node.name}"
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "decorator_list", "type_comment"):
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend((child, node, inner) for child in children if isinstance(child, ast.AST))


def mutants(path: str, source: str) -> list[Mutant]:
    """Every mutant of one module's source, in a fixed order."""
    lines = source.splitlines()
    found: list[Mutant] = []
    for index, (node, parent, scope) in enumerate(_walk(ast.parse(source), lines)):
        for variant, (description, _apply) in enumerate(_changes(node, parent)):
            line: int = getattr(node, "lineno", 0) or getattr(getattr(node, "target", None), "lineno", 0)
            inner = getattr(node, "iter", None)
            end_line: int = getattr(node, "end_lineno", None) or getattr(inner, "end_lineno", None) or line
            if isinstance(node, ast.If | ast.While):
                end_line = node.test.end_lineno or line  # the condition, not the whole block
            found.append(Mutant(path, index, variant, line, end_line, scope, description))
    found.sort(key=lambda m: (m.line, m.index, m.variant))
    seen: Counter[tuple[str, str]] = Counter()
    for position, mutant in enumerate(found):
        seen[mutant.scope, mutant.description] += 1
        found[position] = replace(mutant, occurrence=seen[mutant.scope, mutant.description])
    return found


def mutated_code(mutant: Mutant, source: str, filename: str) -> CodeType:
    """The module's code object with `mutant` applied (compiled from a fresh tree)."""
    lines = source.splitlines()
    for index, (node, parent, _scope) in enumerate(_walk(ast.parse(source), lines)):
        if index == mutant.index:
            _description, apply = list(_changes(node, parent))[mutant.variant]
            apply(node)
            break
    else:
        raise LookupError(f"no node {mutant.index} in {mutant.path}")
    tree = ast.fix_missing_locations(_reparented(node))
    return compile(tree, filename, "exec")


def _reparented(node: ast.AST) -> ast.Module:
    root = node
    while getattr(root, "_mutant_parent", None) is not None:
        root = root._mutant_parent  # type: ignore[attr-defined]
    assert isinstance(root, ast.Module)
    return root
