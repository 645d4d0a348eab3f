"""`@function_tool`: a typed Python function (sync or async) becomes a `Tool` the model can call.

The tool's name is the function's name, its description the docstring's summary, its parameter
schema comes from the annotations (see `type_schema` for what is supported) and each parameter's
description from the docstring's Google-style ``Args:`` section. An optional first parameter
annotated ``ToolContext[Ctx]`` receives the run's context and is left out of the schema.

A sync function runs in a worker thread (``trio.to_thread.run_sync(..., abandon_on_cancel=True)``),
so a blocking tool never stalls the tools running beside it. If the call is cancelled (timeout,
run cancelled) the thread is abandoned: the run goes on at once, and the thread finishes in the
background, its result thrown away. A tool that must stop when it is cancelled should be async.
The thread's `ToolContext` reaches the run through a `WorkerGate` (see `RunContext.for_worker_thread`):
each use runs on the trio thread, and once the call is over every use raises `RuntimeError`.

Inside `sync_tools_inline()` (the simulator enters it) a sync function runs inline instead: under
virtual time (`trio.testing.MockClock`) the clock jumps whenever every task waits, and a task
waiting on a worker thread counts as waiting, so the clock would race past timeouts while the
thread ran. Inline, the call costs no virtual time, exactly like the rest of a simulated run.
"""

from __future__ import annotations

import contextvars
import datetime
import functools
import inspect
import re
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, cast, get_origin, get_type_hints, overload

import trio
from cattrs.preconf.json import make_converter

from ...core import JsonObject, JsonValue, ToolEffect
from ...core.permissions.checks import member
from ..context.run_context import WorkerGate
from .tool import ToolContext, ToolError, ToolOutput
from .type_schema import REQUIRED, DecodeError, Parameter, ParametersCodec, compile_parameters, strict_problems

__all__ = ["FunctionTool", "function_tool", "parse_docstring", "sync_tools_inline", "to_tool_output"]

_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("helikon_fc_sync_tools_inline", default=False)


@contextmanager
def sync_tools_inline() -> Iterator[None]:
    """Run sync function tools inline, in the run's own task, while the block runs (not in worker threads).

    For virtual time: `helikon_fc.testing.simulate` and `run_simulated` enter it. It is a context
    variable, so it holds for the runs started inside the block (tasks they spawn included) and
    nowhere else; leaving the block restores what was in force before.
    """
    token = _INLINE.set(True)
    try:
        yield
    finally:
        _INLINE.reset(token)


P = ParamSpec("P")
R = TypeVar("R")
Ctx = TypeVar("Ctx")

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_MAX_NAME = 64
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes):\s*$"
)
_ARGS_SECTIONS = ("Args", "Arguments", "Parameters", "Params")
_ARG_LINE = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _as_is(value: object) -> object:
    return value


_converter = make_converter()
# The JSON preset turns bytes into base85 text, which the model would read as a successful answer. Bytes
# have no JSON form: leave them as they are, so `_check_json` refuses them with their path.
_converter.register_unstructure_hook(bytes, _as_is)
_converter.register_unstructure_hook(bytearray, _as_is)
_converter.register_unstructure_hook(datetime.time, datetime.time.isoformat)
_converter.register_unstructure_hook(uuid.UUID, str)


