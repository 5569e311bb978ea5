"""Test doubles and the store conformance suite, shipped for users' tests too."""

from __future__ import annotations

from .scripted import (
    FunctionProvider,
    ScriptedProvider,
    ScriptedTurn,
    UnexpectedProviderCall,
    reply,
    text,
    thinking,
    tool_call,
)

__all__ = [
    "FunctionProvider",
    "ScriptedProvider",
    "ScriptedTurn",
    "UnexpectedProviderCall",
    "reply",
    "text",
    "thinking",
    "tool_call",
]
