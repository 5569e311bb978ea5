"""Model prices and the dollar cost of token usage.

The list prices live in one dated data file, ``skawld_core/pricing.json`` (US
dollars per million tokens, per provider, matched by the longest model-name
prefix). A `PriceTable` adds two things on top:

- ``overrides``: custom prices from the config's ``pricing`` key,
  ``{"<model prefix>": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}``
  (per million tokens; ``cacheRead``/``cacheWrite`` default to ``input``). They win
  over everything, local servers included;
- ``local=True``: a non-default base URL (a local or self-hosted server) costs
  nothing unless an override names the model.

`Usage.input_tokens` is cache-inclusive, so cached tokens are billed at their own
rates and only the rest at the input rate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .errors import ConfigError
from .messages import Usage

__all__ = ["Price", "PriceTable", "list_prices", "parse_price_overrides", "prices_updated"]


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, usage: Usage) -> float:
        """The dollar cost of `usage` at this price."""
        read = usage.cache_read_tokens or 0
        write = usage.cache_creation_tokens or 0
        fresh = max(0, usage.input_tokens - read - write)
        total = fresh * self.input + read * self.cache_read + write * self.cache_write
        return (total + usage.output_tokens * self.output) / 1_000_000


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("skawld_core").joinpath("pricing.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=1)
def list_prices() -> dict[str, Price]:
    """Every list price in the data file, by model prefix (all providers together)."""
    out: dict[str, Price] = {}
    for models in _data()["models"].values():
        for prefix, p in models.items():
            out[prefix] = Price(p["input"], p["output"], p["cache_read"], p["cache_write"])
    return out


def prices_updated() -> str:
    """The date the data file's prices were last checked (ISO format)."""
    return str(_data()["updated"])


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"Invalid config (/pricing/{where}): expected a number >= 0, got {value!r}")
    return float(value)


def parse_price_overrides(raw: object) -> dict[str, Price]:
    """The config's ``pricing`` object as prices; raises `ConfigError` naming the bad pointer."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"Invalid config (/pricing): expected an object, got {type(raw).__name__}")
    out: dict[str, Price] = {}
    for model, entry in raw.items():
        if not isinstance(entry, Mapping):
            raise ConfigError(f"Invalid config (/pricing/{model}): expected an object with input and output")
        unknown = set(entry) - {"input", "output", "cacheRead", "cacheWrite"}
        if unknown:
            raise ConfigError(f"Invalid config (/pricing/{model}): unknown key {sorted(unknown)[0]!r}")
        if "input" not in entry or "output" not in entry:
            raise ConfigError(f"Invalid config (/pricing/{model}): input and output are required")
        inp = _number(entry["input"], f"{model}/input")
        out[str(model)] = Price(
            inp,
            _number(entry["output"], f"{model}/output"),
            _number(entry.get("cacheRead", inp), f"{model}/cacheRead"),
            _number(entry.get("cacheWrite", inp), f"{model}/cacheWrite"),
        )
    return out


def _longest(prices: Mapping[str, Price], model: str) -> Price | None:
    best = max((p for p in prices if model.startswith(p)), key=len, default=None)
    return prices[best] if best is not None else None


class PriceTable:
    """Prices for one configuration: overrides, then zero for a local server, then list prices."""

    def __init__(self, overrides: Mapping[str, Price] | None = None, *, local: bool = False) -> None:
        self.overrides = dict(overrides or {})
        self.local = local

    def price(self, model: str) -> Price | None:
        """The price of `model`, or None when no price is known."""
        custom = _longest(self.overrides, model)
        if custom is not None:
            return custom
        if self.local:
            return Price(0.0, 0.0, 0.0, 0.0)
        return _longest(list_prices(), model)

    def cost(self, model: str, usage: Usage) -> float | None:
        """The dollar cost of `usage` on `model`, or None when the price is unknown."""
        price = self.price(model)
        return price.cost(usage) if price is not None else None


DEFAULT_TABLE = PriceTable()