class FunctionTool(Generic[Ctx, P, R]):
    """A `Tool[Ctx]` made from a function by `function_tool`; calling it calls the function.

    Attributes:
        name: The name the model calls it by.
        description: What the tool does, as the model reads it.
        parameters: The JSON Schema of its arguments (the strict form when `strict`).
        strict: Whether `parameters` is in OpenAI's strict form (sent with ``strict: true``).
        timeout: Seconds a call may take before it fails with an error result, or `None`.
        effect: What calling it may change (read by the permission modes).
        fn: The original function.
    """

    __slots__ = (
        "_codec",
        "_is_async",
        "_takes_context",
        "description",
        "effect",
        "fn",
        "name",
        "parameters",
        "strict",
        "timeout",
    )

    def __init__(
        self,
        fn: Callable[P, R],
        *,
        name: str,
        description: str,
        codec: ParametersCodec,
        strict: bool,
        timeout: float | None,
        takes_context: bool,
        is_async: bool,
        effect: ToolEffect = ToolEffect.SIDE_EFFECT,
    ) -> None:
        self.fn = fn
        self.effect = effect
        self.name = name
        self.description = description
        self.strict = strict
        self.timeout = timeout
        self.parameters = codec.schema(strict)
        from ...core.schema import SchemaError, compile_schema  # here, so a bad schema is refused when decorated

        try:
            compile_schema(self.parameters)
        except SchemaError as exc:
            raise SchemaError(f"tool {name!r}: parameters: {exc}") from None
        self._codec = codec
        self._takes_context = takes_context
        self._is_async = is_async

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the original function directly (no decoding, no thread): handy in unit tests."""
        return self.fn(*args, **kwargs)

    async def invoke(self, ctx: ToolContext[Ctx], arguments: JsonObject) -> ToolOutput:
        """Decode `arguments`, call the function and encode what it returns.

        Raises:
            ToolError: the arguments do not fit the parameters (each problem named with its path).
        """
        try:
            args, kwargs = self._codec.decode(arguments)
        except DecodeError as exc:
            raise ToolError(f"invalid arguments for tool {self.name!r}: " + "; ".join(exc.errors)) from None
        fn = cast("Callable[..., Any]", self.fn)
        if self._is_async:
            result = await (fn(ctx, *args, **kwargs) if self._takes_context else fn(*args, **kwargs))
        elif _INLINE.get():
            result = fn(*self._with_context(ctx, args), **kwargs)
            await trio.lowlevel.checkpoint()  # as a thread would: the call is a schedule point
        else:
            gate = WorkerGate(f"tool {self.name!r} (call {ctx.call_id!r})")
            call = functools.partial(fn, *self._with_context(ctx.for_worker_thread(gate), args), **kwargs)
            try:
                result = await trio.to_thread.run_sync(call, abandon_on_cancel=True)
            finally:
                gate.close()  # returned, raised or abandoned: the thread may no longer touch the run
        return to_tool_output(result)

    def _with_context(self, ctx: ToolContext[Ctx], args: list[Any]) -> list[Any]:
        return [ctx, *args] if self._takes_context else args

    def __repr__(self) -> str:
        return f"<FunctionTool {self.name!r} of {getattr(self.fn, '__qualname__', self.fn)!r}>"


def to_tool_output(result: object) -> ToolOutput:
    """What the model reads for a tool's return value: a `ToolOutput` as it is, a string verbatim,
    anything else (attrs classes, dataclasses, enums, tuples, datetimes as ISO 8601, UUIDs, ...) as JSON.

    Raises:
        TypeError: the value has no JSON form (``bytes``, a ``timedelta``, ``NaN``, an arbitrary object, ...);
            the message gives its path.
    """
    if isinstance(result, ToolOutput):
        return result
    if isinstance(result, str):
        return ToolOutput(result)
    content = _converter.unstructure(result)
    _check_json(content, "$")
    return ToolOutput(cast(JsonValue, content))


def _check_json(value: object, path: str) -> None:
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise TypeError(f"tool returned a non-finite number at {path}: {value}")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"tool returned an object key that is not a string at {path}: {key!r}")
            _check_json(item, f"{path}.{key}")
        return
    raise TypeError(f"tool returned a value that is not JSON at {path}: {type(value).__name__}")


class _Decorator(Protocol):
    """What ``function_tool(name=..., ...)`` returns: apply it to the function."""

    @overload
    def __call__(
        self, fn: Callable[Concatenate[ToolContext[Ctx], P], R], /
    ) -> FunctionTool[Ctx, Concatenate[ToolContext[Ctx], P], R]: ...
    @overload
    def __call__(self, fn: Callable[P, R], /) -> FunctionTool[Any, P, R]: ...


@overload
def function_tool(
    fn: Callable[Concatenate[ToolContext[Ctx], P], R], /
) -> FunctionTool[Ctx, Concatenate[ToolContext[Ctx], P], R]: ...
@overload
def function_tool(fn: Callable[P, R], /) -> FunctionTool[Any, P, R]: ...
@overload
def function_tool(
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
    timeout: float | None = None,
    effect: ToolEffect | str = ToolEffect.SIDE_EFFECT,
) -> _Decorator: ...
def function_tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool = False,
    timeout: float | None = None,
    effect: ToolEffect | str = ToolEffect.SIDE_EFFECT,
) -> Any:
    """Turn a typed function into a tool; use as ``@function_tool`` or ``@function_tool(name=..., ...)``.

    Args:
        fn: The function (sync or async). Every parameter needs a supported annotation; one
            annotated ``ToolContext[Ctx]`` may come first and receives the tool's context.
        name: The tool's name (default: the function's); must match ``[A-Za-z_][A-Za-z0-9_-]*``, at most 64 characters.
        description: What the tool does (default: the docstring's summary); must not be empty.
        strict: Send the parameters in OpenAI's strict form: every object closed, every key required,
            optional parameters nullable (``null`` then means "use the default").
        timeout: Seconds a call may run before it is cancelled and the model reads an error result.
        effect: What calling it may change: `ToolEffect.READ_ONLY`, `WRITE` or `SIDE_EFFECT`
            (the default), or its value string (``"read_only"``); the permission modes decide by it.

    Returns:
        A `FunctionTool`, which satisfies `Tool[Ctx]` and stays callable as the function.

    Raises:
        TypeError: an annotation is missing or unsupported (the message names the parameter and type).
        ValueError: the name is invalid, the description is empty or the timeout is not positive.
    """

    def decorate(f: Callable[..., Any], caller: int = 1) -> FunctionTool[Any, Any, Any]:
        # The decorating frame's locals resolve annotations naming classes defined in a function body.
        localns = sys._getframe(caller).f_locals
        tool = _build(f, name=name, description=description, strict=strict, timeout=timeout, localns=localns)
        tool.effect = _checked_effect(effect, tool.name)
        return tool

    if fn is None:
        return decorate
    return decorate(fn, caller=2)


def _checked_effect(effect: object, name: str) -> ToolEffect:
    return member(ToolEffect, effect, f"tool {name!r}", "effect")


def _build(
    fn: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    strict: bool,
    timeout: float | None,
    localns: dict[str, Any] | None = None,
) -> FunctionTool[Any, Any, Any]:
    """The `FunctionTool` for `fn`, every problem with its definition refused here rather than on a call."""
    if not callable(fn):
        raise TypeError(f"function_tool expects a function, got {type(fn).__name__}")
    tool_name = _tool_name(fn, name)
    tool_description, arg_docs = _described(fn, tool_name, description)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"tool {tool_name!r}: timeout must be a positive number of seconds, got {timeout!r}")
    params, takes_context = _parameters(fn, tool_name, arg_docs, localns)
    codec = compile_parameters(params, tool_name, localns)
    if strict:
        # Fail now, not on the first request, if strict mode cannot express a parameter.
        problems = strict_problems(codec.schema(True))
        if problems:
            raise TypeError(f"tool {tool_name!r} cannot use strict mode: " + "; ".join(problems))
    is_async = inspect.iscoroutinefunction(inspect.unwrap(fn))
    return FunctionTool(
        fn,
        name=tool_name,
        description=tool_description,
        codec=codec,
        strict=strict,
        timeout=timeout,
        takes_context=takes_context,
        is_async=is_async,
    )


def _tool_name(fn: Callable[..., Any], name: str | None) -> str:
    """The name the model calls the tool by (`name`, else the function's), refused when a provider would refuse it."""
    tool_name = name if name is not None else getattr(fn, "__name__", "")
    if not _NAME.fullmatch(tool_name) or len(tool_name) > _MAX_NAME:
        raise ValueError(
            f"invalid tool name {tool_name!r}: it must match [A-Za-z_][A-Za-z0-9_-]* and have at most {_MAX_NAME} "
            "characters (pass name=...)"
        )
    return tool_name


def _described(fn: Callable[..., Any], tool_name: str, description: str | None) -> tuple[str, dict[str, str]]:
    """The tool's description and its parameters' docs from the docstring; a tool the model cannot read is refused."""
    summary, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
    tool_description = (description if description is not None else summary).strip()
    if not tool_description:
        raise ValueError(
            f"tool {tool_name!r} has no description: give the function a docstring or pass description=..."
        )
    return tool_description, arg_docs


def _parameters(
    fn: Callable[..., Any], tool_name: str, arg_docs: Mapping[str, str], localns: dict[str, Any] | None
) -> tuple[tuple[Parameter, ...], bool]:
    """The parameters the model fills in, and whether a leading `ToolContext` parameter takes the call's context."""
    try:
        hints = get_type_hints(fn, localns=localns, include_extras=True)
    except Exception as exc:
        raise TypeError(f"tool {tool_name!r}: cannot resolve its annotations: {exc}") from exc
    params: list[Parameter] = []
    takes_context = False
    for index, param in enumerate(inspect.signature(fn).parameters.values()):
        annotation = hints.get(param.name, inspect.Parameter.empty)
        if _is_tool_context(annotation):
            if index != 0:
                raise TypeError(f"tool {tool_name!r}: the ToolContext parameter {param.name!r} must come first")
            if param.kind is inspect.Parameter.KEYWORD_ONLY:
                raise TypeError(f"tool {tool_name!r}: the ToolContext parameter {param.name!r} must be positional")
            takes_context = True
            continue
        params.append(_parameter(param, annotation, tool_name, arg_docs))
    return tuple(params), takes_context


def _parameter(param: inspect.Parameter, annotation: Any, tool_name: str, arg_docs: Mapping[str, str]) -> Parameter:
    """One parameter as the model sees it, refused when it cannot be described (no annotation, ``*args``)."""
    if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        raise TypeError(f"tool {tool_name!r}: *args and **kwargs ({param.name!r}) cannot be described to a model")
    if annotation is inspect.Parameter.empty:
        raise TypeError(f"tool {tool_name!r}: parameter {param.name!r} has no type annotation")
    return Parameter(
        param.name,
        annotation,
        REQUIRED if param.default is inspect.Parameter.empty else param.default,
        arg_docs.get(param.name),
        positional_only=param.kind is inspect.Parameter.POSITIONAL_ONLY,
    )


def _is_tool_context(annotation: object) -> bool:
    return annotation is ToolContext or get_origin(annotation) is ToolContext


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (first paragraph, on one line) and the ``Args:`` entries of a Google-style docstring.

    Args:
        doc: The docstring, already cleaned (`inspect.getdoc`).

    Returns:
        ``(summary, {parameter: description})``; continuation lines are joined with spaces.
    """
    lines = doc.expandtabs().splitlines()
    summary_lines: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            break
        summary_lines.append(line.strip())
    summary = " ".join(summary_lines)

    args: dict[str, str] = {}
    in_args = False
    section_indent = 0
    entry_indent: int | None = None
    current: str | None = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        header = _SECTION.match(stripped)
        if header and (not in_args or indent <= section_indent):
            in_args = header.group(1) in _ARGS_SECTIONS
            section_indent = indent
            entry_indent = None
            current = None
            continue
        if not in_args:
            continue
        if not stripped:
            current = None if entry_indent is None else current
            continue
        if indent <= section_indent:
            in_args = False
            current = None
            continue
        if entry_indent is None:
            entry_indent = indent
        match = _ARG_LINE.match(stripped) if indent == entry_indent else None
        if match:
            current = match.group(1)
            args[current] = match.group(2).strip()
        elif current is not None:
            args[current] = f"{args[current]} {stripped}".strip()
    return summary, args
