"""The price table: list prices from the data file, config overrides, zero for local servers."""

from __future__ import annotations

import datetime as dt

import pytest

from skawld_core.errors import ConfigError
from skawld_core.messages import Usage
from skawld_core.pricing import PriceTable, list_prices, parse_price_overrides, prices_updated

USAGE = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=400_000, cache_creation_tokens=100_000)


def test_list_prices_by_longest_prefix() -> None:
    table = PriceTable()
    # 500k fresh at $3, 400k cache reads at $0.30, 100k cache writes at $3.75, 100k output at $15.
    assert table.cost("claude-sonnet-4-6", USAGE) == pytest.approx(1.5 + 0.12 + 0.375 + 1.5)
    assert table.price("claude-opus-4-5-20251101") != table.price("claude-opus-4-1")
    assert table.price("gpt-5-mini") != table.price("gpt-5")
    assert table.cost("unknown-model", USAGE) is None
    assert {"claude-sonnet-4", "gpt-5", "o3"} <= set(list_prices())
    dt.date.fromisoformat(prices_updated())


def test_local_servers_cost_nothing_unless_overridden() -> None:
    local = PriceTable(local=True)
    assert local.cost("claude-sonnet-4-6", USAGE) == 0.0
    custom = PriceTable(parse_price_overrides({"llama": {"input": 1, "output": 2}}), local=True)
    assert custom.cost("llama-3.1-70b", Usage(input_tokens=1_000_000, output_tokens=1_000_000)) == pytest.approx(3.0)
    assert custom.cost("qwen", USAGE) == 0.0


def test_overrides_win_and_cache_rates_default_to_input() -> None:
    table = PriceTable(parse_price_overrides({"claude-sonnet-4": {"input": 10, "output": 20, "cacheRead": 1}}))
    price = table.price("claude-sonnet-4-6")
    assert price is not None and (price.input, price.cache_read, price.cache_write) == (10, 1, 10)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "/pricing"),
        ({"m": 3}, "/pricing/m"),
        ({"m": {"input": 1}}, "input and output are required"),
        ({"m": {"input": -1, "output": 1}}, "/pricing/m/input"),
        ({"m": {"input": 1, "output": 1, "cache": 1}}, "unknown key 'cache'"),
    ],
)
def test_bad_overrides(raw: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_price_overrides(raw)


def test_every_claude_alias_resolves_to_a_priced_model() -> None:
    from skawld_core.model_aliases import ANTHROPIC_ALIAS_MODELS

    table = PriceTable()
    for alias, model in ANTHROPIC_ALIAS_MODELS.items():
        assert table.price(model) is not None, f"{alias} → {model} has no list price"


def test_a_newer_opus_is_not_priced_as_opus_4_by_prefix() -> None:
    table = PriceTable()
    opus_4 = table.price("claude-opus-4")
    assert opus_4 is not None and opus_4.input == 15.0
    for model in ("claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-opus-5-5"):
        price = table.price(model)
        assert price is not None and price.input < opus_4.input, model
