"""Tool input validation errors in the reference's words (§2.7).

The reference's validators say `file_path must be a non-empty string`; pydantic
says `file_path: Input should be a valid string` or `Field required`. The model
reads these messages and retries, so the common cases are phrased the
reference's way: a missing or empty required string, a wrong type, an unknown
enum value. Rarer errors keep pydantic's message after the field path.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

__all__ = ["validation_message"]

_TYPE_WORDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "list_type": "an array",
    "tuple_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path or "input"


def _string_words(model: type[BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """How the reference names a top-level string field's type: "a non-empty string" when it
    must not be empty, else "a string"; None when `loc` is not a top-level string field."""
    if len(loc) != 1 or not isinstance(loc[0], str):
        return None
    field = model.model_fields.get(loc[0]) or next((f for f in model.model_fields.values() if f.alias == loc[0]), None)
    if field is None or field.annotation is not str:
        return None
    non_empty = any(getattr(m, "min_length", 0) for m in field.metadata)
    return "a non-empty string" if non_empty else "a string"


def _missing(model: type[BaseModel], loc: tuple[int | str, ...], name: str) -> str:
    """A missing top-level string field is described by its type, as the reference does."""
    words = _string_words(model, loc)
    return f"{name} must be {words}" if words else f"{name} is required"


def _one(model: type[BaseModel], err: ErrorDetails) -> str:
    loc = tuple(err["loc"])
    name = _field_path(loc)
    kind = err["type"]
    ctx: dict[str, Any] = dict(err.get("ctx") or {})
    if kind == "missing":
        return _missing(model, loc, name)
    if kind == "string_too_short" and ctx.get("min_length") == 1:
        return f"{name} must be a non-empty string"
    if kind == "string_type":
        # The reference's validators test "is a non-empty string" as one condition (§2.7).
        return f"{name} must be {_string_words(model, loc) or 'a string'}"
    if kind in _TYPE_WORDS:
        return f"{name} must be {_TYPE_WORDS[kind]}"
    if kind in ("literal_error", "enum"):
        return f"{name} must be one of {ctx.get('expected', '')}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        ops = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}
        bound = next(iter(v for k, v in ctx.items() if k in ("ge", "gt", "le", "lt")), "")
        return f"{name} must be {ops[kind]} {bound}"
    if kind in ("value_error", "assertion_error"):
        # The validator's own message already names the field ("old_string must not be empty").
        return str(ctx.get("error", err["msg"]))
    if kind == "extra_forbidden":
        return f"unknown field {name}"
    return f"{name}: {err['msg']}"


def validation_message(model: type[BaseModel], exc: ValidationError) -> str:
    """One readable message for every error in `exc`, joined with `; `."""
    return "; ".join(_one(model, err) for err in exc.errors(include_url=False))
