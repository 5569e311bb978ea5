"""skawld_core's models build on first use, once, also when threads race to use them."""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import Literal

from pydantic import ConfigDict, ValidationError

from skawld_core.model_base import SkawldModel

CHECK_IMPORT = """
import sys
import skawld_core, skawld_core.config, skawld_core.tools, skawld_core.agent
from pydantic import BaseModel
built = sorted(
    f"{name}.{v.__name__}"
    for name, m in list(sys.modules.items()) if name.startswith("skawld_core")
    for v in vars(m).values()
    if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == name and v.__pydantic_complete__
)
print(" ".join(built))
"""


def test_importing_the_sdk_builds_no_model_schema() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK_IMPORT], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []


def test_a_deferred_model_validates_and_serializes_like_an_eager_one() -> None:
    class Item(SkawldModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        kind: Literal["item"] = "item"
        count: int
        child: Item | None = None

    assert not Item.__pydantic_complete__
    item = Item.model_validate({"count": "2", "child": {"count": 1}})
    assert item.child == Item(count=1) and item.count == 2
    assert item.model_dump_json(exclude_none=True) == '{"kind":"item","count":2,"child":{"kind":"item","count":1}}'
    try:
        Item(count=1, extra=True)  # type: ignore[call-arg]
    except ValidationError as exc:
        assert exc.errors()[0]["type"] == "extra_forbidden"
    else:
        raise AssertionError("extra='forbid' was not applied")


def test_threads_that_first_use_a_model_together_all_get_a_correct_validator() -> None:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: widen every race window
    try:
        _race_rounds()
    finally:
        sys.setswitchinterval(old)


def _race_rounds() -> None:
    for _ in range(20):  # each round, fresh classes that nobody has built yet

        class Base(SkawldModel):
            model_config = ConfigDict(extra="allow")
            name: str = ""

        class Strict(Base):
            model_config = ConfigDict(extra="forbid")
            size: int

        Base(name="built")  # the parent is built, the child is not (pydantic#13419's case)
        start = threading.Barrier(8)
        errors: list[BaseException] = []

        def first_use(
            strict: type[Strict] = Strict, start: threading.Barrier = start, errors: list[BaseException] = errors
        ) -> None:
            start.wait()
            try:
                assert strict(size="3").size == 3
                try:
                    strict(size=1, other=1)  # type: ignore[call-arg]
                except ValidationError:
                    return
                raise AssertionError("the parent's validator (extra='allow') was used")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=first_use) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
