"""Provider overhead benchmark.

A 10,000-delta stream from the local `WireServer` is consumed (a) by the raw SDK
iterating the same stream and (b) through each skawld provider, in the same run,
alternating, best-of-N. Prints the ratio provider / raw SDK (goal: < 1.10).

    python bench/provider.py [--deltas 10000] [--rounds 7]
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
            await raw_stream(kind, client)  # warm-up: imports, pooled connection
            await provider_stream(provider)
            raw: list[tuple[float, float]] = []
            prov: list[tuple[float, float]] = []
            for _ in range(rounds):
                raw.append(await timed(raw_stream(kind, client)))
                prov.append(await timed(provider_stream(provider)))
            await client.close()
            await provider.aclose()
            results[kind] = {
                "raw_wall": statistics.median(w for w, _ in raw),
                "prov_wall": statistics.median(w for w, _ in prov),
                "raw_cpu": statistics.median(c for _, c in raw),
                "prov_cpu": statistics.median(c for _, c in prov),
            }
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deltas", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    results = asyncio.run(bench(args.deltas, args.rounds))
    print(f"{args.deltas} text deltas (+200 tool-input deltas), median of {args.rounds} alternating runs")
    print(
        f"{'provider':<10} {'raw wall':>9} {'skawld wall':>12} {'ratio':>6}   {'raw cpu':>8} {'skawld cpu':>11} {'ratio':>6}"
    )
    worst = 0.0
    for kind, r in results.items():
        wall_ratio = r["prov_wall"] / r["raw_wall"]
        cpu_ratio = r["prov_cpu"] / r["raw_cpu"]
        worst = max(worst, cpu_ratio)
        print(
            f"{kind:<10} {r['raw_wall']:>8.3f}s {r['prov_wall']:>11.3f}s {wall_ratio:>6.3f}"
            f"   {r['raw_cpu']:>7.3f}s {r['prov_cpu']:>10.3f}s {cpu_ratio:>6.3f}"
        )
    print(f"worst CPU ratio {worst:.3f} (goal < 1.10): {'OK' if worst < 1.10 else 'OVER'}")


if __name__ == "__main__":
    main()
