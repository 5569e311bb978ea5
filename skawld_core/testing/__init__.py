"""Test doubles and the store conformance suite, shipped for users' tests too."""

from __future__ import annotations

from .conformance import (
    CONFORMANCE_CHECKS,
    ConformanceCheck,
    StoreFactory,
    run_session_store_check,
    run_session_store_conformance,
)
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
    "CONFORMANCE_CHECKS",
    "ConformanceCheck",
    "StoreFactory",
    "run_session_store_check",
    "run_session_store_conformance",
    "FunctionProvider",
    "ScriptedProvider",
    "ScriptedTurn",
    "UnexpectedProviderCall",
    "reply",
    "text",
    "thinking",
    "tool_call",
]
