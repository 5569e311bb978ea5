"""MCP elicitation: a server asks the user a question with a small JSON schema (a form) or a URL.

The app shows a modal with the schema as a form, the plain mode asks line by line; a host
that can ask nobody (headless) declines, as the spec says a client that cannot ask must.
What the user leaves empty gets the schema's ``default`` (SEP-1034), and an accepted answer
is checked against the schema before it is sent: the server never gets a value of the wrong
type. These types carry no `mcp` import: the adapter to `mcp`'s callback is
`mcp_elicitation_callback`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcp.client.session import ElicitationFnT

__all__ = [
    "ElicitationAnswer",
    "ElicitationField",
    "ElicitationHandler",
    "ElicitationRequest",
    "apply_defaults",
    "check_answer",
    "decline_all",
    "default_text",
    "field_hint",
    "form_fields",
    "mcp_elicitation_callback",
]

ElicitAction = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class ElicitationField:
    """One property of a form: its name, type (``string``, ``integer``, ``number``, ``boolean``,
    or ``string`` with `choices`), title, description, default and whether it is required."""

    name: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    choices: tuple[str, ...] = ()
    multiple: bool = False  # an array of enum strings


@dataclass(frozen=True)
class ElicitationRequest:
    """What a server asks: `message`, and a `schema` (form mode) or a `url` (URL mode)."""

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    schema: dict[str, Any] = field(default_factory=dict)
    url: str | None = None

    @property
    def fields(self) -> list[ElicitationField]:
        """The form's fields in schema order."""
        return form_fields(self.schema)


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer: accept (with `content`), decline, or cancel."""

    action: ElicitAction
    content: dict[str, Any] = field(default_factory=dict)


ElicitationHandler = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""Asks the user; `Agent(elicit=...)`. Without one every request is declined."""


async def decline_all(request: ElicitationRequest) -> ElicitationAnswer:
    """The handler of a host that can ask nobody: decline (the spec's answer)."""
    return ElicitationAnswer("decline")


def _enum(prop: Mapping[str, Any]) -> tuple[str, ...]:
    if isinstance(prop.get("enum"), list):
        return tuple(str(v) for v in prop["enum"])
    options = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(options, list):
        return tuple(str(o["const"]) for o in options if isinstance(o, Mapping) and "const" in o)
    return ()


def field_hint(f: ElicitationField) -> str:
    """How a field is answered, for a prompt: `integer`, `one of red, green`, `yes/no`, `some of a, b (comma-separated)`, plus `required`."""
    if f.multiple:
        hint = f"some of {', '.join(f.choices)} (comma-separated)"
    elif f.choices:
        hint = f"one of {', '.join(f.choices)}"
    else:
        hint = "yes/no" if f.type == "boolean" else f.type
    return hint + (", required" if f.required else "")


def default_text(f: ElicitationField) -> str:
    """A field's default as a user would type it (`yes`, `a, b`); empty without one."""
    if f.default is None:
        return ""
    if isinstance(f.default, bool):
        return "yes" if f.default else "no"
    if isinstance(f.default, list):
        return ", ".join(map(str, f.default))
    return str(f.default)


def form_fields(schema: Mapping[str, Any]) -> list[ElicitationField]:
    """The fields of an elicitation schema (a flat object of primitive properties)."""
    props = schema.get("properties")
    required_raw = schema.get("required")
    required: list[Any] = required_raw if isinstance(required_raw, list) else []
    out: list[ElicitationField] = []
    for name, prop in (props or {}).items() if isinstance(props, Mapping) else ():
        if not isinstance(prop, Mapping):
            continue
        kind = str(prop.get("type", "string"))
        raw_items = prop.get("items")
        items: Mapping[str, Any] = raw_items if isinstance(raw_items, Mapping) else {}
        multiple = kind == "array"
        choices = _enum(items) if multiple else _enum(prop)
        out.append(
            ElicitationField(
                name=str(name),
                type="string" if multiple else kind,
                title=str(prop.get("title") or name),
                description=str(prop.get("description") or ""),
                required=name in required,
                default=prop.get("default"),
                choices=choices,
                multiple=multiple,
            )
        )
    return out


def apply_defaults(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """`content` with the schema's defaults for every field it leaves out or empty (SEP-1034)."""
    out = {k: v for k, v in content.items() if v is not None and v != ""}
    for f in form_fields(schema):
        if f.name not in out and f.default is not None:
            out[f.name] = f.default
    return out


def _coerce(f: ElicitationField, value: Any) -> Any:
    """A typed answer (`"3"` → 3 for an integer field); raises `ValueError` when it cannot be."""
    if f.multiple:
        values = value if isinstance(value, list) else [v.strip() for v in str(value).split(",") if v.strip()]
        bad = [v for v in values if f.choices and v not in f.choices]
        if bad:
            raise ValueError(f"{f.title}: {', '.join(bad)} not one of {', '.join(f.choices)}")
        return [str(v) for v in values]
    if f.type == "boolean":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("y", "yes", "true", "1", "on"):
            return True
        if text in ("n", "no", "false", "0", "off"):
            return False
        raise ValueError(f"{f.title}: expected yes or no")
    if f.type in ("integer", "number"):
        if isinstance(value, bool):
            raise ValueError(f"{f.title}: expected a number")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{f.title}: expected a number") from None
        if f.type == "integer":
            if not number.is_integer():
                raise ValueError(f"{f.title}: expected a whole number")
            return int(number)
        return int(number) if isinstance(value, int) else number
    text = str(value)
    if f.choices and text not in f.choices:
        raise ValueError(f"{f.title}: expected one of {', '.join(f.choices)}")
    return text


def check_answer(schema: Mapping[str, Any], content: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults applied, values typed by the schema, required fields present; raises
    `ValueError` naming the first field that is wrong."""
    filled = apply_defaults(schema, content)
    out: dict[str, Any] = {}
    for f in form_fields(schema):
        if f.name in filled:
            out[f.name] = _coerce(f, filled[f.name])
        elif f.required:
            raise ValueError(f"{f.title} is required")
    return out


def mcp_elicitation_callback(server: str, handler: ElicitationHandler | None) -> ElicitationFnT:
    """`mcp`'s elicitation callback for `server`: asks `handler` (none: decline); an accepted
    form answer gets the schema's defaults and is checked (a wrong answer is declined)."""

    async def callback(context: Any, params: Any) -> Any:
        from mcp_types import ElicitRequestURLParams, ElicitResult

        if isinstance(params, ElicitRequestURLParams):
            request = ElicitationRequest(server=server, message=params.message, mode="url", url=params.url)
        else:
            schema = dict(params.requested_schema)
            request = ElicitationRequest(server=server, message=params.message, schema=schema)
        answer = await (handler or decline_all)(request)
        if answer.action != "accept":
            return ElicitResult(action=answer.action)
        if request.mode == "url":
            return ElicitResult(action="accept")
        try:
            content = check_answer(request.schema, answer.content)
        except ValueError:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content=content)

    return callback
