"""`SkawldModel`: the base of skawld_core's pydantic models.

Every model builds its validator and serializer on first use, not when its module is
imported (`defer_build`). A headless run needs about a third of the models before its
first request, so start-up stops paying for the rest (DESIGN 14; `bench/startup.py`).
Behaviour is the same once a model is built; models that reference each other are
resolved then, in their module's namespace.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["DEFERRED", "SkawldModel"]

DEFERRED = ConfigDict(defer_build=True)
"""The config for a module-level `TypeAdapter`, for the same reason."""


class SkawldModel(BaseModel):
    """A pydantic model whose schema is built when it is first used."""

    model_config = DEFERRED
