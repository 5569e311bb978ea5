"""The SessionStore conformance suite, run against both bundled stores
(SQLite on real files in tmp_path)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from skawld_core.sessions import InMemorySessionStore, SessionStore
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.testing.conformance import (
    CONFORMANCE_CHECKS,
    ConformanceCheck,
    run_session_store_check,
    run_session_store_conformance,
)

StoreMaker = Callable[[], SessionStore]


@pytest.fixture(params=["memory", "sqlite"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreMaker:
    counter = iter(range(1_000_000))
    if request.param == "memory":
        return InMemorySessionStore
    return lambda: SqliteSessionStore(tmp_path / f"db{next(counter)}" / "sessions.db")


def test_suite_is_not_empty() -> None:
    names = [name for name, _ in CONFORMANCE_CHECKS]
    assert len(names) >= 25
    assert len(set(names)) == len(names)
    assert "cycle_raises_and_leaves_state_unchanged" in names


@pytest.mark.parametrize(("name", "check"), CONFORMANCE_CHECKS, ids=[name for name, _ in CONFORMANCE_CHECKS])
async def test_conformance(name: str, check: ConformanceCheck, make_store: StoreMaker) -> None:
    await run_session_store_check(name, check, make_store)


async def test_runner_accepts_async_factory(tmp_path: Path) -> None:
    async def factory() -> SessionStore:
        return InMemorySessionStore()

    await run_session_store_conformance(factory)


class _ForgetfulStore(InMemorySessionStore):
    """A broken store: update_meta replaces instead of merging."""

    async def update_meta(self, id: str, meta: object) -> object:  # type: ignore[override]
        record = await super().load(id)
        if record is None:
            return await super().update_meta(id, {})
        self._sessions[id].record = record.model_copy(update={"meta": dict(meta)})  # type: ignore[call-overload]
        return record


async def test_runner_reports_the_failing_check_by_name() -> None:
    with pytest.raises(AssertionError, match=r"\[update_meta_merges\].*shallow-merge"):
        await run_session_store_check(
            "update_meta_merges", dict(CONFORMANCE_CHECKS)["update_meta_merges"], _ForgetfulStore
        )
