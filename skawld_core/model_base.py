"""`SkawldModel`: the base of skawld_core's pydantic models.

Every model builds its validator and serializer on first use, not when its module is
imported (`defer_build`). A headless run needs about a third of the models before its
first request, so start-up stops paying for the rest (DESIGN 14; `bench/startup.py`).
Behaviour is the same once a model is built; models that reference each other are
resolved then, in their module's namespace.

pydantic's rebuild is not thread-safe (pydantic#13419), and an SDK is used from
threads: the first build of a model holds one process-wide lock, so two threads that
first use a model at once never see it half-built.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["DEFERRED", "SkawldModel"]

DEFERRED = ConfigDict(defer_build=True)
"""The config for a module-level `TypeAdapter`, for the same reason."""

_BUILD_LOCK = threading.RLock()  # re-entrant: building a model builds the models it holds


class SkawldModel(BaseModel):
    """A pydantic model whose schema is built when it is first used."""

    model_config = DEFERRED

    @classmethod
    def model_rebuild(
        cls,
        *,
        force: bool = False,
        raise_errors: bool = True,
        _parent_namespace_depth: int = 2,
        _types_namespace: Any = None,
    ) -> bool | None:
        """pydantic's `model_rebuild`, one build at a time (see the module docstring)."""
        with _BUILD_LOCK:
            return super().model_rebuild(
                force=force,
                raise_errors=raise_errors,
                # one frame more between the caller and pydantic: this one
                _parent_namespace_depth=_parent_namespace_depth + 1 if _parent_namespace_depth > 0 else 0,
                _types_namespace=_types_namespace,
            )
