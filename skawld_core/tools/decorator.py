"""The `@tool` decorator: a typed async (or sync) function becomes a `Tool`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, create_model

from .base import Tool, ToolContext, ToolResult, ToolScope

ToolFunction = Callable[..., Awaitable[str | ToolResult] | str | ToolResult]


class FunctionTool(Tool[BaseModel]):
    """A `Tool` wrapping a function; built by `@tool`."""

    def __init__(
        self,
        fn: ToolFunction,
        *,
        name: str,
        description: str,
        scope: ToolScope,
        parallel_safe: bool,
        input_model: type[BaseModel],
        takes_ctx: bool,
        summarize: Callable[[BaseModel], str] | None = None,
    ) -> None:
        self.fn = fn
        self.name = name
        self.description = description
        self.scope = scope
        self.parallel_safe = parallel_safe
        self.input_model = input_model
        self.takes_ctx = takes_ctx
        self._summarize = summarize

    def summarize(self, value: BaseModel) -> str:
        """The custom `summarize=` callable, else `name {json input}`."""
        if self._summarize is not None:
            return self._summarize(value)
        return super().summarize(value)

    async def execute(self, value: BaseModel, ctx: ToolContext) -> ToolResult:
        """Call the function with the validated fields; a `str` return becomes the content."""
        kwargs = {name: getattr(value, name) for name in type(value).model_fields}
        result = self.fn(ctx, **kwargs) if self.takes_ctx else self.fn(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, ToolResult):
            return result
        return ToolResult(content=str(result), summary=self.summarize(value))


def build_input_model(fn: Callable[..., Any]) -> tuple[type[BaseModel], bool]:
    """The input model from `fn`'s signature, and whether its first parameter is the context."""
    hints = get_type_hints(fn, include_extras=True)
    params = list(inspect.signature(fn).parameters.values())
    takes_ctx = bool(params) and hints.get(params[0].name) is ToolContext
    if takes_ctx:
        params = params[1:]
    fields: dict[str, Any] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"@tool function {fn.__name__}: *args / **kwargs are not supported")
        annotation = hints.get(p.name, Any)
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (annotation, default)
    model = create_model(f"{fn.__name__}_input", __config__=ConfigDict(extra="forbid"), **fields)
    return model, takes_ctx


@overload
def tool(fn: ToolFunction, /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    scope: ToolScope = "exec",
    parallel_safe: bool = False,
    summarize: Callable[[BaseModel], str] | None = None,
) -> Callable[[ToolFunction], FunctionTool]: ...


def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    scope: ToolScope = "exec",
    parallel_safe: bool = False,
    summarize: Callable[[BaseModel], str] | None = None,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Turn a function into a `Tool`: `@tool` or `@tool(scope="read", parallel_safe=True)`.

    Parameters become the input schema (use `Annotated[T, Field(description=...)]`
    for descriptions); a first parameter annotated `ToolContext` is injected; the
    docstring is the description; the function returns `str` or `ToolResult`, and
    may be sync or async. The default scope is the cautious "exec".
    """

    def wrap(f: ToolFunction) -> FunctionTool:
        model, takes_ctx = build_input_model(f)
        return FunctionTool(
            f,
            name=name or f.__name__,
            description=description or inspect.cleandoc(f.__doc__ or "") or f.__name__,
            scope=scope,
            parallel_safe=parallel_safe,
            input_model=model,
            takes_ctx=takes_ctx,
            summarize=summarize,
        )

    return wrap(fn) if fn is not None else wrap
