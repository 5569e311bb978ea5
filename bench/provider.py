"""Provider overhead benchmark.

A 10,000-delta stream from the local `WireServer` is consumed, in the same run and
alternating, by:

- ``raw``: the raw SDK iterating the stream through its typed resource method
  (``messages.create`` / ``chat.completions.create`` / ``responses.create``, stream=True);
- ``raw-json``: the same SDK client's generic ``post(..., cast_to=object, stream=True)``,
  i.e. the request path the providers use, yielding wire JSON without mapping;
- ``skawld``: the provider (request translation, retry driver, event mapping) on its
  default HTTP transport (asyncio streams, `aio_http`; no SDK, no ``httpx2``);
- ``skawld-httpx``: the same provider with ``transport="httpx"`` (the HTTP transport on ``httpx2``);
- ``skawld-sdk``: the same provider with ``transport="sdk"`` (the SDK client's generic post);
- chat only, ``lenient``: the Chat Completions provider in the lenient dialect for
  compatible servers, against ``skawld`` (strict) — the goal: under 5% more CPU.

Prints medians and the ratios skawld/raw (the goal: < 1.10) and skawld/raw-json (the pure
cost of skawld's mapping). CPU time is this thread's CPU time, which excludes the
server thread and other processes, so it is the stable figure on a busy machine.

    python bench/provider.py [--deltas 10000] [--rounds 9]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.messages import user_text
from skawld_core.providers.base import BaseProvider, ProviderRequest
from tests.support.provider_kit import API_KEY, endpoint, make_provider
from tests.support.wire_server import Turn, WireServer, text, tool_call, turn


def scripted(deltas: int) -> Turn:
    """``deltas`` text deltas plus a 200-delta tool call (realistic mix)."""
    return turn(text(["tok "] * deltas), tool_call("Write", {"content": "x" * 400}, id="c1", chunk_size=2))


def raw_client(kind: str, srv: WireServer) -> Any:
    """The bare SDK client (retries off, like the providers)."""
    if kind == "anthropic":
        import anthropic

        return anthropic.AsyncAnthropic(api_key=API_KEY, base_url=srv.url, max_retries=0)
    import openai

    return openai.AsyncOpenAI(api_key=API_KEY, base_url=srv.openai_url, max_retries=0)


async def raw_stream(kind: str, client: Any) -> int:
    """Iterate the same stream with the raw SDK, touching nothing but the events."""
    messages = [{"role": "user", "content": "hi"}]
    if kind == "anthropic":
        stream = await client.messages.create(model="m", max_tokens=32768, messages=messages, stream=True)
    elif kind == "chat":
        stream = await client.chat.completions.create(
            model="m", messages=messages, stream=True, stream_options={"include_usage": True}
        )
    else:
        stream = await client.responses.create(model="m", input="hi", stream=True)
    n = 0
    async for _ in stream:
        n += 1
    return n


async def raw_json_stream(kind: str, client: Any) -> int:
    """The providers' request path (the SDK's generic post), iterating wire JSON only."""
    messages = [{"role": "user", "content": "hi"}]
    if kind == "anthropic":
        from anthropic import AsyncStream as AnthropicStream

        stream: Any = await client.post(
            "/v1/messages",
            body={"model": "m", "max_tokens": 32768, "messages": messages, "stream": True},
            cast_to=object,
            stream=True,
            stream_cls=AnthropicStream[object],
        )
    else:
        from openai import AsyncStream as OpenAIStream

        path, body = (
            ("/chat/completions", {"model": "m", "messages": messages, "stream": True})
            if kind == "chat"
            else ("/responses", {"model": "m", "input": "hi", "stream": True})
        )
        stream = await client.post(
            path,
            body=body,
            cast_to=object,
            options={"security": {"bearer_auth": True}},
            stream=True,
            stream_cls=OpenAIStream[object],
        )
    n = 0
    async for _ in stream:
        n += 1
    return n


async def provider_stream(provider: BaseProvider) -> int:
    """Iterate the same stream through a skawld provider."""
    n = 0
    async for _ in provider.stream(ProviderRequest(model="m", messages=[user_text("hi")])):
        n += 1
    return n


async def timed(work: Awaitable[Any]) -> tuple[float, float]:
    """(wall seconds, this thread's CPU seconds). CPU time excludes the server thread and
    other processes, so it is the stable measure of client-side cost."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.thread_time()
    await work
    return time.perf_counter() - wall, time.thread_time() - cpu


Stats = dict[str, float]


async def bench(deltas: int, rounds: int) -> dict[str, Stats]:
    results: dict[str, Stats] = {}
    with WireServer() as srv:
        for kind in ("anthropic", "chat", "responses"):
            endpoint(srv, kind).default = scripted(deltas)
            client = raw_client(kind, srv)
            provider = make_provider(kind, srv)
            via_sdk = make_provider(kind, srv, transport="sdk")
            via_httpx = make_provider(kind, srv, transport="httpx")
            runs = {
                "raw": lambda: raw_stream(kind, client),  # noqa: B023 - used within this iteration
                "raw-json": lambda: raw_json_stream(kind, client),  # noqa: B023
                "skawld": lambda: provider_stream(provider),  # noqa: B023
                "skawld-httpx": lambda: provider_stream(via_httpx),  # noqa: B023
                "skawld-sdk": lambda: provider_stream(via_sdk),  # noqa: B023
            }
            if kind == "chat":
                lenient = make_provider(kind, srv, compat="lenient")
                runs["lenient"] = lambda: provider_stream(lenient)  # noqa: B023
            for run in runs.values():
                await run()  # warm-up: imports, pooled connection
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
            for _ in range(rounds):
                for name, run in runs.items():
                    samples[name].append(await timed(run()))
            await client.close()
            await provider.aclose()
            await via_sdk.aclose()
            await via_httpx.aclose()
            stats: Stats = {}
            for name, values in samples.items():
                stats[f"{name}_wall"] = statistics.median(w for w, _ in values)
                stats[f"{name}_cpu"] = statistics.median(c for _, c in values)
            results[kind] = stats
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deltas", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    results = asyncio.run(bench(args.deltas, args.rounds))
    print(f"{args.deltas} text deltas (+200 tool-input deltas), median of {args.rounds} alternating runs")
    print(
        f"{'provider':<10} {'raw wall':>9} {'skawld wall':>12} {'ratio':>6}   {'raw cpu':>8} {'raw-json cpu':>13}"
        f" {'skawld cpu':>11} {'skawld/raw':>11} {'skawld/raw-json':>16}"
    )
    worst = 0.0
    for kind, r in results.items():
        cpu_ratio = r["skawld_cpu"] / r["raw_cpu"]
        worst = max(worst, cpu_ratio)
        print(
            f"{kind:<10} {r['raw_wall']:>8.3f}s {r['skawld_wall']:>11.3f}s {r['skawld_wall'] / r['raw_wall']:>6.3f}"
            f"   {r['raw_cpu']:>7.3f}s {r['raw-json_cpu']:>12.3f}s {r['skawld_cpu']:>10.3f}s {cpu_ratio:>11.3f}"
            f" {r['skawld_cpu'] / r['raw-json_cpu']:>16.3f}"
        )
    print(f"worst skawld/raw CPU ratio {worst:.3f} (goal < 1.10): {'OK' if worst < 1.10 else 'OVER'}")
    print("transport: CPU of the HTTP transport (asyncio / httpx2) vs the SDK transport (same provider, same mapping)")
    for kind, r in results.items():
        print(
            f"  {kind:<10} http {r['skawld_cpu']:.3f}s  httpx {r['skawld-httpx_cpu']:.3f}s  sdk {r['skawld-sdk_cpu']:.3f}s  "
            f"http/httpx {r['skawld_cpu'] / r['skawld-httpx_cpu']:.3f}  http/sdk {r['skawld_cpu'] / r['skawld-sdk_cpu']:.3f}"
        )
    chat = results["chat"]
    lenient_ratio = chat["lenient_cpu"] / chat["skawld_cpu"]
    print(
        f"lenient dialect: {chat['lenient_cpu']:.3f}s vs strict {chat['skawld_cpu']:.3f}s CPU = "
        f"{lenient_ratio:.3f}x (goal < 1.05): {'OK' if lenient_ratio < 1.05 else 'OVER'}"
    )


if __name__ == "__main__":
    main()
